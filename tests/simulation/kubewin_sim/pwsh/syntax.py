"""Parse PowerShell with the tree-sitter grammar the syntax gate uses, into a light tree cached per text.

The tree-sitter node objects are slow to walk from Python, and the same scripts run thousands of
times in a test session, so each text is parsed once and turned into plain ``Node`` objects.
"""

import functools

import tree_sitter
import tree_sitter_pwsh

from .values import Unsupported

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_pwsh.language()))


class Node:
    __slots__ = ('type', 'named', 'text', 'children', 'fields', 'line', 'start', 'end', 'cache')

    def __init__(self, ts_node, source):
        self.type = ts_node.type
        self.named = ts_node.is_named
        self.start = ts_node.start_byte
        self.end = ts_node.end_byte
        self.text = source[self.start:self.end].decode('utf-8')
        self.line = ts_node.start_point[0] + 1
        self.children = []
        self.fields = {}
        self.cache = None
        for index, child in enumerate(ts_node.children):
            converted = Node(child, source)
            self.children.append(converted)
            field = ts_node.field_name_for_child(index)
            if field:
                self.fields.setdefault(field, converted)

    @property
    def named_children(self):
        return [child for child in self.children if child.named and child.type != 'comment']

    def child(self, kind):
        for child in self.children:
            if child.type == kind:
                return child
        return None

    def all(self, kind):
        return [child for child in self.children if child.type == kind]

    def __repr__(self):
        return 'Node(%s, %r)' % (self.type, self.text[:40])


class Program:
    def __init__(self, root, source):
        self.root = root
        self.source = source


@functools.lru_cache(maxsize=256)
def parse(text):
    """The program for ``text``; a parse error is Unsupported (the grammar, not the script, may be at fault)."""
    source = text.encode('utf-8')
    tree = _PARSER.parse(source)
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == 'ERROR' or node.is_missing:
            raise Unsupported('text the PowerShell grammar cannot parse: %r'
                              % source[node.start_byte:node.end_byte][:60].decode('utf-8', 'replace'),
                              node.start_point[0] + 1)
        stack.extend(node.children)
    return Program(Node(tree.root_node, source), source)
