"""meta/execution-environment.yml: ansible-builder turns it into a build context offline (no Galaxy, no container
engine), with the collection's Python requirements and collection dependencies, in step with requirements.txt,
requirements.yml and galaxy.yml."""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
DEFINITION = ROOT / 'meta' / 'execution-environment.yml'


def requirements(text):
    found = {}
    for line in text.splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            requirement = Requirement(line)
            found[requirement.name.lower()] = requirement
    return found


def controller_requirements():
    return requirements((ROOT / 'requirements.txt').read_text())


def guide_command():
    """The ``ansible-builder create`` command of the AWX guide, as it is written there."""
    lines = (ROOT / 'docs' / 'docsite' / 'rst' / 'awx.rst').read_text(encoding='utf-8').splitlines()
    found = [line.strip()[2:].split() for line in lines if line.strip().startswith('$ ansible-builder create ')]
    assert len(found) == 1, found
    return found[0]


def test_ansible_builder_creates_the_build_context_offline(tmp_path):
    # The guide's command, run as written in a folder that holds what it reads (meta/ and requirements.yml).
    (tmp_path / 'meta').mkdir()
    (tmp_path / 'meta' / 'execution-environment.yml').write_text(DEFINITION.read_text())
    (tmp_path / 'requirements.yml').write_text((ROOT / 'requirements.yml').read_text())
    command = guide_command()
    context = tmp_path / command[command.index('--context') + 1]
    bin_dir = os.path.dirname(sys.executable)
    # No container engine on PATH and every proxy pointing at a closed loopback port: `create` must need neither
    # a container engine nor the network (Galaxy and PyPI are only used when the image is built).
    env = dict(os.environ, PATH=os.pathsep.join([bin_dir, '/usr/bin', '/bin']), HOME=str(tmp_path),
               http_proxy='http://127.0.0.1:9', https_proxy='http://127.0.0.1:9',
               HTTP_PROXY='http://127.0.0.1:9', HTTPS_PROXY='http://127.0.0.1:9')
    result = subprocess.run([os.path.join(bin_dir, 'ansible-builder')] + command[1:],
                            cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr

    containerfile = (context / 'Containerfile').read_text()
    core = str(controller_requirements()['ansible-core'])
    assert 'ARG EE_BASE_IMAGE="quay.io/centos/centos:stream9"' in containerfile
    assert 'ARG PYCMD="/usr/bin/python3.11"' in containerfile
    assert re.search(r'^ARG ANSIBLE_INSTALL_REFS="%s ansible-runner==[0-9.]+"$' % re.escape(core), containerfile, re.M)
    assert ('ansible-galaxy collection install $ANSIBLE_GALAXY_CLI_COLLECTION_OPTS -r requirements.yml'
            in containerfile)
    assert '--user-pip=requirements.txt --user-bindep=bindep.txt' in containerfile
    assert containerfile.rstrip().endswith('CMD ["bash"]')

    build = context / '_build'
    assert (build / 'requirements.yml').read_text() == (ROOT / 'requirements.yml').read_text()
    python = requirements((build / 'requirements.txt').read_text())
    expected = {name: req for name, req in controller_requirements().items() if name != 'ansible-core'}
    assert sorted(python) == sorted(expected)
    for name, requirement in python.items():
        assert requirement.specifier == expected[name].specifier, name
    # Kerberos with message encryption is one of the two transports the AWX guide recommends.
    assert python['pywinrm'].extras == {'kerberos'} and python['pypsrp'].extras == {'kerberos'}
    bindep = (build / 'bindep.txt').read_text()
    assert 'krb5-workstation [platform:rpm]' in bindep and 'krb5-devel [platform:rpm compile]' in bindep
    for script in ('assemble', 'introspect.py', 'install-from-bindep', 'check_galaxy', 'entrypoint'):
        assert (build / 'scripts' / script).is_file(), script


def test_collection_dependencies_agree():
    definition = yaml.safe_load(DEFINITION.read_text())
    assert definition['version'] == 3
    assert (DEFINITION.parent / definition['dependencies']['galaxy']).resolve() == ROOT / 'requirements.yml'
    galaxy = yaml.safe_load((ROOT / 'galaxy.yml').read_text())['dependencies']
    listed = {entry['name']: entry['version'] for entry in yaml.safe_load((ROOT / 'requirements.yml').read_text())['collections']}
    assert listed == galaxy
    assert definition['dependencies']['ansible_core']['package_pip'] == str(controller_requirements()['ansible-core'])
