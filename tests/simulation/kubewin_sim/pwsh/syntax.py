"""Parse PowerShell with the tree-sitter grammar the syntax gate uses, into a light tree cached per text.

The tree-sitter node objects are slow to walk from Python, and the same scripts run thousands of
times in a test session, so each text is parsed once and turned into plain ``Node`` objects.
"""

import bisect
import functools

import tree_sitter
import tree_sitter_pwsh

from .grammar_gaps import parse_repaired
from .values import Unsupported

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_pwsh.language()))


class Node:
    """One syntax node: type, children, the field names of its children, its text (read when asked)."""

    __slots__ = ('type', 'named', 'children', 'fields', 'line', 'start', 'end', 'cache', '_source', '_text')

    def __init__(self, kind, named, start, end, line, source):
        self.type = kind
        self.named = named
        self.start = start
        self.end = end
        self.line = line
        self.children = []
        self.fields = {}
        self.cache = None
        self._source = source
        self._text = None

    @property
    def text(self):
        if self._text is None:
            self._text = self._source[self.start:self.end].decode('utf-8')
        return self._text

    @property
    def named_children(self):
        return [child for child in self.children if child.named and child.type != 'comment']

    def position(self):
        """(the text of the line the node starts on, its 1-based column in characters on that line)."""
        line_start = self._source.rfind(b'\n', 0, self.start) + 1
        line_end = self._source.find(b'\n', self.start)
        line = self._source[line_start:len(self._source) if line_end < 0 else line_end].decode('utf-8')
        column = len(self._source[line_start:self.start].decode('utf-8')) + 1
        return line.rstrip('\r'), column

    def child(self, kind):
        for child in self.children:
            if child.type == kind:
                return child
        return None

    def all(self, kind):
        return [child for child in self.children if child.type == kind]

    def __repr__(self):
        return 'Node(%s, %r)' % (self.type, self.text[:40])


def _convert(tree, source, repaired):
    """The tree as Node objects, walked with a cursor (asking a node for its children's field names is slow).

    ``repaired``: the offsets of the spaces grammar_gaps read as newlines; lines are counted in the original text.
    """
    cursor = tree.walk()
    root = None
    stack = []
    while True:
        ts_node = cursor.node
        line = ts_node.start_point[0] + 1 - (bisect.bisect_left(repaired, ts_node.start_byte) if repaired else 0)
        if ts_node.type in _PS7_ONLY:
            raise ParseError(_PS7_ONLY[ts_node.type], line)
        if ts_node.is_error or ts_node.is_missing:
            raise Unsupported('text the PowerShell grammar cannot parse: %r'
                              % source[ts_node.start_byte:ts_node.end_byte][:60].decode('utf-8', 'replace'), line)
        node = Node(ts_node.type, ts_node.is_named, ts_node.start_byte, ts_node.end_byte, line, source)
        if stack:
            parent = stack[-1]
            parent.children.append(node)
            field = cursor.field_name
            if field:
                parent.fields.setdefault(field, node)
        else:
            root = node
        if cursor.goto_first_child():
            stack.append(node)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return root
            stack.pop()


class ParseError(Exception):
    """Text Windows PowerShell 5.1 refuses to parse (PowerShell 7 syntax): nothing of it runs."""

    def __init__(self, message, line):
        super().__init__(message)
        self.message = message
        self.line = line


# PowerShell 7 syntax the grammar accepts and 5.1's parser rejects (about_Pipeline_Chain_Operators,
# about_Operators: ternary and null-coalescing, all "PowerShell 7.0 and later"): 5.1's messages.
_PS7_ONLY = {
    '&&': "The token '&&' is not a valid statement separator in this version.",
    '||': "The token '||' is not a valid statement separator in this version.",
    'ternary_expression': "Unexpected token '?' in expression or statement.",
    'null_coalesce_expression': "Unexpected token '??' in expression or statement.",
    '??=': "Unexpected token '??=' in expression or statement.",
    '?.': "Unexpected token '?.' in expression or statement.",
}


class Program:
    def __init__(self, root, source):
        self.root = root
        self.source = source


@functools.lru_cache(maxsize=256)
def parse(text):
    """The program for ``text``; a parse error is Unsupported (the grammar, not the script, may be at fault), once
    the known gaps of the grammar are closed (grammar_gaps.py)."""
    source = text.encode('utf-8')
    tree, repaired = parse_repaired(_PARSER, source)
    return Program(_convert(tree, source, repaired), source)
