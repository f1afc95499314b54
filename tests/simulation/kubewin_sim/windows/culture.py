"""The node's culture: Get-Culture, [System.Globalization.CultureInfo], and what a date's format string makes of it.

The culture of a script is the format culture of the account it runs as (Get-Culture, reference/5.1
Microsoft.PowerShell.Utility/Get-Culture.md: "the current culture settings in the operating system"; CultureInfo.
CurrentCulture, .NET API reference). The node profile's ``culture`` (default ``en-US``) is that of the accounts the
collection runs scripts as: the WinRM user's and SYSTEM's (a scheduled task), as a server set up for that region has it.
Set-Culture (International module, docset/winserver2022-ps/International/Set-Culture.md: "sets a specific culture for
the current user account") changes it (``node.data['culture']``; the model has one account for both) for the sessions
that start after it: a session keeps the culture it started with (WindowsHost.culture).

CultureInfo (.NET API reference, dotnet/dotnet-api-docs xml/System.Globalization/CultureInfo.xml): Name, LCID, Calendar
(the culture's default calendar), ToString() the name; InvariantCulture has the name "" and LCID 127; GetCultureInfo(name)
an existing culture, else CultureNotFoundException. A culture's default calendar: Gregorian for en-US, de-DE, ja-JP;
ThaiBuddhistCalendar for th-TH (whose years are the Gregorian year plus 543: ThaiBuddhistCalendar.xml); UmAlQuraCalendar
for ar-SA (UmAlQuraCalendar.xml), whose dates the model does not compute: formatting one is an engine gap.

DateTime.ToString(format[, provider]) (.NET Framework reference source, mscorlib/system/globalization/datetimeformat.cs,
Format and FormatCustomized): "o" is the Gregorian round trip whatever the culture; "s" and "u" use the invariant
culture; a custom format takes the year, month and day from the calendar of the provider's culture, or of the current
culture without one ("y": cal.GetYear). The custom specifiers modelled are yyyy, MM, dd, HH, mm, ss and fff ("Custom date
and time format strings"); any other letter, a quote or an escape is refused rather than guessed. The default format
("G", the culture's short date and long time patterns) is modelled for en-US only, by the DateTime classes themselves.
"""

from ..pwsh.types import NetType
from ..pwsh.values import PSError, Unsupported, is_null, to_string
from . import processes

# name (lower case) -> (Name, LCID, default calendar)
CULTURES = {
    '': ('', 127, 'GregorianCalendar'),
    'en-us': ('en-US', 1033, 'GregorianCalendar'),
    'de-de': ('de-DE', 1031, 'GregorianCalendar'),
    'ja-jp': ('ja-JP', 1041, 'GregorianCalendar'),
    'th-th': ('th-TH', 1054, 'ThaiBuddhistCalendar'),
    'ar-sa': ('ar-SA', 1025, 'UmAlQuraCalendar'),
}
# Years of a calendar that differs from the Gregorian one by an offset only (ThaiBuddhistCalendar: 543).
_YEAR_OFFSETS = {'GregorianCalendar': 0, 'ThaiBuddhistCalendar': 543}


class Calendar:
    """System.Globalization.<name>: a culture's calendar ([string]: its type's full name)."""

    PROPERTIES = ()

    def __init__(self, name):
        self.name = name
        self.NET = 'System.Globalization.' + name

    def year(self, value):
        """Calendar.GetYear."""
        if self.name not in _YEAR_OFFSETS:
            raise Unsupported('a date in the %s (%s)' % (self.name, value.isoformat()))
        return value.year + _YEAR_OFFSETS[self.name]

    def to_string(self):
        return self.NET


class CultureInfo:
    """System.Globalization.CultureInfo of a modelled culture."""

    NET = 'System.Globalization.CultureInfo'
    PROPERTIES = ('Name', 'LCID', 'Calendar')

    def __init__(self, name):
        self.Name, self.LCID, calendar = CULTURES[name.lower()]  # pylint: disable=invalid-name
        self.Calendar = Calendar(calendar)  # pylint: disable=invalid-name

    def to_string(self):
        return self.Name


INVARIANT = CultureInfo('')


def get_culture_info(name):
    """CultureInfo.GetCultureInfo(name): a culture of the model; a name that is no culture is CultureNotFoundException,
    one the model does not know an engine gap."""
    text = '' if is_null(name) else to_string(name)
    if text.lower() in CULTURES:
        return CultureInfo(text)
    if text.replace('-', '').isalpha() and 2 <= len(text.split('-')[0]) <= 3:
        raise Unsupported('the culture %s' % text)
    raise PSError('Culture is not supported.\r\nParameter name: name\r\n%s is an invalid culture identifier.' % text,
                  'System.Globalization.CultureNotFoundException')


def account_culture(node):
    """The name of the culture of the account scripts run as: Set-Culture's, else the profile's, else en-US."""
    return node.data.get('culture') or node.profile.get('culture') or 'en-US'


def current(host=None):
    """The current culture of a session (by default the one running now): the one it started with."""
    host = host if host is not None else processes.CURRENT_HOST.get()
    if host is None:
        return get_culture_info('en-US')
    name = getattr(host, 'culture', None) or account_culture(host.node)
    return get_culture_info(name)


def provider_culture(provider):
    """The culture an IFormatProvider argument names (a CultureInfo); None for none."""
    if provider is None or is_null(provider):
        return None
    if isinstance(provider, CultureInfo):
        return provider
    raise Unsupported('a format provider of type %s' % type(provider).__name__)


# Custom specifiers and the field each formats: (token, function of (date, calendar)).
_SPECIFIERS = (
    ('yyyy', lambda value, calendar: '%04d' % calendar.year(value)),
    ('MM', lambda value, calendar: '%02d' % value.month),
    ('dd', lambda value, calendar: '%02d' % value.day),
    ('HH', lambda value, calendar: '%02d' % value.hour),
    ('mm', lambda value, calendar: '%02d' % value.minute),
    ('ss', lambda value, calendar: '%02d' % value.second),
    ('fff', lambda value, calendar: '%03d' % (value.microsecond // 1000)),
)


def _custom(value, fmt, culture):
    out, rest = '', fmt
    while rest:
        for token, field in _SPECIFIERS:
            if rest.startswith(token):
                if token in ('MM', 'dd') and culture.Calendar.name not in _YEAR_OFFSETS:
                    raise Unsupported('a date in the %s' % culture.Calendar.name)
                out, rest = out + field(value, culture.Calendar), rest[len(token):]
                break
        else:
            if rest[0].isalpha() or rest[0] in '%\\\'"':
                raise Unsupported('DateTime.ToString(%r)' % fmt)
            out, rest = out + rest[0], rest[1:]
    return out


def format_datetime(value, fmt, provider, kind):
    """DateTime.ToString(fmt, provider) of a datetime of ``kind`` ('Utc', 'Local' or 'Unspecified') for a format
    string; None when the format is the default one, which the caller formats."""
    culture = provider_culture(provider) or current()
    if fmt is None or is_null(fmt) or to_string(fmt) == '':
        if culture.Name != 'en-US':
            raise Unsupported('DateTime.ToString() in the culture %s (only en-US patterns are modelled)' % culture.Name)
        return None
    fmt = to_string(fmt)
    if fmt in ('o', 'O'):
        # FastFormatRoundtrip: Z for Utc, the offset for Local (the node's time zone is UTC), none for Unspecified.
        suffix = {'Utc': 'Z', 'Local': '+00:00'}.get(kind, '')
        return value.strftime('%Y-%m-%dT%H:%M:%S.') + '%07d' % (value.microsecond * 10) + suffix
    if fmt == 's':
        return _custom(value, 'yyyy-MM-dd', INVARIANT) + 'T' + _custom(value, 'HH:mm:ss', INVARIANT)
    if fmt == 'u':
        return _custom(value, 'yyyy-MM-dd HH:mm:ss', INVARIANT) + 'Z'
    if len(fmt) == 1:
        raise Unsupported('DateTime.ToString(%r)' % fmt)
    return _custom(value, fmt, culture)


def get_culture(ctx, params, input_items):
    if params:
        raise Unsupported('Get-Culture with parameters %s' % sorted(params))
    return [current(ctx.host)]


def set_culture(ctx, params, input_items):
    """Set-Culture -CultureInfo: the account's culture from the next session on; no output."""
    ctx.host.node.data['culture'] = _to_culture(params['CultureInfo']).Name or 'en-US'
    return []


def _invariant_culture():
    return INVARIANT


_invariant_culture.is_property = True


def _to_culture(value):
    """[cultureinfo]'th-TH': a name converts as CultureInfo's constructor takes it."""
    return value if isinstance(value, CultureInfo) else get_culture_info(value)


def types(host):
    """[System.Globalization.CultureInfo] ([cultureinfo]): CurrentCulture of this node, InvariantCulture,
    GetCultureInfo."""
    def current_culture():
        return current(host)
    current_culture.is_property = True
    culture_type = NetType(CultureInfo.NET, _to_culture, lambda value: isinstance(value, CultureInfo),
                           statics={'CurrentCulture': current_culture, 'InvariantCulture': _invariant_culture,
                                    'GetCultureInfo': get_culture_info})
    return {'system.globalization.cultureinfo': culture_type, 'cultureinfo': culture_type}


CMDLETS = {'Get-Culture': get_culture, 'Set-Culture': set_culture}
