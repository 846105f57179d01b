"""Exponents of the median first-passage step in ``d`` and in ``L``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._schedule import Schedule
from .._simulate._driver import Problem
from ._complexity import complexity


@dataclass(frozen=True)
class Scaling:
    """Fitted exponent of the median first-passage step in one size parameter.

    ``median_steps ~ C * value^exponent`` by least squares in log-log over ``values``.
    """

    parameter: str
    values: list
    median_steps: list
    exponent: float

    def as_dict(self) -> dict:
        return {"parameter": self.parameter, "values": self.values,
                "median_steps": [None if not math.isfinite(m) else m for m in self.median_steps],
                "exponent": self.exponent}


def scaling_exponents(problem: Problem, schedule: Schedule, rho0=None, target: float = 0.99, *,
                      factors=(0.5, 1.0, 2.0), runs: int = 1000, horizon: int = 200_000, seed=0) -> tuple:
    """Exponents of the median first-passage step in ``d`` and in ``L`` (``alpha = R/L`` held fixed).

    Each parameter is scaled by ``factors`` (``d >= 2``, ``R >= 1``); the exponent is the
    least-squares slope of ``log median`` on ``log value`` (``nan`` if some median is beyond the horizon).
    """
    out = []
    for name in ("d", "L"):
        vals, meds = [], []
        for f in factors:
            if name == "d":
                pr = Problem(problem.theta, problem.R, problem.L, max(2, int(round(problem.d * f))), problem.beta,
                             problem.sigma2, problem.prior, problem.batch)
                v = pr.d
            else:
                L = max(2, int(round(problem.L * f)))
                R = max(1, int(round(problem.R * L / problem.L)))
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
        out.append(Scaling(name, vals, meds, slope))
    return tuple(out)
