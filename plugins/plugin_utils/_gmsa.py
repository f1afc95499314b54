# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Group Managed Service Accounts for the pods of the Windows nodes: the node's and the cluster's part.

Internal to kubewin.node, not a public API. The public interfaces are the inventory variables ``kubewin_gmsa``,
``kubewin_gmsa_ccg_plugin`` and ``kubewin_gmsa_credential_specs`` (checked by ``kubewin.node.preflight``), the
``gmsa`` role and module (the node), and the ``control_plane`` role (the cluster).

Facts this module relies on, with their sources:

- The cluster needs the ``GMSACredentialSpec`` CRD (``gmsacredentialspecs.windows.k8s.io``, cluster-scoped, served as
  ``windows.k8s.io/v1``) and two webhooks, a mutating one that expands a pod's credential spec name into its content
  and a validating one that checks the pod's service account may ``use`` it (kubernetes/website
  ``tasks/configure-pod-container/configure-gmsa.md``). kubernetes-sigs/windows-gmsa installs both, with either its
  Helm chart (``charts/gmsa``: the MutatingWebhookConfiguration and ValidatingWebhookConfiguration named after the
  release) or its deploy script (``admission-webhook/deploy/gmsa-webhook.yml.tpl``); in both the webhook itself is
  named ``admission-webhook.windows-gmsa.sigs.k8s.io``, which is how the collection finds them.
- A credential spec is a GMSACredentialSpec with its ``credspec`` (CmsPlugins, DomainJoinConfig,
  ActiveDirectoryConfig.GroupManagedServiceAccounts and, for a host that is not domain-joined, HostAccountConfig with
  PortableCcgVersion, PluginGUID and PluginInput: windows-gmsa ``charts/gmsa/crds/crds.yaml`` and
  ``templates/credentialspec.yaml``); a ClusterRole grants the verb ``use`` on it by name and a RoleBinding gives that
  role to the service accounts whose pods run as the account (configure-gmsa.md).
- The node: containerd resolves SMB shares by name from a container only with the HNS registry value
  ``EnableCompartmentNamespace`` (REG_DWORD 1) under ``HKLM\\SYSTEM\\CurrentControlSet\\Services\\hns\\State``
  (configure-gmsa.md, "Authenticating to network shares using hostname or FQDN": running pods pick it up once they
  are recreated; no service restarts; kubernetes-sigs/windows-gmsa#30; Azure/AgentBaker sets it for containerd nodes
  only, in its Windows VHD build and CSE). A node takes the account's identity when it is domain-joined and allowed to
  retrieve the account's password (Win32_ComputerSystem.PartOfDomain), or, not domain-joined, through a Container
  Credential Guard (CCG) plugin: a COM class implementing ICcgDomainAuthCredentials, activated out of process
  (a DLL surrogate), whose CLSID has a key under ``HKLM\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses``
  (learn.microsoft.com, ICcgDomainAuthCredentials::GetPasswordCredentials, Windows Server 2019 and later). That key
  is TrustedInstaller's: AKS's Install-GmsaPlugin and Microsoft's sample installer take ownership of it
  (SeTakeOwnershipPrivilege) and give Administrators full control before they add a CLSID, then import the plugin's
  registry file (``reg.exe import``) and its event manifest (``wevtutil.exe im``). The collection ships no plugin:
  the user names the DLL, its registry file and its event manifest, each a verified download, and its CLSID.
- CCG logs to ``Microsoft-Windows-Containers-CCG/Admin``; the doctor reads its errors there.
"""

from __future__ import annotations

import ntpath
import re
import typing as t
from collections.abc import Mapping

from ansible_collections.kubewin.node.plugins.plugin_utils import _artifacts

VARIABLE = 'kubewin_gmsa'
PLUGIN_VARIABLE = 'kubewin_gmsa_ccg_plugin'
SPECS_VARIABLE = 'kubewin_gmsa_credential_specs'
VARIABLES = (VARIABLE, PLUGIN_VARIABLE, SPECS_VARIABLE)

HNS_STATE_KEY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Services\\hns\\State'
COMPARTMENT_VALUE = 'EnableCompartmentNamespace'
COMCLASSES_KEY = 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\CCG\\COMClasses'
CCG_LOG = 'Microsoft-Windows-Containers-CCG/Admin'

GROUP = 'windows.k8s.io'
API_VERSION = GROUP + '/v1'
KIND = 'GMSACredentialSpec'
CRD_NAME = 'gmsacredentialspecs.' + GROUP
WEBHOOK_NAME = 'admission-webhook.windows-gmsa.sigs.k8s.io'
CHART = 'kubernetes-sigs/windows-gmsa (its Helm chart charts/gmsa, or admission-webhook/deploy/deploy-gmsa-webhook.sh)'
OWNER_LABELS = {'app.kubernetes.io/managed-by': 'kubewin.node', 'app.kubernetes.io/component': 'gmsa'}

_GUID = re.compile(r'^\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}$')
_DNS_LABEL = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')
_DNS_SUBDOMAIN = re.compile(r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')
PLUGIN_FILES = ('dll', 'registration', 'events_manifest')
DOMAIN_JOIN_KEYS = ('DnsName', 'DnsTreeName', 'Guid', 'MachineAccountName', 'NetBiosName', 'Sid')
HOST_ACCOUNT_KEYS = ('PortableCcgVersion', 'PluginGUID', 'PluginInput')


def _short(value: t.Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def is_clsid(value: t.Any) -> bool:
    """A COM class id as the registry writes it: a GUID in braces."""
    return isinstance(value, str) and bool(_GUID.match(value))


def _download_problems(where: str, value: t.Any, with_path: bool = False) -> list[str]:
    keys = {'url', 'checksum'} | ({'path'} if with_path else set())
    if not isinstance(value, Mapping) or set(value) != keys:
        return ['%s must be {%s}' % (where, ', '.join(sorted(keys)))]
    problems = []
    if not str(value['url']).startswith('https://'):
        problems.append('%s.url %s must be an https:// URL' % (where, _short(value['url'])))
    # A pin of zeros is the artifacts check's (_preflight._check_artifacts), as the catalog's pins are: site.yml
    # refuses it, plan.yml renders with it and warns.
    if not _artifacts.is_placeholder(value['checksum']):
        try:
            _artifacts.parse_checksum(value['checksum'])
        except _artifacts.ChecksumError as error:
            problems.append('%s.checksum: %s' % (where, error))
    if with_path and not re.match(r'^[A-Za-z]:\\[^"*?<>|]+\.dll$', str(value['path']), re.IGNORECASE):
        problems.append('%s.path %s must be the absolute path of the .dll that the registry file registers '
                        '(its InprocServer32), such as C:\\Windows\\System32\\CCGAKVPlugin.dll' % (where, _short(value['path'])))
    return problems


def plugin_problems(plugin: t.Any) -> list[str]:
    """kubewin_gmsa_ccg_plugin: {} (domain-joined nodes) or the CCG plugin of nodes that are not domain-joined."""
    if plugin in (None, {}):
        return []
    if not isinstance(plugin, Mapping):
        return ['%s must be {} or {clsid, dll: {url, checksum, path}, registration: {url, checksum}, events_manifest: '
                '{url, checksum}}, got %s' % (PLUGIN_VARIABLE, _short(plugin))]
    unknown = sorted(set(plugin) - {'clsid'} - set(PLUGIN_FILES))
    missing = sorted(({'clsid'} | set(PLUGIN_FILES)) - set(plugin))
    if unknown or missing:
        return ['%s: %s; it takes clsid, dll, registration and events_manifest'
                % (PLUGIN_VARIABLE, '; '.join((['unknown key(s) %s' % ', '.join(unknown)] if unknown else [])
                                              + (['%s missing' % ', '.join(missing)] if missing else [])))]
    problems = []
    if not is_clsid(plugin['clsid']):
        problems.append('%s.clsid %s must be the COM class id of the plugin in braces, such as '
                        '{CCC2A336-D7F3-4818-A213-272B7924213E}' % (PLUGIN_VARIABLE, _short(plugin['clsid'])))
    for name in PLUGIN_FILES:
        problems += _download_problems('%s.%s' % (PLUGIN_VARIABLE, name), plugin[name], with_path=name == 'dll')
    return problems


def _credspec_problems(where: str, credspec: t.Any, plugin: t.Any) -> list[str]:
    if not isinstance(credspec, Mapping):
        return ['%s.credspec must be the credential spec (CmsPlugins, DomainJoinConfig, ActiveDirectoryConfig), as '
                'New-CredentialSpec writes it' % where]
    problems = []
    if 'ActiveDirectory' not in (credspec.get('CmsPlugins') or []):
        problems.append('%s.credspec.CmsPlugins must list ActiveDirectory' % where)
    join = credspec.get('DomainJoinConfig')
    missing = [key for key in DOMAIN_JOIN_KEYS if not isinstance(join, Mapping) or not join.get(key)]
    if missing:
        problems.append('%s.credspec.DomainJoinConfig lacks %s' % (where, ', '.join(missing)))
    directory = credspec.get('ActiveDirectoryConfig')
    accounts = directory.get('GroupManagedServiceAccounts') if isinstance(directory, Mapping) else None
    if not accounts or not all(isinstance(a, Mapping) and a.get('Name') and a.get('Scope') for a in accounts):
        problems.append('%s.credspec.ActiveDirectoryConfig.GroupManagedServiceAccounts must list the account as '
                        '{Name, Scope} (NetBIOS and DNS domain)' % where)
    host = directory.get('HostAccountConfig') if isinstance(directory, Mapping) else None
    if host is not None:
        absent = [key for key in HOST_ACCOUNT_KEYS if not isinstance(host, Mapping) or not host.get(key)]
        clsid = (plugin or {}).get('clsid') if isinstance(plugin, Mapping) else None
        if absent:
            problems.append('%s.credspec.ActiveDirectoryConfig.HostAccountConfig lacks %s' % (where, ', '.join(absent)))
        elif not clsid:
            problems.append('%s.credspec uses the CCG plugin %s (HostAccountConfig.PluginGUID), but %s names none: set '
                            'it, so that the nodes get the plugin' % (where, host['PluginGUID'], PLUGIN_VARIABLE))
        elif str(host['PluginGUID']).lower() != str(clsid).lower():
            problems.append('%s.credspec.ActiveDirectoryConfig.HostAccountConfig.PluginGUID %s is not the plugin the '
                            'nodes get (%s.clsid %s)' % (where, host['PluginGUID'], PLUGIN_VARIABLE, clsid))
    return problems


def spec_problems(specs: t.Any, plugin: t.Any) -> list[str]:
    """kubewin_gmsa_credential_specs: [{name, credspec, service_accounts: [{namespace, name}]}]."""
    if specs in (None, []):
        return []
    if not isinstance(specs, list):
        return ['%s must be a list of {name, credspec, service_accounts}, got %s' % (SPECS_VARIABLE, _short(specs))]
    problems, seen = [], set()
    for index, spec in enumerate(specs):
        where = '%s[%d]' % (SPECS_VARIABLE, index)
        if not isinstance(spec, Mapping) or not set(spec) <= {'name', 'credspec', 'service_accounts'} \
                or 'name' not in spec or 'credspec' not in spec:
            problems.append('%s must be {name, credspec, service_accounts}, got %s' % (where, _short(spec)))
            continue
        name = spec['name']
        if not isinstance(name, str) or not _DNS_SUBDOMAIN.match(name) or len(name) > 253:
            problems.append('%s.name %s must be a lower-case DNS subdomain: the GMSACredentialSpec\'s name, which pods '
                            'give as securityContext.windowsOptions.gmsaCredentialSpecName' % (where, _short(name)))
        elif name in seen:
            problems.append('%s.name %s is given twice' % (where, name))
        seen.add(name)
        problems += _credspec_problems(where, spec['credspec'], plugin)
        accounts = spec.get('service_accounts') or []
        if not isinstance(accounts, list) or not all(
                isinstance(a, Mapping) and set(a) == {'namespace', 'name'}
                and all(isinstance(a[k], str) and _DNS_LABEL.match(a[k]) for k in ('namespace', 'name'))
                for a in accounts):
            problems.append('%s.service_accounts must list {namespace, name} of the service accounts whose pods use '
                            'the account' % where)
    return problems


def problems(enabled: t.Any, plugin: t.Any, specs: t.Any, runtimes: Mapping[str, t.Any]) -> list[str]:
    """Every problem of the gMSA variables, one line each."""
    if not isinstance(enabled, bool):
        return ['%s must be true or false, got %s' % (VARIABLE, _short(enabled))]
    if not enabled:
        given = [name for name, value in ((PLUGIN_VARIABLE, plugin), (SPECS_VARIABLE, specs)) if value not in (None, {}, [])]
        return ['%s is set but %s is false: set %s: true, or remove it' % (name, VARIABLE, VARIABLE) for name in given]
    found = []
    docker = sorted(host for host, runtime in runtimes.items() if runtime != 'containerd')
    if docker:
        found.append('%s: true configures gMSA for containerd (the registry value %s that lets its containers reach SMB '
                     'shares by name, kubernetes-sigs/windows-gmsa#30); %s use docker (kubewin_container_runtime): use '
                     'containerd there' % (VARIABLE, COMPARTMENT_VALUE, ', '.join(docker[:3])
                                           + (' and %d more' % (len(docker) - 3) if len(docker) > 3 else '')))
    found += plugin_problems(plugin)
    found += spec_problems(specs, plugin)
    return found


def settings(enabled: t.Any, plugin: t.Any, specs: t.Any) -> dict[str, t.Any]:
    """What the roles read (plan_features.gmsa): whether gMSA is on, its mode and the plugin."""
    plugin = dict(plugin or {})
    return {'enabled': bool(enabled), 'mode': 'portable' if plugin else 'domain', 'ccg_plugin': plugin,
            'credential_specs': list(specs or [])}


def plugin_files(plugin: Mapping[str, t.Any], paths: Mapping[str, t.Any]) -> dict[str, dict[str, str]]:
    """The plugin's downloads and where they land: the DLL where its registry file says, the registry file and the
    event manifest in the node layout's kubernetes_dir\\ccg (their base names from the URLs)."""
    folder = ntpath.join(str(paths['kubernetes_dir']), 'ccg')
    files = {}
    for name in PLUGIN_FILES:
        download = plugin[name]
        dest = download.get('path') or ntpath.join(folder, str(download['url']).rstrip('/').rsplit('/', 1)[-1])
        files[name] = {'url': download['url'], 'checksum': download['checksum'], 'dest': dest}
    return files


def node_problem(snapshot_gmsa: Mapping[str, t.Any] | None, gmsa: Mapping[str, t.Any], host: str) -> str | None:
    """Why a node cannot host gMSA pods in the mode the inventory asks for, from its snapshot; None when it can."""
    if not gmsa.get('enabled') or snapshot_gmsa is None or gmsa.get('mode') == 'portable':
        return None
    if snapshot_gmsa.get('part_of_domain'):
        return None
    return ('%s is not domain-joined (Win32_ComputerSystem.PartOfDomain is false, workgroup %s): with %s: true and no '
            '%s, its containers take a gMSA identity through the node\'s own domain membership. Join it to the domain '
            'and allow it to retrieve the accounts\' passwords (Set-ADServiceAccount -PrincipalsAllowedToRetrieveManaged'
            'Password), or configure the CCG plugin of the non-domain-joined mode in %s'
            % (host, snapshot_gmsa.get('domain'), VARIABLE, PLUGIN_VARIABLE, PLUGIN_VARIABLE))


def _webhook_configurations(objects: t.Sequence[Mapping[str, t.Any]]) -> list[str]:
    return sorted(obj['metadata']['name'] for obj in objects or []
                  if any(hook.get('name') == WEBHOOK_NAME for hook in obj.get('webhooks') or []))


def cluster_problem(crds: t.Sequence[Mapping[str, t.Any]], mutating: t.Sequence[Mapping[str, t.Any]],
                    validating: t.Sequence[Mapping[str, t.Any]]) -> str | None:
    """Why the cluster cannot serve gMSA credential specs (None when it can): the CRD serving windows.k8s.io/v1 and
    both webhooks of windows-gmsa must be installed."""
    missing = []
    crd = next((c for c in crds or [] if c['metadata']['name'] == CRD_NAME), None)
    if crd is None or not any(v.get('name') == 'v1' and v.get('served') for v in (crd.get('spec') or {}).get('versions') or []):
        missing.append('the CustomResourceDefinition %s serving v1' % CRD_NAME)
    if not _webhook_configurations(mutating):
        missing.append('a MutatingWebhookConfiguration with the webhook %s' % WEBHOOK_NAME)
    if not _webhook_configurations(validating):
        missing.append('a ValidatingWebhookConfiguration with the webhook %s' % WEBHOOK_NAME)
    if not missing:
        return None
    return ('%s: true needs the cluster to serve GMSACredentialSpecs and check the pods that use them, but it lacks %s: '
            'install %s first (kubernetes.io, "Configure GMSA for Windows Pods and containers"); the collection does not '
            'install cluster add-ons' % (VARIABLE, '; '.join(missing), CHART))


def objects(specs: t.Sequence[Mapping[str, t.Any]]) -> list[dict[str, t.Any]]:
    """The GMSACredentialSpec of each spec, the ClusterRole that lets its use, and a RoleBinding of that role per
    service account, in its namespace (configure-gmsa.md)."""
    made: list[dict[str, t.Any]] = []
    for spec in specs or []:
        name = spec['name']
        role = 'kubewin-gmsa-%s' % name
        labels = dict(OWNER_LABELS)
        made.append({'apiVersion': API_VERSION, 'kind': KIND, 'metadata': {'name': name, 'labels': labels},
                     'credspec': dict(spec['credspec'])})
        made.append({'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'ClusterRole',
                     'metadata': {'name': role, 'labels': labels},
                     'rules': [{'apiGroups': [GROUP], 'resources': ['gmsacredentialspecs'], 'verbs': ['use'],
                                'resourceNames': [name]}]})
        for account in spec.get('service_accounts') or []:
            made.append({'apiVersion': 'rbac.authorization.k8s.io/v1', 'kind': 'RoleBinding',
                         'metadata': {'name': '%s-%s' % (role, account['name']), 'namespace': account['namespace'],
                                      'labels': labels},
                         'subjects': [{'kind': 'ServiceAccount', 'name': account['name'],
                                       'namespace': account['namespace']}],
                         'roleRef': {'kind': 'ClusterRole', 'name': role, 'apiGroup': 'rbac.authorization.k8s.io'}})
    return made


def _identity(obj: Mapping[str, t.Any]) -> tuple[str, str, str]:
    return obj['kind'], (obj.get('metadata') or {}).get('namespace') or '', obj['metadata']['name']


def stale(owned: t.Sequence[Mapping[str, t.Any]], wanted: t.Sequence[Mapping[str, t.Any]]) -> list[dict[str, t.Any]]:
    """Of the objects the collection made (found by OWNER_LABELS), those ``wanted`` (objects()) no longer holds."""
    keep = {_identity(obj) for obj in wanted or []}
    return [dict(obj) for obj in owned or [] if _identity(obj) not in keep]
