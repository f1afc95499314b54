"""The collection artifact: built from a checkout, it holds what an installed collection uses and nothing of the
development set-up; installed offline next to its dependencies, it renders a plan and documents every plugin and
role from outside the checkout, and its README names nothing the installed copy lacks."""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEPENDENCIES = ROOT / '.cache' / 'collections' / 'ansible_collections'
# Left in the checkout: the development set-up, and what commands write there (make plan, collect_logs.yml,
# the AWX guide's ansible-builder context, pytest).
DEVELOPMENT = ('tests/', 'tools/', 'extensions/', 'requirements-dev.txt', 'Makefile', 'ansible.cfg', '.ansible-lint',
               '.ci/', '.github/', 'changelogs/fragments/', 'context/', 'plan/', 'reports/', 'logs/', '.pytest_cache/')
WRITTEN_BY_COMMANDS = ('context/_build/requirements.txt', 'plan/summary.txt', 'reports/site.md',
                       'logs/win-node-1/kubelet.log',
                       '.pytest_cache/README.md', 'plugins/filter/__pycache__/ip_plan.cpython-311.pyc')


def checkout_copy(destination):
    """The checkout as a user's clone holds it after running the guides' commands (without git and the caches)."""
    def ignore(folder, names):
        top = Path(folder) == ROOT
        return [n for n in names if (top and n in ('.git', '.venv', '.cache', 'plan', 'reports', 'logs', 'context'))
                or (Path(folder) == ROOT / 'tests' and n == 'output') or n in ('__pycache__', '.pytest_cache')]
    shutil.copytree(ROOT, destination, ignore=ignore, symlinks=True)
    for relative in WRITTEN_BY_COMMANDS:
        (destination / relative).parent.mkdir(parents=True, exist_ok=True)
        (destination / relative).write_text('written by a command\n')
    return destination


def offline_env(home, **more):
    """No checkout configuration, and every server Ansible or pip might reach is a closed loopback port."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('ANSIBLE_')}
    closed = 'http://127.0.0.1:9'
    env.update(HOME=str(home), PATH=os.pathsep.join([str(BIN), '/usr/bin', '/bin']), ANSIBLE_NOCOLOR='1',
               ANSIBLE_GALAXY_SERVER=closed + '/', http_proxy=closed, https_proxy=closed, HTTP_PROXY=closed,
               HTTPS_PROXY=closed, **more)
    return env


def run(command, cwd, env):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, '%s\n%s%s' % (' '.join(map(str, command)), result.stdout, result.stderr)
    return result.stdout


def readme_outside_checkout_sections(text):
    """The README's sections that describe the installed collection (not those about a checkout)."""
    sections = re.split(r'^(?=## )', text, flags=re.M)
    return [s for s in sections if 'checkout' not in s.splitlines()[0].lower()]


def test_the_artifact_installs_offline_and_works_outside_the_checkout(tmp_path):
    source = checkout_copy(tmp_path / 'checkout')
    home = tmp_path / 'home'
    home.mkdir()
    env = offline_env(home)
    run([BIN / 'ansible-galaxy', 'collection', 'build', '--output-path', tmp_path / 'dist'], source, env)
    version = yaml.safe_load((ROOT / 'galaxy.yml').read_text(encoding='utf-8'))['version']
    artifact = tmp_path / 'dist' / ('kubewin-node-%s.tar.gz' % version)
    with tarfile.open(artifact) as archive:
        members = archive.getnames()
    shipped = sorted({m for m in members if m.startswith(DEVELOPMENT) or m.rstrip('/') + '/' in DEVELOPMENT
                      or '__pycache__' in m})
    assert not shipped, 'the artifact holds what only a checkout uses: %s' % shipped
    for needed in ('playbooks/plan.yml', 'roles/plan/meta/argument_specs.yml', 'plugins/filter/ip_plan.py',
                   'inventory/example-ovn/hosts.yml', 'docs/docsite/rst/getting_started.rst', 'requirements.txt',
                   'meta/execution-environment.yml', 'changelogs/changelog.yaml'):
        assert needed in members, needed

    # A fresh collection path that holds the dependencies already (galaxy.yml); --offline contacts no server.
    collections = tmp_path / 'collections'
    for dependency in yaml.safe_load((ROOT / 'galaxy.yml').read_text(encoding='utf-8'))['dependencies']:
        namespace, name = dependency.split('.')
        (collections / 'ansible_collections' / namespace).mkdir(parents=True, exist_ok=True)
        (collections / 'ansible_collections' / namespace / name).symlink_to(DEPENDENCIES / namespace / name)
    run([BIN / 'ansible-galaxy', 'collection', 'install', '--offline', '-p', collections, artifact], tmp_path, env)
    installed = collections / 'ansible_collections' / 'kubewin' / 'node'
    assert not installed.is_symlink() and (installed / 'MANIFEST.json').is_file()

    # From outside the checkout, with only the fresh path: the plan of a shipped example inventory.
    work = tmp_path / 'elsewhere'
    work.mkdir()
    use = offline_env(home, ANSIBLE_COLLECTIONS_PATH=str(collections))
    run([BIN / 'ansible-playbook', 'kubewin.node.plan', '-i', installed / 'inventory' / 'example-overlay',
         '-e', 'kubewin_plan_dir=%s' % (work / 'plan')], work, use)
    cni = json.loads((work / 'plan' / 'win-ovl-2' / 'cni.conf').read_text())
    assert cni['name'] == 'flannel.4096' and cni['delegate']['type'] == 'sdnoverlay'

    # Every module, filter and role documented by the installed copy, in one ansible-doc call.
    dump = json.loads(run([BIN / 'ansible-doc', '--metadata-dump', 'kubewin.node'], work, use))['all']
    expected = {
        'module': sorted(p.stem for p in (ROOT / 'plugins' / 'modules').glob('*.py') if not p.name.startswith('_')),
        'filter': sorted(p.stem for p in (ROOT / 'plugins' / 'filter').glob('*.yml')),
        'role': sorted(p.name for p in (ROOT / 'roles').iterdir() if (p / 'meta' / 'argument_specs.yml').is_file()),
    }
    for plugin_type, names in expected.items():
        assert sorted(dump[plugin_type]) == ['kubewin.node.%s' % n for n in names], plugin_type
        for fqcn, entry in dump[plugin_type].items():
            doc = entry['entry_points']['main'] if plugin_type == 'role' else entry['doc']
            assert doc['short_description'], fqcn

    # The README an installed copy carries: outside the sections about a checkout it names no make target and
    # no file the installed copy lacks.
    for section in readme_outside_checkout_sections((installed / 'README.md').read_text(encoding='utf-8')):
        heading = section.splitlines()[0]
        assert not re.search(r'`make [a-z]', section), heading
        paths = re.findall(r'\]\(([^)#]+)\)', section) + re.findall(
            r'`((?:docs|playbooks|plugins|roles|inventory|meta|tests|tools|extensions|changelogs)/[^`\s<]*)`', section)
        missing = sorted(p for p in set(paths) if not (installed / p).exists())
        assert not missing, '%s names what the installed copy lacks: %s' % (heading, missing)
