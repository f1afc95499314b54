"""Processes (kubewin_sim/windows/processes.py), the kubeadm.exe program model, and kubeadm_join.ps1.

kubeadm_join.ps1 includes lib/state, which includes the libs of other areas (files, services, hns...)
not all runnable in the engine yet. Here its include line is replaced with stand-ins for the three
functions it calls (New-KubeWinDirectory, Write-KubeWinTextFile, Get-KubeWinNodeState), and the file
cmdlets it calls (Test-Path, Get-Content, Remove-Item, Set-Content) are test-only cmdlets over the
node's files until the file-system area models them: everything else - Start-Process, the Process
object, kubeadm.exe - is the Windows model.
"""

import json
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.node import SimNode, initial_state  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh import run_command  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.commands import Cmdlet  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.pwsh.values import SecureString, to_string  # noqa: E402  pylint: disable=wrong-import-position
from kubewin_sim.windows import WindowsHost, processes  # noqa: E402  pylint: disable=wrong-import-position

KUBEADM = 'C:\\k\\kubeadm.exe'
KUBECONFIG = 'C:\\etc\\kubernetes\\kubelet.conf'
FLAGS = 'C:\\var\\lib\\kubelet\\kubeadm-flags.env'
TOKEN = 'abcdef.0123456789abcdef'
JOIN_CONFIGURATION = ('apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery:\n  bootstrapToken:\n'
                      '    apiServerEndpoint: 10.0.0.2:6443\n    token: %s\n    unsafeSkipCAVerification: true\n'
                      'nodeRegistration:\n  name: win1\n  criSocket: npipe:////./pipe/containerd-containerd\n' % TOKEN)


# -- test-only file cmdlets (the file-system area replaces them) --------------------------------------

def _test_path(ctx, params, input_items):
    path = to_string(params['LiteralPath'])
    return [ctx.host.node.file(path) is not None or ctx.host.node.is_directory(path)]


def _get_content(ctx, params, input_items):
    return [ctx.host.node.file(to_string(params['LiteralPath']))['content']]


def _remove_item(ctx, params, input_items):
    ctx.host.node.remove_file(to_string(params['LiteralPath']))
    return []


def _set_content(ctx, params, input_items):
    ctx.host.node.write_file(to_string(params['LiteralPath']), content=to_string(params['Value']))
    return []


FILE_CMDLETS = {'Test-Path': _test_path, 'Get-Content': _get_content, 'Remove-Item': _remove_item, 'Set-Content': _set_content}

STAND_INS = r'''
$KubeWinHome = 'C:\ProgramData\kubewin'
function New-KubeWinDirectory {
    param([string]$Path, [string]$Profile)
}
function Write-KubeWinTextFile {
    param([string]$Path, [string]$Text)
    Set-Content -LiteralPath $Path -Value $Text -NoNewline
}
function Get-KubeWinNodeState {
    param([string[]]$Sections, [string[]]$Files, [string[]]$Contents)
    $state = [ordered]@{ sections = @($Sections); files = [ordered]@{}; contents = [ordered]@{} }
    foreach ($path in $Files) { $state.files[$path] = [ordered]@{ exists = (Test-Path -LiteralPath $path) } }
    foreach ($path in $Contents) {
        $state.contents[$path] = [ordered]@{ exists = $true; text = (Get-Content -LiteralPath $path -Raw) }
    }
    return $state
}
$Ansible = [pscustomobject]@{ Result = $null }
'''


def run(node, text, parameters=None):
    host = WindowsHost(node)
    commands = host.commands()
    commands.update({name.lower(): Cmdlet(name, function) for name, function in FILE_CMDLETS.items()})
    token = processes.CURRENT_HOST.set(host)
    try:
        outcome = run_command(text, parameters=parameters, host=host, commands=commands)
    finally:
        processes.CURRENT_HOST.reset(token)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


def ok(node, text):
    outcome = run(node, text)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    return outcome.output


def fresh_node(kubelet=True):
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.write_file(KUBEADM, sha256='0' * 64, size=48 * 1024 ** 2)
    node.write_file('C:\\k\\kubelet.exe', sha256='1' * 64, size=48 * 1024 ** 2)
    if kubelet:
        node.data['services']['kubelet'] = {
            'name': 'kubelet', 'exists': True, 'display_name': 'kubelet', 'description': '', 'state': 'stopped',
            'start_mode': 'auto', 'dependencies': [], 'environment': {}, 'account': 'LocalSystem', 'recovery': None,
            'exit_code': 0, 'nssm': None,
            'command_line': 'C:\\k\\kubelet.exe --kubeconfig=%s --bootstrap-kubeconfig=C:\\etc\\kubernetes\\bootstrap-kubelet.conf '
                            '--config=C:\\var\\lib\\kubelet\\config.yaml' % KUBECONFIG}
    return node


START = ("$p = Start-Process -FilePath %s -ArgumentList @('join', '--config', '\"C:\\j\\c.yaml\"') -NoNewWindow -PassThru "
         "-RedirectStandardOutput C:\\j\\out -RedirectStandardError C:\\j\\err\n" % KUBEADM)


def with_config(node, text=JOIN_CONFIGURATION):
    node.write_file('C:\\j\\c.yaml', content=text)
    return node


# -- Start-Process and System.Diagnostics.Process ------------------------------------------------------

def test_passthru_returns_a_process_that_runs_until_waited_for():
    out = ok(with_config(fresh_node()), START + "$p -is [System.Diagnostics.Process]; $p.HasExited; $p.WaitForExit(1000); "
                                                "$p.HasExited; $p.WaitForExit(600000); $p.HasExited; $p.Id -gt 0")
    assert out == ['True', 'False', 'False', 'False', 'True', 'True', 'True']


def test_exit_code_stays_null_without_the_handle_on_5_1():
    # PowerShell/PowerShell#5421: -NoNewWindow / -RedirectStandard* and no -Wait: ExitCode is $null after exit.
    node = with_config(fresh_node())
    assert ok(node, START + "$null = $p.WaitForExit(600000); $null -eq $p.ExitCode") == ['True']
    assert ok(node, START + "$null = $p.Handle; $null = $p.WaitForExit(600000); $p.ExitCode") == ['0']
    # Reading the handle after the exit is too late.
    assert ok(node, START + "$null = $p.WaitForExit(600000); $null = $p.Handle; $null -eq $p.ExitCode") == ['True']


@pytest.mark.parametrize('switches, code', [('-Wait', '0'), ('', '0'), ('-NoNewWindow -Wait', '0')])
def test_exit_code_with_wait_or_a_new_window(switches, code):
    out = ok(with_config(fresh_node()), "$p = Start-Process %s -ArgumentList 'join', '--config', 'C:\\j\\c.yaml' -PassThru %s\n"
                                        "$null = $p.WaitForExit(600000); $p.ExitCode" % (KUBEADM, switches))
    assert out == [code]


def test_redirected_output_goes_to_the_files_and_kill_ends_the_process():
    node = fresh_node(kubelet=False)
    with_config(node)
    out = ok(node, START + "$null = $p.Handle; $p.WaitForExit(10); $p.Kill(); $p.HasExited; $p.ExitCode")
    assert out == ['False', 'True', '-1']
    assert 'error execution phase kubelet-start' in node.file('C:\\j\\err')['content']
    assert node.file('C:\\j\\out')['content'].startswith('[preflight] Running pre-flight checks\r\n')


def test_a_missing_program_cannot_be_started():
    outcome = run(fresh_node(), "Start-Process -FilePath C:\\k\\nope.exe -PassThru; 'after'")
    assert outcome.output == ['after']
    assert outcome.errors == ['This command cannot be run due to the error: The system cannot find the file specified.']


def test_process_start_with_start_info_reads_standard_output():
    node = with_config(fresh_node())
    out = ok(node, "$i = New-Object -TypeName System.Diagnostics.ProcessStartInfo\n"
                   "$i.FileName = '%s'; $i.Arguments = 'join --config C:\\j\\c.yaml'; $i.RedirectStandardOutput = $true\n"
                   "try { $null = [Diagnostics.Process]::Start($i) } catch { $_.Exception.Message }\n"
                   "$i.UseShellExecute = $false\n"
                   "$p = [Diagnostics.Process]::Start($i); $text = $p.StandardOutput.ReadToEnd(); $p.WaitForExit()\n"
                   "$p.ExitCode; $text -match 'This node has joined the cluster'; $null -eq $p.StandardError" % KUBEADM)
    assert out == ['Exception calling "Start" with "1" argument(s): "The Process object must have the UseShellExecute '
                   'property set to false in order to redirect IO streams."', '0', 'True', 'True']
    assert node.file(KUBECONFIG) is not None and node.data['joined_as'] == 'win1'


def test_get_process_lists_running_programs_and_reports_a_missing_name():
    node = with_config(fresh_node())
    node.data['services']['kubelet']['state'] = 'running'
    out = ok(node, START + "(Get-Process -Name kube*).ProcessName -join ','\n"
                           "$null = $p.WaitForExit(600000); (Get-Process -Name kube*).ProcessName -join ','")
    assert out == ['kubelet,kubeadm', 'kubelet']
    outcome = run(node, "Get-Process -Name nope; 'after'")
    assert outcome.output == ['after']
    assert outcome.errors == ['Cannot find a process with the name "nope". Verify the process name and call the cmdlet again.']


# -- kubeadm.exe --------------------------------------------------------------------------------------

@pytest.mark.parametrize('config, message', [
    (None, 'unable to read config from'),
    ('apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n', 'no JoinConfiguration'),
    ('apiVersion: kubeadm.k8s.io/v1beta3\nkind: JoinConfiguration\ndiscovery: {}\n', 'bootstrapToken or file must be set'),
])
def test_kubeadm_refuses_a_config_without_a_join_configuration_and_token(config, message):
    node = fresh_node()
    if config is not None:
        with_config(node, config)
    out = ok(node, START + "$null = $p.Handle; $null = $p.WaitForExit(600000); $p.ExitCode")
    assert out == ['1'] and message in node.file('C:\\j\\err')['content']
    assert node.file(KUBECONFIG) is None


# -- kubeadm_join.ps1 -----------------------------------------------------------------------------------

def join_script():
    with open(os.path.join(ROOT, 'plugins', 'plugin_utils', 'scripts', 'kubeadm_join.ps1'), encoding='utf-8') as handle:
        text = handle.read()
    return text.replace('# kubewin-include: state', STAND_INS) + '\n$Ansible.Result\n'


# The script's only files of its own: the JoinConfiguration (it holds the token) and kubeadm's redirected output.
JOIN_FILES = ['C:\\ProgramData\\kubewin\\join\\join-configuration.yaml' + suffix for suffix in ('', '.out', '.err')]


def leftovers(node):
    return [path for path in JOIN_FILES if node.file(path) is not None]


def join(node, configuration=JOIN_CONFIGURATION):
    return run(node, join_script(), {'KubeadmPath': KUBEADM, 'JoinConfiguration': SecureString(configuration),
                                     'KubeletKubeconfig': KUBECONFIG, 'KubeadmFlagsFile': FLAGS, 'TimeoutSeconds': 600})


def test_a_successful_join_is_reported_as_joined():
    # Before the fix the script read ExitCode without the process handle: $null -ne 0, so a join that
    # succeeded was reported as "kubeadm join failed with exit code : ".
    node = fresh_node()
    outcome = join(node)
    assert (outcome.exit_code, outcome.errors) == (0, []), outcome
    state = json.loads(outcome.output[-1])['state']
    assert state['files'][KUBECONFIG]['exists'] is True
    assert 'containerd-containerd' in state['contents'][FLAGS]['text']
    # The config file holding the token and kubeadm's output files are gone.
    assert leftovers(node) == []


def test_the_join_leaves_what_kubeadm_writes_and_a_running_kubelet():
    # kubeadm.exe's model (windows/kubeadm.py) writes the kubelet's configuration, flags, bootstrap
    # kubeconfig and the cluster CA, starts the kubelet, and the kubelet's TLS bootstrap writes its
    # certificates and kubelet.conf; kubeadm then removes the bootstrap kubeconfig (kubernetes/kubernetes,
    # cmd/kubeadm/app/cmd/phases/join/kubelet.go).
    node = fresh_node()
    kubelet = dict(node.data['services']['kubelet'])
    assert join(node).exit_code == 0
    assert {path: node.content_view(path)['text'] for path in (
        'C:\\var\\lib\\kubelet\\config.yaml', FLAGS, 'C:\\etc\\kubernetes\\pki\\ca.crt', KUBECONFIG)} == {
        'C:\\var\\lib\\kubelet\\config.yaml': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
        FLAGS: 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=npipe:////./pipe/containerd-containerd"\n',
        'C:\\etc\\kubernetes\\pki\\ca.crt': '(cluster CA)\n',
        KUBECONFIG: '(kubelet kubeconfig of win1: client-certificate and client-key '
                    'C:\\var\\lib\\kubelet\\pki\\kubelet-client-current.pem)\n'}
    assert node.file('C:\\etc\\kubernetes\\bootstrap-kubelet.conf') is None
    pki = sorted(path.rsplit('\\', 1)[1] for path in node.file_paths() if path.startswith('C:\\var\\lib\\kubelet\\pki\\'))
    assert pki[1:] == ['kubelet-client-current.pem', 'kubelet.crt', 'kubelet.key']
    assert re.fullmatch(r'kubelet-client-\d{4}(-\d\d){5}\.pem', pki[0]), pki
    # Written as the kubelet writes them: nothing sets their ACL, each inherits its folder's.
    assert {node.file(path)['acl'] for path in node.file_paths() if '\\pki\\' in path or path == KUBECONFIG} == {'inherited'}
    assert leftovers(node) == []
    assert node.data['services'] == {'kubelet': dict(kubelet, state='running', starts=1)}
    assert node.data['joined_as'] == 'win1'


def test_a_failed_join_reports_kubeadm_errors_without_the_token():
    node = fresh_node()
    node.data['profile']['kubeadm_join_fails'] = 'token %s was rejected' % TOKEN
    outcome = join(node)
    assert outcome.exit_code == 1
    assert outcome.errors == ['kubeadm join failed with exit code 1: error execution phase preflight: token <token> was '
                              'rejected | To see the stack trace of this error execute with --v=5 or higher']
    assert leftovers(node) == []


def test_a_join_that_outlasts_the_timeout_is_killed():
    node = fresh_node()
    outcome = run(node, join_script(), {'KubeadmPath': KUBEADM, 'JoinConfiguration': SecureString(JOIN_CONFIGURATION),
                                        'KubeletKubeconfig': KUBECONFIG, 'KubeadmFlagsFile': FLAGS, 'TimeoutSeconds': 1})
    assert outcome.exit_code == 1 and outcome.errors == ['kubeadm join did not finish within 1 s']
    assert leftovers(node) == []


def test_kubeadm_without_a_known_command_fails():
    node = fresh_node()
    out = ok(node, "$p = Start-Process -FilePath %s -ArgumentList 'upgrade' -PassThru -Wait; $p.ExitCode" % KUBEADM)
    assert out == ['1']


def test_a_kubelet_that_cannot_start_fails_the_join_in_kubelet_start():
    node = with_config(fresh_node())
    node.data['services']['kubelet']['start_mode'] = 'disabled'
    out = ok(node, START + "$null = $p.Handle; $null = $p.WaitForExit(600000); $p.ExitCode")
    assert out == ['1'] and 'error execution phase kubelet-start: ' in node.file('C:\\j\\err')['content']


# -- token discovery against a simulated cluster ----------------------------------------------------------------------
# kubeadm trusts cluster-info through the bootstrapsigner's signature for its token id; an expired token (deleted by the
# tokencleaner) or a deleted one has none (cmd/kubeadm/app/discovery/token/token.go, kubernetes/kubernetes;
# "Authenticating with Bootstrap Tokens", kubernetes.io).

def cluster_with_token(state_dir, monkeypatch, token=TOKEN, expiration='2999-01-01T00:00:00Z'):
    from kubewin_sim import cluster as sim_cluster  # pylint: disable=import-outside-toplevel
    monkeypatch.setenv('KUBEWIN_SIM_STATE_DIR', str(state_dir))
    token_id, secret = token.split('.')
    with sim_cluster.open_cluster(str(state_dir), profile={}) as cluster:
        cluster.create({'apiVersion': 'v1', 'kind': 'Secret', 'type': 'bootstrap.kubernetes.io/token',
                        'metadata': {'name': 'bootstrap-token-' + token_id, 'namespace': 'kube-system'},
                        'stringData': {'token-id': token_id, 'token-secret': secret, 'expiration': expiration,
                                       'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true'}})
    return sim_cluster


def test_the_join_discovers_the_cluster_with_a_valid_token(tmp_path, monkeypatch):
    cluster_with_token(tmp_path, monkeypatch)
    node = fresh_node()
    assert join(node).exit_code == 0
    assert node.data['joined_as'] == 'win1'


@pytest.mark.parametrize('how', ['expired', 'deleted'])
def test_a_token_that_expired_or_was_deleted_is_refused_in_preflight(tmp_path, monkeypatch, how):
    sim_cluster = cluster_with_token(tmp_path, monkeypatch)
    with sim_cluster.open_cluster(str(tmp_path)) as cluster:
        if how == 'expired':
            cluster.expire_bootstrap_tokens()
        else:
            cluster.delete('Secret', 'kube-system', 'bootstrap-token-abcdef')
    node = fresh_node()
    before = json.dumps(node.data['services'], sort_keys=True)
    outcome = join(node)
    assert outcome.exit_code == 1
    assert outcome.errors == ['kubeadm join failed with exit code 1: error execution phase preflight: couldn\'t validate '
                              'the identity of the API Server: could not find a JWS signature in the cluster-info '
                              'ConfigMap for token ID "abcdef" | To see the stack trace of this error execute with --v=5 '
                              'or higher']
    # Refused before kubelet-start: no kubelet file written, the kubelet not touched.
    assert json.dumps(node.data['services'], sort_keys=True) == before
    assert node.file(FLAGS) is None and node.file(KUBECONFIG) is None
    assert leftovers(node) == []


def test_a_token_whose_secret_does_not_verify_the_signature_is_refused(tmp_path, monkeypatch):
    cluster_with_token(tmp_path, monkeypatch, token='abcdef.ffffffffffffffff')
    outcome = join(fresh_node())
    assert outcome.exit_code == 1
    assert "failed to verify JWS signature of received cluster info object, can't trust this API Server" in outcome.errors[0]
