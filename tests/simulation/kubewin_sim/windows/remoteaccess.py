"""Remote Access as a LAN router, for Calico's BGP backend: Get-RemoteAccess, Install-RemoteAccess -VpnType RoutingOnly,
and the state of the service "Routing and Remote Access" (RemoteAccess) that goes with it.

Sources:
- tigera/docs `_includes/components/CalicoWindowsInstall.js`: a bgp node gets the features RemoteAccess,
  RSAT-RemoteAccess-PowerShell and Routing, restarts, then runs ``Install-RemoteAccess -VpnType RoutingOnly``, and
  ``Start-Service RemoteAccess`` because "sometimes" the service does not start by itself after the install;
- MicrosoftDocs/windows-powershell-docs docset/winserver2022-ps/RemoteAccess: Install-RemoteAccess (the Vpn parameter
  set; -VpnType RoutingOnly installs BGP routing) and Get-RemoteAccess (a CimInstance#RemoteAccessCommon with the
  status of each Remote Access technology, "Installed" or "Uninstalled", e.g. VpnStatus). The property that
  reports the routing installation, RoutingStatus, is not on that page: it is the name Windows Server reports and
  scripts check (``(Get-RemoteAccess).RoutingStatus -eq 'Installed'``);
- Microsoft's guidance on disabling system services on Windows Server 2016: the service "Routing and Remote Access"
  is installed Disabled. Install-RemoteAccess makes it start automatically and starts it.

Get-RemoteAccess on a node where the role is installed and nothing configured: its page says "If a certain Remote
Access technology (RA) is not installed, then only the computer status is displayed", so one RemoteAccessCommon whose
statuses say Uninstalled, no error (the model's answer). Whether it fails instead while the role waits for its
restart, or where the Remote Access Management service is missing, is not documented: a known risk
(docs/docsite/rst/testing.rst).

The cmdlets exist where the RemoteAccess module is installed (the RSAT-RemoteAccess-PowerShell feature). What the
reference pages do not say is not modelled: Install-RemoteAccess on a node where routing is installed already (a
script checks Get-RemoteAccess first), the other VPN types and DirectAccess. The error for a node whose Remote Access
role or Routing role service is missing or waits for a restart is the simulation's own wording.
"""

from ..pwsh.commands import CDXML
from ..pwsh.values import PSError, Unsupported, to_string
from .cim import CimInstance

# The state of a node that has never run Install-RemoteAccess: the service as the role installs it.
UNCONFIGURED = {'routing': False, 'service': {'state': 'stopped', 'start_mode': 'disabled'}}


def available(node):
    return node.data['features'].get('RSAT-RemoteAccess-PowerShell') == 'installed'


def state(node):
    return node.data.get('remote_access') or UNCONFIGURED


def service_state(node):
    """The service's state and start mode (services.py reads them for the built-in service RemoteAccess)."""
    return dict(state(node)['service'])


def set_service_state(node, **values):
    current = state(node)
    node.data['remote_access'] = {'routing': current['routing'], 'service': dict(current['service'], **values)}


class RemoteAccessCommon(CimInstance):
    CLASS = 'RemoteAccessCommon'
    # The status properties first, as Get-RemoteAccess prints them; the configuration of DA and VPN is not modelled.
    PROPERTIES = ('DAStatus', 'VpnStatus', 'VpnS2SStatus', 'RoutingStatus', 'LoadBalancing', 'PSComputerName')


def _status(installed):
    return 'Installed' if installed else 'Uninstalled'


def get_remoteaccess(ctx, params, input_items):
    for unsupported in ('ComputerName', 'EntrypointName', 'CimSession', 'AsJob'):
        if params.get(unsupported) is not None:
            raise Unsupported('Get-RemoteAccess -%s' % unsupported)
    routing = state(ctx.host.node)['routing']
    return [RemoteAccessCommon(DAStatus='Uninstalled', VpnStatus='Uninstalled', VpnS2SStatus='Uninstalled',
                               RoutingStatus=_status(routing), LoadBalancing='NotConfigured', PSComputerName=None)]


def install_remoteaccess(ctx, params, input_items):
    node = ctx.host.node
    if ctx.parameter_set != 'Vpn' or to_string(params.get('VpnType')).lower() != 'routingonly':
        raise Unsupported('Install-RemoteAccess other than -VpnType RoutingOnly')
    if params.get('PassThru'):
        raise Unsupported('Install-RemoteAccess -PassThru')
    if state(node)['routing']:
        raise Unsupported('Install-RemoteAccess where routing is installed already (not on the reference page)')
    missing = [name for name in ('RemoteAccess', 'Routing') if node.data['features'].get(name) != 'installed']
    if missing:
        ctx.write_error(PSError('Install-RemoteAccess : the Remote Access role and its Routing role service must be '
                                'installed and the computer restarted; not ready: %s.' % ', '.join(missing),
                                'Microsoft.Management.Infrastructure.CimException', 'InvalidOperation',
                                'InvalidOperation'))
        return []
    node.data['remote_access'] = {'routing': True, 'service': {'state': 'running', 'start_mode': 'auto'}}
    node.record('Install-RemoteAccess -VpnType RoutingOnly')
    return []


CMDLETS = {'Get-RemoteAccess': get_remoteaccess, 'Install-RemoteAccess': install_remoteaccess}
# RemoteAccess's cmdlets are CDXML functions (their reference pages list CimSession, ThrottleLimit and AsJob):
# pwsh/commands.py.
CMDLET_KIND = CDXML
