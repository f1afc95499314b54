"""Script simulations, one module per area; importing this package registers them all."""

from kubewin_sim.handlers import core  # noqa: F401  pylint: disable=unused-import
