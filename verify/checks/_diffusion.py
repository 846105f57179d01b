"""Checks of the diffusion approximation: ``sga.fluctuations``, ``sga.hitting_time``, ``sga.splitting``.

This module holds their shared protocol (constants, routes, schedule design, predictions, exact runs);
the checks are in :mod:`._diffusion_band` (band and first passage) and :mod:`._splitting`.

Each compares a prediction of the diffusion of docs/design.md section 1.1
(``d rho = F_eta dt + sqrt(eta Sigma) dW``, ``Sigma = Var(X | rho)``) with the exact reduced
chain (section 2) on the case's finite instance.

* ``sga.fluctuations`` (from ``rho0 = 0.1``, the reproduction's schedule
  ``eta_k = 45/(k + 250)``, slowed down by :func:`schedule_for` where the passage would take fewer
  than ``MIN_STEPS`` steps): at ``CHECKPOINTS`` steps spread over the predicted passage
  time, the predicted 10/50/90% quantiles of ``rho_k``. Per run, the fraction of checkpoints
  at which ``rho_k`` lies inside the predicted 10–90% band (expected 0.8) and below the
  predicted median (expected 0.5); averaged over runs, each must be within ``Z`` standard
  errors (per-run averages, so the correlation along a run is accounted for, plus the
  prediction's own Monte Carlo error). A variance too large or too small moves the coverage
  away from 0.8.
* ``sga.hitting_time`` (same runs): the predicted median first step with
  ``|rho| >= 0.99`` within 10% of the simulated median plus 3 of that median's standard errors
  (order statistics of the runs: with 100 runs of a broad passage law the chain's own median
  moves by more than 10%), and the two first-passage laws not
  rejected by a two-sample Kolmogorov–Smirnov test at level 0.01 (censored runs at the
  horizon on both sides).
* ``sga.splitting`` (bistable models only): from ``rho0 = rho* + w`` with
  ``w = sqrt(eta Sigma(rho*) / (2 F'(rho*)))`` at a constant step ``eta = min(0.1, 0.1 / F'(rho*))``
  (so that one step's growth ``1 + eta F'`` matches the diffusion's ``exp(eta F')``), the fraction of
  runs reaching ``b`` before ``a`` against the scale-function probability
  (:func:`numerics.splitting_probability`), within the 99% binomial (Wilson) interval. A run
  stops at its first exit from ``(a, b)`` (``simulate(options=SimulationOptions(stop_outside=(a, b)))``), up to
  ``8 / (F'(rho*) eta)`` steps.

**Stopping once decided** (``CheckContext.sequential``, the default; expansion route): the runs of
``sga.fluctuations`` and ``sga.hitting_time`` (shared) and of ``sga.splitting`` are simulated in the
looks of :mod:`._sequential` (50%, 75%, 100% of the preset's count), and a look that decides every
statistic stops them (:func:`_band_and_passage`, :func:`_splitting_rule`). The first look's runs are
the fixed design's first runs; the KS test joins an early pass only through its own rule at the look.
The measured route keeps the fixed count (its law's error would have to be re-estimated at every look).

``variance_scale`` (keyword of :func:`fluctuations`, :func:`hitting_time`,
:func:`splitting`) multiplies ``Sigma`` in the prediction; 1 is the derived value, and the
tests show that 2 fails (the expansion route only).

Routes (``CheckContext.method``, ``sigrec verify --method``). The predictions above read the
``O(eta)`` expansion's drift and ``Sigma`` (route ``expansion``), accurate inside
:func:`theory.validity`. Route ``measured`` reads the exact chain's one-step law instead
(:func:`numerics.route_tables`): the band and the first passages come from paths that step by the
exact step's own draws (:class:`numerics.MeasuredLaw`, measured once over the reproduction
schedule's steps; the paths of any slower schedule step exactly by the same draws), and the
splitting fraction from such paths started where the chain starts, exiting the same ``(a, b)``.
Each measured prediction carries the law's Monte Carlo error (the spread over bootstrap
replicates of the law on the same normals), added to the comparison's error; the geometry of the
protocol (schedule design, ``rho*``, ``w``, ``a``, ``b``) is the expansion's either way. ``auto``
(the default) takes the expansion inside its validity and the measured law outside, so these
checks run on every case instead of being left out there.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ...numerics import (
    MeasuredLaw,
    Problem,
    Schedule,
    SimulationOptions,
    censored_quantile,
    diffusion_tables,
    route_tables,
    simulate,
    simulate_diffusion,
)
from ...theory import validity
from ._context import CheckContext, validity_walk
from ._preset import Preset
from ._record import CheckRecord
from ._sequential import Stopping, block_seed, look_counts, stats_table

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


#: the reproduction's schedule (verify/studies/_reproduce.py PROTOCOL)
SCHEDULE = Schedule(eta0=45.0, k0=250.0, power=1.0)
RHO0 = 0.1
TARGET = 0.99
CHECKPOINTS = 6
Z = 3.0
HIT_TOL = 0.10
KS_LEVEL = 0.01
SPLIT_ETA = 0.1
PRED_RUNS = 4000
#: fewest predicted median steps to the target for the comparison to test the diffusion limit
MIN_STEPS = 200
#: the steps of :data:`SCHEDULE` over which the measured law is measured (its largest and smallest)
LAW_STEPS = 20 * MIN_STEPS
#: bootstrap replicates of the measured law behind a measured prediction's law error
LAW_REPLICATES = 8
#: the measured law's default drift error in these checks (``numerics.measured_law``'s ``drift_se``,
#: absolute; its work stays bounded by ``max_work``, the law then ``limited``), below the library's
#: default: the two-sample KS test of ``sga.hitting_time`` does not carry the law's error
DRIFT_SE = 0.005


@dataclass(frozen=True)
class Route:
    """Which law a diffusion check predicts from (module docstring), and why.

    Attributes
    ----------
    name : {"expansion", "measured"}
    reason : str
    seed : int
        Of the measured law's Monte Carlo.
    drift_se : float or None
        The measured law's requested drift error.
    """

    name: str
    reason: str = field(default="", compare=False)
    seed: int = 0
    drift_se: float | None = None

    @property
    def measured(self) -> bool:
        return self.name == "measured"


#: the expansion's route (one value, so that the caches keyed by the route are shared with the
#: validity gate's schedule design)
EXPANSION = Route("expansion")


def route_for(case: Case, ctx: CheckContext, expansion) -> Route:
    """The :class:`Route` of a check whose prediction uses the instances and largest steps that
    ``expansion(case, ctx, steps)`` gives (:func:`diffusion_expansion`, :func:`splitting_expansion`):
    what ``ctx.method`` asks, ``auto`` deciding by :func:`theory.validity` at each of them (the
    instances alone first, so that a case outside costs no schedule design)."""
    seed, se = ctx.seed_for(case.name, "diffusion.law"), DRIFT_SE if ctx.drift_se is None else ctx.drift_se
    if ctx.method != "auto":
        return Route(ctx.method, "asked for (method)", seed, se) if ctx.method == "measured" else EXPANSION
    v, _ = validity_walk(expansion, case, ctx)
    if not v.inside:
        return Route("measured", f"auto: the expansion is {v.message}", seed, se)
    return Route("expansion", f"auto: the expansion is {v.message}")


@lru_cache(maxsize=8)
def _law(problem: Problem, seed: int, drift_se: float | None) -> MeasuredLaw:
    """The exact chain's one-step law over :data:`SCHEDULE`'s first :data:`LAW_STEPS` steps."""
    law = route_tables(problem, SCHEDULE, LAW_STEPS, method="measured", seed=seed, drift_se=drift_se).law
    assert law is not None  # the measured route carries its law
    return law


def _tables(problem: Problem, route: Route, variance_scale: float = 1.0):
    """The diffusion tables of ``route`` (``variance_scale`` scales the expansion's ``Sigma``)."""
    if route.measured:
        return _law(problem, route.seed, route.drift_se).tables()
    return diffusion_tables(problem, variance_scale=variance_scale)


@lru_cache(maxsize=16)
def schedule_for(problem: Problem, seed: int, route: Route = EXPANSION) -> Schedule:
    """The reproduction's schedule, slowed down (``eta0`` scaled, ``k0`` and ``power`` kept) until the
    predicted median first passage (by ``route``'s law) takes at least ``MIN_STEPS`` steps.

    The diffusion is a small-step limit: a passage in a handful of steps (the bistable ``theta = 2``
    model reaches 0.99 in about 10 steps of ``45/(k + 250)``) tests the discreteness, not the noise.
    """
    sched = SCHEDULE
    tab = _tables(problem, route)
    for _ in range(4):
        run = simulate_diffusion(tab, sched.eta(np.arange(20 * MIN_STEPS)), np.full(500, RHO0), level=TARGET,
                                 seed=seed, stop_fraction=0.6)
        med = censored_quantile(run.first_passage[0], 0.5)
        if not math.isfinite(med) or med >= MIN_STEPS:
            break
        sched = Schedule(eta0=sched.eta0 * max(med, 1.0) / (1.5 * MIN_STEPS), k0=sched.k0, power=sched.power)
    return sched


def _prediction_seed(case: Case, ctx: CheckContext) -> int:
    return ctx.seed_for(case.name, "diffusion.prediction")


def diffusion_expansion(case: Case, ctx: CheckContext, steps: bool = True) -> tuple:
    """``((d, L, eta_max),)`` of ``sga.fluctuations`` and ``sga.hitting_time``: the case's instance
    and the first (largest) step of the schedule they run (0 without ``steps``).

    :func:`schedule_for` only slows :data:`SCHEDULE` down, so where ``SCHEDULE``'s first step is
    inside :func:`theory.validity` that step stands for it and no schedule is designed; otherwise
    the designed schedule's first step decides (cached, the checks reuse it).
    """
    if not steps:
        return ((case.d, case.L, 0.0),)
    eta = float(SCHEDULE.eta(0))
    if not validity(case.model, case.d, case.L, eta).inside:
        eta = float(schedule_for(case.problem, _prediction_seed(case, ctx)).eta(0))
    return ((case.d, case.L, eta),)


def splitting_expansion(case: Case, ctx: CheckContext, steps: bool = True) -> tuple:
    """``((d, L, SPLIT_ETA),)``: ``sga.splitting`` runs the case's instance at the constant step ``SPLIT_ETA``."""
    return ((case.d, case.L, SPLIT_ETA if steps else 0.0),)


@dataclass(frozen=True)
class Budget:
    """Runs of the exact chain and the step cap."""

    runs: int
    max_steps: int
    split_runs: int


def budget(preset: Preset) -> Budget:
    """The diffusion checks' :class:`Budget` under ``preset``."""
    return Budget(preset.diffusion_runs, preset.diffusion_max_steps, preset.diffusion_split_runs)


@lru_cache(maxsize=8)
def _prediction(problem: Problem, schedule: Schedule, rho0: float, horizon: int, seed: int, variance_scale: float,
                route: Route = EXPANSION):
    """Diffusion paths and first passages from ``rho0`` (cached: the horizon's pilot, and both
    ``sga.fluctuations`` and ``sga.hitting_time``, ask for the same ``PRED_RUNS`` paths; the
    arrays are read-only)."""
    tab = _tables(problem, route, variance_scale)
    run = simulate_diffusion(tab, schedule.eta(np.arange(horizon)), np.full(PRED_RUNS, rho0), level=TARGET, stride=1,
                             seed=seed)
    rho, hits = run.rho[0], run.first_passage[0]
    rho.flags.writeable = hits.flags.writeable = False
    return rho, hits


@lru_cache(maxsize=4)
def _exact(problem: Problem, schedule: Schedule, rho0: float, horizon: int, runs: int, seed: int,
           stop: tuple | None = None):
    """The exact chain's recorded paths; ``stop = (a, b)``: each run stops where it first leaves
    ``(a, b)`` (``SimulationOptions(stop_outside=...)``: its path up to there, so its exit, is the same)."""
    sim = simulate(problem, schedule, steps=horizon, runs=runs, rho0=rho0, seed=seed, stride=1,
                   options=SimulationOptions(workers=2, stop_outside=stop))
    return sim.rho


def _sequential_exact(problem: Problem, schedule: Schedule, rho0: float, horizon: int, runs: int, seed: int,
                      decide, stop: tuple | None = None) -> tuple[np.ndarray, Stopping]:
    """The exact chain's paths in the looks of :mod:`._sequential`: ``decide(paths, total)`` gives
    the interim verdict (``"pass"``, ``"fail"`` or ``None``) and the statistics it read. The first
    look's runs are the fixed design's first runs (children ``0..n-1`` of ``SeedSequence(seed)``);
    each later block draws from its own seed (:func:`._sequential.block_seed`)."""
    counts = look_counts(runs)
    parts: list[np.ndarray] = []
    done = 0
    for j, n in enumerate(counts):
        parts.append(_exact(problem, schedule, rho0, horizon, n - done, block_seed(seed, j), stop))
        done = n
        if n == runs:
            break
        paths = np.concatenate(parts)
        verdict, stats = decide(paths, runs)
        if verdict is not None:
            return paths, Stopping(n, runs, counts, verdict, stats_table(stats, n, runs))
    return np.concatenate(parts), Stopping(runs, runs, counts, None)


def _horizon(problem, schedule, rho0, cap, seed, variance_scale, route: Route = EXPANSION):
    """Predicted 90% passage step (from a short diffusion pilot) x 1.3, or ``None`` beyond ``cap``."""
    _, hits = _prediction(problem, schedule, rho0, cap, seed, variance_scale, route)
    q90 = censored_quantile(hits, 0.9)
    if not math.isfinite(q90):
        return None
    return min(cap, math.ceil(1.3 * q90))


def _record(check_id, status, value, threshold, message, details, case, t0):
    return CheckRecord(check_id, "consistency", status, value, threshold, False, message, details,
                       case.model.as_dict(), time.perf_counter() - t0)


def _inconclusive(check_id, case, cap, t0, what):
    return _record(check_id, "inconclusive", None, None,
                   f"the predicted 90% first passage to |rho| >= {TARGET} lies beyond {cap} steps; {what} needs a "
                   f"longer run (sigrec complexity gives the steps)", {"max_steps": cap}, case, t0)


def _stops_early(ctx: CheckContext, route: Route) -> bool:
    """Whether a counted diffusion check runs in looks (:mod:`._sequential`): when the context asks for
    it, on the expansion route (the measured route's law error would have to be re-estimated at every look)."""
    return ctx.sequential and not route.measured


def _stopped(stopping: Stopping | None) -> str:
    """What a message says of a sequential run that stopped early (nothing for the fixed design's count)."""
    return "" if stopping is None or stopping.verdict is None else f"; {stopping.describe()}"


def _route_prefix(route: Route) -> str:
    """What a message says of the route: nothing for the expansion."""
    return "measured one-step law: " if route.measured else ""


def _route_details(route: Route, law: MeasuredLaw | None = None) -> dict:
    """The route, its reason and (measured route) the law behind the prediction."""
    out: dict[str, Any] = {"route": route.name}
    if route.reason:
        out["route_reason"] = route.reason
    if law is not None:
        out["law"] = law.summary()
    return out


def _censored(hits: np.ndarray, horizon: int) -> np.ndarray:
    """First passages with the runs that never pass (or pass beyond ``horizon``) at ``horizon + 1``."""
    return np.where((hits < 0) | (hits > horizon), horizon + 1, hits)
