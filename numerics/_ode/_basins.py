"""Where the flow from each start ends up, and the time it takes to reach ``|rho| = level``."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.integrate import IntegrationWarning, quad

from ...core.validate import alignments
from ...theory import Model
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
        Same shape as ``rho0``; ``nan`` where the time cannot be computed (``converged`` false).
    sign : ndarray
        Sign of the pole reached (0 where the level is never reached).
    abserr : ndarray
        ``quad`` error estimates (``inf`` where the quadrature does not converge).
    converged : ndarray of bool
        Whether the time of each start was computed (its quadrature converged, or none was needed).
    status : {"ok", "refused"}
        ``"refused"`` when some start's time cannot be computed.
    reason : str
        Why, as one sentence naming the first such start (empty when ``status`` is ``"ok"``).
    """

    rho0: np.ndarray
    level: float
    time: np.ndarray
    sign: np.ndarray
    abserr: np.ndarray
    converged: np.ndarray
    status: str
    reason: str


def time_to_alignment(model: Model, rho0, level: float = 0.99, *, equilibria=None) -> AlignmentTime:
    """Hitting time of ``|rho| = level`` by quadrature ``t = int dy / j'(tanh y)``.

    Between a start and the pole it flows to, ``j'`` has one sign, so the hitting
    time of ``target = ±level`` is ``int_{atanh rho0}^{atanh target} dy / j'(tanh y)``.

    A start repelled by an interior equilibrium ``rho*`` (``y* = atanh rho*``) is integrated in
    ``s = log|y - y*|``: ``t = int e^s ds / j'(tanh(y* + sigma e^s))`` with ``sigma`` the
    direction of motion. Its integrand is bounded (``-> 1/j''`` as ``s -> -inf``) where the one
    in ``y`` has a pole next to the start, so a start ``1e-300`` from ``rho*`` gets the time
    ``~ log(1/distance) / lambda`` instead of a quadrature that stops early with a value several
    times too small. A quadrature that still does not converge gives ``nan`` (not a number that
    looks right) with ``abserr = inf``, ``converged`` false there, and the result is ``refused``
    with the reason; scipy's ``IntegrationWarning`` never leaves this function.
    """
    check_model(model)
    if not (isinstance(level, Real) and 0 < level < 1):
        raise ValueError(f"`level` must lie in (0, 1), got {level!r}")
    r0 = alignments("rho0", rho0)
    found = basins(model, r0, equilibria=equilibria)
    lim = found.limit
    time = np.full(r0.shape, np.inf)
    err = np.zeros(r0.shape)
    sign = np.where(np.abs(lim) == 1, np.sign(lim), 0.0)
    nodes = np.array((-1.0, *found.equilibria, 1.0))
    for idx in np.ndindex(r0.shape):
        if abs(r0[idx]) >= level:
            time[idx], sign[idx] = 0.0, np.sign(r0[idx])
        elif sign[idx] != 0:
            time[idx], err[idx] = _crossing_time(model, float(r0[idx]), float(sign[idx]) * level,
                                                 _repeller(nodes, float(r0[idx]), float(sign[idx])))
    converged = ~np.isnan(time)
    reason = "" if converged.all() else unconverged_reason(r0[~converged], r0.size, float(level))
    return AlignmentTime(r0, float(level), time, sign, err, converged, "refused" if reason else "ok", reason)


def unconverged_reason(starts: np.ndarray, total: int, level: float) -> str:
    """The sentence of :attr:`AlignmentTime.reason`: the first of ``starts`` (of ``total``) whose
    crossing time's quadrature does not converge."""
    more = f" (and {starts.size - 1} more of the {total} starts)" if starts.size > 1 else ""
    return (f"`rho0` = {float(starts.flat[0])!r}{more}, `level` = {level!r}: the limit ODE's crossing time cannot "
            "be computed (its quadrature does not converge: the start lies next to an equilibrium of the field, "
            "where the time grows like log(1 / distance)); start farther from the equilibrium")


def _repeller(nodes: np.ndarray, rho0: float, sign: float) -> float | None:
    """The interior equilibrium a start moving towards the pole ``sign`` leaves behind it (the
    node of its segment on the other side), or ``None`` when that node is a pole."""
    seg = int(np.clip(np.searchsorted(nodes, rho0, side="right") - 1, 0, nodes.size - 2))
    node = nodes[seg] if sign > 0 else nodes[seg + 1]
    if node == rho0 and sign > 0 and seg > 0:  # a start on a node: the node itself
        node = nodes[seg]
    return None if abs(node) == 1.0 else float(node)


#: inside ``|y - y*| < NEAR`` of a repelling equilibrium the slope is replaced by its secant
#: through ``y*`` (its value there is below the evaluator's rounding relative to ``j''``): time
#: error ``O(NEAR)`` from the curvature, ``O(eps / NEAR)`` from rounding, both ~1e-8 relative
NEAR = 1e-7


def _crossing_time(model: Model, rho0: float, target: float, repeller: float | None) -> tuple[float, float]:
    """``(time, abserr)`` of ``int_{atanh rho0}^{atanh target} dy / j'(tanh y)`` (see
    :func:`time_to_alignment`); ``(nan, inf)`` when the quadrature does not converge."""
    y0, yt = math.atanh(rho0), math.atanh(target)

    def slope(y):
        return float(_field._slope(model, math.tanh(y)))

    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrationWarning)
        try:
            if repeller is None or y0 == math.atanh(repeller):
                return quad(lambda y: 1.0 / slope(y), y0, yt, epsabs=0.0, epsrel=1e-11, limit=200)
            ystar = math.atanh(repeller)
            direction = math.copysign(1.0, yt - y0)
            near = 0.0
            if abs(y0 - ystar) < NEAR:  # j' = (u / NEAR) j'(y* + NEAR) on the first stretch
                edge = ystar + direction * NEAR
                near = direction * NEAR / slope(edge) * math.log(NEAR / abs(y0 - ystar))
                y0 = edge
            s0, st = math.log(abs(y0 - ystar)), math.log(abs(yt - ystar))
            val, err = quad(lambda s: direction * math.exp(s) / slope(ystar + direction * math.exp(s)), s0, st,
                            epsabs=0.0, epsrel=1e-11, limit=400)
            return val + near, err + abs(near) * NEAR
        except IntegrationWarning:
            return math.nan, math.inf
