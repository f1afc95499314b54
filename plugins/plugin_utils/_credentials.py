# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The files on a Windows node that hold a credential, whoever wrote them, and which of them others can read.

Internal to kubewin.node, not a public API.

Each pattern is a folder and a file name that may hold wildcards; ``node_info``'s ``credentials`` section
reports, per pattern, the files it matches and their ACL profile (lib/files.ps1, Get-KubeWinAclProfile).
Every such file must have the ``secret`` profile: only SYSTEM and Administrators may open it.

- ``<kubernetes_config_dir>\\*.conf``: kubeadm names its kubeconfigs ``*.conf`` in that folder
  (cmd/kubeadm/app/constants, kubernetes/kubernetes: bootstrap-kubelet.conf, which kubeadm join writes
  and removes again once the kubelet has its certificate, kubelet.conf, which the kubelet writes on TLS
  bootstrap, admin.conf); the kube_proxy role writes kube-proxy.conf there too. The cluster CA
  (pki\\ca.crt) is public and left as it is.
- ``<kubelet_dir>\\pki\\*.pem`` and ``*.key``: the kubelet's --cert-dir (the kubelet role sets it there).
  The kubelet's certificate stores write each certificate with its private key into
  ``kubelet-client-<time>.pem`` (and ``kubelet-server-<time>.pem`` with serverTLSBootstrap), with
  ``kubelet-client-current.pem`` linking to the newest (client-go util/certificate/certificate_store.go);
  without a serving certificate of its own the kubelet writes a self-signed ``kubelet.crt`` and its
  ``kubelet.key`` (cmd/kubelet/app/server.go). On Windows none of them gets an ACL of its own.
- ``<flannel_dir>\\kubeconfig``: flanneld's kubeconfig, which the flannel role writes.
"""

from __future__ import annotations

import ntpath

SECRET_ACL = 'secret'


def patterns(paths):
    """The credential file patterns of a node layout (the plan's ``plan_paths``: folder name -> Windows path)."""
    cert_dir = ntpath.join(paths['kubelet_dir'], 'pki')
    return [ntpath.join(paths['kubernetes_config_dir'], '*.conf'),
            ntpath.join(cert_dir, '*.pem'),
            ntpath.join(cert_dir, '*.key'),
            ntpath.join(paths['flannel_dir'], 'kubeconfig')]


def files(credentials, patterns=None):
    """Of a ``credentials`` section (pattern -> {path: ACL profile}), every file of ``patterns`` (all when None) and
    its ACL profile."""
    chosen = credentials if patterns is None else {pattern: credentials.get(pattern) for pattern in patterns}
    return {path: acl for found in chosen.values() for path, acl in (found or {}).items()}


def unrestricted(credentials, patterns=None):
    """The files of a ``credentials`` section (of ``patterns``, all when None) whose ACL is not ``secret``, sorted
    (an ACL that is ``inherited`` or ``custom`` may let others read them)."""
    return sorted(path for path, acl in files(credentials or {}, patterns).items() if acl != SECRET_ACL)
