# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Windows Server builds and what they are called.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

# Build number -> (product, release). Kubernetes' Windows docs and the pause
# image tags name releases this way (ltsc2019 = 1809 = 17763).
WINDOWS_BUILDS = {
    14393: ('Windows Server 2016', '1607'),
    17763: ('Windows Server 2019', '1809'),
    18362: ('Windows Server, version 1903', '1903'),
    18363: ('Windows Server, version 1909', '1909'),
    19041: ('Windows Server, version 2004', '2004'),
    19042: ('Windows Server, version 20H2', '20H2'),
    20348: ('Windows Server 2022', '21H2'),
    25398: ('Windows Server, version 23H2', '23H2'),
    26100: ('Windows Server 2025', '24H2'),
}


def describe_build(build):
    """Return {'build', 'product', 'release'} for a build number; unknown builds say so."""
    product, release = WINDOWS_BUILDS.get(int(build), ('unknown Windows build %s' % build, None))
    return {'build': int(build), 'product': product, 'release': release}
