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
    ``exit_code``: 0, or 1 after an uncaught terminating error; 2 when the engine must refuse the text.
    ``unsupported``: for a text that uses what Windows PowerShell 5.1 has and the engine does not model, a substring
    of the engine's Unsupported message (exit code 2: no try/catch, -ErrorAction or trap turns a refusal into a
    change of behaviour; ``output`` is what ran before it).
    ``source``: where the behaviour is documented.
    """

    name: str
    text: str
    output: list = field(default_factory=list)
    source: str = ''
    errors: list = field(default_factory=list)
    exit_code: int = 0
    unsupported: str = ''
