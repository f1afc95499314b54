"""Offline stand-in for the get-pip bootstrap script that ansible-test downloads.

ansible-test creates virtual environments for some sanity tests and bootstraps
pip in them with a script it fetches from the internet. This stand-in does the
same from what Python ships (ensurepip) and the package index pip is configured
for. tools/ansible_test_sanity.sh copies it into ansible-test's cache.
"""

import subprocess
import sys

# ansible-test passes pip options and requirement specifiers (e.g. pip==24.2);
# the --no-* flags belong to get-pip itself, not to pip.
GET_PIP_ONLY = {'--no-setuptools', '--no-wheel'}

args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY]
subprocess.check_call([sys.executable, '-m', 'ensurepip', '--upgrade', '--default-pip'])
subprocess.check_call([sys.executable, '-m', 'pip', 'install', '--disable-pip-version-check'] + args)
