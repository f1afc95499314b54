"""A simulated Windows node for kubewin.node's tests (see tests/simulation/README.md)."""
