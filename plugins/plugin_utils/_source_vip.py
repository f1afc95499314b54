# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kube-proxy's source VIP record on an overlay node (SourceVip.json), as kubewin.node.source_vip writes it and as
the kube-proxy service, the DaemonSet's start script and the doctor read it.

Internal to kubewin.node, not a public API.
"""

from __future__ import annotations

import ipaddress
import json


def recorded_address(text):
    """The interface (address/prefix) host-local answered with, from SourceVip.json's text; None if unreadable.

    host-local answers in the shape of the request's cniVersion: ``ips[0].address`` (0.3.0 and
    later) or ``ip4.ip`` (0.2.0, as older setup scripts recorded it).
    """
    try:
        document = json.loads(text)
        if document.get('ips'):
            value = document['ips'][0]['address']
        else:
            value = document['ip4']['ip']
        return ipaddress.IPv4Interface(value)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
