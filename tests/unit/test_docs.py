"""ansible-doc renders every filter, module and role of the collection, and every plugin is documented."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ansible_collections.kubewin.node as collection

ROOT = Path(__file__).resolve().parents[2]


def names(folder, suffix):
    return sorted(p.stem for p in (ROOT / folder).glob('*' + suffix) if not p.name.startswith('_'))


FILTERS = names('plugins/filter', '.yml')
MODULES = names('plugins/modules', '.py')
ROLES = sorted(p.name for p in (ROOT / 'roles').iterdir() if (p / 'meta' / 'argument_specs.yml').exists())


def ansible_doc(plugin_type, plugin_names):
    collections_root = Path(next(iter(collection.__path__))).parents[2]
    configured = os.environ.get('ANSIBLE_COLLECTIONS_PATH', '')
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.pathsep.join(p for p in [str(collections_root), configured] if p))
    # Run as a module: under ansible-test the ansible-doc script is not next to the interpreter.
    result = subprocess.run([sys.executable, '-m', 'ansible.cli.doc', '-t', plugin_type, '--json',
                             *('kubewin.node.%s' % name for name in plugin_names)],
                            capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_plugin_has_documentation():
    assert FILTERS and MODULES and ROLES
    assert MODULES == names('plugins/action', '.py'), 'each action plugin has a doc stub of the same name'
    assert 'plan' in ROLES


@pytest.mark.parametrize('plugin_type, plugin_names', [('filter', FILTERS), ('module', MODULES)])
def test_ansible_doc_renders(plugin_type, plugin_names):
    rendered = ansible_doc(plugin_type, plugin_names)
    assert sorted(rendered) == ['kubewin.node.%s' % name for name in plugin_names]
    for name in plugin_names:
        doc = rendered['kubewin.node.%s' % name]['doc']
        assert doc['short_description'] and doc['description'], name
        if plugin_type == 'module':
            assert rendered['kubewin.node.%s' % name]['examples'].strip(), name


def test_ansible_doc_renders_every_role():
    rendered = ansible_doc('role', ROLES)
    assert sorted(rendered) == ['kubewin.node.%s' % name for name in ROLES]
    for name in ROLES:
        assert rendered['kubewin.node.%s' % name]['entry_points']['main']['short_description'], name


def readme_table(heading):
    """The first cells of the README table after the line ``heading``: the names it lists, split at commas."""
    lines = (ROOT / 'README.md').read_text(encoding='utf-8').splitlines()
    listed = []
    for line in lines[lines.index(heading) + 4:]:
        if not line.startswith('| '):
            break
        listed += [name.strip(' `') for name in line.split('|')[1].split(',')]
    return sorted(listed)


@pytest.mark.parametrize('heading, plugin_names', [('Filters:', FILTERS),
                                                   ('Modules (each a Python action plugin that queries the node once '
                                                    'and changes it only when needed):', MODULES)])
def test_the_readme_lists_every_module_and_filter(heading, plugin_names):
    assert readme_table(heading) == plugin_names
