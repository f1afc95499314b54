"""CIM instances as the CDXML cmdlets (NetAdapter, NetTCPIP, DnsClient, NetSecurity) return them."""


class CimInstance:
    """A CIM instance: its properties in the order the class declares them (PROPERTIES)."""

    NET = 'Microsoft.Management.Infrastructure.CimInstance'
    CLASS = None
    PROPERTIES = ()

    def __init__(self, **values):
        for name in self.PROPERTIES:
            setattr(self, name, values.pop(name, None))
        if values:
            raise TypeError('%s has no properties %s' % (self.CLASS, sorted(values)))

    def to_string(self):
        # A CIM instance converts to its class and key (what [string] shows on Windows).
        return '%s (%s)' % (self.CLASS, getattr(self, self.KEY, '')) if getattr(self, 'KEY', None) else self.CLASS


# Get-CimInstance -ClassName <class> [-Filter <WQL condition>] over the classes the areas model:
# each area's CIM_CLASSES maps a lower-case class name to ``function(node)`` -> its instances.

def _wql_conditions(text):
    """A WQL WHERE clause of Property = 'value' terms joined by AND (the Filter syntax scripts use)."""
    import re  # pylint: disable=import-outside-toplevel
    from ..pwsh.values import Unsupported  # pylint: disable=import-outside-toplevel
    conditions = []
    for term in re.split(r'\s+and\s+', text.strip(), flags=re.IGNORECASE):
        match = re.fullmatch(r"\s*(\w+)\s*=\s*(?:'((?:[^']|'')*)'|\"([^\"]*)\"|(\d+))\s*", term)
        if match is None:
            raise Unsupported('WQL filter %r' % text)
        value = match.group(2).replace("''", "'") if match.group(2) is not None else (
            match.group(3) if match.group(3) is not None else match.group(4))
        conditions.append((match.group(1), value))
    return conditions


def get_ciminstance(ctx, params, input_items):
    from ..pwsh.values import PSError, Unsupported, to_string  # pylint: disable=import-outside-toplevel
    from . import AREAS  # pylint: disable=import-outside-toplevel
    for unsupported in ('Query', 'InputObject', 'ResourceUri', 'ComputerName', 'CimSession', 'Property', 'KeyOnly'):
        if params.get(unsupported) is not None:
            raise Unsupported('Get-CimInstance -%s' % unsupported)
    class_name = to_string(params.get('ClassName'))
    namespace = to_string(params.get('Namespace') or 'root/cimv2').replace('\\', '/').lower()
    source = None
    for area in AREAS:
        source = getattr(area, 'CIM_CLASSES', {}).get(class_name.lower()) or source
    if source is None or namespace != 'root/cimv2':
        if namespace == 'root/cimv2' and class_name.lower().startswith('win32_'):
            raise Unsupported('CIM class %s' % class_name)
        raise PSError('Invalid class ', 'Microsoft.Management.Infrastructure.CimException',
                      'HRESULT 0x80041010,Microsoft.Management.Infrastructure.CimCmdlets.GetCimInstanceCommand',
                      'MetadataError', target=class_name)
    instances = source(ctx.host.node)
    if params.get('Filter') is not None:
        conditions = _wql_conditions(to_string(params['Filter']))
        # WQL compares strings without regard to case.
        instances = [instance for instance in instances
                     if all(to_string(getattr(instance, name, None)).lower() == value.lower() for name, value in conditions)]
    return instances


# Invoke-CimMethod (reference/5.1/CimCmdlets/Invoke-CimMethod.md): a class's static method (-ClassName) or an
# instance's method (-InputObject, or CIM instances piped), its in parameters given by -Arguments. Each area's
# CIM_METHODS maps (lower-case class name, lower-case method name) to ``function(ctx, instance, arguments)``:
# ``instance`` None for a static method, ``arguments`` the in parameters by lower-case name. It returns a
# CimMethodResult.

class CimMethodResult:
    """What Invoke-CimMethod returns for a WMI method: its out parameters, then ReturnValue (the method's uint32)."""

    NET = 'Microsoft.Management.Infrastructure.CimMethodResult'

    def __init__(self, return_value, **out_parameters):
        from ..pwsh.values import UInt32  # pylint: disable=import-outside-toplevel
        for name, value in out_parameters.items():
            setattr(self, name, value)
        self.ReturnValue = UInt32(return_value)  # pylint: disable=invalid-name
        self.PSComputerName = None  # pylint: disable=invalid-name
        self.PROPERTIES = tuple(out_parameters) + ('ReturnValue', 'PSComputerName')  # pylint: disable=invalid-name


def _method(class_name, method_name):
    from . import AREAS  # pylint: disable=import-outside-toplevel
    for area in AREAS:
        found = getattr(area, 'CIM_METHODS', {}).get((class_name.lower(), method_name.lower()))
        if found is not None:
            return found
    return None


def invoke_cimmethod(ctx, params, input_items):
    from ..pwsh.values import Unsupported, enumerate_value, is_enumerable, to_string  # pylint: disable=import-outside-toplevel
    for unsupported in ('CimClass', 'Query', 'ResourceUri', 'ComputerName', 'CimSession', 'Namespace'):
        if params.get(unsupported) is not None:
            raise Unsupported('Invoke-CimMethod -%s' % unsupported)
    method_name = to_string(params.get('MethodName'))
    arguments = params.get('Arguments')
    arguments = {to_string(key).lower(): value for key, value in (arguments.items() if arguments is not None else [])}
    if params.get('ClassName') is not None:
        class_name = to_string(params['ClassName'])
        method = _method(class_name, method_name)
        if method is None:
            raise Unsupported('Invoke-CimMethod %s of CIM class %s' % (method_name, class_name))
        return [method(ctx, None, arguments)]
    targets = params.get('InputObject')
    targets = list(enumerate_value(targets)) if is_enumerable(targets) else ([] if targets is None else [targets])
    targets += list(input_items or [])
    out = []
    for target in targets:
        class_name = getattr(target, 'CLASS', None) or type(target).__name__
        method = _method(class_name, method_name) if isinstance(target, CimInstance) else None
        if method is None:
            raise Unsupported('Invoke-CimMethod %s on %s' % (method_name, class_name))
        out.append(method(ctx, target, arguments))
    return out


CMDLETS = {'Invoke-CimMethod': invoke_cimmethod}
