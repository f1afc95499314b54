"""InvocationInfo of a cmdlet's call, as much of it as an error record shows.

Sources (PowerShell/PowerShell 60b3b304f2, the engine as open-sourced from 5.1): InvocationInfo.PositionMessage is
PositionUtilities.VerboseMessage (engine/parser/Position.cs) of the command's extent: "At line:<line> char:<column>",
then the source line and a line of tildes under the extent (its first line only when it spans several), the line
shortened to 69 characters around the extent with "... " and " ..." (ParserStrings TextForPositionMessage and
TextForWordLine; a tab counts as four spaces).
"""

_MAX_LINE = 69


class InvocationInfo:
    """System.Management.Automation.InvocationInfo of a call: MyCommand's name, the name it was invoked by (an alias
    as written), and where the call is."""

    NET = 'System.Management.Automation.InvocationInfo'

    def __init__(self, command_name, invocation_name, node):
        self.MyCommandName = command_name
        self.InvocationName = invocation_name
        self.ScriptLineNumber = node.line
        self.Line, self.OffsetInLine = node.position()
        text = node.text
        first_line = text.split('\n', 1)[0].rstrip('\r')
        self._length = len(first_line) if '\n' not in text else len(self.Line.rstrip()) - self.OffsetInLine + 1

    @property
    def PositionMessage(self):  # pylint: disable=invalid-name
        return position_message(self.ScriptLineNumber, self.OffsetInLine, self.Line, self._length)


def _expand_tabs(line, before, length):
    head = line[:before].replace('\t', '    ')
    body = line[before:before + length].replace('\t', '    ')
    return head + body + line[before + length:].replace('\t', '    '), len(head), len(body)


def position_message(line_number, column, source_line, length):
    """PositionUtilities.VerboseMessage for an extent in text that is no file; lines end with "\\n"."""
    line = source_line.rstrip()
    before = column - 1
    if '\t' in line:
        line, before, length = _expand_tabs(line, before, length)
    prefix_dots = suffix_dots = False
    if len(line) > _MAX_LINE:
        total_prefix = before
        prefix = min(total_prefix, 12)
        total_suffix = len(line) - length - before
        suffix = min(total_suffix, 8)
        candidate = prefix + length + suffix
        if candidate >= _MAX_LINE:
            if prefix + length >= _MAX_LINE:
                length = _MAX_LINE - prefix
            suffix_dots = True
        else:
            available = total_prefix - prefix
            if available > 0:
                prefix += min(available, _MAX_LINE - candidate)
                candidate = prefix + length + suffix
            if candidate < _MAX_LINE and total_suffix > 0:
                suffix += min(total_suffix, _MAX_LINE - candidate)
            suffix_dots = suffix < total_suffix
        prefix_dots = prefix < total_prefix
        start = max(before - prefix, 0)
        line = line[start:start + _MAX_LINE]
        before = min(before, prefix)
        length = min(length, _MAX_LINE - before)
    shown = ('... ' if prefix_dots else '') + line + (' ...' if suffix_dots else '')
    marks = ' ' * (before + (4 if prefix_dots else 0)) + '~' * max(length, 1)
    return 'At line:%d char:%d\n+ %s\n+ %s' % (line_number, column, shown, marks)
