"""playbooks/site.yml with kubeadm join: every file holding a credential that kubeadm and the kubelet write (they set
no ACL, so each inherits C:\\'s, which lets Users read it) ends readable only by SYSTEM and Administrators, and one
that turns up open later (a certificate the kubelet rotated in) is restricted by the next run (issue 12)."""

import os
import sys

import pytest

ROLES = os.path.join(os.path.dirname(__file__), '..', 'roles')
sys.path.insert(0, os.path.abspath(ROLES))
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', 'simulation')))

# pylint: disable=wrong-import-position
from kubewin_sim.harness import Simulation  # noqa: E402
from kubewin_sim.windows import filesystem  # noqa: E402

import network_play  # noqa: E402

KUBERNETES = 'C:\\etc\\kubernetes\\'
PKI = 'C:\\var\\lib\\kubelet\\pki\\'
ROTATED = PKI + 'kubelet-client-2027-11-24-05-50-15.pem'
DECISION = 'Take the node state snapshot and decide whether the node is converged'
RESTRICT = 'Let only SYSTEM and Administrators read the files that hold credentials'


def credential_acls(node):
    """The ACL profile of every kubeconfig in C:\\etc\\kubernetes and every file of the kubelet's --cert-dir."""
    return {path: node.file(path)['acl'] for path in node.file_paths()
            if path.startswith(PKI) or path.startswith(KUBERNETES) and path.endswith('.conf')}


# Long (make unit-long): make test restricts open credential files through the action that does it here
# (tests/unit/plugins/action/test_node_credentials.py, test_open_credential_files_get_the_secret_acl_once).
@pytest.mark.long
def test_after_a_kubeadm_join_every_credential_file_is_restricted_and_stays_so(tmp_path):
    sim = Simulation(tmp_path)
    inventory = sim.inventory(
        {'win1': {'ansible_host': '10.127.130.38', 'kubewin_sim': network_play.CONTAINERS_READY}},
        group_vars=dict(network_play.CLUSTER, kubewin_topology='overlay', kubewin_kubernetes_version='1.31.14'),
        control_plane={'cp1': {}})

    converge = network_play.run(sim, 'playbooks/site.yml', inventory)
    assert converge.rc == 0, converge.output
    assert network_play.task(converge, 'Join with kubeadm', 'win1')['changed'] is True
    node = sim.node('win1')
    # kubeadm removed its bootstrap kubeconfig once the kubelet had its certificate.
    assert node.file(KUBERNETES + 'bootstrap-kubelet.conf') is None
    acls = credential_acls(node)
    assert {KUBERNETES + 'kubelet.conf', KUBERNETES + 'kube-proxy.conf', PKI + 'kubelet-client-current.pem',
            PKI + 'kubelet.key', PKI + 'kubelet.crt'} <= set(acls), acls
    # The serving certificate is public: only the patterns' files (*.pem, *.key, *.conf) are restricted.
    assert acls.pop(PKI + 'kubelet.crt') == 'inherited'
    assert set(acls.values()) == {'secret'}, acls
    assert node.file('C:\\etc\\kube-flannel\\kubeconfig')['acl'] == 'secret'
    assert converge.report_row('win1')['open_credentials'] == []

    # The kubelet rotates its client certificate into a new file, which inherits its folder's ACL again, and
    # someone reset kubelet.conf's: the snapshot no longer matches the record, and the run restricts both.
    with sim.edit_node('win1') as edited:
        edited.write_file(ROTATED, content='(rotated client certificate and key)\n')
        filesystem.lookup(edited, KUBERNETES + 'kubelet.conf').update(protected=False, rules=[])
    again = network_play.run(sim, 'playbooks/site.yml', inventory, '--diff')
    assert again.rc == 0, again.output
    decision = network_play.task(again, DECISION, 'win1')['result']
    assert decision['converged'] is False and 'credentials' in ' '.join(decision['reasons']), decision
    restricted = network_play.task(again, RESTRICT, 'win1')['result']
    assert restricted['restricted'] == [KUBERNETES + 'kubelet.conf', ROTATED]
    assert restricted['diff'] == {'before': {KUBERNETES + 'kubelet.conf': 'inherited', ROTATED: 'inherited'},
                                  'after': {KUBERNETES + 'kubelet.conf': 'secret', ROTATED: 'secret'}}
    assert set(credential_acls(sim.node('win1')).values()) == {'secret', 'inherited'}
    assert {path for path, acl in credential_acls(sim.node('win1')).items() if acl != 'secret'} == {PKI + 'kubelet.crt'}
    assert again.report_row('win1')['open_credentials'] == []
