"""The event logs of the Windows model (kubewin_sim/windows/eventlog.py: Get-WinEvent -FilterHashtable) and
node_logs.ps1 run whole by the engine on a node with services, logs, events and HNS objects.

Behaviour of Get-WinEvent from reference/5.1/Microsoft.PowerShell.Diagnostics/Get-WinEvent.md and
GetEventCommand.cs (PowerShell/PowerShell, src/Microsoft.PowerShell.Commands.Diagnostics), named per test.
"""

import datetime
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

# pylint: disable=wrong-import-position
from ansible_collections.kubewin.node.plugins.plugin_utils import _contracts, _pwsh  # noqa: E402
from kubewin_sim.node import SimNode, initial_state  # noqa: E402
from kubewin_sim.windows import filesystem, run_on_node  # noqa: E402
from kubewin_sim.windows.win_powershell import invoke  # noqa: E402

EVENTS = {'docker': [
    {'time': '2025-03-01T10:00:00.250000+00:00', 'level': 'Information', 'message': 'Starting up'},
    {'time': '2025-03-01T10:00:01+00:00', 'level': 'Warning', 'message': 'no IPv6'},
    {'time': '2025-03-01T10:00:02.5+00:00', 'level': 'Information', 'message': 'API listen on //./pipe/docker_engine'}],
    'kubewin': [{'time': '2025-03-01T10:00:01.500000+00:00', 'level': 'Error', 'message': 'other provider'}],
    'registered-quiet': []}


def events_node():
    node = SimNode(initial_state('win1', {'ip': '10.0.0.11'}))
    node.data['event_log'] = json.loads(json.dumps(EVENTS))
    return node


def run(node, text):
    outcome = run_on_node(node, text)
    assert outcome.unsupported is None, outcome.unsupported
    return outcome


# -- Get-WinEvent -------------------------------------------------------------------------------------

def test_newest_first_capped_by_max_events_with_the_record_properties():
    # Get-WinEvent.md: "By default, Get-WinEvent returns event information in the order of newest to oldest";
    # -MaxEvents "Specifies the maximum number of events that are returned"; OUTPUTS EventLogRecord.
    outcome = run(events_node(), "Get-WinEvent -FilterHashtable @{ LogName = 'Application'; ProviderName = 'docker' } "
                                 "-MaxEvents 2 | ForEach-Object { '{0}|{1}|{2}|{3}|{4}' -f $_.GetType().FullName, "
                                 "$_.TimeCreated.ToUniversalTime().ToString('o'), $_.LevelDisplayName, $_.Level, $_.Message }")
    assert (outcome.exit_code, outcome.errors) == (0, [])
    assert outcome.output == [
        'System.Diagnostics.Eventing.Reader.EventLogRecord|2025-03-01T10:00:02.5000000Z|Information|4|'
        'API listen on //./pipe/docker_engine',
        'System.Diagnostics.Eventing.Reader.EventLogRecord|2025-03-01T10:00:01.0000000Z|Warning|3|no IPv6']


def test_oldest_wildcards_and_case_insensitive_keys():
    # -FilterHashtable: "Keys and values are case-insensitive"; wildcards are valid in ProviderName; -Oldest.
    outcome = run(events_node(), "Get-WinEvent -FilterHashtable @{ logname = 'app*'; providername = 'DOCK*', 'kubewin' } "
                                 "-Oldest | ForEach-Object { $_.ProviderName + ':' + $_.Message }")
    assert outcome.output == ['docker:Starting up', 'docker:no IPv6', 'kubewin:other provider',
                              'docker:API listen on //./pipe/docker_engine']


def test_level_and_time_keys_filter():
    # The docker events after the first one's time + 0.5 s (10:00:00.75): the ones at 10:00:01 and 10:00:02.5.
    outcome = run(events_node(), "$t = (Get-WinEvent -FilterHashtable @{ ProviderName = 'docker' } -Oldest "
                                 "-MaxEvents 1).TimeCreated.AddMilliseconds(500)\n"
                                 "(Get-WinEvent -FilterHashtable @{ LogName = 'Application'; Level = 4 }).Message\n"
                                 "(Get-WinEvent -FilterHashtable @{ ProviderName = 'docker'; StartTime = $t }).Count")
    assert outcome.output == ['API listen on //./pipe/docker_engine', 'Starting up', '2']


def test_a_registered_provider_without_events_is_no_events_found():
    # GetEventCommand.ReadEvents: a query that reads nothing writes NoMatchingEventsFound (ObjectNotFound).
    outcome = run(events_node(), "try { Get-WinEvent -FilterHashtable @{ LogName = 'Application'; "
                                 "ProviderName = 'registered-quiet' } -ErrorAction Stop } "
                                 "catch { $_.FullyQualifiedErrorId; $_.CategoryInfo.Category; $_.Exception.Message }")
    assert outcome.output == ['NoMatchingEventsFound,Microsoft.PowerShell.Commands.GetWinEventCommand', 'ObjectNotFound',
                              'No events were found that match the specified selection criteria.']


def test_an_unknown_provider_is_not_found_and_nothing_is_read():
    # FindProvidersByLogForWildcardPatterns: NoMatchingProvidersFound per pattern; then the Application log is
    # dropped (no provider writes to it): LogsAndProvidersDontOverlap, and no query runs.
    outcome = run(events_node(), "$e = @(); $r = @(Get-WinEvent -FilterHashtable @{ LogName = 'Application'; "
                                 "ProviderName = 'nssm' } -ErrorAction SilentlyContinue -ErrorVariable e)\n"
                                 "$r.Count; $e | ForEach-Object { $_.FullyQualifiedErrorId.Split(',')[0] + ': ' + "
                                 "$_.Exception.Message }")
    assert outcome.output == ['0', 'NoMatchingProvidersFound: There is not an event provider on the localhost '
                              'computer that matches "nssm".', 'LogsAndProvidersDontOverlap: The specified providers '
                              'do not write events to any of the specified logs.']


def test_an_unknown_log_is_not_found():
    outcome = run(events_node(), "Get-WinEvent -FilterHashtable @{ LogName = 'Kubernetes' } -ErrorAction SilentlyContinue "
                                 "-ErrorVariable e; $e[0].Exception.Message")
    assert outcome.output == ['There is not an event log on the localhost computer that matches "Kubernetes".']


def test_an_unmodelled_key_is_an_engine_gap():
    outcome = run_on_node(events_node(), "Get-WinEvent -FilterHashtable @{ LogName = 'Application'; Id = 1 }")
    assert 'Id' in outcome.unsupported or 'id' in outcome.unsupported


# -- node_logs.ps1, whole -----------------------------------------------------------------------------

LOGS = {'C:\\k\\logs\\flanneld.out.log': 'I0301 flanneld lease\r\n',
        'C:\\k\\logs\\flanneld.err.log': 'E0301 flanneld: no route\r\n',
        'C:\\k\\logs\\kubelet.log': 'I0301 kubelet started\r\n' * 60,
        'C:\\k\\logs\\containerd.log': 'time="2025-03-01" level=info msg="containerd started"\n',
        'C:\\k\\notes.txt': 'extra path \u00e9\r\n'}


SERVICE = {'exists': True, 'description': None, 'state': 'running', 'start_mode': 'auto', 'dependencies': [],
           'environment': [], 'account': 'LocalSystem', 'recovery': None, 'exit_code': 0, 'nssm': None,
           'preshutdown_timeout_ms': None, 'preshutdown_ordered': False}
SERVICES = {
    'flanneld': dict(SERVICE, name='flanneld', display_name='flanneld', command_line='C:\\k\\nssm.exe',
                     nssm={'application': 'C:\\k\\flanneld.exe', 'app_parameters': '--kube-subnet-mgr',
                           'app_directory': 'C:\\k', 'app_stdout': 'C:\\k\\logs\\flanneld.out.log',
                           'app_stderr': 'C:\\k\\logs\\flanneld.err.log', 'app_rotate_bytes': 0}),
    'kubelet': dict(SERVICE, name='kubelet', display_name='kubelet', command_line=(
        '"C:\\k\\kube-log-runner.exe" -log-file=C:\\k\\logs\\kubelet.log C:\\k\\kubelet.exe --v=2')),
    'containerd': dict(SERVICE, name='containerd', display_name='containerd', command_line=(
        '"C:\\Program Files\\containerd\\containerd.exe" --run-service --log-file "C:\\k\\logs\\containerd.log"'))}


def logs_node():
    node = events_node()
    node.data['features']['Containers'] = 'installed'
    node.data['services'].update(json.loads(json.dumps(SERVICES)))
    network = node.create_network({'name': 'cbr0', 'type': 'L2Bridge', 'address_prefix': '10.244.1.0/24',
                                   'gateway': '10.244.1.1', 'adapter': 'Ethernet'})
    endpoint = node.create_endpoint('cbr0_ep', network['id'], '10.244.1.2')
    node.add_policy_list(['10.96.0.1'], [endpoint['id']])
    for path, text in LOGS.items():
        filesystem.make_directories(node, filesystem.parent_of(filesystem.normalize(path)))
        filesystem.write_file(node, path, text.encode('utf-8'))
    return node


PARAMETERS = {'Services': ['flanneld', 'kubelet', 'containerd', 'ghost'],
              'Paths': ['C:\\k\\notes.txt', 'C:\\k\\logs\\kubelet.log', 'C:\\k\\missing.log'],
              'EventProviders': ['docker', 'nssm', 'registered-quiet'], 'EventCount': 2, 'TailBytes': 1024}


def node_logs_script():
    return _pwsh.load_script('node_logs')


def _instant(text):
    return datetime.datetime.fromisoformat(text)


def _log(path, truncated=False):
    data = LOGS[path].encode('utf-8')
    return {'exists': True, 'size': len(data), 'text': data[-PARAMETERS['TailBytes']:].decode('utf-8'),
            'truncated': truncated}


def expected_hns(node):
    """What HNS's GET /networks, /endpoints and /policylists answer for logs_node's network, endpoint and policy
    list (the HNS v1 JSON of windows/hns.py), the IDs those of the node's objects, as HNS writes them (upper case)."""
    network, = node.data['hns']['networks']
    endpoint, = node.data['hns']['endpoints']
    policy_list, = node.data['hns']['policy_lists']
    return {'available': True,
            'networks': [{'ID': network['id'].upper(), 'Name': 'cbr0', 'Type': 'L2Bridge', 'NetworkAdapterName': 'Ethernet',
                          'ManagementIP': '10.0.0.11', 'Flags': 0, 'IPv6': False, 'Policies': [], 'State': 1,
                          'Subnets': [{'AddressPrefix': '10.244.1.0/24', 'GatewayAddress': '10.244.1.1', 'Policies': []}]}],
            'endpoints': [{'ID': endpoint['id'].upper(), 'Name': 'cbr0_ep', 'VirtualNetwork': network['id'].upper(),
                           'VirtualNetworkName': 'cbr0', 'IPAddress': '10.244.1.2', 'MacAddress': '00-15-5D-00-00-01',
                           'Policies': [], 'State': 1}],
            'policy_lists': [{'ID': policy_list['id'].upper(), 'Policies': [{'Type': 'ELB', 'VIPs': ['10.96.0.1']}],
                              'References': ['/endpoints/' + endpoint['id']]}]}


def test_node_logs_runs_whole_and_answers_what_the_node_holds():
    node = logs_node()
    result = invoke(node, node_logs_script(), PARAMETERS, error_action='stop')
    assert (result['failed'], result['error'], result['changed']) == (False, [], False)
    real = _contracts.check('node_logs', json.loads(result['result']))
    assert abs(_instant(real.pop('collected_at')) - datetime.datetime.now(datetime.timezone.utc)) < \
        datetime.timedelta(seconds=60)
    # Event times: .NET's round-trip format of the instants the node stores; the newest EventCount, oldest first.
    times = {provider: [_instant(event.pop('time')) for event in events] for provider, events in real['events'].items()}
    assert times == {'docker': [_instant(EVENTS['docker'][1]['time']), _instant(EVENTS['docker'][2]['time'])],
                     'nssm': [], 'registered-quiet': []}
    assert real.pop('events') == {
        'docker': [{'level': 'Warning', 'message': 'no IPv6'},
                   {'level': 'Information', 'message': 'API listen on //./pipe/docker_engine'}],
        'nssm': [], 'registered-quiet': []}
    # HNS's own objects, as ConvertFrom-Json read them: HNS leaves fields without a value out (windows/hns.py), so
    # an endpoint that is not remote has no IsRemoteEndpoint.
    assert real.pop('hns') == expected_hns(node)
    # No EventLogs asked for.
    assert real.pop('event_logs') == {}
    assert real == {
        'hostname': 'WIN1',
        'services': {
            'flanneld': dict(SERVICES['flanneld'],
                             log_files=['C:\\k\\logs\\flanneld.err.log', 'C:\\k\\logs\\flanneld.out.log']),
            'kubelet': dict(SERVICES['kubelet'], log_files=['C:\\k\\logs\\kubelet.log']),
            'containerd': dict(SERVICES['containerd'], log_files=['C:\\k\\logs\\containerd.log']),
            'ghost': {'exists': False, 'name': 'ghost', 'log_files': []}},
        'logs': {
            'C:\\k\\logs\\flanneld.err.log': _log('C:\\k\\logs\\flanneld.err.log'),
            'C:\\k\\logs\\flanneld.out.log': _log('C:\\k\\logs\\flanneld.out.log'),
            'C:\\k\\logs\\kubelet.log': _log('C:\\k\\logs\\kubelet.log', truncated=True),
            'C:\\k\\logs\\containerd.log': _log('C:\\k\\logs\\containerd.log'),
            'C:\\k\\notes.txt': _log('C:\\k\\notes.txt'),
            'C:\\k\\missing.log': {'exists': False}},
        'ovs': {'products': [], 'vsctl': None, 'database': None, 'database_error': None, 'switches': []}}
    # The tail is the last TailBytes bytes: kubelet.log holds 60 lines of 23 bytes.
    assert real['logs']['C:\\k\\logs\\kubelet.log']['size'] == 1380
    assert real['logs']['C:\\k\\logs\\kubelet.log']['text'].startswith('et started\r\nI0301 kubelet started\r\n')
    assert len(real['logs']['C:\\k\\logs\\kubelet.log']['text']) == 1024


def test_node_logs_used_to_overwrite_its_services_parameter():
    # Variable names are case-insensitive: the old script's `$services = [ordered]@{}` assigned the [string[]]
    # parameter $Services, whose type constraint made the dictionary one string (about_Variables, Types of
    # variables); the loop then indexed a string array with a service name and the script failed on Windows.
    old = node_logs_script().replace('$serviceStates', '$services')
    result = invoke(logs_node(), old, PARAMETERS, error_action='stop')
    assert result['failed'] is True
    assert result['error'][0]['exception']['message'] == (
        'Cannot convert value "System.Collections.Specialized.OrderedDictionary" to type "System.Int32". '
        'Error: "Input string was not in a correct format."')


# -- channels of their own: Container Credential Guard's log -----------------------------------------------------------

CCG_LOG = 'Microsoft-Windows-Containers-CCG/Admin'
CCG_EVENTS = [
    {'time': '2025-03-01T10:00:03+00:00', 'level': 'Information', 'log': CCG_LOG, 'message': 'CCG started'},
    {'time': '2025-03-01T10:00:04+00:00', 'level': 'Error', 'log': CCG_LOG,
     'message': 'Unable to retrieve the password of WebApp1'}]


def ccg_node(containers=True):
    node = events_node()
    if containers:
        node.data['features']['Containers'] = 'installed'
    node.data['event_log']['Microsoft-Windows-Containers-CCG'] = json.loads(json.dumps(CCG_EVENTS))
    return node


def test_the_ccg_log_is_a_log_of_its_own_with_its_provider():
    # kubernetes.io "Configure GMSA" and the gMSA troubleshooting guide read Microsoft-Windows-Containers-CCG/Admin,
    # CCG's channel; Get-WinEvent's LogName names a channel; its events are not in the Application log.
    outcome = run(ccg_node(), "Get-WinEvent -FilterHashtable @{ LogName = '%s'; Level = 2 } | ForEach-Object { "
                              "$_.LogName + '|' + $_.ProviderName + '|' + $_.Message }; "
                              "@(Get-WinEvent -FilterHashtable @{ LogName = 'Application' } | Where-Object "
                              "{ $_.ProviderName -like '*CCG' }).Count" % CCG_LOG)
    assert (outcome.exit_code, outcome.errors) == (0, [])
    assert outcome.output == [CCG_LOG + '|Microsoft-Windows-Containers-CCG|Unable to retrieve the password of WebApp1',
                              '0']


def test_a_provider_and_a_log_it_does_not_write_do_not_overlap():
    # GetEventCommand.cs: with both keys, the providers' logs must include a given log (LogsAndProvidersDontOverlap).
    outcome = run(ccg_node(), "Get-WinEvent -FilterHashtable @{ LogName = 'Application'; "
                              "ProviderName = 'Microsoft-Windows-Containers-CCG' } -ErrorAction SilentlyContinue; "
                              "$Error[0].FullyQualifiedErrorId")
    assert outcome.output == ['LogsAndProvidersDontOverlap,Microsoft.PowerShell.Commands.GetWinEventCommand']


def test_without_the_containers_feature_there_is_no_ccg_log():
    outcome = run(ccg_node(containers=False), "Get-WinEvent -FilterHashtable @{ LogName = '%s' } "
                                              "-ErrorAction SilentlyContinue; $Error[0].FullyQualifiedErrorId" % CCG_LOG)
    assert outcome.output == ['NoMatchingLogsFound,Microsoft.PowerShell.Commands.GetWinEventCommand']


def test_node_logs_reads_the_events_of_the_logs_asked_for():
    node = ccg_node()
    parameters = dict(PARAMETERS, EventLogs=[CCG_LOG, 'Missing-Log/Admin'], EventCount=1)
    result = invoke(node, node_logs_script(), parameters, error_action='stop')
    assert (result['failed'], result['error']) == (False, [])
    real = _contracts.check('node_logs', json.loads(result['result']))
    # The newest EventCount of each log; a log the node does not have reads as no events.
    assert [(event['level'], event['message']) for event in real['event_logs'][CCG_LOG]] == [
        ('Error', 'Unable to retrieve the password of WebApp1')]
    assert real['event_logs']['Missing-Log/Admin'] == []
