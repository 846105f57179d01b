"""The checks ``sga.fluctuations`` (the predicted 10-90% band of ``rho_k``) and ``sga.hitting_time``
(the first passage to ``|rho| >= 0.99``), on one shared set of runs: protocol and criteria in the
module docstring of :mod:`._diffusion`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import ks_2samp

from ...numerics import (
    MeasuredLaw,
    Problem,
    Schedule,
    first_hits,
    predict_paths,
)
from ._common import order_se
from ._context import CheckContext
from ._diffusion import (
    CHECKPOINTS,
    HIT_TOL,
    KS_LEVEL,
    LAW_REPLICATES,
    PRED_RUNS,
    RHO0,
    TARGET,
    Budget,
    Route,
    Z,
    _censored,
    _exact,
    _horizon,
    _inconclusive,
    _law,
    _prediction,
    _prediction_seed,
    _record,
    _route_details,
    _route_prefix,
    _sequential_exact,
    _stopped,
    _stops_early,
    budget,
    diffusion_expansion,
    route_for,
    schedule_for,
)
from ._record import CheckRecord
from ._sequential import Statistic, Stopping, interim_verdict, look_counts

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


def _cap(ctx: CheckContext, budget_: Budget | None) -> int:
    return (budget_ or budget(ctx.preset)).max_steps


@dataclass(frozen=True)
class BandDesign:
    """The runs ``sga.fluctuations`` and ``sga.hitting_time`` share: the budget, the route, the
    schedule and the horizon (``None`` beyond the budget's step cap)."""

    budget: Budget
    route: Route
    schedule: Schedule
    horizon: int | None


@dataclass(frozen=True)
class BandRuns:
    """What ``sga.fluctuations`` and ``sga.hitting_time`` compare, from the same fixed start: the
    predicted paths and first passages, the exact paths and where a sequential run stopped
    (``None``: the fixed count), on the route, schedule and horizon of their design."""

    route: Route
    schedule: Schedule
    horizon: int
    pred: np.ndarray
    hits_pred: np.ndarray
    sim: np.ndarray
    stopping: Stopping | None


def _runs(case: Case, ctx: CheckContext, variance_scale: float, budget_: Budget | None,
          schedule: Schedule | None) -> BandRuns | None:
    """The :class:`BandRuns` of the two checks, or ``None`` when the predicted 90% first passage
    lies beyond the budget's step cap."""
    design = _band_design(case, ctx, budget_, schedule)
    b, route, schedule, horizon = design.budget, design.route, design.schedule, design.horizon
    if horizon is None:
        return None
    p, pseed = case.problem, _prediction_seed(case, ctx)
    pred, hits_pred = _prediction(p, schedule, RHO0, b.max_steps, pseed, float(variance_scale), route)
    seed = ctx.seed_for(case.name, "diffusion.exact", horizon)
    if not _stops_early(ctx, route):
        return BandRuns(route, schedule, horizon, pred, hits_pred, _exact(p, schedule, RHO0, horizon, b.runs, seed),
                        None)
    sim, stopping = _sequential_exact(p, schedule, RHO0, horizon, b.runs, seed, _band_and_passage(pred, hits_pred,
                                                                                                   horizon))
    return BandRuns(route, schedule, horizon, pred, hits_pred, sim, stopping)


def _band_design(case: Case, ctx: CheckContext, budget_: Budget | None = None,
                 schedule: Schedule | None = None) -> BandDesign:
    """The :class:`BandDesign` of the two checks; cached underneath, so the run's plan and the checks
    read one design."""
    b = budget_ or budget(ctx.preset)
    p, pseed = case.problem, _prediction_seed(case, ctx)
    route = route_for(case, ctx, diffusion_expansion)
    schedule = schedule or schedule_for(p, pseed, route)
    return BandDesign(b, route, schedule, _horizon(p, schedule, RHO0, b.max_steps, pseed, 1.0, route))


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


#: what each check compares (said when the predicted passage lies beyond the step cap)
_COMPARES = {"sga.fluctuations": "the band comparison", "sga.hitting_time": "the first-passage comparison"}


def _judged(case: Case, ctx: CheckContext, check_id: str, judge, variance_scale: float, budget_: Budget | None,
            schedule: Schedule | None) -> list[CheckRecord]:
    """The record of ``check_id`` on the runs the two checks share (:func:`_runs`):
    ``judge(case, ctx, runs, variance_scale, t0)``, or inconclusive beyond the budget's step cap."""
    t0 = time.perf_counter()
    runs = _runs(case, ctx, variance_scale, budget_, schedule)
    if runs is None:
        return [_inconclusive(check_id, case, _cap(ctx, budget_), t0, _COMPARES[check_id])]
    return [judge(case, ctx, runs, variance_scale, t0)]


def fluctuations(case: Case, ctx: CheckContext, *, variance_scale: float = 1.0, budget_: Budget | None = None,
                 schedule: Schedule | None = None) -> list[CheckRecord]:
    """``sga.fluctuations``: predicted 10–90% band vs the exact chain (module docstring)."""
    return _judged(case, ctx, "sga.fluctuations", _band, variance_scale, budget_, schedule)


def hitting_time(case: Case, ctx: CheckContext, *, variance_scale: float = 1.0, budget_: Budget | None = None,
                 schedule: Schedule | None = None) -> list[CheckRecord]:
    """``sga.hitting_time``: predicted vs simulated median first passage (module docstring)."""
    return _judged(case, ctx, "sga.hitting_time", _passage, variance_scale, budget_, schedule)


def _band(case: Case, ctx: CheckContext, runs: BandRuns, variance_scale: float, t0: float) -> CheckRecord:
    """The record of ``sga.fluctuations`` on ``runs``."""
    route, schedule, horizon, pred, sim, stopping = (runs.route, runs.schedule, runs.horizon, runs.pred, runs.sim,
                                                     runs.stopping)
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
    return _record("sga.fluctuations", "pass" if ok else "fail", max(abs(z_cov), abs(z_med)), Z, msg, details, case,
                   t0)


def _sample_law(case: Case, route: Route) -> MeasuredLaw | None:
    """The law behind the band and passage predictions of the measured route (``None`` else)."""
    return _law(case.problem, route.seed, route.drift_se) if route.measured else None


def _passage(case: Case, ctx: CheckContext, runs: BandRuns, variance_scale: float, t0: float) -> CheckRecord:
    """The record of ``sga.hitting_time`` on ``runs``."""
    route, schedule, horizon, hits_pred, sim, stopping = (runs.route, runs.schedule, runs.horizon, runs.hits_pred,
                                                          runs.sim, runs.stopping)
    hits = first_hits(sim, TARGET)
    hp = _censored(hits_pred, horizon)
    hs = _censored(hits, horizon)
    m_pred, m_sim = float(np.median(hp)), float(np.median(hs))
    if m_sim > horizon:
        return _inconclusive("sga.hitting_time", case, horizon, t0, "the simulated median")
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
    return _record("sga.hitting_time", "pass" if ok else "fail", rel, tol, msg, details, case, t0)


def diffusion_design(case: Case, ctx: CheckContext) -> dict:
    """What ``sga.fluctuations`` and ``sga.hitting_time`` will simulate on ``case``: ``{"route",
    "schedule", "horizon" (None beyond the step cap), "runs", "paths", "sequential"}`` (the designs
    they run, cached)."""
    d = _band_design(case, ctx)
    return {"route": d.route.name, "schedule": d.schedule, "horizon": d.horizon, "runs": d.budget.runs,
            "paths": PRED_RUNS, "sequential": _stops_early(ctx, d.route)}
