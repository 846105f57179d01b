"""Search of the schedule ``(eta0, k0, power)`` minimising the 90% first-passage step.

The objective is the ``q90`` step of :func:`numerics.complexity`, subject to the plateau at
that step lying above the target and the first step to the stated validity of the diffusion
(:func:`step_limit`). It is estimated on :class:`CommonPaths`: every candidate
runs from the same starts on the same normals (common random numbers), so the objective is
a deterministic function of the schedule and differences between candidates are not Monte
Carlo noise. The search evaluates the given schedule (``start``) and a coarse grid, then
refines the best few points with Nelder–Mead (:func:`scipy.optimize.minimize`, derivative
free: the ``q90`` step is piecewise constant in the parameters) over
``(log eta0, log k0, power)`` with ``power`` in ``[0, 1]``. The winner and the start are
then compared on fresh common paths; the start is returned unless the winner is better
there, so the result is never worse than the start on the paths it is reported on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from ...core.validate import instance, integer, real
from ...theory import validity
from .._schedule import Schedule
from .._simulate._driver import Problem
from .._simulate._start import start_law
from ._complexity import Complexity, check_instance, complexity
from ._passage import censored_quantile
from ._paths import simulate_diffusion
from ._tables import DiffusionTables, diffusion_tables, plateau_at

#: the coarse grid: decay exponents, offsets and first step sizes ``eta0 / k0^power``
POWERS = (0.0, 0.75, 1.0)
OFFSETS = (30.0, 100.0, 300.0, 1000.0)
FIRST_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0)
#: box of the continuous search (widened to contain the start): ``eta0``, ``k0``; ``power`` in [0, 1]
ETA0_BOX = (1e-8, 1e8)
K0_BOX = (1e-2, 1e6)


@dataclass(frozen=True)
class CommonPaths:
    """Fixed starts and one fixed noise stream shared by every candidate schedule.

    Attributes
    ----------
    tables : DiffusionTables
    target : float
    step_limit : float
        Largest first step a feasible candidate may take (see :func:`step_limit`).
    starts : ndarray, shape (runs,)
    noise : numpy.random.SeedSequence
        Each evaluation draws its normals from a fresh ``default_rng(noise)``, so step ``k``
        of every schedule sees the same normals.
    """

    tables: DiffusionTables
    target: float
    step_limit: float
    starts: np.ndarray = field(repr=False)
    noise: np.random.SeedSequence = field(repr=False)

    @classmethod
    def draw(cls, tables: DiffusionTables, rho0, target: float, step_limit: float, runs: int,
             seed: np.random.SeedSequence):
        """Starts (fixed ``rho0`` or uniform on the sphere) and the noise stream, both from ``seed``."""
        starts, noise = seed.spawn(2)
        r0 = start_law(tables.problem.d).starts(np.random.default_rng(starts), runs, rho0)
        return cls(tables, float(target), float(step_limit), r0, noise)

    def evaluate(self, schedule: Schedule, steps: int) -> dict:
        """The table row of ``schedule``: ``q90`` step (``None`` beyond ``steps``), reached fraction,
        plateau at the ``q90`` step, and whether it is feasible (a ``q90`` step, the plateau above
        the target, the first step at most :attr:`step_limit`)."""
        run = simulate_diffusion(self.tables, schedule.eta(np.arange(steps)), self.starts, level=self.target,
                                 seed=np.random.default_rng(self.noise), stop_fraction=0.9)
        hits = run.first_passage[0]
        q90 = censored_quantile(hits, 0.9)
        plat = plateau_at(self.tables, float(schedule.eta(np.array(q90 if math.isfinite(q90) else steps))))
        first = float(schedule.eta(np.array(0)))
        return {"eta0": schedule.eta0, "k0": schedule.k0, "power": schedule.power, "first_step": first,
                "q90_steps": q90 if math.isfinite(q90) else None, "reached_fraction": float((hits >= 0).mean()),
                "plateau": plat, "feasible": bool(math.isfinite(q90) and plat > self.target
                                                  and first <= self.step_limit)}


def step_limit(problem: Problem, start: Schedule) -> float:
    """Largest first step of a feasible candidate: where the step parameter of :func:`theory.validity`
    (``eta^2 max E|P g|^2``) reaches its limit, or the start's first step if larger.

    Without it the search exploits the diffusion where it no longer approximates the chain:
    a first step of 0.86 at theta 0.8, R 200, L 3200, d 20, beta 1.5 (step parameter ~9 against 0.25)
    throws 10% of the paths to ``|rho| = 1`` in one step.
    """
    v = validity(problem.model, problem.d, problem.L, 1.0, problem.batch)
    limit = math.sqrt(v.as_dict()["limits"]["step"] / v.step) if v.step > 0 else math.inf
    return max(limit, float(start.eta(np.array(0))))


@dataclass(frozen=True)
class ScheduleSearch:
    """Search of ``(eta0, k0, power)`` minimising the 90% first-passage step (module docstring).

    Attributes
    ----------
    best : Complexity
        What is returned: the winner if it beat the start on the final paths, else the start.
    start, winner : Complexity
        The start and the search's winner, evaluated on the same fresh paths (``final_runs``,
        ``seed``): common random numbers, the same paths :func:`complexity` draws for ``seed``.
    improved : bool
        Whether ``best`` is the winner (feasible, and a smaller ``q90`` than the start's, or
        the start infeasible there).
    candidates : int
        Candidate evaluations on the search paths (the start, the grid, Nelder–Mead).
    feasible : int
        Candidates whose plateau at their ``q90`` step lies above the target.
    method : str
    step_limit : float
        Largest first step of a feasible candidate (:func:`step_limit`).
    runs, final_runs : int
        Paths of the search and of the final comparison.
    refinements : list of dict
        One per Nelder–Mead run: ``from``, ``to`` (schedules), ``q90_steps``, ``evaluations``,
        ``converged``.
    table : list of dict
        ``eta0, k0, power, first_step, q90_steps, reached_fraction, plateau, feasible, stage``
        per candidate, in evaluation order (``stage``: ``start``, ``grid``, ``nelder-mead``).
    status : {"ok", "refused"}
        ``"refused"`` when no candidate (the start included) is feasible on the search paths:
        then ``best`` and ``winner`` are the start, and ``reason`` says why. Whether ``best``
        itself has numbers is ``best.status``.
    reason : str
        Empty when ``status`` is ``"ok"``.
    """

    best: Complexity
    start: Complexity
    winner: Complexity
    improved: bool
    candidates: int
    feasible: int
    method: str
    step_limit: float
    runs: int
    final_runs: int
    refinements: list
    table: list
    status: str
    reason: str

    def as_dict(self) -> dict:
        """The search without ``best`` (reported beside it): counts, method, both ``q90`` steps, table."""
        return {"method": self.method, "candidates": self.candidates, "feasible": self.feasible,
                "improved": self.improved, "step_limit": self.step_limit,
                "start_q90_steps": self.start.as_dict()["q90_steps"],
                "winner_q90_steps": self.winner.as_dict()["q90_steps"], "winner": self.winner.as_dict(),
                "runs": self.runs, "final_runs": self.final_runs, "refinements": self.refinements,
                "table": self.table, "status": self.status, "reason": self.reason}


def _grid() -> list[Schedule]:
    """``POWERS x OFFSETS x FIRST_STEPS`` (constant steps: ``FIRST_STEPS`` only)."""
    return [Schedule(e1, 1.0, 0.0) if p == 0 else Schedule(e1 * k0**p, k0, p)
            for p in POWERS for k0 in (OFFSETS if p > 0 else (1.0,)) for e1 in FIRST_STEPS]


class _Objective:
    """Scores of schedules on common paths, each schedule evaluated once (the table rows).

    Score: the ``q90`` step if feasible; else above every feasible score, growing with the
    plateau's shortfall and the first step's excess over the limit (infeasible) or with the
    fraction not yet passed (beyond the step cap).
    The step cap is three times the best feasible ``q90`` so far (at most the horizon): a
    candidate beyond it cannot win.
    """

    def __init__(self, paths: CommonPaths, horizon: int, progress=None):
        self.paths, self.horizon, self.progress = paths, horizon, progress
        self.rows: list[dict] = []  # the table: one row per schedule, in the order scored
        self.scores: list[float] = []  # the score of each row
        self._seen: dict[tuple[float, ...], int] = {}  # a schedule's key -> its row
        self.best_q90 = math.inf

    def score(self, schedule: Schedule, stage: str) -> float:
        # to 12 digits: exp(log x) must find x again
        key = tuple(float(f"{v:.12g}") for v in (schedule.eta0, schedule.k0, schedule.power))
        if key in self._seen:
            return self.scores[self._seen[key]]
        cap = self.horizon if math.isinf(self.best_q90) else min(self.horizon, int(3 * self.best_q90) + 50)
        row = {**self.paths.evaluate(schedule, cap), "stage": stage}
        big = float(self.horizon + 1)
        if row["feasible"]:
            s = row["q90_steps"]
            self.best_q90 = min(self.best_q90, s)
        elif row["q90_steps"] is not None:
            excess = max(0.0, self.paths.target - row["plateau"]) + \
                max(0.0, math.log(row["first_step"] / self.paths.step_limit))
            s = big * (1.0 + min(1.0, excess))
        else:
            s = big * (3.0 - row["reached_fraction"])
        self._seen[key] = len(self.rows)
        self.rows.append(row)
        self.scores.append(s)
        if self.progress is not None:
            self.progress(stage, len(self.rows))
        return s

    def schedule(self, i: int) -> Schedule:
        r = self.rows[i]
        return Schedule(r["eta0"], r["k0"], r["power"])


def _refine(obj: _Objective, x0: np.ndarray, bounds, maxfev: int) -> dict:
    """One bounded Nelder–Mead run from ``x0 = (log eta0, log k0, power)``."""
    def schedule(x):
        return Schedule(math.exp(x[0]), math.exp(x[1]), min(1.0, max(0.0, float(x[2]))))

    n0 = len(obj.rows)
    x0 = np.clip(x0, [b[0] for b in bounds], [b[1] for b in bounds])
    simplex = np.array([x0, x0 + np.array([math.log(2.0), 0, 0]), x0 + np.array([0, math.log(3.0), 0]),
                        x0 + np.array([0, 0, 0.2 if x0[2] <= 0.8 else -0.2])])
    res = minimize(lambda x: obj.score(schedule(x), "nelder-mead"), x0, method="Nelder-Mead", bounds=bounds,
                   options={"maxfev": maxfev, "initial_simplex": simplex, "xatol": 0.01, "fatol": 0.5})
    return {"from": schedule(x0).as_dict(), "to": schedule(res.x).as_dict(),
            "q90_steps": float(res.fun) if res.fun <= obj.horizon else None,
            "evaluations": len(obj.rows) - n0, "converged": bool(res.success)}


def _better(a: Complexity, b: Complexity, target: float) -> bool:
    """``a`` feasible (plateau above ``target`` at a finite ``q90``), and ``b`` not or slower."""
    def ok(c):
        return math.isfinite(c.q90_steps) and c.plateau > target
    return ok(a) and (not ok(b) or a.q90_steps < b.q90_steps)


@dataclass(frozen=True)
class SearchBudget:
    """What :func:`optimize_schedule` may spend.

    Attributes
    ----------
    runs : int
        Paths of the search (common to all candidates, drawn from a child of ``seed``).
    final_runs : int
        Paths of the final comparison of winner and start: those of
        ``complexity(..., runs=final_runs, seed=seed)``.
    horizon : int
        Step cap.
    refine : int
        Nelder–Mead runs: from the start and from the ``refine - 1`` best grid points.
    maxfev : int
        Evaluations per Nelder–Mead run.
    """

    runs: int = 1000
    final_runs: int = 2000
    horizon: int = 50_000
    refine: int = 3
    maxfev: int = 40


def optimize_schedule(problem: Problem, rho0=None, target: float = 0.99, *, start: Schedule | None = None,
                      budget: SearchBudget | None = None, seed: int = 0, tables: DiffusionTables | None = None,
                      progress=None) -> ScheduleSearch:
    """Smallest ``q90`` step over ``(eta0, k0, power)`` with the plateau above ``target``.

    A candidate is feasible when 90% of its paths pass ``target`` within ``horizon``, its
    plateau at that step lies above ``target``, and its first step is at most
    :func:`step_limit`. All candidates run on the same :class:`CommonPaths`.

    Parameters
    ----------
    problem : Problem
    rho0 : float, optional
        Fixed start alignment, or ``None`` for uniform starts on the sphere.
    target : float
        Alignment level in ``(0, 1)``.
    start : Schedule, optional
        The given schedule (default ``Schedule()``): a candidate, a Nelder–Mead starting
        point, and what is returned unless the winner beats it on the final paths.
    budget : SearchBudget, optional
        Paths, step cap and Nelder–Mead evaluations (default ``SearchBudget()``).
    seed : int
    tables : DiffusionTables, optional
    progress : callable, optional
        ``progress(stage, done, total)`` after each candidate is scored (``stage``: ``"start"``,
        ``"grid"``, ``"nelder-mead"``, then ``"final"`` for the comparison on fresh paths); ``total``
        bounds what the search can score (Nelder-Mead may stop earlier).

    Returns
    -------
    ScheduleSearch
        ``refused`` if no candidate (start included) is feasible within ``horizon`` on the
        search paths; ``best.status`` says whether the reported schedule has numbers.

    Raises
    ------
    ValueError
        On bad input.
    """
    rho0 = check_instance(problem, rho0)
    start = Schedule() if start is None else instance("start", start, Schedule)
    b = SearchBudget() if budget is None else instance("budget", budget, SearchBudget)
    runs, final_runs, horizon, refine, maxfev = b.runs, b.final_runs, b.horizon, b.refine, b.maxfev
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    runs, final_runs = integer("runs", runs, 10), integer("final_runs", final_runs, 10)
    horizon, seed = integer("horizon", horizon, 1), integer("seed", seed, 0)
    refine, maxfev = integer("refine", refine, 1), integer("maxfev", maxfev, 4)
    tab = tables or diffusion_tables(problem)
    paths = CommonPaths.draw(tab, rho0, target, step_limit(problem, start), runs,
                             np.random.SeedSequence(seed).spawn(1)[0])
    grid = _grid()
    most = 1 + len(grid) + refine * maxfev + 2

    def tell(stage: str, done: int) -> None:
        if progress is not None:
            progress(stage, min(done, most - 2), most)

    obj = _Objective(paths, horizon, tell)
    obj.score(start, "start")
    for s in grid:
        obj.score(s, "grid")
    order = sorted(range(1, len(obj.rows)), key=obj.scores.__getitem__)
    points = [0, *[i for i in order if obj.rows[i]["feasible"]][:refine - 1]]
    bounds = [(math.log(min(ETA0_BOX[0], start.eta0)), math.log(max(ETA0_BOX[1], start.eta0))),
              (math.log(min(K0_BOX[0], start.k0)), math.log(max(K0_BOX[1], start.k0))), (0.0, 1.0)]
    refinements = []
    for i in points:
        s = obj.schedule(i)
        refinements.append(_refine(obj, np.array([math.log(s.eta0), math.log(s.k0), s.power]), bounds, maxfev))
    feasible = sum(r["feasible"] for r in obj.rows)
    reason = "" if feasible else (
        f"no schedule (the start, the grid or a refinement) reaches |rho| >= {target} within "
        f"{horizon} steps with its plateau above the target and its first step at most {paths.step_limit:.4g}")
    w = min(range(len(obj.rows)), key=obj.scores.__getitem__) if feasible else 0
    tell("final", most - 2)
    given = complexity(problem, start, rho0, target, runs=final_runs, horizon=horizon, seed=seed, route=tab)
    winner = given if w == 0 else complexity(problem, obj.schedule(w), rho0, target, runs=final_runs,
                                             horizon=horizon, seed=seed, route=tab)
    improved = w != 0 and _better(winner, given, target)
    method = (f"the start and a {len(grid)}-point grid over (first step, k0, power), then {len(points)} "
              f"Nelder-Mead runs (scipy.optimize.minimize) over (log eta0, log k0, power in [0, 1]), all on "
              f"common random numbers ({runs} paths); the winner and the start compared on fresh common paths "
              f"({final_runs}), the start kept unless the winner is better")
    return ScheduleSearch(winner if improved else given, given, winner, improved, len(obj.rows), feasible,
                          method, paths.step_limit, runs, final_runs, refinements, obj.rows,
                          "refused" if reason else "ok", reason)
