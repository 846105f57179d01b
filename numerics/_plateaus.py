"""The drag plateaus at a constant step, and the largest step whose plateaus clear a target.

At a constant step ``eta`` each attractor of the limit field becomes the stable zero ``rho_eta``
of the corrected drift ``F_eta = A - eta B`` nearest to it (docs/design.md section 1, finite-step
drag), with a linearised spread; :func:`largest_step` is what the planner (:mod:`._planner`)
starts from.
"""

from __future__ import annotations

import math

import numpy as np

from ..theory import effective_drift, pole_signs
from ._diffusion import stable_zeros
from ._ode._corrected import corrected_drift
from ._simulate._driver import Problem


def _bracket_grid(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rho, A, B)`` on the knots of :func:`corrected_drift`'s table, ``F_eta = A - eta B``:
    the step-independent parts of ``F_eta``, computed once per problem and shared with
    ``predict`` (the step search asks for dozens of steps; only the brackets of the zeros
    come from this grid, the zeros themselves from exact evaluations)."""
    table = corrected_drift(problem)
    grid = table.A.x
    return grid, table.A(grid), table.B(grid)


def _exact_drift(problem: Problem, rho, eta: float):
    """``(F_eta, Var X)`` at the alignments ``rho`` (one vectorised call of
    ``theory.effective_drift``: the self-normalised second moment on the whole array at once)."""
    e = effective_drift(problem.model, np.asarray(rho, float), eta, problem.d, problem.L, problem.batch)
    return e.drift, e.noise


#: points per refinement of a bracket in :func:`_stable_zero` and the number of refinements:
#: a bracket of the 1601-point table (width 0.00125) shrinks to 0.00125 / 32^2 ~ 1.2e-6, and the
#: secant through its ends is then exact to rounding (its error is of the order of the width squared
#: times the drift's curvature)
_REFINE_POINTS, _REFINE_ROUNDS = 33, 2


def _stable_zero(problem: Problem, eta: float, lo: float, hi: float) -> float:
    """The zero of ``F_eta`` in ``[lo, hi]`` where it crosses from ``+`` to ``-`` (``F_eta(lo) > 0 >=
    F_eta(hi)``): each round evaluates ``F_eta`` on :data:`_REFINE_POINTS` points of the bracket
    in one call and keeps the last ``+ -> -`` cell; the secant through the final cell's ends gives
    the root."""
    flo = fhi = None
    for _ in range(_REFINE_ROUNDS):
        x = np.linspace(lo, hi, _REFINE_POINTS)
        v, _ = _exact_drift(problem, x, eta)
        cross = np.flatnonzero((v[:-1] > 0) & (v[1:] <= 0))
        if cross.size == 0:  # rounding at the bracket's ends: keep the last bracket
            break
        i = cross[-1]
        lo, hi, flo, fhi = float(x[i]), float(x[i + 1]), float(v[i]), float(v[i + 1])
    if flo is None or fhi is None or not math.isfinite(flo) or not math.isfinite(fhi) or flo == fhi:
        return 0.5 * (lo + hi)
    return lo + (hi - lo) * flo / (flo - fhi)


def plateaus(problem: Problem, eta: float) -> list[tuple[float, float]]:
    """``(rho_eta, spread)`` of each attractor the runs can reach at constant step ``eta``.

    The attractors of the limit field are ``+1`` and, when ``F'(-1) < 0``, ``-1``; at a
    finite step each becomes the stable zero of the corrected drift ``F_eta`` nearest to
    it (``theory.effective_drift``), with the linearised spread ``sqrt(eta Var X / (2 |F_eta'|))``.
    An attractor whose zero disappears gives ``(0, inf)``. The zero is bracketed on the
    corrected drift's table and refined by exact, vectorised evaluations (:func:`_stable_zero`);
    the slope is the central difference of half-width ``1e-6`` there.
    """
    m = problem.model
    poles = [1.0] + ([-1.0] if pole_signs(m)[1] < 0 else [])
    grid, base, drag = _bracket_grid(problem)
    with np.errstate(all="ignore"):
        v = base - eta * drag  # F_eta on the grid

    # stable zeros of F_eta: + to - crossings (F_eta(-1) = +drag > 0, F_eta(1) = -drag < 0)
    zeros = stable_zeros(grid, v)
    out = []
    for pole in poles:
        i = zeros.attractor(pole)
        if i is None:
            out.append((0.0, math.inf))
            continue
        r = _stable_zero(problem, eta, float(grid[i]), float(grid[i + 1]))
        h = 1e-6
        a, b = max(r - h, -1.0), min(r + h, 1.0)
        f, noise = _exact_drift(problem, [a, r, b], eta)
        slope = float((f[2] - f[0]) / (b - a))
        spread = math.sqrt(eta * float(noise[1]) / (2 * abs(slope))) if slope != 0 else math.inf
        out.append((abs(r), spread))
    return out


def largest_step(problem: Problem, target: float) -> float | None:
    """Largest constant step whose plateaus (every reachable attractor) minus 3 spreads exceed
    ``target + 0.001``."""

    def ok(eta):
        return all(r - 3 * s >= target + 1e-3 for r, s in plateaus(problem, eta))

    lo, hi = 1e-9, 1.0
    if ok(hi):
        return hi
    if not ok(lo):
        return None
    # geometric bisection to a relative width of 1e-4 (18 rounds from [1e-9, 1]; the plan only
    # uses eps_max times the factors of EPS_FACTORS, and each round costs a plateau search)
    while hi > lo * (1 + 1e-4):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo
