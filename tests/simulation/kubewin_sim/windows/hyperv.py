"""Hyper-V virtual switches and their extensions: Get-VMSwitch, Get-VMSwitchExtension, Enable-/Disable-VMSwitchExtension.

Sources: the cmdlets' pages in MicrosoftDocs/windows-powershell-docs (docset/winserver2022-ps/Hyper-V: Get-VMSwitch,
Get-VMSwitchExtension, Enable-VMSwitchExtension, Disable-VMSwitchExtension; the last two output the extension,
Microsoft.HyperV.PowerShell.VMSwitchExtension) and the Hyper-V module's objects (Microsoft.HyperV.PowerShell.VMSwitch:
Name, SwitchType, NetAdapterInterfaceDescription; VMSwitchExtension: Name, Vendor, ExtensionType, Enabled, Running,
SwitchName). The cmdlets exist only where the Hyper-V module is installed (the Hyper-V-PowerShell feature).

The switches are the node's: HNS makes one external vSwitch per adapter for its first network of an external type
on it (kubewin_sim/ovs.py vswitch_adapters, named after that network). Every switch carries the extensions Windows
ships (Microsoft Windows Filtering Platform, enabled; Microsoft NDIS Capture, disabled) and, once the Open vSwitch
driver feature is installed (windows/msi.py), the Open vSwitch extension, disabled until enabled; its state is
``node.data['ovs']['extensions']`` per adapter, which goes with the switch (node.py).

A switch's SwitchType is the module's enum Microsoft.HyperV.PowerShell.VMSwitchType (Get-VMSwitch's -SwitchType:
"Type: VMSwitchType[]", Accepted values Private, Internal, External, the enum's members in order: 0, 1, 2), so
[string] gives 'External' and ConvertTo-Json 2, as a Get-VMSwitch object of an external switch is serialized (a
public Hyper-V Terraform provider's vm switch test fixture: "SwitchType": 2 with its NetAdapterInterfaceDescriptions).
Every switch the model has is an external one bound to an adapter. NetAdapterInterfaceDescriptions lists the bound
adapters (one here; a Switch Embedded Team has several).

The messages for a switch or an extension that is not there are the simulation's own wording: the Hyper-V
module's exact text is not in its reference pages.
"""

from .. import ovs
from ..pwsh.types import enum_type
from ..pwsh.values import PSArray, PSError, Unsupported, enumerate_value, is_enumerable, to_string
from ..pwsh import operators as ops

VM_SWITCH_TYPE = enum_type('Microsoft.HyperV.PowerShell.VMSwitchType', {'Private': 0, 'Internal': 1, 'External': 2}).enum

BUILTIN_EXTENSIONS = (('Microsoft Windows Filtering Platform', 'Microsoft', 'Filter', True),
                      ('Microsoft NDIS Capture', 'Microsoft', 'Capture', False))


def available(node):
    return node.data['features'].get('Hyper-V-PowerShell') == 'installed'


class VMSwitch:
    NET = 'Microsoft.HyperV.PowerShell.VMSwitch'
    PROPERTIES = ('Name', 'SwitchType', 'NetAdapterInterfaceDescription', 'NetAdapterInterfaceDescriptions',
                  'AllowManagementOS')

    def __init__(self, name, description):
        self.Name = name  # pylint: disable=invalid-name
        self.SwitchType = VM_SWITCH_TYPE(2)  # pylint: disable=invalid-name
        self.NetAdapterInterfaceDescription = description  # pylint: disable=invalid-name
        self.NetAdapterInterfaceDescriptions = PSArray([description], 'System.String')  # pylint: disable=invalid-name
        self.AllowManagementOS = True  # pylint: disable=invalid-name

    def to_string(self):
        return 'VMSwitch (Name = \'%s\')' % self.Name


class VMSwitchExtension:
    NET = 'Microsoft.HyperV.PowerShell.VMSwitchExtension'
    PROPERTIES = ('Name', 'Vendor', 'ExtensionType', 'Enabled', 'Running', 'SwitchName')

    def __init__(self, name, vendor, kind, enabled, switch_name):  # pylint: disable=too-many-arguments
        self.Name = name  # pylint: disable=invalid-name
        self.Vendor = vendor  # pylint: disable=invalid-name
        self.ExtensionType = kind  # pylint: disable=invalid-name
        self.Enabled = enabled  # pylint: disable=invalid-name
        self.Running = enabled  # pylint: disable=invalid-name
        self.SwitchName = switch_name  # pylint: disable=invalid-name

    def to_string(self):
        return 'VMSwitchExtension (Name = \'%s\')' % self.Name


def _switches(node):
    """(name, adapter) of every vSwitch."""
    return [(ovs.switch_name(node, adapter), adapter) for adapter in ovs.vswitch_adapters(node)]


def _names(value):
    if value is None:
        return None
    return [to_string(item) for item in (enumerate_value(value) if is_enumerable(value) else [value])]


def _switch_not_found(name):
    return PSError('Hyper-V was unable to find a virtual switch with name "%s".' % name,
                   'Microsoft.HyperV.PowerShell.VirtualizationException', 'InvalidParameter', 'InvalidArgument',
                   target=name)


def _selected_switches(ctx, params, key):
    node = ctx.host.node
    wanted = _names(params.get(key))
    out = []
    for pattern in (wanted or ['*']):
        found = [entry for entry in _switches(node) if ops.wildcard(pattern).match(entry[0])]
        if not found and not any(char in pattern for char in '*?['):
            ctx.write_error(_switch_not_found(pattern))
        out.extend(entry for entry in found if entry not in out)
    return out


def _extensions(node, switch_name, adapter):
    out = [VMSwitchExtension(name, vendor, kind, enabled, switch_name) for name, vendor, kind, enabled in BUILTIN_EXTENSIONS]
    if ovs.has_feature(node, 'OpenvSwitchDriver'):
        enabled = bool((node.data.get('ovs') or {}).get('extensions', {}).get(adapter))
        out.append(VMSwitchExtension(ovs.EXTENSION, 'Cloudbase Solutions SRL', 'Forwarding', enabled, switch_name))
    return out


def _extension_not_found(name):
    return PSError("Unable to find a switch extension named '%s'." % name,
                   'Microsoft.HyperV.PowerShell.VirtualizationException', 'ObjectNotFound', 'ObjectNotFound', target=name)


def get_vmswitch(ctx, params, input_items):
    for unmodelled in ('Id', 'ResourcePoolName', 'SwitchType', 'CimSession', 'ComputerName', 'Credential'):
        if params.get(unmodelled) is not None:
            raise Unsupported('Get-VMSwitch -%s' % unmodelled)
    node = ctx.host.node
    descriptions = {adapter['name']: adapter['description'] for adapter in node.data['adapters']}
    return [VMSwitch(name, descriptions.get(adapter)) for name, adapter in _selected_switches(ctx, params, 'Name')]


def _matching_extensions(ctx, params):
    """(adapter, extension) of the -VMSwitchName switches whose extensions match -Name."""
    node = ctx.host.node
    if params.get('VMSwitch') is not None or params.get('VMSwitchExtension') is not None:
        raise Unsupported('%s with switch or extension objects' % ctx.cmdlet.name)
    wanted = _names(params.get('Name'))
    out = []
    for switch_name, adapter in _selected_switches(ctx, params, 'VMSwitchName'):
        extensions = _extensions(node, switch_name, adapter)
        for pattern in (wanted or ['*']):
            found = [extension for extension in extensions if ops.wildcard(pattern).match(extension.Name)]
            if not found and not any(char in pattern for char in '*?['):
                ctx.write_error(_extension_not_found(pattern))
            out.extend((adapter, extension) for extension in found)
    return out


def get_vmswitchextension(ctx, params, input_items):
    return [extension for _adapter, extension in _matching_extensions(ctx, params)]


def _set_enabled(ctx, params, enabled):
    node = ctx.host.node
    out = []
    for adapter, extension in _matching_extensions(ctx, params):
        if extension.Name == ovs.EXTENSION:
            ovs.model(node)['extensions'][adapter] = enabled
        elif extension.Enabled != enabled:
            raise Unsupported('changing the built-in switch extension %s' % extension.Name)
        extension.Enabled = extension.Running = enabled
        out.append(extension)
    return out


def enable_vmswitchextension(ctx, params, input_items):
    return _set_enabled(ctx, params, True)


def disable_vmswitchextension(ctx, params, input_items):
    return _set_enabled(ctx, params, False)


CMDLETS = {
    'Get-VMSwitch': get_vmswitch,
    'Get-VMSwitchExtension': get_vmswitchextension,
    'Enable-VMSwitchExtension': enable_vmswitchextension,
    'Disable-VMSwitchExtension': disable_vmswitchextension,
}
