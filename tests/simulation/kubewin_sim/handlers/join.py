"""Simulation of kubeadm_join.ps1: kubeadm join on a Windows node, with the kubelet's TLS bootstrap."""

import ntpath

import yaml

from kubewin_sim import scm
from kubewin_sim.node import SimulationError
from kubewin_sim.registry import ScriptFailure, script


@script('kubeadm_join')
def kubeadm_join(node, p, context):
    if node.file(p['KubeadmPath']) is None:
        raise SimulationError("The term '%s' is not recognized as the name of a cmdlet, function, script file, or "
                              "operable program." % p['KubeadmPath'])
    config = yaml.safe_load(p['JoinConfiguration'])
    if config.get('kind') != 'JoinConfiguration' or not config.get('apiVersion', '').startswith('kubeadm.k8s.io/'):
        raise ScriptFailure('kubeadm join failed with exit code 1: no JoinConfiguration in the config file')
    fault = node.profile.get('kubeadm_join_fails')
    if fault:
        raise ScriptFailure('kubeadm join failed with exit code 1: %s' % fault)
    registration = config['nodeRegistration']
    if 'kubelet' not in node.data['services']:
        raise ScriptFailure('kubeadm join failed with exit code 1: error execution phase kubelet-start: '
                            'the kubelet service does not exist')
    kubelet_dir = ntpath.dirname(p['KubeadmFlagsFile'])
    config_dir = ntpath.dirname(p['KubeletKubeconfig'])
    node.write_file(ntpath.join(kubelet_dir, 'config.yaml'),
                    content='apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n')
    node.write_file(p['KubeadmFlagsFile'], content='KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=%s"\n'
                    % registration['criSocket'])
    node.write_file(ntpath.join(config_dir, 'bootstrap-kubelet.conf'), content='(bootstrap kubeconfig)\n',
                    acl='inherited')
    node.write_file(ntpath.join(config_dir, 'pki', 'ca.crt'), content='(cluster CA)\n', acl='inherited')
    # kubeadm (re)starts the kubelet, which completes its TLS bootstrap and writes its kubeconfig.
    scm.stop(node, 'kubelet')
    scm.start(node, 'kubelet')
    if node.file(p['KubeletKubeconfig']) is None:
        raise ScriptFailure('kubeadm join failed with exit code 1: error execution phase kubelet-start: timed out '
                            'waiting for the condition (the kubelet did not write %s)' % p['KubeletKubeconfig'])
    node.data['joined_as'] = registration['name']
    return {'state': {'sections': ['files', 'contents'],
                      'files': {p['KubeletKubeconfig']: node.file_view(p['KubeletKubeconfig'])},
                      'contents': {p['KubeadmFlagsFile']: node.content_view(p['KubeadmFlagsFile'])}}}
