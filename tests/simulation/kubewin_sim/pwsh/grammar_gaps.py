"""Two known gaps of the tree-sitter PowerShell grammar, closed by a pre-pass that cannot change a script's meaning.

tree-sitter-pwsh, the grammar the engine (syntax.py) and the syntax gate (tools/pwsh_syntax.py) parse with, fails on
two constructs Windows PowerShell 5.1 accepts:

- a param block followed by the body on the same line: ``function f { param($A, $B) "$A-$B" }``;
- a switch clause followed by ``default`` on the same line: ``switch ($x) { 1 { 'a' } default { 'b' } }``.

In both the grammar stops at a space or tab that PowerShell's own grammar reads as any other whitespace: a param
block is not a statement, so nothing ends between it and the first statement of the body (about_Functions_Advanced_
Parameters: the param block is the first element of the script block; about_Language_Keywords "param"), and switch
clauses follow one another separated by whitespace, newlines or semicolons alike (about_Switch, "Syntax": a clause per
line or several on one line). The grammar parses the same text with a newline at that place. So the pre-pass
replaces that one character with a newline, only where the grammar reported an error and only when what the error
starts with is a complete param block, or a complete clause block followed by ``default``, and parses again. One byte for
one byte keeps every offset: the engine reads each token from the original text, and syntax.py counts lines as in
the original. Everything else the grammar cannot parse (``break :label``, a real syntax error) stays refused.

No imports beyond the standard library, so the syntax gate can load this file on its own.
"""

_WHITESPACE = (b' ', b'\t')
_MAX_ROUNDS = 64


def _error_nodes(node):
    """The ERROR nodes of a tree, walking only into subtrees that hold one."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == 'ERROR':
            found.append(current)
            continue
        stack.extend(child for child in current.children if child.has_error)
    return found


def _repair_point(error):
    """The byte after which a newline closes this error, or None when it is not one of the known gaps."""
    children = error.children
    if children and children[0].type == 'param_block' and not children[0].has_error:
        return children[0].end_byte
    if len(children) == 2 and children[0].type == 'statement_block' and not children[0].has_error \
            and children[1].type == 'simple_name' and children[1].text.strip().lower() == b'default':
        return children[0].end_byte
    return None


def parse_repaired(parser, source):
    """Parse ``source`` (bytes); return (tree, offsets of the whitespace bytes read as newlines), sorted."""
    tree = parser.parse(source)
    patched = bytearray(source)
    offsets = []
    for _round in range(_MAX_ROUNDS):
        if not tree.root_node.has_error:
            break
        points = [_repair_point(error) for error in _error_nodes(tree.root_node)]
        points = [point for point in points if point is not None and bytes(patched[point:point + 1]) in _WHITESPACE]
        if not points:
            break
        for point in points:
            patched[point:point + 1] = b'\n'
        offsets.extend(points)
        tree = parser.parse(bytes(patched))
    return tree, sorted(offsets)
