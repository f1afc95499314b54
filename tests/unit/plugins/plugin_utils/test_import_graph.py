"""plugins/plugin_utils imports itself without circles: each module is built only from modules below it.

A circle (``_contracts`` importing ``_pwsh`` importing ``_contracts``) works only as long as each side reads the other's
names after both finished loading; it breaks as soon as one of them uses the other at import time, and it hides which
module is the foundation. The graph is read from the source with ``ast``, so an import inside a function counts too.
"""

import ast
from pathlib import Path

PLUGIN_UTILS = Path(__file__).resolve().parents[4] / 'plugins' / 'plugin_utils'
PACKAGE = 'ansible_collections.kubewin.node.plugins.plugin_utils'


def modules():
    return {path.stem: path for path in sorted(PLUGIN_UTILS.glob('*.py')) if path.stem != '__init__'}


def imported(tree, names):
    """The plugin_utils modules that the module parsed as ``tree`` imports (``names``: every module of the package)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            found |= {alias.name for alias in node.names if alias.name in names}
        elif isinstance(node, ast.ImportFrom) and (node.module or '').startswith(PACKAGE + '.'):
            found.add(node.module[len(PACKAGE) + 1:].split('.')[0])
        elif isinstance(node, ast.Import):
            found |= {alias.name[len(PACKAGE) + 1:].split('.')[0] for alias in node.names
                      if alias.name.startswith(PACKAGE + '.')}
    return found & set(names)


def import_graph():
    names = modules()
    return {name: imported(ast.parse(path.read_text(encoding='utf-8'), str(path)), names)
            for name, path in names.items()}


def cycles(graph):
    """Every circle of ``graph`` once, each as the list of its modules starting from its smallest name."""
    found = set()

    def walk(start, node, path):
        for target in sorted(graph.get(node, ())):
            if target == start:
                found.add(tuple(path))
            elif target not in path and target > start:
                walk(start, target, path + [target])

    for start in sorted(graph):
        walk(start, start, [start])
    return sorted(list(circle) for circle in found)


def test_the_cycle_finder_names_every_circle_once():
    graph = {'_a': {'_b'}, '_b': {'_c', '_a'}, '_c': {'_a'}, '_d': {'_d'}, '_e': {'_a'}}
    assert cycles(graph) == [['_a', '_b'], ['_a', '_b', '_c'], ['_d']]
    assert cycles({'_a': {'_b'}, '_b': set()}) == []


def test_the_graph_is_read_from_every_import_form():
    tree = ast.parse('\n'.join((
        'from %s import _a, _b as b' % PACKAGE,
        'from %s._c import something' % PACKAGE,
        'import %s._d' % PACKAGE,
        'def late():',
        '    from %s import _e' % PACKAGE,
        'from %s import _not_a_module' % PACKAGE)))
    assert imported(tree, ['_a', '_b', '_c', '_d', '_e']) == {'_a', '_b', '_c', '_d', '_e'}


def test_plugin_utils_has_no_import_circle():
    graph = import_graph()
    circles = cycles(graph)
    assert not circles, 'plugin_utils modules import each other in a circle: %s' % '; '.join(
        ' -> '.join(circle + circle[:1]) for circle in circles)
