"""wevtutil.exe im: an instrumentation manifest's providers and channels installed.

Sources: "wevtutil" (learn.microsoft.com windows-server/administration/windows-commands/wevtutil: ``im <manifest>``
"Installs event publishers and logs from a manifest") and the EventManifest schema (learn.microsoft.com
windows/win32/wes/eventmanifestschema-schema: ``instrumentationManifest/instrumentation/events/provider`` with its
``name``, ``guid``, ``resourceFileName`` and ``messageFileName``, and under ``channels`` each ``channel`` with its
``name`` and ``type`` (Admin, Operational, Analytic, Debug); the namespace
``http://schemas.microsoft.com/win/2004/08/events``). Each channel becomes an event log of the node that writes to
it (windows/eventlog.py). A manifest that is not there, or not such XML, fails with the Win32 error as exit code
(ERROR_FILE_NOT_FOUND 2, ERROR_INVALID_DATA 13); the message text is the simulation's own.
"""

from xml.etree import ElementTree

from ..pwsh.values import Unsupported

NAMESPACE = '{http://schemas.microsoft.com/win/2004/08/events}'


def install(node, data):
    """Register the manifest's channels ({channel: provider}); raises ValueError for XML that is no manifest."""
    root = ElementTree.fromstring(data)
    if root.tag != NAMESPACE + 'instrumentationManifest':
        raise ValueError('the root element is not instrumentationManifest')
    found = {}
    for provider in root.iter(NAMESPACE + 'provider'):
        name = provider.get('name')
        if not name or not provider.get('guid'):
            raise ValueError('a provider needs a name and a guid')
        for channel in provider.iter(NAMESPACE + 'channel'):
            if channel.get('name'):
                found[channel.get('name')] = name
    node.data.setdefault('event_channels', {}).update(found)
    return found


def wevtutil_exe(host, words, input_items, environment=None):  # pylint: disable=unused-argument
    from . import ProgramResult  # pylint: disable=import-outside-toplevel
    from .filesystem import content_bytes, lookup  # pylint: disable=import-outside-toplevel
    from .processes import native_argv  # pylint: disable=import-outside-toplevel
    argv = native_argv(words)
    if len(argv) != 2 or argv[0].lower() not in ('im', 'install-manifest'):
        raise Unsupported('wevtutil.exe %s (only "wevtutil im <manifest>" is modelled)' % ' '.join(argv))
    entry = lookup(host.node, argv[1])
    if entry is None or entry['dir']:
        return ProgramResult([], ['Failed to open %s. The system cannot find the file specified.' % argv[1]], 2)
    try:
        install(host.node, content_bytes(entry))
    except (ValueError, ElementTree.ParseError) as error:
        return ProgramResult([], ['Failed to install the manifest %s. The data is invalid. (%s)' % (argv[1], error)], 13)
    return ProgramResult([], [], 0)


PROGRAMS = {'wevtutil.exe': wevtutil_exe}
