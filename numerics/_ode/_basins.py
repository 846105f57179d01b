"""Where the flow from each start ends up, and the time it takes to reach ``|rho| = level``."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.integrate import quad

from ...theory import Model
from ...theory.validate import alignments
from . import _field
from ._equilibria import equilibrium_points
from ._field import check_model


@dataclass(frozen=True)
class Basins:
    """Where the ODE started at each ``rho0`` ends up as ``t -> inf``.

    Attributes
    ----------
    rho0 : ndarray
    limit : ndarray
        ``+1``, ``-1``, an interior equilibrium, or ``rho0`` itself when it is fixed.
    equilibria : tuple of float
        Interior equilibria used.
    """

    rho0: np.ndarray
    limit: np.ndarray
    equilibria: tuple


def basins(model: Model, rho0, *, equilibria=None) -> Basins:
    """Limit point of the flow from each start (the basin each start lies in).

    On each open segment between consecutive fixed points ``-1 < rho*_1 < ... < 1``
    ``F`` has one sign, read at the segment midpoint; the flow moves monotonically
    to the segment's upper end if positive, lower end if negative.
    """
    check_model(model)
    r0 = alignments("rho0", rho0)
    points, degenerate = equilibrium_points(model, equilibria)
    nodes = np.array((-1.0, *points, 1.0))
    mids = 0.5 * (nodes[:-1] + nodes[1:])
    signs = np.sign(_field._slope(model, mids)) * (not degenerate)
    seg = np.clip(np.searchsorted(nodes, r0, side="right") - 1, 0, nodes.size - 2)
    limit = np.where(signs[seg] > 0, nodes[seg + 1], np.where(signs[seg] < 0, nodes[seg], r0))
    limit = np.where(np.isin(r0, nodes), r0, limit)
    return Basins(r0, limit, points)


@dataclass(frozen=True)
class AlignmentTime:
    """First time ``|rho(t)| >= level`` from each start (``inf`` if never).

    Attributes
    ----------
    rho0 : ndarray
    level : float
    time : ndarray
        Same shape as ``rho0``.
    sign : ndarray
        Sign of the pole reached (0 where the level is never reached).
    abserr : ndarray
        ``quad`` error estimates.
    """

    rho0: np.ndarray
    level: float
    time: np.ndarray
    sign: np.ndarray
    abserr: np.ndarray


def time_to_alignment(model: Model, rho0, level: float = 0.99, *, equilibria=None) -> AlignmentTime:
    """Hitting time of ``|rho| = level`` by quadrature ``t = int dy / j'(tanh y)``.

    Between a start and the pole it flows to, ``j'`` has one sign, so the hitting
    time of ``target = ±level`` is ``int_{atanh rho0}^{atanh target} dy / j'(tanh y)``.
    """
    check_model(model)
    if not (isinstance(level, Real) and 0 < level < 1):
        raise ValueError(f"`level` must lie in (0, 1), got {level!r}")
    r0 = alignments("rho0", rho0)
    lim = basins(model, r0, equilibria=equilibria).limit
    time = np.full(r0.shape, np.inf)
    err = np.zeros(r0.shape)
    sign = np.where(np.abs(lim) == 1, np.sign(lim), 0.0)
    for idx in np.ndindex(r0.shape):
        if abs(r0[idx]) >= level:
            time[idx], sign[idx] = 0.0, np.sign(r0[idx])
        elif sign[idx] != 0:
            target = math.atanh(sign[idx] * level)
            val, e = quad(lambda y: 1.0 / float(_field._slope(model, math.tanh(y))), math.atanh(r0[idx]), target,
                          epsabs=0.0, epsrel=1e-11, limit=200)
            time[idx], err[idx] = val, e
    return AlignmentTime(r0, float(level), time, sign, err)
