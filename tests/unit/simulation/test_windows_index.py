"""tests/simulation/README.md lists every cmdlet, program, COM class and CIM method the Windows model implements,
by area, and nothing it does not (the index table under "The Windows model")."""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'simulation'))

from kubewin_sim.windows import AREAS  # noqa: E402  pylint: disable=wrong-import-position


def registered():
    found = {}
    for area in AREAS:
        names = set(getattr(area, 'CMDLETS', {})) | set(getattr(area, 'PROGRAMS', {}))
        names |= {'COM ' + name for name in getattr(area, 'COM_CLASSES', {})}
        names |= {'%s.%s' % key for key in getattr(area, 'CIM_METHODS', {})}
        if names:
            found['windows/%s.py' % area.__name__.rsplit('.', 1)[-1]] = names
    return found


def listed():
    with open(os.path.join(ROOT, 'tests', 'simulation', 'README.md'), encoding='utf-8') as handle:
        text = handle.read()
    found = {}
    for line in text.splitlines():
        row = re.match(r'^\| `(windows/\w+\.py)` \|(.*)\|(.*)\|$', line)
        if row:
            found[row.group(1)] = set(re.findall(r'`([^`]+)`', row.group(2) + row.group(3)))
    return found


def test_the_readme_lists_what_each_area_implements():
    assert listed() == registered()
