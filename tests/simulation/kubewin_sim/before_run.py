"""What tests/simulation/ansible-playbook sets up before each run, so that any playbook runs on its own.

``before_run.py STATE_DIR ROOT`` makes the simulated web serve the artifact catalog's pins
(kubewin_sim/catalog_web.py): without it a pinned download (sdn-cni, nssm, Docker) fails its
checksum, as a real upstream never would. It prints the remote-call counters (``calls.py
snapshot``) that the wrapper's report after the run is measured from; one Python start for both.

The simulated cluster needs nothing here: the connection plugin hands the control-plane host's
``kubewin_sim_cluster`` to the fake kubernetes.core modules, which create the cluster from it.
"""

import json
import os
import sys

from kubewin_sim import calls, catalog_web


def main(argv):
    state_dir, root = argv[1], argv[2]
    os.makedirs(state_dir, exist_ok=True)
    catalog_web.serve_catalog(state_dir, root)
    print(json.dumps(calls.snapshot(state_dir)))


if __name__ == '__main__':
    main(sys.argv)
