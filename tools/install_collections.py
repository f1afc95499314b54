"""Install the collections named in requirements.yml into a local collections path.

Galaxy is not reachable from every machine this project is built on, but the
`ansible` package on PyPI bundles the same collections. This script downloads
that wheel (pinned by version and hash in tools/collections-wheel.txt),
extracts only the collections requirements.yml names, checks their versions
against the constraints there, and links this checkout in as kubewin.node.

Usage: install_collections.py [--self-only] DEST
  DEST/ansible_collections/... is created. --self-only only links this checkout
  (enough to render the plan, which needs no other collection).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version_tuple(text):
    return tuple(int(part) for part in text.split('.')[:3])


def satisfies(version, constraint):
    """True when version meets a comma-separated constraint such as '>=2.5.0,<4'."""
    ops = {'>=': lambda a, b: a >= b, '<=': lambda a, b: a <= b, '==': lambda a, b: a == b,
           '!=': lambda a, b: a != b, '>': lambda a, b: a > b, '<': lambda a, b: a < b}
    have = _version_tuple(version)
    for clause in (constraint or '*').split(','):
        clause = clause.strip()
        if clause in ('', '*'):
            continue
        for op in ('>=', '<=', '==', '!=', '>', '<'):
            if clause.startswith(op):
                if not ops[op](have, _version_tuple(clause[len(op):].strip())):
                    return False
                break
        else:
            if have != _version_tuple(clause):
                return False
    return True


def download_wheel(workdir):
    subprocess.run(
        [sys.executable, '-m', 'pip', 'download', '--quiet', '--no-deps', '--require-hashes',
         '--only-binary=:all:', '-r', os.path.join(ROOT, 'tools', 'collections-wheel.txt'), '-d', workdir],
        check=True)
    wheels = [name for name in os.listdir(workdir) if name.endswith('.whl')]
    if len(wheels) != 1:
        raise SystemExit('expected one wheel in %s, found %s' % (workdir, wheels))
    return os.path.join(workdir, wheels[0])


def extract(wheel, wanted, dest):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        for fqcn, constraint in wanted.items():
            namespace, name = fqcn.split('.')
            prefix = 'ansible_collections/%s/%s/' % (namespace, name)
            members = [n for n in names if n.startswith(prefix)]
            if not members:
                raise SystemExit('%s is not in %s' % (fqcn, os.path.basename(wheel)))
            target = os.path.join(dest, 'ansible_collections', namespace, name)
            shutil.rmtree(target, ignore_errors=True)
            for member in members:
                archive.extract(member, dest)
            with open(os.path.join(target, 'MANIFEST.json'), encoding='utf-8') as handle:
                version = json.load(handle)['collection_info']['version']
            if not satisfies(version, constraint):
                raise SystemExit('%s %s does not satisfy %s from requirements.yml' % (fqcn, version, constraint))
            print('%s %s' % (fqcn, version))


def link_self(dest):
    parent = os.path.join(dest, 'ansible_collections', 'kubewin')
    os.makedirs(parent, exist_ok=True)
    link = os.path.join(parent, 'node')
    if os.path.islink(link) or os.path.exists(link):
        os.remove(link)
    os.symlink(os.path.relpath(ROOT, parent), link)


def main(argv):
    self_only = '--self-only' in argv
    args = [arg for arg in argv[1:] if arg != '--self-only']
    if len(args) != 1:
        raise SystemExit(__doc__)
    dest = os.path.abspath(args[0])
    link_self(dest)
    if self_only:
        return
    with open(os.path.join(ROOT, 'requirements.yml'), encoding='utf-8') as handle:
        requirements = yaml.safe_load(handle)['collections']
    wanted = {entry['name']: str(entry.get('version', '*')) for entry in requirements}
    with tempfile.TemporaryDirectory() as workdir:
        extract(download_wheel(workdir), wanted, dest)


if __name__ == '__main__':
    main(sys.argv)
