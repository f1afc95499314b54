"""ansible-playbook for tests/simulation/ansible-playbook, with what comes before and after it, in one process.

``python -m kubewin_sim.run_playbook STATE_DIR ROOT PROGRAM ARGS...``:

1. makes the simulated web serve the artifact catalog's pins (kubewin_sim/catalog_web.py): without it a pinned
   download (sdn-cni, nssm, Docker) fails its checksum, as a real upstream never would; and takes the remote-call
   counters (``calls.snapshot``) the report is measured from;
2. runs ansible-playbook's own entry point (``ansible.cli.playbook.main``) with ``PROGRAM ARGS...`` as its argv;
3. prints the remote calls each simulated node received since step 1 (``calls.report``), also when the run failed;

and exits with ansible-playbook's status. One Python process instead of three: each start with its imports cost
about 0.1 s, a tenth of a short simulated run.

The simulated cluster needs nothing here: the connection plugin hands the control-plane host's
``kubewin_sim_cluster`` to the fake kubernetes.core modules, which create the cluster from it.
"""

import sys

from kubewin_sim import calls, catalog_web


def main(argv):
    # The wrapper has made STATE_DIR.
    state_dir, root, program, args = argv[1], argv[2], argv[3], argv[4:]
    catalog_web.serve_catalog(state_dir, root)
    before = calls.snapshot(state_dir)
    sys.argv = [program] + args
    try:
        # pylint: disable=import-outside-toplevel  # ansible reads its configuration from the environment on import
        from ansible.cli.playbook import main as ansible_playbook
        status = ansible_playbook()  # its CLI ends with sys.exit; a return is taken as its status too
    except SystemExit as done:
        status = done.code
    finally:
        # ansible-playbook's forked workers never come back here: multiprocessing ends them with os._exit.
        sys.stdout.flush()
        sys.stderr.flush()
        calls.report(state_dir, before)
    return status  # sys.exit takes it as the CLI's own exit would: None is 0, a message is printed and 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
