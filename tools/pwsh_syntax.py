"""PowerShell syntax gate: parse .ps1 files with the tree-sitter PowerShell grammar.

No PowerShell runtime exists on the machines this project is built on, so every
script the collection ships is parsed here instead. A file fails when the parse
tree holds an ERROR or MISSING node, when it starts with a byte order mark, or
when it is not valid UTF-8. The two known gaps of the grammar that Windows
PowerShell accepts (a param block or a switch clause followed by more on the same
line) are closed first, exactly as the simulation's engine closes them
(tests/simulation/kubewin_sim/pwsh/grammar_gaps.py), so what passes here is what
the engine runs. Scripts under plugins/plugin_utils/scripts/ must
also begin with the marker line `# kubewin-script: <file name without .ps1>`,
which the simulated node dispatches on.

Usage: pwsh_syntax.py [PATH ...]   (default: every .ps1 in the repository)
Exit status 1 when any file fails; each problem is printed as path:line:col.
"""

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {'.git', '.venv', '.cache', 'node_modules', 'output'}
SCRIPT_DIR = os.path.join('plugins', 'plugin_utils', 'scripts')
MARKER = '# kubewin-script: '

GRAMMAR_GAPS = os.path.join(ROOT, 'tests', 'simulation', 'kubewin_sim', 'pwsh', 'grammar_gaps.py')

_PARSER = None
_GAPS = None


def _parser():
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_pwsh
        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_pwsh.language()))
    return _PARSER


def _grammar_gaps():
    global _GAPS
    if _GAPS is None:
        spec = importlib.util.spec_from_file_location('kubewin_grammar_gaps', GRAMMAR_GAPS)
        _GAPS = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_GAPS)
    return _GAPS


def syntax_errors(source):
    """Return (line, column, kind) for every ERROR or MISSING node, 1-based (lines of the file as written)."""
    tree, repaired = _grammar_gaps().parse_repaired(_parser(), source)
    found = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == 'ERROR' or node.is_missing:
            kind = 'missing %s' % node.type if node.is_missing else 'syntax error'
            line = node.start_point[0] + 1 - sum(1 for offset in repaired if offset < node.start_byte)
            found.append((line, node.start_point[1] + 1, kind))
        stack.extend(node.children)
    return sorted(found)


def check_file(path):
    """Return a list of 'path:line:col: message' problems for one file."""
    rel = os.path.relpath(path, ROOT)
    with open(path, 'rb') as handle:
        data = handle.read()
    if data.startswith(b'\xef\xbb\xbf'):
        return ['%s:1:1: starts with a UTF-8 byte order mark' % rel]
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as exc:
        return ['%s: not valid UTF-8 (%s)' % (rel, exc)]
    problems = ['%s:%d:%d: %s' % (rel, line, col, kind) for line, col, kind in syntax_errors(data)]
    if os.path.dirname(rel) == SCRIPT_DIR:
        expected = MARKER + os.path.splitext(os.path.basename(rel))[0]
        if text.splitlines()[:1] != [expected]:
            problems.append('%s:1:1: first line must be %r' % (rel, expected))
    return problems


def find_scripts(root=ROOT):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.lower().endswith('.ps1'):
                yield os.path.join(dirpath, name)


def main(argv):
    if any(arg in ('-h', '--help') for arg in argv[1:]):
        print(__doc__.strip())
        return 0
    paths = [os.path.abspath(p) for p in argv[1:]] or list(find_scripts())
    problems = []
    for path in paths:
        problems.extend(check_file(path))
    for problem in problems:
        print(problem)
    print('pwsh syntax gate: %d file(s) parsed, %d problem(s)' % (len(paths), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
