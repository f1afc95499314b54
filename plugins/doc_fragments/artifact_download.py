# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:

    # How kubewin.node.artifact and kubewin.node.artifact_batch download (plugin_utils/_artifact_install.py,
    # DOWNLOAD_OPTIONS): the options that apply to every artifact of a task.
    DOCUMENTATION = r'''
options:
  proxy:
    description:
      - HTTP proxy for the downloads (with O(source=node)).
      - Without it, the node's machine environment decides, as it does for containerd and the kubelet
        (Go's rules) - V(HTTPS_PROXY) for an https URL, V(HTTP_PROXY) for an http one, unless V(NO_PROXY) names the
        host (a name and its subdomains, a leading dot for subdomains only, V(*), an IPv4 address or CIDR range, an
        optional port).
      - Neither is the machine's WinHTTP proxy (C(netsh winhttp set proxy)) - Windows PowerShell 5.1's
        C(Invoke-WebRequest) does not read it, nor the environment, and takes the Internet settings of the account WinRM
        runs as (usually none). A node that reaches the web through a proxy set only there needs this option or the
        environment variables.
    type: dict
    suboptions:
      url:
        description: Proxy URL.
        type: str
        required: true
      username:
        description: Proxy user name.
        type: str
      password:
        description: Proxy password; passed to the node as a SecureString, never logged.
        type: str
  force:
    description: Download and install again even when the installed files match.
    type: bool
    default: false
  retries:
    description: Further attempts after a transient failure.
    type: int
    default: 4
  timeout:
    description: Seconds one download attempt may take.
    type: int
    default: 300
  source:
    description:
      - C(node) downloads on the node.
      - C(controller) downloads once on the controller into O(cache_dir) (keyed by the verified hash, so
        a cached file is reused and a corrupt one never served), then copies it to the node through the
        connection, for air-gapped sites without a mirror. WinRM transfers are slow (base64 chunks,
        typically a few MB/s at best), so prefer a mirror reachable from the nodes for large fleets.
    type: str
    choices: [node, controller]
    default: node
  cache_dir:
    description: Controller directory for O(source=controller).
    type: path
    default: ~/.cache/kubewin/artifacts
'''
