"""The computer and its domain membership: Win32_ComputerSystem.

Source: the class's reference page (MicrosoftDocs/win32 desktop-src/CIMWin32Prov/win32-computersystem.md): Name is the
key, the computer's NetBIOS name; DNSHostName its name for DNS; PartOfDomain (boolean) is True when the computer is
part of a domain; Domain (string) names that domain, or the workgroup when it is in none; Workgroup names the workgroup
when PartOfDomain is False (null otherwise); DomainRole (uint16) is 2 for a standalone server and 3 for a member server.

The node profile's ``domain`` (kubewin_sim/node.py) is the DNS name of the domain the node joined, or None: a server
in the default workgroup WORKGROUP, as Windows Setup leaves it.
"""

from ..pwsh.values import UInt16
from .cim import CimInstance

WORKGROUP = 'WORKGROUP'
STANDALONE_SERVER, MEMBER_SERVER = 2, 3


class Win32ComputerSystem(CimInstance):
    CLASS = 'Win32_ComputerSystem'
    KEY = 'Name'
    PROPERTIES = ('Name', 'DNSHostName', 'Domain', 'DomainRole', 'PartOfDomain', 'Workgroup', 'PSComputerName')


def win32_computersystem(node):
    domain = node.profile.get('domain')
    hostname = node.data['hostname']
    return [Win32ComputerSystem(
        Name=hostname, DNSHostName=hostname.lower(), Domain=domain or WORKGROUP,
        DomainRole=UInt16(MEMBER_SERVER if domain else STANDALONE_SERVER), PartOfDomain=bool(domain),
        Workgroup=None if domain else WORKGROUP, PSComputerName=None)]


CIM_CLASSES = {'win32_computersystem': win32_computersystem}
