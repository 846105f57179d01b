"""Checks of the diffusion approximation: ``sga.fluctuations``, ``sga.hitting_time``, ``sga.splitting``.

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
  stops at its first exit from ``(a, b)`` (``simulate(stop_outside=(a, b))``), up to
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
from scipy.stats import ks_2samp, norm

from ...numerics import (
    SPLIT_GROWTH,
    MeasuredLaw,
    Problem,
    Schedule,
    SimulationOptions,
    censored_quantile,
    diffusion_tables,
    exits,
    first_hits,
    measured_law,
    predict_paths,
    route_tables,
    simulate,
    simulate_diffusion,
    splitting_probability,
)
from ...theory import validity
from ._common import order_se
from ._context import CheckContext, validity_walk
from ._preset import Preset
from ._record import CheckRecord
from ._sequential import Statistic, Stopping, block_seed, interim_verdict, look_counts, stats_table

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
#: absolute; its work stays bounded by ``max_work``, the law then ``limited``): the two-sample KS
#: test of ``sga.hitting_time`` does not carry the law's error, and at the library's default (0.02)
#: that error alone moved a median passage by 3.5% (theta 2, beta 1.6, R 100, L 2100: KS p 0.004
#: at 0.02, 0.68 at 0.005)
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
    ``(a, b)`` (``simulate(stop_outside=...)``: its path up to there, so its exit, is the same)."""
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


def _cap(ctx: CheckContext, budget_: Budget | None) -> int:
    return (budget_ or budget(ctx.preset)).max_steps


def _runs(case: Case, ctx: CheckContext, variance_scale: float, budget_: Budget | None, schedule: Schedule | None):
    """What ``sga.fluctuations`` and ``sga.hitting_time`` compare, from the same fixed start:
    ``(route, schedule, horizon, predicted paths, predicted passages, exact paths)``, or ``None``
    when the predicted 90% first passage lies beyond the budget's step cap."""
    b, route, schedule, horizon = _band_design(case, ctx, budget_, schedule)
    if horizon is None:
        return None
    p, pseed = case.problem, _prediction_seed(case, ctx)
    pred, hits_pred = _prediction(p, schedule, RHO0, b.max_steps, pseed, float(variance_scale), route)
    seed = ctx.seed_for(case.name, "diffusion.exact", horizon)
    if not _stops_early(ctx, route):
        return route, schedule, horizon, pred, hits_pred, _exact(p, schedule, RHO0, horizon, b.runs, seed), None
    sim, stopping = _sequential_exact(p, schedule, RHO0, horizon, b.runs, seed, _band_and_passage(pred, hits_pred,
                                                                                                   horizon))
    return route, schedule, horizon, pred, hits_pred, sim, stopping


def _band_design(case: Case, ctx: CheckContext, budget_: Budget | None = None, schedule: Schedule | None = None):
    """``(budget, route, schedule, horizon)`` of the runs ``sga.fluctuations`` and ``sga.hitting_time``
    share (``horizon`` ``None`` beyond the budget's step cap); cached underneath, so the run's plan
    and the checks read one design."""
    b = budget_ or budget(ctx.preset)
    p, pseed = case.problem, _prediction_seed(case, ctx)
    route = route_for(case, ctx, diffusion_expansion)
    schedule = schedule or schedule_for(p, pseed, route)
    return b, route, schedule, _horizon(p, schedule, RHO0, b.max_steps, pseed, 1.0, route)


def _stops_early(ctx: CheckContext, route: Route) -> bool:
    """Whether a counted diffusion check runs in looks (:mod:`._sequential`): when the context asks for
    it, on the expansion route (the measured route's law error would have to be re-estimated at every look)."""
    return ctx.sequential and not route.measured


def _band_se(inside: np.ndarray, below: np.ndarray) -> tuple[float, float]:
    """Standard errors of the mean coverage and below-median fractions of the per-run fractions
    ``inside`` and ``below``, each with the prediction's own binomial error over :data:`PRED_RUNS`
    paths (:data:`_BAND_FLOORS`)."""
    n = inside.size
    return (math.hypot(inside.std(ddof=1) / math.sqrt(n), _BAND_FLOORS[0]),
            math.hypot(below.std(ddof=1) / math.sqrt(n), _BAND_FLOORS[1]))


#: the prediction's own Monte Carlo error on a coverage (p = 0.8) and a below-median (p = 0.5) fraction
_BAND_FLOORS = (math.sqrt(0.16 / PRED_RUNS), math.sqrt(0.25 / PRED_RUNS))


def _checkpoints(horizon: int) -> np.ndarray:
    """The steps at which ``sga.fluctuations`` compares the band: :data:`CHECKPOINTS` spread to ``horizon``."""
    return np.unique(np.linspace(0, horizon, CHECKPOINTS + 1)[1:].astype(int))


def _band_and_passage(pred: np.ndarray, hits_pred: np.ndarray, horizon: int):
    """The interim rule of the runs ``sga.fluctuations`` and ``sga.hitting_time`` share (expansion
    route): their three interval statistics (coverage, below-median, median passage;
    :class:`._sequential.Statistic`), and an early pass also needs the KS test's own rule at the look."""
    ks = _checkpoints(horizon)
    f_cov, f_med = _BAND_FLOORS
    hp = _censored(hits_pred, horizon)

    def decide(paths: np.ndarray, total: int):
        n = paths.shape[0]
        inside, below, _ = _coverage(pred, paths[:, ks], ks)
        hs = _censored(first_hits(paths, TARGET), horizon)
        m_sim = float(np.median(hs))
        if m_sim > horizon:  # the median passage is not yet measured: go on
            return None, ()
        se_cov, se_med = _band_se(inside, below)
        stats = (Statistic("coverage", float(inside.mean()) - 0.8, se_cov, Z, floor=f_cov),
                 Statistic("below_median", float(below.mean()) - 0.5, se_med, Z, floor=f_med),
                 Statistic("median_passage", abs(float(np.median(hp)) - m_sim) / m_sim, order_se(hs, 0.5) / m_sim,
                           3.0, allowance=HIT_TOL))
        verdict = interim_verdict(stats, n, total, len(look_counts(total)) - 1)
        if verdict == "pass" and float(ks_2samp(hp, hs).pvalue) < KS_LEVEL:
            verdict = None
        return verdict, stats

    return decide


def _law_spread(problem: Problem, route: Route, schedule: Schedule, horizon: int, seed: int, stats) -> np.ndarray:
    """The measured law's Monte Carlo error on each of ``stats(paths)`` (paths of :data:`PRED_RUNS` runs
    from :data:`RHO0` to ``horizon``): the spread over :data:`LAW_REPLICATES` bootstrap replicates of
    the law on the same normals (:func:`numerics.predict_paths`), one set of replicate paths for all."""
    def read(x):
        values = stats(x)
        return values, [0.0] * len(values)

    pr = predict_paths(_law(problem, route.seed, route.drift_se), schedule.eta(np.arange(horizon)), RHO0, PRED_RUNS,
                       seed, read, replicates=LAW_REPLICATES)
    return pr.law_se


def _coverage(pred: np.ndarray, x: np.ndarray, ks: np.ndarray):
    """Per run of ``x`` (exact paths at the checkpoints ``ks``): the fraction of checkpoints inside
    the 10-90% band of ``pred`` and below its median; and the predicted quantiles."""
    q = np.quantile(pred[:, ks], [0.1, 0.5, 0.9], axis=0)
    return ((x >= q[0]) & (x <= q[2])).mean(axis=1), (x <= q[1]).mean(axis=1), q


def fluctuations(case: Case, ctx: CheckContext, *, variance_scale: float = 1.0, budget_: Budget | None = None,
                 schedule: Schedule | None = None) -> list[CheckRecord]:
    """``sga.fluctuations``: predicted 10–90% band vs the exact chain (module docstring)."""
    t0 = time.perf_counter()
    runs = _runs(case, ctx, variance_scale, budget_, schedule)
    if runs is None:
        return [_inconclusive("sga.fluctuations", case, _cap(ctx, budget_), t0, "the band comparison")]
    route, schedule, horizon, pred, _, sim, stopping = runs
    ks = _checkpoints(horizon)
    x = sim[:, ks]
    inside, below, q = _coverage(pred, x, ks)
    n = x.shape[0]
    # prediction's own Monte Carlo error on a coverage fraction: binomial with PRED_RUNS paths, and on
    # the measured route the law's own error (the coverage's spread over replicates of the law)
    cov, med = float(inside.mean()), float(below.mean())
    law_cov = law_med = 0.0
    if route.measured:
        pseed = _prediction_seed(case, ctx)
        law_cov, law_med = (float(v) for v in _law_spread(
            case.problem, route, schedule, horizon, pseed,
            lambda paths: [float(c.mean()) for c in _coverage(paths, x, ks)[:2]]))
    se_cov, se_med = _band_se(inside, below)
    if route.measured:
        se_cov, se_med = math.hypot(se_cov, law_cov), math.hypot(se_med, law_med)
    z_cov, z_med = (cov - 0.8) / max(se_cov, 1e-12), (med - 0.5) / max(se_med, 1e-12)
    ok = abs(z_cov) <= Z and abs(z_med) <= Z
    sim_q = np.quantile(x, [0.1, 0.5, 0.9], axis=0)
    details = {
        "schedule": schedule.as_dict(), "rho0": RHO0, "runs": n, "prediction_runs": PRED_RUNS, "horizon": horizon,
        "checkpoints": ks.tolist(), "predicted_q10": q[0].tolist(), "predicted_q50": q[1].tolist(),
        "predicted_q90": q[2].tolist(), "simulated_q10": sim_q[0].tolist(), "simulated_q50": sim_q[1].tolist(),
        "simulated_q90": sim_q[2].tolist(), "coverage": cov, "coverage_se": se_cov, "below_median": med,
        "below_median_se": se_med, "z": Z, "variance_scale": variance_scale,
        "method": "diffusion on the step grid (Euler-Maruyama, dt = eta_k) vs exact reduced chain",
        **_route_details(route, _sample_law(case, route)),
    }
    if route.measured:
        details.update(method="paths of the measured one-step law (exact steps by its draws) vs exact reduced chain",
                       coverage_law_se=law_cov, below_median_law_se=law_med)
    if stopping is not None:
        details["sequential"] = stopping.as_dict()
    msg = (f"{_route_prefix(route)}{n} runs, {ks.size} checkpoints to step {horizon}: inside predicted 10-90% band "
           f"{cov:.3f} (expected 0.8, z = {z_cov:+.2f}), below predicted median {med:.3f} (expected 0.5, "
           f"z = {z_med:+.2f})" + _stopped(stopping))
    return [_record("sga.fluctuations", "pass" if ok else "fail", max(abs(z_cov), abs(z_med)), Z, msg, details,
                    case, t0)]


def _stopped(stopping: Stopping | None) -> str:
    """What a message says of a sequential run that stopped early (nothing for the fixed design's count)."""
    return "" if stopping is None or stopping.verdict is None else f"; {stopping.describe()}"


def _route_prefix(route: Route) -> str:
    """What a message says of the route: nothing for the expansion (the checks' historical wording)."""
    return "measured one-step law: " if route.measured else ""


def _route_details(route: Route, law: MeasuredLaw | None = None) -> dict:
    """The route, its reason and (measured route) the law behind the prediction."""
    out: dict[str, Any] = {"route": route.name}
    if route.reason:
        out["route_reason"] = route.reason
    if law is not None:
        out["law"] = law.summary()
    return out


def _sample_law(case: Case, route: Route) -> MeasuredLaw | None:
    """The law behind the band and passage predictions of the measured route (``None`` else)."""
    return _law(case.problem, route.seed, route.drift_se) if route.measured else None


def _censored(hits: np.ndarray, horizon: int) -> np.ndarray:
    """First passages with the runs that never pass (or pass beyond ``horizon``) at ``horizon + 1``."""
    return np.where((hits < 0) | (hits > horizon), horizon + 1, hits)


def hitting_time(case: Case, ctx: CheckContext, *, variance_scale: float = 1.0, budget_: Budget | None = None,
                 schedule: Schedule | None = None) -> list[CheckRecord]:
    """``sga.hitting_time``: predicted vs simulated median first passage (module docstring)."""
    t0 = time.perf_counter()
    runs = _runs(case, ctx, variance_scale, budget_, schedule)
    if runs is None:
        return [_inconclusive("sga.hitting_time", case, _cap(ctx, budget_), t0, "the first-passage comparison")]
    route, schedule, horizon, _, hits_pred, sim, stopping = runs
    hits = first_hits(sim, TARGET)
    hp = _censored(hits_pred, horizon)
    hs = _censored(hits, horizon)
    m_pred, m_sim = float(np.median(hp)), float(np.median(hs))
    if m_sim > horizon:
        return [_inconclusive("sga.hitting_time", case, horizon, t0, "the simulated median")]
    rel = abs(m_pred - m_sim) / m_sim
    # the measured law's own error on the predicted median widens the tolerance by 3 of its SE
    law_se = 0.0
    if route.measured:
        law_se = float(_law_spread(case.problem, route, schedule, horizon, _prediction_seed(case, ctx),
                                   lambda paths: [float(np.median(_censored(first_hits(paths, TARGET), horizon)))])[0])
    # the chain's own median is a statistic of its runs: its order-statistic SE joins the law's
    sim_se = order_se(hs, 0.5)
    tol = HIT_TOL + 3.0 * math.hypot(law_se, sim_se) / m_sim
    pval = float(ks_2samp(hp, hs).pvalue)
    # order-statistic 95% interval of the simulated median
    n = hs.size
    lo_i, hi_i = (int(np.clip(np.floor(n / 2 + s * 1.96 * math.sqrt(n) / 2), 0, n - 1)) for s in (-1, 1))
    srt = np.sort(hs)
    ok = rel <= tol and pval >= KS_LEVEL
    details = {
        "schedule": schedule.as_dict(), "rho0": RHO0, "target": TARGET, "runs": n, "horizon": horizon,
        "predicted_median": m_pred, "simulated_median": m_sim, "simulated_median_interval95": [int(srt[lo_i]),
                                                                                             int(srt[hi_i])],
        "predicted_q10": float(np.quantile(hp, 0.1)), "predicted_q90": float(np.quantile(hp, 0.9)),
        "simulated_q10": float(np.quantile(hs, 0.1)), "simulated_q90": float(np.quantile(hs, 0.9)),
        "relative_difference": rel, "ks_pvalue": pval, "variance_scale": variance_scale,
        **_route_details(route, _sample_law(case, route)),
    }
    details["simulated_median_se"] = sim_se
    if route.measured:
        details["predicted_median_law_se"] = law_se
    if stopping is not None:
        details["sequential"] = stopping.as_dict()
    widened = (f" + 3 x hypot(law SE {law_se:.3g}, median SE {sim_se:.3g}) / median" if route.measured
               else f" + 3 x median SE {sim_se:.3g} / median")
    msg = (f"{_route_prefix(route)}median first step with |rho| >= {TARGET}: predicted {m_pred:.0f}, simulated "
           f"{m_sim:.0f} (95% [{srt[lo_i]}, {srt[hi_i]}], {n} runs), relative difference {rel:.3f} (<= {HIT_TOL}"
           f"{widened}); KS p = {pval:.3g} (>= {KS_LEVEL})" + _stopped(stopping))
    return [_record("sga.hitting_time", "pass" if ok else "fail", rel, tol, msg, details, case, t0)]


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return c - h, c + h


@lru_cache(maxsize=4)
def _split_law(problem: Problem, eta: float, seed: int, drift_se: float | None) -> MeasuredLaw:
    """The exact chain's one-step law at the splitting chain's constant step."""
    return measured_law(problem, eta, seed=seed, drift_se=drift_se)


def splitting(case: Case, ctx: CheckContext, *, variance_scale: float = 1.0, budget_: Budget | None = None,
              eta: float = SPLIT_ETA) -> list[CheckRecord]:
    """``sga.splitting``: simulated fraction reaching ``+xi`` vs the scale function, or on the measured
    route vs paths of the measured law (module docstring)."""
    t0 = time.perf_counter()
    b = budget_ or budget(ctx.preset)
    p = case.problem
    route = route_for(case, ctx, splitting_expansion)
    eta, ref, w, rho0, refusal = _splitting_setup(p, eta)
    if refusal:
        details = _route_details(route) if ref is None else {"noise_width": w}
        return [_record("sga.splitting", "inconclusive", None, None, refusal, details, case, t0)]
    sched = Schedule.constant(eta)
    pred = splitting_probability(p, sched, rho0, variance_scale=variance_scale)
    steps = _split_cap(ref.rate, eta)
    # a run is decided at its first exit from (a, b): it stops there (the first exit, all that is
    # compared, is the unstopped run's; the mean exit is about a quarter of the step cap)
    seed, ab = ctx.seed_for(case.name, "sga.splitting", steps), (pred.a, pred.b)
    zc = float(norm.isf(0.005))
    stopping = None
    if _stops_early(ctx, route):
        rho, stopping = _sequential_exact(p, sched, rho0, steps, b.split_runs, seed,
                                          _splitting_rule(pred.probability, ab, zc), ab)
    else:
        rho = _exact(p, sched, rho0, steps, b.split_runs, seed, ab)
    runs = rho.shape[0]
    n, k = exits(rho, pred.a, pred.b)
    if n < 0.95 * runs:
        return [_record("sga.splitting", "inconclusive", None, None,
                        f"{runs - n} of {runs} runs undecided after {steps} steps", {"steps": steps}, case, t0)]
    lo, hi = _wilson(k, n, zc)
    predicted, se_pred, extra = pred.probability, 0.0, _route_details(route)
    if route.measured:
        predicted, se_pred, extra = _measured_splitting(case, ctx, route, eta, steps, rho0, (pred.a, pred.b))
    ok = lo - zc * se_pred <= predicted <= hi + zc * se_pred
    details = {
        "eta": eta, "rho_star": ref.unstable, "rate": ref.rate, "noise_width": w, "rho0": rho0, "a": pred.a,
        "b": pred.b, "predicted_plus": predicted, "gaussian_plus": pred.gaussian, "runs": runs,
        "decided": n, "plus": k, "interval99": [lo, hi], "steps": steps, "variance_scale": variance_scale,
        **extra,
    }
    if stopping is not None:
        details["sequential"] = stopping.as_dict()
    what = (f"measured one-step law {predicted:.3f} +- {se_pred:.3f} (scale function {pred.probability:.3f})"
            if route.measured else f"scale function {pred.probability:.3f}")
    msg = (f"from rho0 = rho* + {w:.3g} = {rho0:.4f} at eta = {eta}: +xi first in {k}/{n} runs "
           f"(99% [{lo:.3f}, {hi:.3f}]), {what}; -xi fraction {1 - k / n:.3f} vs {1 - predicted:.3f}"
           + _stopped(stopping))
    return [_record("sga.splitting", "pass" if ok else "fail", k / n, predicted, msg, details, case, t0)]


def _splitting_setup(p: Problem, eta: float) -> tuple:
    """``(eta, reference, w, rho0, refusal)`` of ``sga.splitting`` on ``p`` at the asked step;
    ``refusal`` says why it is inconclusive (empty when it is not; ``reference`` is ``None`` when
    the model has no unstable equilibrium).

    The protocol (``rho*``, ``F'(rho*)``, ``eta``, ``w``, ``a``, ``b``) is the expansion's on either
    route, as in the validation study: the limit's ``rho*`` need not be an unstable zero of the
    measured drift (theta 2, beta 1.6, L 2,100: measured ``F'(rho*) < 0``), whose own zeros are not
    located here."""
    tab = diffusion_tables(p)
    try:
        ref = splitting_probability(p, Schedule.constant(eta), 0.0, tables=tab)
    except ValueError as exc:
        return eta, None, math.nan, math.nan, f"not applicable: {exc}"
    # the scale function is the small-step limit of the escape from rho*: keep eta F'(rho*) at most
    # numerics.SPLIT_GROWTH (one step's growth 1 + eta F' then matches the diffusion's exp(eta F'))
    if eta * ref.rate > SPLIT_GROWTH:
        eta = SPLIT_GROWTH / ref.rate
    w = math.sqrt(eta * float(tab.variance(np.array(ref.unstable))) / (2 * ref.rate))
    rho0 = float(ref.unstable + w)
    if not rho0 < 1.0:  # w grows like sqrt(eta): the start must lie inside the sphere's range
        return eta, ref, w, rho0, (f"the start rho* + w = {ref.unstable:.4g} + {w:.3g} lies beyond 1 at eta = "
                                   f"{eta}: the noise width w = sqrt(eta Sigma(rho*) / (2 F'(rho*))) needs steps "
                                   f"more than {(w / (1.0 - ref.unstable)) ** 2:.3g} times smaller")
    return eta, ref, w, rho0, ""


def splitting_design(case: Case, ctx: CheckContext) -> dict | None:
    """What ``sga.splitting`` will simulate on ``case`` (``None`` when it is inconclusive before any
    run): ``{"eta", "steps", "runs", "sequential"}`` (the step cap; each run stops at its exit)."""
    eta, ref, _, _, refusal = _splitting_setup(case.problem, SPLIT_ETA)
    if refusal:
        return None
    route = route_for(case, ctx, splitting_expansion)
    return {"eta": eta, "steps": _split_cap(ref.rate, eta), "runs": budget(ctx.preset).split_runs,
            "sequential": _stops_early(ctx, route)}


def _split_cap(rate: float, eta: float) -> int:
    """The step cap of ``sga.splitting``'s runs: ``8 / (F'(rho*) eta)`` steps (eight e-foldings of the escape)."""
    return math.ceil(8.0 / (rate * eta))


def diffusion_design(case: Case, ctx: CheckContext) -> dict:
    """What ``sga.fluctuations`` and ``sga.hitting_time`` will simulate on ``case``: ``{"route",
    "schedule", "horizon" (None beyond the step cap), "runs", "paths", "sequential"}`` (the designs
    they run, cached)."""
    b, route, schedule, horizon = _band_design(case, ctx)
    return {"route": route.name, "schedule": schedule, "horizon": horizon, "runs": b.runs, "paths": PRED_RUNS,
            "sequential": _stops_early(ctx, route)}


def _splitting_rule(predicted: float, ab: tuple, zc: float):
    """The interim rule of ``sga.splitting`` (expansion route): the fraction of decided runs reaching
    ``b`` first against ``predicted``, the final rule's Wilson interval read as ``|k/n - p| <= zc
    SE`` with the SE of the observed fraction (:class:`._sequential.Statistic`); a look with more
    than 5% of its runs undecided goes on."""
    def decide(paths: np.ndarray, total: int):
        n, k = exits(paths, *ab)
        if n < 0.95 * paths.shape[0]:
            return None, ()
        shrunk = (k + 2) / (n + 4)  # Agresti and Coull's: an observed 0 or n gives no zero SE
        stat = Statistic("plus_fraction", k / n - predicted, math.sqrt(shrunk * (1 - shrunk) / n), zc)
        return interim_verdict((stat,), n, total, len(look_counts(total)) - 1), (stat,)

    return decide


def _measured_splitting(case: Case, ctx: CheckContext, route: Route, eta: float, steps: int, rho0: float,
                        ab: tuple) -> tuple[float, float, dict]:
    """The fraction of :data:`PRED_RUNS` paths of the measured law at the constant step ``eta`` that
    leave ``ab = (a, b)`` at ``b``, its standard error (paths and law) and what to record of the law."""
    law = _split_law(case.problem, eta, route.seed, route.drift_se)

    def read(x):
        n, plus = exits(x, *ab)
        f = plus / max(n, 1)
        return [f], [math.sqrt(max(f * (1.0 - f), 1.0 / max(n, 1)) / max(n, 1))]

    pr = predict_paths(law, np.full(steps, eta), rho0, PRED_RUNS, ctx.seed_for(case.name, "sga.splitting.law"), read,
                       replicates=LAW_REPLICATES)
    extra = {"predicted_plus_se": pr.se(0), "predicted_plus_law_se": float(pr.law_se[0]), "prediction_runs": PRED_RUNS,
             **_route_details(route, law)}
    return float(pr.value[0]), pr.se(0), extra


def check_fluctuations(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """Registry entry of ``sga.fluctuations``."""
    return fluctuations(case, ctx)


def check_hitting_time(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """Registry entry of ``sga.hitting_time``."""
    return hitting_time(case, ctx)


def check_splitting(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """Registry entry of ``sga.splitting``."""
    return splitting(case, ctx)
