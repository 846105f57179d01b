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

The reference path :func:`integrate_mp` integrates the same ODE in mpmath with an
adaptive Gragg–Bulirsch–Stoer extrapolation (order ``2 * levels``) at any precision,
using ``theory.evaluate_mp`` (the derived expressions, not the float stable forms),
so it is independent of the float path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import mpmath
import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from ..theory import Model, evaluate, evaluate_mp
from ..theory.validate import alignments, instance, nonnegative

#: default tolerances of the float path (:func:`integrate` requires ``rtol <= 1e-10``)
RTOL = 1e-12
ATOL = 1e-13


def _check_model(model) -> Model:
    return instance("model", model, Model, "theory.Model")


def _slope(model: Model, rho) -> np.ndarray:
    return evaluate(model, rho).slope


def one_minus_tanh(y) -> np.ndarray:
    """``1 - tanh(y)`` without cancellation for large positive ``y``."""
    y = np.asarray(y, dtype=float)
    e = np.exp(-2.0 * np.abs(y))
    return np.where(y > 0, 2.0 * e / (1.0 + e), 2.0 / (1.0 + e))


# ----------------------------------------------------------------- equilibria


@dataclass(frozen=True)
class Equilibria:
    """Interior zeros of ``j'`` in ``(-1, 1)`` (numerical evidence, not certified).

    Attributes
    ----------
    points : tuple of float
        Sorted interior equilibria ``rho*``.
    stable : tuple of bool
        ``F'(rho*) < 0`` (judged from the sign of ``j'`` on either side).
    degenerate : bool
        ``j'`` vanishes on the whole grid (e.g. ``theta = 0``): every point is fixed.
    certified : bool
        Always False here; a certified list comes from ``theory``.
    """

    points: tuple
    stable: tuple
    degenerate: bool = False
    certified: bool = False


def find_equilibria(model: Model, n_grid: int = 4000) -> Equilibria:
    """Locate interior equilibria from sign changes of ``j'`` and ``brentq``.

    Parameters
    ----------
    model : theory.Model
    n_grid : int
        Number of grid intervals on ``[-1, 1]``. Sign changes between neighbours are
        refined by ``brentq``; exact zeros on the grid (e.g. ``rho = 0`` for the
        Rademacher prior, on the grid when ``n_grid`` is even) are kept as they are.
        Zeros closer together than the grid spacing, or without a sign change, are
        missed: use the certified list from ``theory`` when it matters.
    """
    _check_model(model)
    grid = np.linspace(-1.0, 1.0, int(n_grid) + 1)[1:-1]
    slopes = _slope(model, grid)
    scale = np.max(np.abs(slopes))
    if scale == 0.0:
        return Equilibria((), (), degenerate=True)
    points = []
    for i in np.flatnonzero(slopes == 0.0):
        points.append(float(grid[i]))
    for i in np.flatnonzero(slopes[:-1] * slopes[1:] < 0):
        points.append(brentq(lambda r: float(_slope(model, r)), grid[i], grid[i + 1], xtol=1e-16, rtol=8.9e-16))
    points = tuple(sorted(points))
    return Equilibria(points, tuple(_stability(model, p) for p in points))


def _stability(model: Model, point: float) -> bool:
    """Stable iff ``j'`` goes from + to - through ``point`` (small symmetric probe)."""
    h = 1e-6 * max(1.0, abs(point))
    left, right = _slope(model, [max(point - h, -1.0), min(point + h, 1.0)])
    return bool(left > 0 > right)


def _equilibrium_points(model: Model, equilibria) -> tuple[tuple, bool]:
    if equilibria is None:
        eq = find_equilibria(model)
        return eq.points, eq.degenerate
    if isinstance(equilibria, Equilibria):
        return equilibria.points, equilibria.degenerate
    pts = alignments("equilibria", list(equilibria)).ravel()
    if np.any(np.abs(pts) >= 1):
        raise ValueError(f"`equilibria` must lie in (-1, 1), got {equilibria!r}")
    return tuple(sorted(float(p) for p in pts)), False


# ----------------------------------------------------------------- integration


@dataclass(frozen=True)
class Trajectory:
    """One ODE solution sampled at requested times.

    Attributes
    ----------
    t : ndarray, shape (n,)
    rho : ndarray, shape (n,)
        ``rho(t) = tanh(y(t))``.
    y : ndarray, shape (n,)
        ``atanh(rho(t))`` (``±inf`` at a pole).
    one_minus_rho : ndarray, shape (n,)
        ``1 - rho(t)`` computed from ``y`` without cancellation.
    nfev : int
        Field evaluations.
    success : bool
    message : str
    """

    t: np.ndarray
    rho: np.ndarray
    y: np.ndarray
    one_minus_rho: np.ndarray
    nfev: int
    success: bool
    message: str


def _rhs(model: Model):
    def fun(_t, y):
        return _slope(model, np.tanh(y))

    return fun


def integrate(model: Model, rho0: float, t_eval, *, rtol: float = RTOL, atol: float = ATOL) -> Trajectory:
    """Integrate ``d rho/dt = F(rho)`` from ``rho0`` and sample at ``t_eval``.

    Parameters
    ----------
    model : theory.Model
    rho0 : float
        Start in ``[-1, 1]``.
    t_eval : array_like, shape (n,)
        Non-decreasing times ``>= 0``.
    rtol, atol : float
        Tolerances of ``solve_ivp`` (DOP853) on ``y = atanh(rho)``; ``rtol <= 1e-10``.
    """
    _check_model(model)
    rho0 = float(alignments("rho0", rho0))
    t = nonnegative("t_eval", t_eval)
    if np.any(np.diff(t) < 0):
        raise ValueError("`t_eval` must be non-decreasing")
    _check_tol(rtol, atol)
    y0 = math.atanh(rho0) if abs(rho0) < 1 else math.copysign(math.inf, rho0)
    if not math.isfinite(y0) or t.size == 0 or t[-1] == 0.0:
        y = np.full(t.shape, y0)
        return _trajectory(t, y, rho0, t == t, 0, True, "fixed point or zero horizon")
    # solve_ivp wants increasing times; repeated ones (t_k + eta_k == t_k in float64) share a value
    ts, back = np.unique(t, return_inverse=True)
    sol = solve_ivp(_rhs(model), (0.0, t[-1]), [y0], method="DOP853", t_eval=ts, rtol=rtol, atol=atol)
    y = sol.y[0][back] if sol.success else np.full(t.shape, np.nan)
    return _trajectory(t, y, rho0, t == 0.0, int(sol.nfev), bool(sol.success), sol.message)


def _stay(y, rho0, still):
    """``(rho, 1 - rho)`` from ``y``, with ``rho0`` returned itself where the flow did not move.

    ``tanh(atanh(x)) == x`` is not guaranteed: numpy picks its ``tanh``/``arctanh``
    kernels by CPU (AVX-512 or AVX2), and on some the round trip is one ulp off. A
    zero horizon, a pole and an exact equilibrium therefore return the start as given,
    so ``Phi_0(rho) = rho`` holds by construction on every CPU.
    """
    rho, omr = np.tanh(y), one_minus_tanh(y)
    if np.any(still):
        r0 = np.broadcast_to(rho0, rho.shape)
        rho = np.where(still, r0, rho)
        omr = np.where(still, 1.0 - r0, omr)
    return rho, omr


def _trajectory(t, y, rho0, still, nfev, success, message) -> Trajectory:
    rho, omr = _stay(y, rho0, still)
    return Trajectory(t, rho, y, omr, nfev, success, message)


def _check_tol(rtol, atol):
    if not (isinstance(rtol, Real) and 0 < rtol <= 1e-10):
        raise ValueError(f"`rtol` must lie in (0, 1e-10], got {rtol!r}")
    if not (isinstance(atol, Real) and atol > 0):
        raise ValueError(f"`atol` must be > 0, got {atol!r}")


@dataclass(frozen=True)
class FlowMap:
    """``Phi_h(rho0)`` on broadcast arrays of starts and horizons.

    Attributes
    ----------
    rho0, h : ndarray
        The broadcast inputs.
    rho : ndarray
        ``Phi_h(rho0)``, same shape.
    one_minus_rho : ndarray
        ``1 - Phi_h(rho0)`` without cancellation.
    nfev : int
    success : bool
    message : str
    """

    rho0: np.ndarray
    h: np.ndarray
    rho: np.ndarray
    one_minus_rho: np.ndarray
    nfev: int
    success: bool
    message: str


def flow_map(model: Model, rho0, h, *, equilibria=None, rtol: float = RTOL, atol: float = ATOL) -> FlowMap:
    """The ODE flow ``Phi_h(rho0)`` for arrays of starts and horizons (broadcast).

    All moving starts are integrated together as one decoupled system in
    ``y = atanh(rho)`` up to the largest horizon, and read off the dense output.
    Starts at ``±1`` or exactly at an interior equilibrium (from ``equilibria``, or
    found by :func:`find_equilibria`) stay where they are.

    Parameters
    ----------
    model : theory.Model
    rho0 : array_like
        Starts in ``[-1, 1]``.
    h : array_like
        Horizons ``>= 0``, broadcast against ``rho0``.
    equilibria : sequence of float or Equilibria, optional
    rtol, atol : float
        ``solve_ivp`` tolerances; the error norm is an RMS over the starts, so the
        default ``rtol`` is tighter than the 1e-10 asked for one start.
    """
    _check_model(model)
    r0, hh = np.broadcast_arrays(alignments("rho0", rho0), nonnegative("h", h))
    _check_tol(rtol, atol)
    points, degenerate = _equilibrium_points(model, equilibria)
    flat_r, flat_h = r0.ravel(), hh.ravel()
    y0 = np.arctanh(np.clip(flat_r, -1.0, 1.0), where=np.abs(flat_r) < 1, out=np.copysign(np.inf, flat_r))
    y = y0.copy()
    fixed = (np.abs(flat_r) == 1) | np.isin(flat_r, points) | degenerate
    move = np.flatnonzero(~fixed & (flat_h > 0))
    nfev, success, message = 0, True, "no moving start"
    if move.size:
        hmax = float(flat_h[move].max())
        sol = solve_ivp(_rhs(model), (0.0, hmax), y0[move], method="DOP853", dense_output=True, rtol=rtol, atol=atol)
        nfev, success, message = int(sol.nfev), bool(sol.success), sol.message
        if not success:
            y[move] = np.nan
        else:
            y[move] = _read_dense(sol.sol, flat_h[move])
    y = y.reshape(r0.shape)
    still = (fixed | (flat_h == 0)).reshape(r0.shape)
    rho, omr = _stay(y, r0, still)
    return FlowMap(r0, hh, rho, omr, nfev, success, message)


def _read_dense(dense, h: np.ndarray, budget: int = 2_000_000) -> np.ndarray:
    """Component ``i`` of the dense output at time ``h[i]``, in memory-bounded chunks."""
    uniq, inv = np.unique(h, return_inverse=True)
    out = np.empty(h.shape)
    chunk = max(1, budget // h.size)
    for start in range(0, uniq.size, chunk):
        sel = np.flatnonzero((inv >= start) & (inv < start + chunk))
        values = dense(uniq[start : start + chunk])
        out[sel] = values[sel, inv[sel] - start]
    return out


# ----------------------------------------------------------------- basins and times


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
    _check_model(model)
    r0 = alignments("rho0", rho0)
    points, degenerate = _equilibrium_points(model, equilibria)
    nodes = np.array((-1.0, *points, 1.0))
    mids = 0.5 * (nodes[:-1] + nodes[1:])
    signs = np.sign(_slope(model, mids)) * (not degenerate)
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
    _check_model(model)
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
            val, e = quad(lambda y: 1.0 / float(_slope(model, math.tanh(y))), math.atanh(r0[idx]), target,
                          epsabs=0.0, epsrel=1e-11, limit=200)
            time[idx], err[idx] = val, e
    return AlignmentTime(r0, float(level), time, sign, err)


# ----------------------------------------------------------------- mpmath reference


@dataclass(frozen=True)
class MpTrajectory:
    """High-precision reference solution.

    Attributes
    ----------
    t : tuple of mpf
    rho : tuple of mpf
    error_estimate : mpf
        Sum of the accepted local extrapolation error estimates (in ``y``).
    nfev : int
    dps : int
    """

    t: tuple
    rho: tuple
    error_estimate: object
    nfev: int
    dps: int


def integrate_mp(model: Model, rho0, t_eval, *, dps: int = 30, levels: int = 8, step: float = 0.25) -> MpTrajectory:
    """Reference integration of ``dy/dt = j'(tanh y)`` in mpmath at ``dps`` digits.

    Adaptive Gragg–Bulirsch–Stoer: on each macro step ``H`` the modified midpoint
    rule with ``n = 2, 4, ..., 2 * levels`` substeps is extrapolated to ``H -> 0``
    in ``(H/n)^2`` (Aitken–Neville); the step is accepted when the last two
    diagonal entries agree to ``10^-(dps - 3)`` relative, else halved.

    Parameters
    ----------
    model : theory.Model
    rho0 : float or str or mpf
        Start in ``(-1, 1)`` (strings are read at full precision).
    t_eval : sequence
        Non-decreasing times ``>= 0``.
    dps : int
        Working precision (decimal digits); field values come from
        ``theory.evaluate_mp`` at ``dps + 10``.
    """
    _check_model(model)
    if not isinstance(dps, int) or dps < 15:
        raise ValueError(f"`dps` must be an integer >= 15, got {dps!r}")
    with mpmath.workdps(dps + 10):
        times = [mpmath.mpf(t) for t in t_eval]
        if any(t < 0 for t in times) or any(b < a for a, b in zip(times, times[1:])):
            raise ValueError("`t_eval` must be non-decreasing and >= 0")
        r = mpmath.mpf(rho0)
        if not -1 < r < 1:
            raise ValueError(f"`rho0` must lie in (-1, 1) for the reference path, got {rho0!r}")
        counter = [0]

        def f(y):
            counter[0] += 1
            return evaluate_mp(model, mpmath.tanh(y), dps=dps + 10)["slope"]

        tol = mpmath.mpf(10) ** (-(dps - 3))
        y, now, H, total_err = mpmath.atanh(r), mpmath.mpf(0), mpmath.mpf(step), mpmath.mpf(0)
        out = []
        for target in times:
            while now < target:
                h = min(H, target - now)
                y_new, err = _gbs_step(f, y, h, levels)
                if err > tol * (1 + abs(y_new)) and h > mpmath.mpf(10) ** (-dps):
                    H = h / 2
                    continue
                y, now, total_err = y_new, now + h, total_err + err
                if err < tol / 1000:
                    H = min(2 * H, mpmath.mpf(step) * 8)
            out.append(mpmath.tanh(y))
    return MpTrajectory(tuple(times), tuple(out), total_err, counter[0], dps)


def _gbs_step(f, y0, H, levels):
    """One extrapolated modified-midpoint step; returns (value, error estimate)."""
    f0 = f(y0)
    table = []
    for i in range(1, levels + 1):
        n = 2 * i
        h = H / n
        prev, cur = y0, y0 + h * f0
        for _ in range(n - 1):
            prev, cur = cur, prev + 2 * h * f(cur)
        row = [(prev + cur + h * f(cur)) / 2]
        for j in range(1, i):
            ratio = (mpmath.mpf(n) / (n - 2 * j)) ** 2
            row.append(row[j - 1] + (row[j - 1] - table[-1][j - 1]) / (ratio - 1))
        table.append(row)
    return table[-1][-1], abs(table[-1][-1] - table[-1][-2])
