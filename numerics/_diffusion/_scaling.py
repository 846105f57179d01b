"""Exponents of the median first-passage step in ``d`` and in ``L``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._schedule import Schedule
from .._simulate._driver import Problem
from ._complexity import check_instance, complexity


@dataclass(frozen=True)
class Scaling:
    """Fitted exponent of the median first-passage step in one size parameter.

    ``median_steps ~ C * value^exponent`` by least squares in log-log over ``values``.
    ``status`` is ``"refused"`` when the exponent is not a number (a scaled instance's median
    beyond the horizon, or a single distinct value), and ``reason`` then says why (empty when
    ``"ok"``).
    """

    parameter: str
    values: list
    median_steps: list
    exponent: float
    status: str
    reason: str

    def as_dict(self) -> dict:
        return {"parameter": self.parameter, "values": self.values,
                "median_steps": [None if not math.isfinite(m) else m for m in self.median_steps],
                "exponent": self.exponent, "status": self.status, "reason": self.reason}


def scaling_exponents(problem: Problem, schedule: Schedule, rho0=None, target: float = 0.99, *,
                      factors=(0.5, 1.0, 2.0), runs: int = 1000, horizon: int = 200_000, seed=0) -> tuple:
    """Exponents of the median first-passage step in ``d`` and in ``L`` (``alpha = R/L`` held fixed).

    Each parameter is scaled by ``factors`` (``d >= 2``, ``R >= 1``); the exponent is the
    least-squares slope of ``log median`` on ``log value`` (``nan``, and the :class:`Scaling`
    ``refused``, if some median is beyond the horizon).
    """
    rho0 = check_instance(problem, rho0)
    scales = ", ".join(f"x{f:g}" for f in factors)
    out = []
    for name in ("d", "L"):
        vals, meds = [], []
        for f in factors:
            if name == "d":
                pr = Problem(problem.theta, problem.R, problem.L, max(2, round(problem.d * f)), problem.beta,
                             problem.sigma2, problem.prior, problem.batch)
                v = pr.d
            else:
                L = max(2, round(problem.L * f))
                R = max(1, round(problem.R * L / problem.L))
                pr = Problem(problem.theta, R, L, problem.d, problem.beta, problem.sigma2, problem.prior,
                             problem.batch)
                v = pr.L
            c = complexity(pr, schedule, rho0, target, runs=runs, horizon=horizon, seed=seed)
            vals.append(v)
            meds.append(c.median_steps)
        m = np.array(meds, dtype=float)
        if np.all(np.isfinite(m)) and len(set(vals)) > 1:
            slope = float(np.polyfit(np.log(vals), np.log(m), 1)[0])
        else:
            slope = math.nan
        beyond = [v for v, med in zip(vals, meds, strict=True) if not math.isfinite(med)]
        reason = "" if math.isfinite(slope) and not beyond else (
            f"`horizon` = {horizon}: with --scaling the median step at {name} = "
            f"{beyond[0] if beyond else vals} is not reached within it (the {name} {scales} instances run on the "
            f"same --horizon); raise --horizon")
        out.append(Scaling(name, vals, meds, slope, "refused" if reason else "ok", reason))
    return tuple(out)
