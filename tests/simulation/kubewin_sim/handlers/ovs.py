"""Simulation of openvswitch_worker.ps1 (lib/ovs.ps1's reads are in kubewin_sim/ovs.py)."""

import hashlib

from kubewin_sim import ovs
from kubewin_sim import scm
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script


def _install(node, install, operation_id):
    """msiexec /i <msi> ADDLOCAL=<features> /qn /norestart."""
    msi = node.file(install['msi'])
    if msi is None:
        raise SimulationError('the MSI %s does not exist' % install['msi'])
    unknown = [feature for feature in install['features'] if feature not in ovs.FEATURES]
    if unknown:
        # Windows Installer error 2711: the feature name is not in the Feature table; msiexec exits 1603.
        node.record("msiexec: The specified Feature name ('%s') not found in Feature table." % unknown[0])
        raise SimulationError('msiexec failed with exit code 1603; see C:\\ProgramData\\kubewin\\operations\\%s.msi.log '
                              'on the node' % operation_id)
    model = ovs.model(node)
    current = ovs.product(node)
    features = dict((current or {}).get('features') or {feature: 'absent' for feature in ovs.FEATURES})
    for feature in install['features']:
        features[feature] = 'local'
    # The version is what the MSI file carries; the simulation derives it from the file's hash.
    version = '2.7.0.%d' % (int(msi['sha256'][:4], 16) % 1000)
    model['products'] = [{'product_code': ovs.PRODUCT_CODE, 'name': ovs.PRODUCT_NAME, 'version': version,
                          'features': features}]
    for name, (program, dependencies, feature) in ovs.SERVICES.items():
        if features.get(feature) != 'local' or name in node.data['services']:
            continue
        path = '%s\\%s' % (ovs.BIN_DIR, program)
        node.write_file(path, sha256=hashlib.sha256(path.encode()).hexdigest(), size=4096)
        node.data['services'][name] = {
            'name': name, 'exists': True, 'display_name': name, 'description': None, 'state': 'stopped',
            'start_mode': 'auto', 'command_line': '"%s" --service' % path, 'dependencies': list(dependencies),
            'environment': [], 'account': 'LocalSystem', 'recovery': None, 'exit_code': 1077, 'nssm': None}
    for name in ovs.SERVICES:
        if name in node.data['services'] and node.data['services'][name]['state'] != 'running':
            scm.start(node, name)
    if features.get('OpenvSwitchCLI') == 'local':
        node.write_file(ovs.vsctl_path(node), sha256=hashlib.sha256(b'ovs-vsctl').hexdigest(), size=4096)
    node.record('msiexec installed %s (%s)' % (ovs.PRODUCT_NAME, ', '.join(sorted(install['features']))))
    return False


def _switch(node, adapter):
    if node.adapter(adapter) is None:
        raise SimulationError("Get-NetAdapter : No MSFT_NetAdapter objects found with property 'Name' equal to '%s'."
                              % adapter)
    if adapter not in ovs.vswitch_adapters(node):
        raise SimulationError("expected one vSwitch on adapter '%s', found 0" % adapter)
    return adapter


def _rebuild(node, bridge):
    adapter = _switch(node, bridge['adapter'])
    if not ovs.has_feature(node, 'OpenvSwitchDriver'):
        raise SimulationError("Disable-VMSwitchExtension : Unable to find a switch extension named '%s'."
                              % bridge['extension'])
    scm.stop(node, 'ovs-vswitchd')
    ovs.model(node)['extensions'][adapter] = False
    db = ovs.require_db(node)
    db['bridges'].pop(bridge['name'], None)
    for port in (bridge['internal_port'], bridge['adapter']):
        for entry in db['bridges'].values():
            entry['ports'].pop(port, None)
    db['bridges'][bridge['name']] = {'ports': {bridge['internal_port']: 'internal', bridge['adapter']: 'system'}}
    ovs.model(node)['extensions'][adapter] = True
    # Until ovs-vswitchd forwards again, the adapter under the bridge carries nothing.
    node.drop_network(node.profile['network_drop_seconds'])
    scm.start(node, 'ovs-vswitchd')
    node.record('bridge %s rebuilt on %s' % (bridge['name'], adapter))


def _remove_bridge(node, bridge):
    for adapter in bridge['disable_extension_on']:
        _switch(node, adapter)
        if not ovs.has_feature(node, 'OpenvSwitchDriver'):
            raise SimulationError("Disable-VMSwitchExtension : Unable to find a switch extension named '%s'."
                                  % bridge['extension'])
        ovs.model(node)['extensions'][adapter] = False
    ovs.require_db(node)['bridges'].pop(bridge['name'], None)
    node.record('bridge %s removed' % bridge['name'])


@script('openvswitch_worker', worker=True)
def openvswitch_worker(node, spec, operation_id):
    outcome = {'operation_id': operation_id, 'state': 'failed', 'stopped': [], 'bridge_removed': False,
               'external_ids_removed': [], 'installed': False, 'reboot_required': False,
               'bridge_rebuilt': False, 'external_ids_set': [], 'started': [], 'error': None}
    try:
        for name in spec['stop']:
            if name not in node.data['services']:
                raise SimulationError("Stop-Service : Cannot find any service with service name '%s'." % name)
            scm.stop(node, name)
            outcome['stopped'].append(name)
        if spec.get('install'):
            outcome['reboot_required'] = _install(node, spec['install'], operation_id)
            outcome['installed'] = True
        if not ovs.vsctl_path(node):
            raise SimulationError('ovs-vsctl.exe is not on the machine PATH; is Open vSwitch installed?')
        if 'ovsdb-server' not in node.data['services']:
            raise SimulationError("Get-Service : Cannot find any service with service name 'ovsdb-server'.")
        if not ovs.db_running(node):
            scm.start(node, 'ovsdb-server')
        if spec['remove_bridge']:
            _remove_bridge(node, spec['remove_bridge'])
            outcome['bridge_removed'] = True
        if spec['remove_external_ids']:
            ids = ovs.require_db(node)['external_ids']
            for key in spec['remove_external_ids']:
                ids.pop(key, None)
            outcome['external_ids_removed'] = list(spec['remove_external_ids'])
        if spec.get('bridge'):
            _rebuild(node, spec['bridge'])
            outcome['bridge_rebuilt'] = True
        if spec.get('external_ids'):
            ovs.require_db(node)['external_ids'].update(spec['external_ids'])
            outcome['external_ids_set'] = list(spec['external_ids'])
        for name in spec.get('services') or []:
            if name not in node.data['services']:
                raise SimulationError("Get-Service : Cannot find any service with service name '%s'." % name)
            if node.data['services'][name]['state'] != 'running':
                scm.start(node, name)
                outcome['started'].append(name)
        outcome['state'] = 'done'
    except (SimulationError, ScriptFailure) as exc:
        outcome['error'] = str(exc)
        node.record('openvswitch_worker %s failed: %s' % (operation_id, exc))
    return outcome
