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
