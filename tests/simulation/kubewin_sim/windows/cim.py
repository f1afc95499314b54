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
