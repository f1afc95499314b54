"""Exception.HResult: the signed HRESULT an exception's constructor sets.

An exception class either sets its own HRESULT in its constructors or keeps its base class's. Sources: .NET
Framework's constructors and __HResults.cs (microsoft/referencesource, mscorlib/system/__hresults.cs and
mscorlib/system/io/__hresults.cs; System.dll's Win32Exception, UriFormatException, WebException and
compression/InvalidDataException); PowerShell's exception classes (PowerShell/PowerShell 60b3b304f2,
utils/RuntimeException.cs, utils/*Exceptions.cs, engine/ExtendedTypeSystemException.cs, none of which sets an
HRESULT); the MI client's CimException (Microsoft.Management.Infrastructure: ``base(message)`` only). A model that
raises an exception made with an HRESULT of its own (an IOException for a Win32 error: ``__Error.WinIOError``) gives it
in the error's ``properties['HResult']``. An exception type named nowhere here is not modelled: Unsupported.
"""

from .values import Unsupported


def _signed(value):
    return value - 2 ** 32 if value >= 2 ** 31 else value


# The classes whose constructors set an HRESULT, and the one they set.
SETS = {
    'System.Exception': _signed(0x80131500),  # COR_E_EXCEPTION
    'System.SystemException': _signed(0x80131501),  # COR_E_SYSTEM
    'System.ArgumentException': _signed(0x80070057),  # COR_E_ARGUMENT
    'System.ArgumentNullException': _signed(0x80004003),  # E_POINTER
    'System.ArgumentOutOfRangeException': _signed(0x80131502),  # COR_E_ARGUMENTOUTOFRANGE
    'System.InvalidOperationException': _signed(0x80131509),  # COR_E_INVALIDOPERATION
    'System.ObjectDisposedException': _signed(0x80131622),  # COR_E_OBJECTDISPOSED
    'System.FormatException': _signed(0x80131537),  # COR_E_FORMAT
    'System.NotSupportedException': _signed(0x80131515),  # COR_E_NOTSUPPORTED
    'System.InvalidCastException': _signed(0x80004002),  # COR_E_INVALIDCAST
    'System.TimeoutException': _signed(0x80131505),  # COR_E_TIMEOUT
    'System.IndexOutOfRangeException': _signed(0x80131508),  # COR_E_INDEXOUTOFRANGE
    'System.UnauthorizedAccessException': _signed(0x80070005),  # COR_E_UNAUTHORIZEDACCESS
    'System.DllNotFoundException': _signed(0x80131524),  # COR_E_DLLNOTFOUND
    'System.IO.IOException': _signed(0x80131620),  # COR_E_IO
    'System.IO.FileNotFoundException': _signed(0x80070002),  # COR_E_FILENOTFOUND
    'System.IO.DirectoryNotFoundException': _signed(0x80070003),  # COR_E_DIRECTORYNOTFOUND
    'System.Runtime.InteropServices.ExternalException': _signed(0x80004005),  # E_FAIL
}

# The base class of each class that sets none.
BASES = {
    'System.Management.Automation.RuntimeException': 'System.SystemException',
    'System.Management.Automation.ParameterBindingException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ParameterBindingValidationException':
        'System.Management.Automation.ParameterBindingException',
    'System.Management.Automation.MethodException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.MethodInvocationException': 'System.Management.Automation.MethodException',
    'System.Management.Automation.SessionStateException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ItemNotFoundException': 'System.Management.Automation.SessionStateException',
    'System.Management.Automation.DriveNotFoundException': 'System.Management.Automation.SessionStateException',
    'System.Management.Automation.SessionStateUnauthorizedAccessException':
        'System.Management.Automation.SessionStateException',
    'System.Management.Automation.CommandNotFoundException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ParseException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ActionPreferenceStopException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.RemoteException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.MetadataException': 'System.Management.Automation.RuntimeException',
    'System.Management.Automation.ValidationMetadataException': 'System.Management.Automation.MetadataException',
    'System.Management.Automation.PSInvalidCastException': 'System.InvalidCastException',
    'System.Management.Automation.PSArgumentException': 'System.ArgumentException',
    'System.Management.Automation.PSInvalidOperationException': 'System.InvalidOperationException',
    'Microsoft.PowerShell.Commands.WriteErrorException': 'System.SystemException',
    'Microsoft.PowerShell.Commands.ProcessCommandException': 'System.SystemException',
    'Microsoft.PowerShell.Commands.ServiceCommandException': 'System.SystemException',
    'Microsoft.Management.Infrastructure.CimException': 'System.Exception',
    'System.Net.WebException': 'System.InvalidOperationException',
    'System.UriFormatException': 'System.FormatException',
    'System.ComponentModel.Win32Exception': 'System.Runtime.InteropServices.ExternalException',
    'System.Runtime.InteropServices.COMException': 'System.Runtime.InteropServices.ExternalException',
    'System.Security.Principal.IdentityNotMappedException': 'System.SystemException',
    'System.IO.InvalidDataException': 'System.SystemException',
}


def default_hresult(type_name):
    """The HRESULT an exception of ``type_name`` made without one of its own carries."""
    current = type_name
    while current not in SETS:
        if current not in BASES:
            raise Unsupported('the HResult of %s' % type_name)
        current = BASES[current]
    return SETS[current]


def hresult(error):
    """Exception.HResult of the exception behind a PSError."""
    given = error.properties.get('HResult')
    return int(given) if given is not None else default_hresult(error.type_name)
