"""The check ``sga.splitting``: the fraction of runs from beside the unstable equilibrium that reach
``+xi`` first, against the scale function (protocol and criteria in the module docstring of
:mod:`._diffusion`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import norm

from ...numerics import (
    SPLIT_GROWTH,
    MeasuredLaw,
    Problem,
    Schedule,
    diffusion_tables,
    exits,
    measured_law,
    predict_paths,
    splitting_probability,
)
from ._context import CheckContext
from ._diffusion import (
    LAW_REPLICATES,
    PRED_RUNS,
    SPLIT_ETA,
    Budget,
    Route,
    _exact,
    _record,
    _route_details,
    _sequential_exact,
    _stopped,
    _stops_early,
    budget,
    route_for,
    splitting_expansion,
)
from ._record import CheckRecord
from ._sequential import Statistic, interim_verdict, look_counts

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


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
    setup = _splitting_setup(p, eta)
    eta, ref, w, rho0, refusal = setup.eta, setup.reference, setup.w, setup.rho0, setup.refusal
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


@dataclass(frozen=True)
class SplitSetup:
    """The start of ``sga.splitting``: the step ``eta`` (the asked one, or smaller), the scale
    function's ``reference`` from ``rho*`` (``numerics.splitting_probability``; ``None`` when the
    model has no unstable equilibrium), the noise width ``w``, the start ``rho0 = rho* + w`` and
    ``refusal``, why the check is inconclusive (empty when it is not)."""

    eta: float
    reference: Any
    w: float
    rho0: float
    refusal: str


def _splitting_setup(p: Problem, eta: float) -> SplitSetup:
    """The :class:`SplitSetup` of ``sga.splitting`` on ``p`` at the asked step.

    The protocol (``rho*``, ``F'(rho*)``, ``eta``, ``w``, ``a``, ``b``) is the expansion's on either
    route, as in the validation study: the limit's ``rho*`` need not be an unstable zero of the
    measured drift (theta 2, beta 1.6, L 2,100: measured ``F'(rho*) < 0``), whose own zeros are not
    located here."""
    tab = diffusion_tables(p)
    try:
        ref = splitting_probability(p, Schedule.constant(eta), 0.0, tables=tab)
    except ValueError as exc:
        return SplitSetup(eta, None, math.nan, math.nan, f"not applicable: {exc}")
    # the scale function is the small-step limit of the escape from rho*: keep eta F'(rho*) at most
    # numerics.SPLIT_GROWTH (one step's growth 1 + eta F' then matches the diffusion's exp(eta F'))
    if eta * ref.rate > SPLIT_GROWTH:
        eta = SPLIT_GROWTH / ref.rate
    w = math.sqrt(eta * float(tab.variance(np.array(ref.unstable))) / (2 * ref.rate))
    rho0 = float(ref.unstable + w)
    if not rho0 < 1.0:  # w grows like sqrt(eta): the start must lie inside the sphere's range
        return SplitSetup(eta, ref, w, rho0, f"the start rho* + w = {ref.unstable:.4g} + {w:.3g} lies beyond 1 at "
                          f"eta = {eta}: the noise width w = sqrt(eta Sigma(rho*) / (2 F'(rho*))) needs steps more "
                          f"than {(w / (1.0 - ref.unstable)) ** 2:.3g} times smaller")
    return SplitSetup(eta, ref, w, rho0, "")


def splitting_design(case: Case, ctx: CheckContext) -> dict | None:
    """What ``sga.splitting`` will simulate on ``case`` (``None`` when it is inconclusive before any
    run): ``{"eta", "steps", "runs", "sequential"}`` (the step cap; each run stops at its exit)."""
    setup = _splitting_setup(case.problem, SPLIT_ETA)
    if setup.refusal:
        return None
    route = route_for(case, ctx, splitting_expansion)
    return {"eta": setup.eta, "steps": _split_cap(setup.reference.rate, setup.eta),
            "runs": budget(ctx.preset).split_runs, "sequential": _stops_early(ctx, route)}


def _split_cap(rate: float, eta: float) -> int:
    """The step cap of ``sga.splitting``'s runs: ``8 / (F'(rho*) eta)`` steps (eight e-foldings of the escape)."""
    return math.ceil(8.0 / (rate * eta))


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
