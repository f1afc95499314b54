"""Every command the guides show refers to things that exist: playbooks, tags, variables, inventories, make
targets and their variables, scripts, modules and their arguments, plugins and roles.

The commands are read from README.md and the docsite guides (docs/docsite/rst): console lines after ``$``,
command lines in code blocks, and inline literals that start with a command. Nothing is run; each command
is checked the way antsibull-docs checks a reference: the thing it names must exist. Names that stand for
the reader's own (``inventory/prod``, ``<yours>``, ``INVENTORY``) are not checked.
"""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.parsing.splitter import parse_kv

ROOT = Path(__file__).resolve().parents[2]
GUIDES = [ROOT / 'README.md'] + sorted((ROOT / 'docs' / 'docsite' / 'rst').glob('*.rst'))
COLLECTIONS = ROOT / '.cache' / 'collections' / 'ansible_collections'

# How a command starts; python/pip/podman and other tools are not checked.
COMMAND = re.compile(r'^(ansible-playbook|ansible-doc|ansible|make|tests/\S+|(?:python3? )?tools/\S+)(\s|$)')
# ansible-playbook/ansible options that take a value.
VALUED = {'-i', '--inventory', '-e', '--extra-vars', '-t', '--tags', '--skip-tags', '-l', '--limit', '-f',
          '--forks', '-u', '--user', '-m', '--module-name', '-a', '--args', '-T', '--timeout'}


def placeholder(token):
    """The reader's own name, not ours."""
    return ('<' in token or token == '...' or re.fullmatch(r'[A-Z][A-Z_.]*', token) is not None
            or re.match(r'(\./)?inventory/(?!example)', token) is not None or token.startswith('/'))


def command_lines(path):
    """(line number, command text) of every command shown in one guide."""
    found = []
    lines = path.read_text(encoding='utf-8').splitlines()
    number = 0
    while number < len(lines):
        line, start = lines[number], number + 1
        stripped = line.strip()
        text = None
        if stripped.startswith('$ '):
            text = stripped[2:]
        elif line.startswith(('    ', '   ')):
            text = stripped  # a command in a code block (README's indented blocks, rst blocks without $)
        if text is not None and COMMAND.match(text):
            while text.endswith('\\') and number + 1 < len(lines):
                number += 1
                text = text[:-1] + ' ' + lines[number].strip()
            found.append((start, text))
        # Inline literals: ``make plan PLAN_INVENTORY=...`` in rst, `make plan` in Markdown.
        for literal in re.findall(r'``([^`]+)``' if path.suffix == '.rst' else r'(?<!`)`([^`]+)`(?!`)', line):
            if COMMAND.match(literal) and ' ' in literal:
                found.append((start, literal))
        number += 1
    return found


def split(text):
    # A comment after the command; [-e x=y] marks an optional argument.
    text = re.split(r'\s+#\s', text, maxsplit=1)[0]
    text = re.sub(r'\[(-[^\]]*)\]', r'\1', text)
    return shlex.split(text)


def options(words):
    """(options as [(name, value)], positional words) of an ansible-playbook or ansible command line."""
    found, positional = [], []
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith('--') and '=' in word:
            found.append(tuple(word.split('=', 1)))
        elif word in VALUED and index + 1 < len(words):
            found.append((word, words[index + 1]))
            index += 1
        elif word.startswith('-'):
            found.append((word, None))
        else:
            positional.append(word)
        index += 1
    return found, positional


def tags_of(node):
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == 'tags':
                found.update([value] if isinstance(value, str) else value)
            else:
                found |= tags_of(value)
    elif isinstance(node, list):
        for item in node:
            found |= tags_of(item)
    return found


def known_variable(name):
    """A variable the playbooks, roles or plugins read (by that exact name)."""
    pattern = re.compile(r'\b%s\b' % re.escape(name))
    for folder, glob in (('playbooks', '*.yml'), ('roles', '*.yml'), ('plugins', '*.py'), ('roles', '*.j2')):
        for path in (ROOT / folder).rglob(glob):
            if pattern.search(path.read_text(encoding='utf-8')):
                return True
    return False


def exists(token):
    return placeholder(token) or (ROOT / token).exists()


def check_path_arguments(words):
    return ['%s does not exist' % w for w in words if w.startswith(('tests/', 'inventory/', 'playbooks/', 'tools/'))
            and not exists(w)]


def check_ansible_playbook(words):
    problems = []
    found, positional = options(words[1:])
    playbooks = []
    for word in positional:
        if word.startswith('kubewin.node.'):
            word = 'playbooks/%s.yml' % word.split('.', 2)[2]
        if placeholder(word):
            continue
        if not (ROOT / word).is_file():
            problems.append('no playbook %s' % word)
        else:
            playbooks.append(ROOT / word)
    tags = {'all', 'always', 'never', 'tagged', 'untagged'}
    for playbook in playbooks:
        tags |= tags_of(yaml.safe_load(playbook.read_text(encoding='utf-8')))
    for name, value in found:
        if name in ('-t', '--tags', '--skip-tags') and playbooks:
            problems += ['%s has no tag %s' % (', '.join(p.name for p in playbooks), tag)
                         for tag in value.split(',') if tag not in tags]
        elif name in ('-e', '--extra-vars') and not value.startswith(('@', '{')):
            variable = value.split('=', 1)[0]
            if not known_variable(variable):
                problems.append('no playbook, role or plugin reads the variable %s' % variable)
        elif name in ('-i', '--inventory'):
            problems += check_path_arguments([value])
    return problems


def module_spec(fqcn):
    """The argument spec of a kubewin.node module, from its documentation."""
    documentation = (ROOT / 'plugins' / 'modules' / ('%s.py' % fqcn.split('.')[-1])).read_text(encoding='utf-8')
    text = re.search(r"DOCUMENTATION = r?'''(.*?)'''", documentation, re.S).group(1)
    spec = {}
    for name, option in (yaml.safe_load(text).get('options') or {}).items():
        spec[name] = {key: option[key] for key in ('type', 'elements', 'choices', 'required', 'default', 'no_log')
                      if key in option}
    return spec


def check_ansible(words):
    problems = []
    found = options(words[1:])[0]
    values = dict(found)
    module = values.get('-m') or values.get('--module-name')
    if module and module.startswith('kubewin.node.'):
        if not (ROOT / 'plugins' / 'modules' / ('%s.py' % module.split('.')[-1])).is_file():
            return ['no module %s' % module]
        arguments = values.get('-a') or values.get('--args') or ''
        parsed = json.loads(arguments) if arguments.startswith('{') else parse_kv(arguments)
        result = ArgumentSpecValidator(module_spec(module)).validate(parsed)
        problems += ['%s -a %r: %s' % (module, arguments, error) for error in result.error_messages]
    elif module and '.' in module:
        namespace, name, short = module.split('.')
        if COLLECTIONS.is_dir() and not (COLLECTIONS / namespace / name / 'plugins' / 'modules').glob(short + '.*'):
            problems.append('no module %s in %s' % (module, COLLECTIONS))
    for name, value in found:
        if name in ('-i', '--inventory'):
            problems += check_path_arguments([value])
    return problems


def check_ansible_doc(words):
    found, positional = options(words[1:])
    plugin_type = dict(found).get('-t', 'module')
    folders = {'module': ('plugins/modules', '.py'), 'filter': ('plugins/filter', '.yml'), 'role': ('roles', '')}
    problems = []
    for name in positional:
        if placeholder(name) or not name.startswith('kubewin.node.'):
            continue
        folder, suffix = folders[plugin_type]
        if not (ROOT / folder / (name.split('.')[-1] + suffix)).exists():
            problems.append('no %s %s' % (plugin_type, name))
    return problems


def makefile():
    text = (ROOT / 'Makefile').read_text(encoding='utf-8')
    variables = dict(re.findall(r'^([A-Z][A-Z0-9_]*)\s*[:?]?=\s*(.*)$', text, re.M))
    targets = set()
    for rule in re.findall(r'^([^\s#=:][^#=:]*?)\s*:(?!=)', text, re.M):
        for target in rule.split():
            targets.add(re.sub(r'\$\((\w+)\)', lambda m: variables.get(m.group(1), m.group(0)), target))
    return targets - {'.PHONY'}, set(variables)


def check_make(words):
    targets, variables = makefile()
    problems = []
    for word in words[1:]:
        if '=' in word:
            name, value = word.split('=', 1)
            if name not in variables:
                problems.append('the Makefile has no variable %s' % name)
            problems += check_path_arguments([value])
        elif word not in targets:
            problems.append('the Makefile has no target %s' % word)
    return problems


def check_script(words):
    if words[0] in ('python', 'python3'):
        words = words[1:]
    script = words[0]
    if placeholder(script):
        return []
    if not (ROOT / script).is_file():
        return ['no script %s' % script]
    if words[0].startswith('tests/') and not (ROOT / script).stat().st_mode & 0o111:
        return ['%s is not executable' % script]
    problems = check_path_arguments(words[1:])
    if 'ansible-playbook' in script:
        problems += check_ansible_playbook(words)
    return problems


def check(text):
    words = split(text)
    return {'ansible-playbook': check_ansible_playbook, 'ansible': check_ansible, 'ansible-doc': check_ansible_doc,
            'make': check_make}.get(words[0], check_script)(words)


def shown_commands():
    return [(path.relative_to(ROOT), number, text) for path in GUIDES for number, text in command_lines(path)]


def test_the_guides_show_commands():
    # The extraction itself: these are in the guides today, in each of the forms read above.
    shown = {shown[2] for shown in shown_commands()}
    for expected in ('make plan PLAN_INVENTORY=inventory/prod', 'ansible-playbook -i inventory/prod playbooks/site.yml',
                     'tests/e2e/run tests/e2e/inventories/overlay --report /tmp/overlay.json'):
        assert expected in shown, expected


def test_the_checks_find_what_is_wrong():
    assert check("ansible -i inventory/prod w1 -m kubewin.node.node_info -a 'gather=[hns,services]'")
    assert not check("ansible -i inventory/prod w1 -m kubewin.node.node_info -a 'gather=hns,services'")
    assert check('ansible-playbook -i inventory/prod playbooks/site.yml --tags prerequisites,netwrok')
    assert check('ansible-playbook -i inventory/prod playbooks/site.yml -e kubewin_serial_nodes=5')
    assert check('ansible-playbook playbooks/plan.yml -i inventory/example-nope')
    assert check('make plan PLAN_INVENTORIES=inventory/prod') and check('make unitt')
    assert check('tests/e2e/run tests/e2e/inventories/overlay-nope') and check('ansible-playbook kubewin.node.sitee')
    assert check('ansible-doc -t role kubewin.node.nope')


@pytest.mark.parametrize('guide, line, command', shown_commands(), ids=str)
def test_every_command_in_the_guides_refers_to_what_exists(guide, line, command):
    assert not check(command), '%s:%d: %s' % (guide, line, command)


def test_the_tags_table_lists_every_tag_of_site_yml():
    site = tags_of(yaml.safe_load((ROOT / 'playbooks' / 'site.yml').read_text(encoding='utf-8'))) - {'always'}
    guide = (ROOT / 'docs' / 'docsite' / 'rst' / 'inventory.rst').read_text(encoding='utf-8')
    table = guide.split('Tags: re-running one stage', 1)[1].split('\n\n\n', 1)[0]
    listed = set(re.findall(r'^   \* - ``(\w+)``$', table, re.M))
    assert listed == site


def test_the_serial_snippet_is_what_site_yml_runs():
    guide = (ROOT / 'docs' / 'docsite' / 'rst' / 'inventory.rst').read_text(encoding='utf-8')
    snippet = guide.split('runs with\n\n.. code-block:: yaml\n\n', 1)[1].split('\n\n', 1)[0]
    shown = yaml.safe_load('\n'.join(line[3:] for line in snippet.splitlines()))
    play = next(p for p in yaml.safe_load((ROOT / 'playbooks' / 'site.yml').read_text(encoding='utf-8')) if 'serial' in p)
    assert shown == {'serial': play['serial'], 'max_fail_percentage': play['max_fail_percentage']}


def test_the_molecule_windows_step_runs_as_the_testing_guide_shows(tmp_path):
    # As the guide runs it: the environment activated (its bin first on PATH), from extensions/, and here without
    # KUBEWIN_MOLECULE_INVENTORY, so that it stops in the first play on the controller, before any host.
    guide = (ROOT / 'docs' / 'docsite' / 'rst' / 'testing.rst').read_text(encoding='utf-8')
    assert '$ . .venv/bin/activate' in guide and '$ cd extensions && molecule test -s windows' in guide
    venv_bin = os.path.dirname(sys.executable)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(('ANSIBLE_', 'MOLECULE_')) and key != 'KUBEWIN_MOLECULE_INVENTORY'}
    # COLUMNS: molecule's console wraps the playbook's output in a frame as wide as the terminal.
    env.update(PATH=os.pathsep.join([venv_bin, '/usr/bin', '/bin']), HOME=str(tmp_path),
               VIRTUAL_ENV=str(Path(venv_bin).parent), NO_COLOR='1', ANSIBLE_NOCOLOR='1', COLUMNS='400')
    result = subprocess.run(['molecule', 'converge', '-s', 'windows'], cwd=ROOT / 'extensions', env=env,
                            capture_output=True, text=True, check=False)
    output = ' '.join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output
    assert 'Traceback' not in output, output
    assert 'the inventory has no hosts in the group windows_nodes' in output, output
