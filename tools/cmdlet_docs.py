"""Build tests/simulation/kubewin_sim/pwsh/cmdlet_sets/*.json from Microsoft's cmdlet reference pages.

Reads the markdown of the reference pages (platyPS format) from local git snapshots of
MicrosoftDocs/PowerShell-Docs (reference/5.1: Windows PowerShell 5.1) and
MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps) and keeps only the binding facts:
parameter sets (SYNTAX headings, "(Default)"), and per parameter the YAML block of PARAMETERS
(Type, Parameter Sets, Aliases, Required, Position, Accept pipeline input, Accepted values). No description text.
The JSON it writes is the test data; this tool is not needed at test time.

It also writes tests/simulation/kubewin_sim/pwsh/cmdlet_names.json: the name of every cmdlet and function the two
references document, by module (a page named Verb-Noun.md in a module's folder of reference/5.1 or
docset/winserver2022-ps). The engine refuses a call of one it does not model as Unsupported, not CommandNotFound
(commands.py).

Usage: cmdlet_docs.py POWERSHELL_DOCS_GIT_DIR WINDOWS_DOCS_GIT_DIR
Prints every inconsistency between a page's SYNTAX and its PARAMETERS blocks.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'tests', 'simulation', 'kubewin_sim', 'pwsh', 'cmdlet_sets')
PS_REPO = 'MicrosoftDocs/PowerShell-Docs'
WIN_REPO = 'MicrosoftDocs/windows-powershell-docs'
ALL_SETS = '__AllParameterSets'
# Parameters the engine adds to a cmdlet that declares SupportsShouldProcess / SupportsTransactions:
# they are not declared parameters, which matters for prefix matching (MergedCommandParameterMetadata).
ADDED = {'WhatIf': 'should_process', 'Confirm': 'should_process', 'UseTransaction': 'transaction'}

MODULES = {
    # module: (repository, folder, cmdlets)
    'Microsoft.PowerShell.Core': (PS_REPO, 'reference/5.1/Microsoft.PowerShell.Core', [
        'ForEach-Object', 'Get-Command', 'Out-Null', 'Where-Object']),
    'Microsoft.PowerShell.Management': (PS_REPO, 'reference/5.1/Microsoft.PowerShell.Management', [
        'Add-Content', 'Get-ChildItem', 'Get-Content', 'Get-Item', 'Get-ItemProperty', 'Get-Process', 'Get-Service',
        'Join-Path', 'Move-Item', 'New-Item', 'New-ItemProperty', 'New-Service', 'Remove-Item', 'Remove-ItemProperty',
        'Restart-Service', 'Set-Content', 'Set-Service', 'Split-Path', 'Start-Process', 'Start-Service', 'Stop-Service',
        'Test-Path']),
    'Microsoft.PowerShell.Utility': (PS_REPO, 'reference/5.1/Microsoft.PowerShell.Utility', [
        'Add-Member', 'Add-Type', 'ConvertFrom-Json', 'ConvertTo-Json', 'Get-Culture', 'Get-Date', 'Get-FileHash', 'Group-Object',
        'Invoke-WebRequest',
        'Measure-Object', 'New-Object', 'Out-File', 'Out-String', 'Select-Object', 'Sort-Object', 'Start-Sleep',
        'Write-Debug', 'Write-Error', 'Write-Host', 'Write-Information', 'Write-Output', 'Write-Verbose', 'Write-Warning']),
    'Microsoft.PowerShell.Security': (PS_REPO, 'reference/5.1/Microsoft.PowerShell.Security', [
        'Get-Acl', 'Get-ExecutionPolicy', 'Set-Acl']),
    'Microsoft.PowerShell.Diagnostics': (PS_REPO, 'reference/5.1/Microsoft.PowerShell.Diagnostics', ['Get-WinEvent']),
    'CimCmdlets': (PS_REPO, 'reference/5.1/CimCmdlets', ['Get-CimInstance', 'Invoke-CimMethod']),
    'NetAdapter': (WIN_REPO, 'docset/winserver2022-ps/NetAdapter', ['Get-NetAdapter']),
    'NetTCPIP': (WIN_REPO, 'docset/winserver2022-ps/NetTCPIP', [
        'Find-NetRoute', 'Get-NetIPAddress', 'Get-NetIPInterface', 'Get-NetRoute', 'New-NetIPAddress', 'New-NetRoute',
        'Remove-NetIPAddress', 'Remove-NetRoute', 'Set-NetIPInterface']),
    'Defender': (WIN_REPO, 'docset/winserver2022-ps/Defender', [
        'Add-MpPreference', 'Get-MpComputerStatus', 'Get-MpPreference', 'Remove-MpPreference']),
    'DnsClient': (WIN_REPO, 'docset/winserver2022-ps/DnsClient', ['Get-DnsClientServerAddress', 'Set-DnsClientServerAddress']),
    'NetSecurity': (WIN_REPO, 'docset/winserver2022-ps/NetSecurity', [
        'Get-NetFirewallAddressFilter', 'Get-NetFirewallPortFilter', 'Get-NetFirewallRule', 'New-NetFirewallRule',
        'Remove-NetFirewallRule', 'Set-NetFirewallRule']),
    'Hyper-V': (WIN_REPO, 'docset/winserver2022-ps/Hyper-V', [
        'Disable-VMSwitchExtension', 'Enable-VMSwitchExtension', 'Get-VMSwitch', 'Get-VMSwitchExtension']),
    'ServerManager': (WIN_REPO, 'docset/winserver2022-ps/ServerManager', ['Get-WindowsFeature']),
    'International': (WIN_REPO, 'docset/winserver2022-ps/International', ['Set-Culture']),
    'RemoteAccess': (WIN_REPO, 'docset/winserver2022-ps/RemoteAccess', ['Get-RemoteAccess', 'Install-RemoteAccess']),
    'ScheduledTasks': (WIN_REPO, 'docset/winserver2022-ps/ScheduledTasks', [
        'Get-ScheduledTask', 'New-ScheduledTaskAction', 'New-ScheduledTaskPrincipal', 'New-ScheduledTaskTrigger',
        'Register-ScheduledTask', 'Unregister-ScheduledTask']),
}


def git(gitdir, *args):
    return subprocess.run(['git', '-C', gitdir] + list(args), check=True, capture_output=True, text=True).stdout


def section(text, title):
    match = re.search(r'^## %s\s*$(.*?)(?=^## )' % re.escape(title), text, re.M | re.S)
    return match.group(1) if match else ''


def short_type(doc_type):
    """System.Management.Automation.SwitchParameter -> SwitchParameter (namespaces dropped, generics kept)."""
    return re.sub(r'\b(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_])', '', doc_type.strip())


def parse_syntax(text):
    """[(set name, is default, parameter names in its syntax lines)]; an unnamed or "All" block is the all-set.

    Provider cmdlets have one block per provider ("Path (Default) - FileSystem provider"): the set is
    the same, the provider only adds dynamic parameters, so the blocks are merged.
    """
    found = {}
    providers = {}
    syntax = section(text, 'SYNTAX')
    for match in re.finditer(r'(?:^###\s+(.+?)\s*$\s*)?^```\w*\s*$(.*?)^```', syntax, re.M | re.S):
        heading, body = match.group(1) or '', match.group(2)
        default = '(Default)' in heading
        provider = re.search(r'\s-\s+(\w+) providers?$', heading)
        name = re.sub(r'\s+-\s+.*providers?$', '', heading.replace('(Default)', '')).strip()
        name = ALL_SETS if name in ('', 'All') else name
        names = re.findall(r'(?<=[\s\[])-(\w+)\b', body)
        old = found.get(name, (False, []))
        found[name] = (old[0] or default, old[1] + [n for n in names if n not in old[1]])
        for pname in names:
            providers.setdefault(pname, set()).add(provider.group(1) if provider else 'All')
    return [(name, default, names) for name, (default, names) in found.items()], providers


def parse_yaml(block):
    fields = {}
    for line in block.splitlines():
        key, sep, value = line.partition(':')
        if sep:
            fields[key.strip()] = value.strip()
    return fields


def set_entry(fields, where):
    position = fields.get('Position', 'Named')
    pipeline = fields.get('Accept pipeline input', 'False')
    # One page (New-Item -UseSSL) writes 'ByValue (False), ByName (False)' for False.
    pipeline = 'False' if pipeline == 'ByValue (False), ByName (False)' else pipeline
    if not re.match(r'^(Named|\d+)$', position) or not re.match(r'^(False|True(\s*\((ByValue|ByPropertyName)(, *(ByValue|ByPropertyName))?\))?)$', pipeline):
        print('%s: unexpected Position %r or pipeline input %r' % (where, position, pipeline))
    return {
        'mandatory': fields.get('Required', 'False').startswith('True'),
        'position': None if position == 'Named' else int(position),
        'value_from_pipeline': 'ByValue' in pipeline or pipeline == 'True',
        'value_from_pipeline_by_property_name': 'ByPropertyName' in pipeline,
    }


def parse_parameter(name, body, sets, providers, where):
    """The table entry of one PARAMETERS heading: its YAML blocks (one per set when they differ)."""
    entry = {'type': None, 'aliases': [], 'sets': {}}
    for block in re.findall(r'^```yaml\s*$(.*?)^```', body, re.M | re.S):
        fields = parse_yaml(block)
        entry['type'] = short_type(fields.get('Type', ''))
        # Write-Host's page writes "Aliases: []" for none.
        entry['aliases'] = [a.strip() for a in fields.get('Aliases', '').strip('[]').split(',') if a.strip()]
        # Enum and ValidateSet parameters list their values; a parameter has one list whatever the set.
        accepted = [v.strip() for v in fields.get('Accepted values', '').split(',') if v.strip()]
        if accepted:
            entry['accepted_values'] = accepted
        # A few pages give Required per set in one block: "True (pathSet), False (nameSet)".
        required = {}
        for value, names in re.findall(r'(True|False) \(([^)]*)\)', fields.get('Required', '')):
            required.update((n.strip(), value) for n in names.split(','))
        listed = [n.strip() for n in fields.get('Parameter Sets', '(All)').split(',')]
        for set_name in listed + [n for n in required if n not in listed]:
            set_name = ALL_SETS if set_name in ('(All)', 'All') else set_name
            if set_name in required:
                fields = dict(fields, Required=required[set_name])
                if set_name not in listed:
                    print('%s: -%s is Required in set %r that its Parameter Sets line omits' % (where, name, set_name))
            if set_name != ALL_SETS and set_name not in sets:
                print('%s: -%s names parameter set %r that SYNTAX does not have' % (where, name, set_name))
                sets.append(set_name)
            entry['sets'][set_name] = set_entry(fields, '%s -%s' % (where, name))
    # A parameter that only the FileSystem (or Certificate, WSMan) provider's syntax shows is a
    # dynamic parameter of that provider: it exists only when the path is on that provider's drive.
    shown = providers.get(name, {'All'})
    if 'All' not in shown:
        entry['providers'] = sorted(shown)
    return entry


def parse_page(text, where):
    syntax, providers = parse_syntax(text)
    sets = [entry[0] for entry in syntax]
    defaults = [entry[0] for entry in syntax if entry[1]]
    cmdlet = {'parameter_sets': sets, 'default_parameter_set': defaults[0] if defaults else None,
              'supports_should_process': False, 'supports_transactions': False, 'parameters': {}}
    for match in re.finditer(r'^### -(\w+)\s*$(.*?)(?=^### |\Z)', section(text, 'PARAMETERS'), re.M | re.S):
        name, body = match.group(1), match.group(2)
        if name in ADDED:
            cmdlet['supports_should_process' if ADDED[name] == 'should_process' else 'supports_transactions'] = True
        else:
            cmdlet['parameters'][name] = parse_parameter(name, body, sets, providers, where)
    # A page that gives two parameters one position in a set (Register-ScheduledTask: -User and -Trigger at 3,
    # -Password and -Settings at 4) cannot be bound positionally as written: those parameters are taken as
    # named only, so a script that relies on their position fails rather than binds a guess.
    taken = {}
    for pname, entry in cmdlet['parameters'].items():
        for set_name, data in entry['sets'].items():
            if data['position'] is not None:
                taken.setdefault((set_name, data['position']), []).append(pname)
    for (set_name, position), names in sorted(taken.items()):
        if len(names) > 1:
            print('%s: -%s share position %d in set %r; taken as named' % (where, ', -'.join(names), position, set_name))
            for pname in names:
                cmdlet['parameters'][pname]['sets'][set_name]['position'] = None
    for set_name, _default, names in syntax:
        for pname in names:
            entry = cmdlet['parameters'].get(pname)
            if pname in ADDED:
                continue
            if entry is None:
                print('%s: SYNTAX %s has -%s, PARAMETERS does not' % (where, set_name, pname))
            elif ALL_SETS not in entry['sets'] and set_name not in entry['sets']:
                print('%s: SYNTAX %s has -%s, its PARAMETERS block does not list that set' % (where, set_name, pname))
    return cmdlet


def dump(data):
    """JSON with one line per parameter, so that a diff shows which parameter changed."""
    lines = ['{', ' "module": %s,' % json.dumps(data['module']), ' "source": %s,' % json.dumps(data['source']), ' "cmdlets": {']
    for i, (name, cmdlet) in enumerate(data['cmdlets'].items()):
        lines.append('  %s: {' % json.dumps(name))
        lines += ['   %s: %s,' % (json.dumps(key), json.dumps(value)) for key, value in cmdlet.items() if key != 'parameters']
        lines.append('   "parameters": {')
        params = list(cmdlet['parameters'].items())
        lines += ['    %s: %s%s' % (json.dumps(pname), json.dumps(param), ',' if j < len(params) - 1 else '') for j, (pname, param) in enumerate(params)]
        lines.append('   }')
        lines.append('  }' + (',' if i < len(data['cmdlets']) - 1 else ''))
    lines += [' }', '}']
    return '\n'.join(lines) + '\n'


NAMES_OUT = os.path.join(ROOT, 'tests', 'simulation', 'kubewin_sim', 'pwsh', 'cmdlet_names.json')
NAME_ROOTS = {PS_REPO: 'reference/5.1', WIN_REPO: 'docset/winserver2022-ps'}


def write_names(gitdirs, commits):
    """{module: [cmdlet names]} of every Verb-Noun page under each reference's module folders."""
    modules = {}
    for repo, root in NAME_ROOTS.items():
        for path in git(gitdirs[repo], 'ls-tree', '-r', '--name-only', 'HEAD', '--', root).splitlines():
            parts = path[len(root) + 1:].split('/')
            if len(parts) == 2 and re.match(r'^[A-Za-z]+-[A-Za-z0-9]+\.md$', parts[1]):
                modules.setdefault(parts[0], []).append(parts[1][:-3])
    data = {'source': {repo: '%s %s' % (commits[repo], root) for repo, root in NAME_ROOTS.items()},
            'modules': {module: sorted(names) for module, names in sorted(modules.items())}}
    with open(NAMES_OUT, 'w', encoding='utf-8') as handle:
        json.dump(data, handle, indent=1)
        handle.write('\n')


def main(argv):
    if len(argv) != 3 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    gitdirs = {PS_REPO: argv[1], WIN_REPO: argv[2]}
    commits = {repo: git(gitdir, 'rev-parse', 'HEAD').strip() for repo, gitdir in gitdirs.items()}
    os.makedirs(OUT, exist_ok=True)
    for module, (repo, folder, names) in sorted(MODULES.items()):
        data = {'module': module, 'source': {'repository': repo, 'commit': commits[repo]}, 'cmdlets': {}}
        for name in names:
            path = '%s/%s.md' % (folder, name)
            cmdlet = parse_page(git(gitdirs[repo], 'show', 'HEAD:' + path), path)
            data['cmdlets'][name] = {'source': '%s: %s' % (repo, path), **cmdlet}
        with open(os.path.join(OUT, module + '.json'), 'w', encoding='utf-8') as handle:
            handle.write(dump(data))
    write_names(gitdirs, commits)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
