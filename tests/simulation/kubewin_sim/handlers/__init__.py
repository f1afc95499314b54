"""Script simulations, one module per area; importing this package registers them all."""

# pylint: disable=unused-import
from kubewin_sim.handlers import artifacts  # noqa: F401
from kubewin_sim.handlers import cni  # noqa: F401
from kubewin_sim.handlers import core  # noqa: F401
from kubewin_sim.handlers import files  # noqa: F401
from kubewin_sim.handlers import firewall  # noqa: F401
from kubewin_sim.handlers import join  # noqa: F401
from kubewin_sim.handlers import lifecycle  # noqa: F401
from kubewin_sim.handlers import ovs  # noqa: F401
from kubewin_sim.handlers import routes  # noqa: F401
from kubewin_sim.handlers import services  # noqa: F401
