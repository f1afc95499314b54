# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run several e2e runs (tests/e2e/run, tests/e2e/faults) side by side: `make e2e` and `make e2e-faults`.

One ansible-playbook against a simulated fleet keeps about one core busy (its forks wait on each
other's simulated calls), so on a 2-core machine two runs at a time take half the wall time of one
after the other. Each run is independent (its own temporary state directory and report); its output
goes to <out>/<name>.log, printed whole only when the run fails, so parallel output never interleaves.

    suite.py --out DIR [--jobs N] NAME=COMMAND... (COMMAND split like a shell word list)
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def run_one(out: str, name: str, command: str) -> tuple[str, int, float]:
    started = time.monotonic()
    with open(os.path.join(out, name + '.log'), 'wb') as log:
        returncode = subprocess.call(shlex.split(command), stdout=log, stderr=subprocess.STDOUT)
    return name, returncode, time.monotonic() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', required=True, help='folder for the logs (the runs write their reports where told)')
    parser.add_argument('--jobs', type=int, default=2)
    parser.add_argument('runs', nargs='+', metavar='NAME=COMMAND')
    args = parser.parse_args(argv)
    runs = [entry.split('=', 1) for entry in args.runs]
    os.makedirs(args.out, exist_ok=True)
    failed = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # Submitted in the order given: list the longest first so the last job does not run alone.
        for future in [pool.submit(run_one, args.out, name, command) for name, command in runs]:
            name, returncode, seconds = future.result()
            outcome = 'passed' if returncode == 0 else 'FAILED rc=%d' % returncode
            print('e2e %-22s %s in %.0f s (log: %s)' % (name, outcome, seconds, os.path.join(args.out, name + '.log')),
                  flush=True)
            if returncode != 0:
                failed.append(name)
    for name in failed:
        print('\n===== %s.log =====' % name, flush=True)
        with open(os.path.join(args.out, name + '.log'), encoding='utf-8', errors='replace') as log:
            sys.stdout.write(log.read())
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
