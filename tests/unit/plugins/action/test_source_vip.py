"""kubewin.node.source_vip against a simulated node (host-local.exe as a program model, its reservations files)."""

import json

import pytest
import yaml

from kubewin_sim.windows import hostlocal

HOST_LOCAL = 'C:\\opt\\cni\\bin\\host-local.exe'
RECORD = 'C:\\k\\SourceVip.json'
STORE = 'c:\\var\\lib\\cni\\networks\\flannel.4096'


def playbook(sim, name='vip.yml', **options):
    module = dict({'network': 'flannel.4096', 'path': RECORD, 'host_local': HOST_LOCAL}, **options)
    tasks = [{'name': 'snapshot', 'kubewin.node.node_info': {}},
             {'name': 'vip', 'kubewin.node.source_vip': module}]
    return sim.write(name, yaml.safe_dump([{'hosts': 'windows_nodes', 'gather_facts': False, 'tasks': tasks}]))


def overlay_node(sim, one_node, subnet='10.244.4.0/24', host_local=True):
    """A node on which flanneld created its Overlay network with the lease ``subnet``."""
    inventory = one_node()
    with sim.edit_node('win1', profile={'ip': '10.127.130.38', 'features': {'Containers': 'installed'}}) as node:
        if host_local:
            node.write_file(HOST_LOCAL, sha256='cd' * 32, size=4096)
        node.data['hns']['networks'].append({
            'id': 'a1b2c3d4-0000-0000-0000-000000000001', 'name': 'flannel.4096', 'type': 'Overlay',
            'subnets': [{'address_prefix': subnet, 'gateway': subnet.replace('.0/24', '.1'), 'vsid': 4096}],
            'adapter': 'Ethernet', 'management_ip': '10.127.130.38'})
    return inventory


def set_subnet(sim, subnet):
    with sim.edit_node('win1') as node:
        node.data['hns']['networks'][0]['subnets'][0]['address_prefix'] = subnet


def reserved(sim):
    return hostlocal.reservations(sim.node('win1'), STORE)


# Long (make unit-long): make test reserves a source VIP through site.yml (tests/unit/playbooks/test_site_network.py)
# and releases a stale one in test_a_new_pod_subnet_releases_the_stale_reservation.
@pytest.mark.long
def test_reserved_once_then_stable(sim, one_node):
    inventory, book = overlay_node(sim, one_node), playbook(sim)
    check = sim.run(book, inventory, '--check', '--diff')
    assert check.rc == 0 and check.changed('win1') == 1, check.output
    assert check.result('vip', 'win1')['result']['source_vip'] is None
    assert sim.node('win1').file(RECORD) is None and not sim.node('win1').is_directory(STORE)

    run = sim.run(book, inventory)
    assert run.rc == 0, run.output
    result = run.result('vip', 'win1')['result']
    assert (result['source_vip'], result['subnet']) == ('10.244.4.2', '10.244.4.0/24')
    assert json.loads(sim.node('win1').file(RECORD)['content'])['ips'][0]['address'] == '10.244.4.2/24'
    request = sim.node('win1').file('C:\\k\\SourceVipRequest.json')['content']
    assert json.loads(request)['ipam'] == {'type': 'host-local', 'ranges': [[{'subnet': '10.244.4.0/24'}]],
                                           'dataDir': 'C:\\var\\lib\\cni\\networks'}
    assert reserved(sim) == {'10.244.4.2': 'kubewin-source-vip/source-vip'}

    for attempt in range(2):
        again = sim.run(book, inventory)
        assert again.rc == 0 and again.changed('win1') == 0, (attempt, again.output)
        assert again.result('vip', 'win1')['result']['source_vip'] == '10.244.4.2'
        assert again.calls['win1']['total'] == 1, 'the record is part of the snapshot'
    assert sim.run(book, inventory, '--check').changed('win1') == 0


def test_a_new_pod_subnet_releases_the_stale_reservation(sim, one_node):
    inventory, book = overlay_node(sim, one_node), playbook(sim)
    assert sim.run(book, inventory).rc == 0
    set_subnet(sim, '10.244.7.0/24')
    run = sim.run(book, inventory, '--diff')
    assert run.rc == 0 and run.changed('win1') == 1, run.output
    result = run.result('vip', 'win1')['result']
    assert result['source_vip'] == '10.244.7.2'
    assert result['diff']['before'] == {'source_vip': '10.244.4.2', 'reserved_in': '10.244.4.0/24'}
    assert reserved(sim) == {'10.244.7.2': 'kubewin-source-vip/source-vip'}, 'the old address is free again'
    assert sim.run(book, inventory).changed('win1') == 0


def test_a_lost_record_does_not_leak_a_second_reservation(sim, one_node):
    inventory, book = overlay_node(sim, one_node), playbook(sim)
    assert sim.run(book, inventory).rc == 0
    with sim.edit_node('win1') as node:
        node.write_file(RECORD, content='garbage')
    run = sim.run(book, inventory)
    assert run.rc == 0 and run.changed('win1') == 1, run.output
    assert list(reserved(sim).values()) == ['kubewin-source-vip/source-vip']
    vip = run.result('vip', 'win1')['result']['source_vip']
    assert vip in reserved(sim) and vip.startswith('10.244.4.')


def test_failures_name_what_is_missing(sim, one_node):
    inventory = overlay_node(sim, one_node, host_local=False)
    run = sim.run(playbook(sim), inventory)
    assert run.rc != 0 and 'The system cannot find the file specified' in run.result('vip', 'win1')['result']['msg']
    assert sim.node('win1').file(RECORD) is None
    missing = sim.run(playbook(sim, 'b.yml', network='vxlan0'), inventory)
    assert missing.rc != 0
    assert "HNS network 'vxlan0' does not exist on the node" in missing.result('vip', 'win1')['result']['msg']
