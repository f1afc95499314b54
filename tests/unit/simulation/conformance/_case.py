# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One conformance case: a PowerShell text and what Windows PowerShell 5.1 does with it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """``text`` run as by ``powershell.exe -Command``.

    ``output``: the [string] form of every success-stream object, in order.
    ``errors``: substrings, in order, each found in a distinct error message (in that order).
    ``exit_code``: 0, or 1 after an uncaught terminating error.
    ``source``: where the behaviour is documented.
    """

    name: str
    text: str
    output: list = field(default_factory=list)
    source: str = ''
    errors: list = field(default_factory=list)
    exit_code: int = 0
