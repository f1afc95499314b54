"""Downloads and archives on a node: Invoke-WebRequest over the simulated web, tar.exe, ZipFile.

The web is ``kubewin_sim/web.py``, shared by all nodes of ``KUBEWIN_SIM_STATE_DIR``: what a URL serves
(bytes, or a binary pinned by its digest), its faults, and what its archive holds.

Invoke-WebRequest as Windows PowerShell 5.1 has it (reference/5.1/Microsoft.PowerShell.Utility/
Invoke-WebRequest.md of MicrosoftDocs/PowerShell-Docs for the parameters; the cmdlet's source as Windows
PowerShell 5.1 shipped it, WebRequestPSCmdlet.cs, InvokeWebRequestCommand.cs and StreamHelper.cs of
PowerShell/PowerShell at commit 60b3b304f2, for the behaviour):
- ``-Uri`` is a [Uri] with [ValidateNotNullOrEmpty]: an empty string fails binding;
- ``-ProxyCredential`` without ``-Proxy`` fails (WebCmdletProxyUriNotSuppliedException);
- the way out: with ``-Proxy`` the request goes to that proxy (WebRequestPSCmdlet.PrepareSession: a WebProxy of the
  URI, BypassProxyOnLocal false); without it HttpWebRequest takes WebRequest.DefaultWebProxy, the system proxy of
  the .NET Framework: the Internet settings of the account that runs the cmdlet (WinHttpGetIEProxyConfigForCurrentUser
  in .NET Framework's System/net/System/Net/_WinHttpWebProxyDataBuilder.cs, microsoft/referencesource), the node
  profile's ``user_proxy`` (none for the WinRM account unless someone set it); never the machine's WinHTTP proxy
  (``netsh winhttp``) nor the HTTP_PROXY/HTTPS_PROXY variables. A node whose network lets it out only through a
  proxy (profile ``web_proxy``) fails every other way with the WebException of a connection that could not be made
  (status ConnectFailure, "Unable to connect to the remote server", no Response), but for the hosts of its network
  (``web_direct_hosts``), which it reaches directly only; without ``web_proxy`` any proxy reaches the same web (proxy
  authentication is not modelled);
- a GET whose answer is an error (an HTTP error status, a timeout, a connection closed) is the
  WebException of HttpWebRequest, thrown as a terminating error with the id
  WebCmdletWebResponseException and category InvalidOperation: an HTTP status leaves the exception's
  ``Response`` (an HttpWebResponse with ``StatusCode``) and ``Status`` ProtocolError; a timeout
  (``-TimeoutSec``) is Status Timeout, "The operation has timed out." (the cmdlet's RequestTimeout); a
  connection closed before the answer is ReceiveFailure; both without a Response. No file is written
  then;
- ``-OutFile`` without ``-PassThru`` writes the body to the file (File.Create: created or truncated; its
  folder must exist, else DirectoryNotFoundException) and outputs nothing. A binary the web serves by
  its pinned digest lands as a stand-in (windows/filesystem.py). The cmdlet returns once the whole body
  arrived: at the rate the web serves the URL at (web.py's rates), the node's clock moves on by the size
  over the rate (windows/system.py pass_time). That time is not held against ``-TimeoutSec``: the cmdlet
  sets HttpWebRequest.Timeout, which covers waiting for the answer, not reading its body (HttpWebRequest.Timeout
  and ReadWriteTimeout, .NET Framework API reference). A body the system drive has no room for fails the write
  (windows/filesystem.py, DISK_FULL): an IOException the cmdlet does not catch, and the file keeps what fit.
Whatever else the cmdlet can do (output objects, other methods, bodies, sessions, certificates) is an
engine gap (Unsupported).

tar.exe (C:\\Windows\\System32\\tar.exe since Windows 10 1803 / Server 2019: libarchive's bsdtar; its
tar/read.c and bsdtar.1): ``-x`` with ``-f FILE`` and ``-C DIR`` (``-z`` and ``-v`` accepted; bsdtar
detects the compression when reading). It opens the archive first ("Error opening archive: Failed to
open 'FILE'", "Error opening archive: Unrecognized archive format" on standard error, exit code 1), then
changes to DIR ("could not chdir to 'DIR'"), then writes each member under it, creating folders and
replacing existing files; a member it cannot write is reported with its name and makes the exit code 1.
Every message starts with the program's name, ``tar.exe: ``.

System.IO.Compression.ZipFile.ExtractToDirectory (.NET Framework 4.5+ API reference; the assembly
System.IO.Compression.FileSystem, which Windows PowerShell 5.1 does not load until ``Add-Type
-AssemblyName``): creates the folder (an existing one is fine, whatever the reference page says:
dotnet/runtime issue 53609, the method calls Directory.CreateDirectory), writes every entry under it,
fails (IOException) on an entry whose file already exists; a file that is no zip is InvalidDataException
"End of Central Directory record could not be found.".

What an archive holds: a real archive's bytes are read (Python's tarfile and zipfile); an archive of the
simulated web (its bytes ``kubewin-sim:<url>``, or a stand-in whose SHA-256 web.json pins for a URL)
holds the members web.py lists for the URL, each a stand-in with the identity web.member_identity
derives (the same the artifact_fetch handler installs).
"""

import hashlib
import io
import os
import tarfile
import urllib.parse
import zipfile

from .. import web
from ..pwsh.dotnet import Uri
from ..pwsh.types import NetType, enum_type, resolve
from ..pwsh.values import AUTOMATION_NULL, PSError, Unsupported, is_null, to_string
from . import addtype, filesystem, system

# The values of the .NET enums (System.Net.HttpStatusCode, System.Net.WebExceptionStatus reference pages).
enum_type('System.Net.HttpStatusCode', {'OK': 200, 'Forbidden': 403, 'NotFound': 404, 'InternalServerError': 500,
                                        'BadGateway': 502, 'ServiceUnavailable': 503})
enum_type('System.Net.WebExceptionStatus', {
    'Success': 0, 'NameResolutionFailure': 1, 'ConnectFailure': 2, 'ReceiveFailure': 3, 'SendFailure': 4,
    'PipelineFailure': 5, 'RequestCanceled': 6, 'ProtocolError': 7, 'ConnectionClosed': 8, 'TrustFailure': 9,
    'SecureChannelFailure': 10, 'ServerProtocolViolation': 11, 'KeepAliveFailure': 12, 'Pending': 13, 'Timeout': 14,
    'ProxyNameResolutionFailure': 15, 'UnknownError': 16})
_WEB_STATUS = {'timeout': 'Timeout', 'reset': 'ReceiveFailure', 'connect': 'ConnectFailure'}
# WebException messages of HttpWebRequest (.NET Framework's net_webstatus_* resources).
_CONNECT_FAILURE = 'Unable to connect to the remote server'
# The parameters modelled beyond -Uri and -OutFile: they change nothing on the simulated web.
_ACCEPTED = {'Uri', 'OutFile', 'UseBasicParsing', 'TimeoutSec', 'Proxy', 'ProxyCredential', 'UserAgent',
             'DisableKeepAlive', 'MaximumRedirection'}


def state_dir():
    """Where the simulated web lives: the state directory of the simulated nodes."""
    directory = os.environ.get('KUBEWIN_SIM_STATE_DIR')
    if not directory:
        raise Unsupported('a download without a simulated web (KUBEWIN_SIM_STATE_DIR is not set)')
    return directory


class HttpWebResponse:
    """System.Net.HttpWebResponse of an error answer: what a WebException's Response holds."""

    NET = 'System.Net.HttpWebResponse'
    PROPERTIES = ('StatusCode', 'StatusDescription', 'ResponseUri', 'Method')

    def __init__(self, status, url):
        self.StatusCode = resolve('System.Net.HttpStatusCode').enum(int(status))
        self.StatusDescription = web.REASONS[status]
        self.ResponseUri = url
        self.Method = 'GET'

    def to_string(self):
        return self.NET


def _web_exception(error, url):
    http = error.status.isdigit()
    status = resolve('System.Net.WebExceptionStatus').enum.parse('ProtocolError' if http else _WEB_STATUS[error.status])
    return PSError(str(error), 'System.Net.WebException',
                   'WebCmdletWebResponseException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand',
                   'InvalidOperation', target=url,
                   properties={'Response': HttpWebResponse(error.status, url) if http else None, 'Status': status})


def _proxy_key(text):
    """A proxy URI's scheme, host and port (the default port of its scheme when it names none)."""
    parsed = urllib.parse.urlsplit(to_string(text).strip())
    return (parsed.scheme.lower(), (parsed.hostname or '').lower(),
            parsed.port or {'http': 80, 'https': 443}.get(parsed.scheme.lower()))


def _connect_failure(node, uri, proxy):
    """The WebException of a request that cannot reach the web from the node (None when it can): ``proxy`` is the
    proxy it goes to (-Proxy or the account's Internet settings). Behind ``web_proxy``, a host of the profile's
    ``web_direct_hosts`` (a mirror inside the node's network) is reached directly only: the proxy cannot reach it
    and answers 502 Bad Gateway (RFC 9110, 15.6.3); any other host through that proxy only."""
    egress = node.profile.get('web_proxy')
    if not egress:
        return None
    via_egress = bool(proxy) and _proxy_key(proxy) == _proxy_key(egress)
    inside = (uri.Host or '').lower() in [host.lower() for host in node.profile.get('web_direct_hosts') or ()]
    if inside and via_egress:
        return web.WebError('The remote server returned an error: (502) %s.' % web.REASONS['502'], '502', True)
    if inside and not proxy or via_egress:
        return None
    return web.WebError(_CONNECT_FAILURE, 'connect', True)


def invoke_web_request(ctx, params, input_items):
    unmodelled = sorted(set(params) - _ACCEPTED)
    if unmodelled or not params.get('OutFile'):
        raise Unsupported('Invoke-WebRequest %s' % (' '.join('-' + name for name in unmodelled) or 'without -OutFile'))
    if is_null(params.get('Uri')) or to_string(params['Uri']) == '':
        raise PSError("Cannot validate argument on parameter 'Uri'. The argument is null or empty. Provide an argument "
                      "that is not null or empty, and then try the command again.",
                      'System.Management.Automation.ParameterBindingValidationException',
                      'ParameterArgumentValidationError,Microsoft.PowerShell.Commands.InvokeWebRequestCommand',
                      'InvalidData')
    uri = params['Uri'] if isinstance(params['Uri'], Uri) else Uri(params['Uri'])
    if params.get('ProxyCredential') is not None and is_null(params.get('Proxy')):
        raise PSError('The cmdlet cannot run because the following parameter is missing: Proxy. Provide a valid proxy '
                      'URI for the Proxy parameter when using the ProxyCredential or UseDefaultProxyCredentials '
                      'parameters, then retry.', 'System.Management.Automation.ValidationMetadataException',
                      'WebCmdletProxyUriNotSuppliedException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand',
                      'InvalidArgument')
    if not uri.IsAbsoluteUri or uri.Scheme not in ('http', 'https'):
        raise Unsupported('Invoke-WebRequest of %s (only absolute http and https addresses are modelled)'
                          % uri.OriginalString)
    url = uri.OriginalString
    proxy = params.get('Proxy') if not is_null(params.get('Proxy')) else ctx.host.node.profile.get('user_proxy')
    try:
        refused = _connect_failure(ctx.host.node, uri, proxy)
        if refused is not None:
            raise refused
        served = web.request(state_dir(), url)
    except web.WebError as error:
        raise _web_exception(error, url) from None
    target = filesystem.normalize(params['OutFile'])
    if 'body' not in served and 'sha256' not in served:
        # A stand-in is known by its SHA-256 (windows/filesystem.py); a pin by another digest has nothing to land as.
        raise Unsupported('a download of %s, which web.json pins by a digest other than SHA-256' % url)
    try:
        if 'body' in served:
            filesystem.write_file(ctx.host.node, target, served['body'])
        else:
            pinned = {'sha256': served['sha256'], 'size': served['size']}
            filesystem.write_file(ctx.host.node, target, b'', stand_in=pinned)
    except PSError as error:
        if error.type_name != 'System.IO.IOException':
            raise
        # A write that fails (a full disk) is no WebException: ProcessRecord does not catch it, so it leaves the
        # cmdlet as itself, and the file keeps what was written (StreamHelper.SaveStreamToFile: File.Create, then
        # the copy); the engine's record of an exception thrown out of a cmdlet is "<exception type>,<cmdlet>".
        raise PSError(error.message, error.type_name,
                      'System.IO.IOException,Microsoft.PowerShell.Commands.InvokeWebRequestCommand', 'NotSpecified',
                      target=target) from None
    system.pass_time(ctx.host.node, served['seconds'])
    return []


# --- what an archive holds -----------------------------------------------------------------------------------

def archive_members(entry, readers):
    """[(member path with / separators, bytes or None, stand-in or None, is a folder)] of the archive file
    ``entry``, or None when it is no archive ``readers`` ('tar', 'zip') read."""
    stand_in = entry.get('stand_in')
    if stand_in:
        url = web.simulated_archive(state_dir(), sha256=stand_in['sha256'])
        return None if url is None else _simulated(url, stand_in['sha256'])
    data = filesystem.content_bytes(entry)
    if 'tar' in readers:
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                return [(member.name, archive.extractfile(member).read() if member.isfile() else None, None,
                         member.isdir()) for member in archive.getmembers() if member.isfile() or member.isdir()]
        except tarfile.TarError:
            pass
    if 'zip' in readers:
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return [(member.filename.rstrip('/'), None if member.is_dir() else archive.read(member), None,
                         member.is_dir()) for member in archive.infolist()]
        except zipfile.BadZipFile:
            pass
    url = web.simulated_archive(state_dir(), data=data) if data.startswith(web.PREFIX) else None
    return None if url is None else _simulated(url, hashlib.sha256(data).hexdigest())


def _simulated(url, archive_sha256):
    return [(member, None, web.member_identity(url, archive_sha256, member), False)
            for member in web.archive_members(state_dir(), url)]


def _write_member(node, root, name, data, stand_in, directory, overwrite):
    target = filesystem.normalize(root.rstrip('\\') + '\\' + name.replace('/', '\\'))
    if directory:
        filesystem.make_directories(node, target)
        return
    if not overwrite and filesystem.lookup(node, target) is not None:
        raise PSError("The file '%s' already exists." % target, 'System.IO.IOException')
    filesystem.make_directories(node, filesystem.parent_of(target))
    filesystem.write_file(node, target, data or b'', stand_in=stand_in)


# --- tar.exe -----------------------------------------------------------------------------------------------

def _tar_options(words):
    """bsdtar's options as the script passes them: -x, -z, -v, -f FILE, -C DIR (also bundled, -xzf FILE)."""
    options, index = {'mode': None, 'file': None, 'directory': None}, 0
    while index < len(words):
        word = words[index]
        if not word.startswith('-') or word.startswith('--'):
            raise Unsupported('tar.exe %s (only -x, -z, -v, -f FILE and -C DIR are modelled)' % word)
        for position, letter in enumerate(word[1:]):
            if letter in 'xtc':
                options['mode'] = letter
            elif letter in 'zv':
                continue
            elif letter in 'fC':
                rest = word[position + 2:]
                if rest:
                    value = rest
                else:
                    index += 1
                    value = words[index] if index < len(words) else None
                options['file' if letter == 'f' else 'directory'] = value
                break
            else:
                raise Unsupported('tar.exe -%s' % letter)
        index += 1
    return options


def tar_exe(host, words, input_items):
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    node = host.node
    options = _tar_options(words)
    if options['mode'] is None:
        return ProgramResult([], ['tar.exe: Must specify one of -c, -r, -t, -u, -x'], 1)
    if options['mode'] != 'x' or options['file'] is None:
        raise Unsupported('tar.exe other than -x -f FILE')
    entry = filesystem.lookup(node, options['file'])
    if entry is None or entry['dir']:
        return ProgramResult([], ["tar.exe: Error opening archive: Failed to open '%s'" % options['file']], 1)
    members = archive_members(entry, ('tar', 'zip'))
    if members is None:
        return ProgramResult([], ['tar.exe: Error opening archive: Unrecognized archive format'], 1)
    root = options['directory'] or 'C:\\Users\\Administrator\\Documents'
    folder = filesystem.lookup(node, root)
    if folder is None or not folder['dir']:
        return ProgramResult([], ["tar.exe: could not chdir to '%s'" % root], 1)
    errors = []
    for name, data, stand_in, directory in members:
        try:
            _write_member(node, folder['path'], name, data, stand_in, directory, overwrite=True)
        except PSError as error:
            errors.append('tar.exe: %s: %s' % (name, error.message))
    return ProgramResult([], errors, 1 if errors else 0)


# --- System.IO.Compression.ZipFile ---------------------------------------------------------------------------

def extract_zip(node, source, destination):
    entry = filesystem.lookup(node, source)
    if entry is None or entry['dir']:
        raise PSError("Could not find file '%s'." % filesystem.normalize(source), 'System.IO.FileNotFoundException')
    members = archive_members(entry, ('zip',))
    if members is None:
        raise PSError('End of Central Directory record could not be found.', 'System.IO.InvalidDataException')
    root = filesystem.make_directories(node, destination)['path']
    for name, data, stand_in, directory in members:
        _write_member(node, root, name, data, stand_in, directory, overwrite=False)
    return AUTOMATION_NULL


def _compression_filesystem(host):
    return [NetType('System.IO.Compression.ZipFile', statics={
        # ExtractToDirectory(sourceArchiveFileName, destinationDirectoryName); the overload with an entry-name
        # Encoding is not modelled (an argument count the lambda does not take: Unsupported, pwsh/members.py).
        'ExtractToDirectory': lambda source, destination: extract_zip(host.node, source, destination)})]


addtype.ASSEMBLIES['system.io.compression.filesystem'] = _compression_filesystem

CMDLETS = {'Invoke-WebRequest': invoke_web_request}
PROGRAMS = {'tar.exe': tar_exe}
