"""The mpmath reference path of the tests: adaptive Gragg–Bulirsch–Stoer on ``dy/dt = j'(tanh y)``.

It integrates the ODE of :mod:`sigrec.numerics._ode` in mpmath (order ``2 * levels``) at any
precision, using ``theory.evaluate_mp`` (the derived expressions, not the float stable forms),
so it is independent of the float path it checks.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath

from sigrec.numerics._ode._field import check_model
from sigrec.theory import Model, evaluate_mp


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
    check_model(model)
    if not isinstance(dps, int) or dps < 15:
        raise ValueError(f"`dps` must be an integer >= 15, got {dps!r}")
    with mpmath.workdps(dps + 10):
        times = [mpmath.mpf(t) for t in t_eval]
        if any(t < 0 for t in times) or any(b < a for a, b in itertools.pairwise(times)):
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
    table: list[list] = []
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
