"""Grid search of the schedule ``(eta0, k0, power)`` minimising the 90% first-passage step."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...theory.validate import real
from .._schedule import Schedule
from .._simulate import Problem
from .._start import start_law
from ._complexity import Complexity, complexity
from ._passage import censored_quantile
from ._paths import simulate_diffusion
from ._tables import DiffusionTables, diffusion_tables, plateau_at


def _largest_feasible_step(tables: DiffusionTables, target: float) -> float:
    """The step size at which the plateau equals ``target`` (bisection; the plateau falls with ``eta``)."""
    lo, hi = 0.0, 1.0
    while plateau_at(tables, hi) > target and hi < 1e6:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if plateau_at(tables, mid) > target else (lo, mid)
    return lo


@dataclass(frozen=True)
class ScheduleSearch:
    """Grid search of ``(eta0, k0, power)`` minimising the 90% first-passage step.

    Attributes
    ----------
    best : Complexity
        The winner, re-evaluated on fresh paths.
    candidates : int
    feasible : int
        Candidates whose plateau at the ``q90`` step lies above the target.
    table : list of dict
        ``eta0, k0, power, first_step, q90_steps, plateau`` per candidate.
    """

    best: Complexity
    candidates: int
    feasible: int
    table: list


#: the search grid: decay exponents, offsets and first step sizes ``eta0 / k0^power``
POWERS = (0.0, 0.75, 1.0)
OFFSETS = (30.0, 100.0, 300.0, 1000.0)
FIRST_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0)


def optimize_schedule(problem: Problem, rho0=None, target: float = 0.99, *, runs: int = 300,
                      horizon: int = 50_000, seed=0, tables: DiffusionTables | None = None) -> ScheduleSearch:
    """Grid search over ``POWERS x OFFSETS x FIRST_STEPS`` (constant steps: ``FIRST_STEPS`` only).

    All candidates run side by side on the same normals (common random numbers), so the
    comparison is not blurred by independent noise. A candidate is feasible when its plateau
    (the stable zero of ``F_eta`` at the step size of its ``q90`` step) lies above ``target``;
    among feasible candidates the smallest ``q90`` wins and is re-evaluated with
    :func:`complexity` on fresh paths.
    """
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    tab = tables or diffusion_tables(problem)
    cands = []
    for p in POWERS:
        for k0 in (OFFSETS if p > 0 else (1.0,)):
            for e1 in FIRST_STEPS:
                cands.append(Schedule.constant(e1) if p == 0 else Schedule(e1 * k0**p, k0, p))
    etas = np.stack([c.eta(np.arange(horizon)) for c in cands])
    rng = np.random.default_rng(seed)
    r0 = start_law(problem.d).starts(rng, runs, rho0)
    eta_max = _largest_feasible_step(tab, target)

    def settled(k, hit):
        # a candidate with 90% passed at a step size below eta_max is feasible with q90 <= k;
        # a candidate that has not passed by then cannot beat it
        done = (hit >= 0).mean(axis=1) >= 0.9
        return bool(np.any(done & (etas[:, k - 1] < eta_max)))

    run = simulate_diffusion(tab, etas, r0, level=target, seed=rng, stop=settled)
    rows = []
    best, best_q = None, math.inf
    for i, c in enumerate(cands):
        q90 = censored_quantile(run.first_passage[i], 0.9)
        plat = plateau_at(tab, float(c.eta(np.array(q90 if math.isfinite(q90) else horizon))))
        ok = plat > target and math.isfinite(q90)
        rows.append({"eta0": c.eta0, "k0": c.k0, "power": c.power, "first_step": float(c.eta(np.array(0))),
                     "q90_steps": q90 if math.isfinite(q90) else None, "plateau": plat, "feasible": ok})
        if ok and q90 < best_q:
            best, best_q = c, q90
    if best is None:
        raise ValueError(f"no schedule of the grid reaches |rho| >= {target} within {horizon} steps with its "
                         f"plateau above the target")
    final = complexity(problem, best, rho0, target, runs=2000, horizon=horizon, seed=seed + 1, tables=tab)
    return ScheduleSearch(final, len(cands), sum(r["feasible"] for r in rows), rows)
