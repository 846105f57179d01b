"""The limit ODE of the subspace model along a step schedule, and where it ends (docs/subspace.md).

``dM/dt = Gamma - M sym(M^T Gamma)`` (:func:`theory.heads_flow`; one head: ``dr/dt = g - <r, g> r``)
integrated from ``M0`` through the recursion's times ``t_k = sum_{j<k} eta_j`` (segment by
segment with :func:`theory.integrate_heads`), then on to ``t_limit`` or until the speed
``|dM/dt|`` falls to round-off: the equilibrium the limit ODE converges to. Numerical
(scipy LSODA, ``rtol = 1e-10``). The finite-step (diffusion) corrections of
:func:`numerics.predict` are derived for ``k = 1`` only and are not part of this path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...theory import SubspaceModel, integrate_heads


@dataclass(frozen=True)
class SubspacePath:
    """``times`` (n,), ``M`` (n, k, H) on them, and the long-time end: ``M_limit`` (k, H) at time
    ``t_limit`` (or earlier, when the speed fell below ``1e-13``), its ``speed``."""

    times: np.ndarray
    M: np.ndarray
    M_limit: np.ndarray
    t_limit: float
    speed: float


def subspace_path(model: SubspaceModel, M0, times, t_limit: float = 1e5) -> SubspacePath:
    """Integrate the reduced flow from ``M0`` (``k x H``, operator norm ``<= 1``) through the
    increasing ``times`` (starting at 0), then to ``t_limit`` (module doc)."""
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or times.size < 1 or times[0] != 0 or np.any(np.diff(times) < 0):
        raise ValueError("`times` must be an increasing sequence starting at 0")
    M = np.array(M0, dtype=float)
    out = [M]
    for dt in np.diff(times):
        if dt > 0:
            M = integrate_heads(model, M, t_max=float(dt)).M
        out.append(M)
    end = integrate_heads(model, M, t_max=float(t_limit))
    return SubspacePath(times, np.array(out), end.M, float(t_limit), end.speed)
