"""The limiting ODE ``d rho/dt = F(rho)``: integration, flow map, basins, hitting times.

Equation (docs/design.md section 1)::

    d rho / dt = F(rho) = (1 - rho^2) j'(rho).

It is integrated in the variable ``y = atanh(rho)``, for which

    dy / dt = F(rho) / (1 - rho^2) = j'(tanh y).

Near an attracting pole ``rho -> 1`` the approach ``1 - rho ~ C exp(F'(1) t)`` becomes
the linear growth ``y ~ j'(1) t`` (``F'(1) = -2 j'(1)``), which an adaptive
integrator follows to full relative accuracy, and ``1 - rho = 2 / (1 + exp(2y))``
is recovered without cancellation. The poles ``rho = ±1`` (``y = ±inf``) are fixed
points and are returned unchanged. In the sparse regime ``theory.evaluate`` returns
the ``1/alpha``-rescaled field, so time here is the rescaled time.

Interior equilibria (zeros of ``j'`` in ``(-1, 1)``) are located numerically from
sign changes of ``j'`` on a grid refined by ``brentq``: this is numerical evidence,
not a certificate (a double zero that touches 0 without a sign change is missed).
Every function that needs them accepts an explicit ``equilibria`` list, so that a
certified list from ``theory`` can be passed in instead.

The tests check the float path against an mpmath reference (``tests/numerics/_mp_reference.py``).

Modules, one concept each: ``_field`` (the right-hand side in ``y``, tolerances),
``_equilibria`` (interior zeros of ``j'``), ``_flow`` (integration and the flow map),
``_basins`` (limits and hitting times). The field is
looked up as ``_field._slope`` at call time, so a test can substitute a wrong one.
"""

from ._basins import AlignmentTime, Basins, basins, time_to_alignment
from ._equilibria import Equilibria, find_equilibria
from ._field import ATOL, RTOL, one_minus_tanh
from ._flow import FlowMap, Trajectory, flow_map, integrate

__all__ = [
    "ATOL",
    "RTOL",
    "AlignmentTime",
    "Basins",
    "Equilibria",
    "FlowMap",
    "Trajectory",
    "basins",
    "find_equilibria",
    "flow_map",
    "integrate",
    "one_minus_tanh",
    "time_to_alignment",
]
