"""Each derived quantity of one model against the exact reduced chain (Monte Carlo).

Every function returns :class:`Comparison` records; the pass rule is
:func:`judge` (``verify.studies._validate._profile``). A quantity the theory does not
define for a model (no stable plateau) is returned as a :class:`Comparison` with
``status="n/a"`` and the reason, never silently dropped.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache

import numpy as np

from ....numerics import (
    SPLIT_GROWTH,
    Schedule,
    band,
    complexity,
    diffusion_tables,
    exits,
    first_hits,
    one_step_moments,
    predict,
    simulate,
    splitting_probability,
)
from ....theory import alignment_variance, effective_drift, gradient_second_moment, stationary_alignment
from ...checks import one_step, one_step_increments
from ._models import DrawnModel
from ._profile import SIGMAS, TOLERANCES, Profile


@dataclass(frozen=True)
class Comparison:
    """One derived quantity at one point against Monte Carlo.

    Attributes
    ----------
    quantity : str
        A key of :data:`TOLERANCES`.
    rho : float or None
        The alignment (``None`` for the plateau and the trajectory, whose ``detail`` has its step).
    theory, mc, se : float
        Derived value, Monte Carlo estimate and its standard error.
    tol : float
        Relative tolerance.
    status : {"pass", "fail", "n/a", "error"}
    excess : float
        ``|theory - mc| / (SIGMAS se + tol |theory|)`` (``<= 1`` passes).
    detail : dict
        What else the comparison used (budgets, the leading-order value, ...).
    """

    quantity: str
    rho: float | None
    theory: float
    mc: float
    se: float
    tol: float
    status: str
    excess: float
    detail: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def judge(quantity: str, rho, theory: float, mc: float, se: float, **detail) -> Comparison:
    """The :class:`Comparison` of ``theory`` with ``mc +- se`` under the pass rule."""
    tol = TOLERANCES[quantity][0]
    allowed = SIGMAS * se + tol * abs(theory)
    gap = abs(theory - mc)
    excess = gap / allowed if allowed > 0 else (0.0 if gap == 0 else math.inf)
    ok = bool(np.isfinite(excess) and excess <= 1.0)
    return Comparison(quantity, rho, float(theory), float(mc), float(se), tol, "pass" if ok else "fail",
                      float(excess), detail)


def not_applicable(quantity: str, reason: str) -> Comparison:
    """A :class:`Comparison` the theory does not define for this model (``status="n/a"``, the reason in ``detail``)."""
    nan = float("nan")
    return Comparison(quantity, None, nan, nan, nan, TOLERANCES[quantity][0], "n/a", nan, {"reason": reason})


def error(quantity: str, reason: str) -> Comparison:
    """A :class:`Comparison` whose study raised (``status="error"``, the exception in ``detail``)."""
    return replace(not_applicable(quantity, reason), status="error")


def moments(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(1) the one-step mean ``F + F_1 / L`` and (2) ``Var X`` at ``profile.moment_rhos``."""
    p = m.problem
    rhos = np.asarray(profile.moment_rhos, float)
    drift = effective_drift(p.model, rhos, 0.0, p.d, p.L, p.batch)
    var = alignment_variance(p.model, rhos, p.L, p.batch, d=p.d).variance
    out = []
    for j, r in enumerate(rhos):
        mc = one_step_moments(p, float(r), runs=profile.one_step_runs, eta=profile.moment_eta, seed=m.stream(j))
        runs = profile.one_step_runs
        out.append(judge("mean", float(r), drift.field[j] + drift.finite_L[j], mc.mean, math.sqrt(mc.variance / runs),
                         leading=float(drift.field[j]), runs=runs, eta=profile.moment_eta))
        out.append(judge("variance", float(r), var[j], mc.variance, mc.variance_se, runs=runs, eta=profile.moment_eta))
    return out


def second_moment(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(3) ``E|P g|^2`` at ``profile.drag_rhos``: ``|P g|^2 = ((rho + X) / rho_1)^2 - 1`` from a
    step of ``1e-7`` (``X``) and a unit step (``rho_1``) on the same token draws."""
    p = m.problem
    rhos = np.asarray(profile.drag_rhos, float)
    theory = gradient_second_moment(p.model, rhos, p.d, p.L, p.batch).total
    n = profile.one_step_runs
    out = []
    for j, r in enumerate(rhos):
        seed = m.stream(len(profile.moment_rhos) + j)
        x, _ = one_step_increments(p, float(r), n, seed)
        rho1, _ = one_step(p, float(r), n, seed, 1.0)
        y = ((r + x) / rho1) ** 2 - 1.0
        out.append(judge("second_moment", float(r), theory[j], y.mean(), y.std(ddof=1) / math.sqrt(n), runs=n))
    return out


def _steps(profile: Profile, problem, runs: int, wanted: int) -> int:
    """``wanted`` capped by ``profile.max_draws`` normals of ``runs`` runs (at least 20)."""
    return max(20, min(wanted, int(profile.max_draws // (runs * problem.batch * 4 * problem.L))))


def plateau(m: DrawnModel, profile: Profile) -> Comparison:
    """(4) the deficit ``1 - rho_eta`` of the constant-step plateau against ``1 -`` the mean over
    runs of each run's time average over a late window, started at ``rho_eta``."""
    p = m.problem
    try:
        pl = stationary_alignment(p.model, m.eta, p.d, p.L, p.batch)
    except ValueError as exc:
        return not_applicable("plateau", str(exc))
    if not pl.slope < 0:
        return not_applicable("plateau", f"the plateau is not stable (F_eta' = {pl.slope:.3g})")
    tau = 1.0 / (m.eta * abs(pl.slope))  # relaxation time in steps
    burn, window = math.ceil(profile.burn * tau), math.ceil(profile.window * tau)
    cap = _steps(profile, p, profile.plateau_runs, profile.max_steps)
    if burn + window > cap:  # shorten both in proportion
        scale = cap / (burn + window)
        burn, window = max(1, int(burn * scale)), max(10, int(window * scale))
    runs = profile.plateau_runs
    sim = simulate(p, Schedule.constant(m.eta), steps=burn + window, runs=runs, rho0=pl.rho,
                   seed=m.stream(len(profile.moment_rhos) + len(profile.drag_rhos)))
    per_run = sim.rho[:, burn + 1:].mean(axis=1)
    return judge("plateau", None, pl.deficit, 1.0 - per_run.mean(), per_run.std(ddof=1) / math.sqrt(runs),
                 rho_theory=pl.rho, rho_mc=float(per_run.mean()), spread_theory=pl.spread,
                 spread_mc=float(sim.rho[:, burn + 1:].std()), eta=m.eta, runs=runs, burn_steps=burn,
                 window_steps=window, relaxation_steps=tau)


#: fewest steps of the chain's median first passage for the passage comparison (below, medians
#: of 3 to 8 steps differed from the diffusion's by one step, with no Monte Carlo spread at all)
MIN_PASSAGE = 10

#: the decaying schedule of :func:`decaying`: ``eta_k = eta (K0 / (k + K0))^POWER``
K0, POWER = 20.0, 0.6


@lru_cache(maxsize=2)
def _tables(problem):
    """The diffusion tables of ``problem``, built once for the band, the passage and the splitting."""
    return diffusion_tables(problem)


def _order_se(x: np.ndarray, q: float) -> float:
    """Standard error of the ``q``-quantile of ``x`` from the order statistics one binomial
    standard deviation either side of ``n q`` (half the width of that interval)."""
    srt = np.sort(x)
    n = srt.size
    half = math.sqrt(n * q * (1.0 - q))
    lo, hi = (int(np.clip(math.floor(n * q + s * half), 0, n - 1)) for s in (-1, 1))
    return float(srt[hi] - srt[lo]) / 2.0


def decaying(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(5)-(7) one decaying-step chain from ``trajectory_rho0`` (``trajectory_runs`` runs,
    ``eta_k = eta (20/(k + 20))^0.6``) against three predictions:

    * the mean trajectory: ``1 - E rho_k`` of :func:`numerics.predict` (the corrected ODE)
      at a quarter, half and all of the steps (SE over runs);
    * the band: ``1 - q10`` and ``1 - q90`` of :func:`numerics.band` (the diffusion) at half
      and all of the steps (SE from the order statistics, the prediction's own paths added);
    * the first passage: the median first step with ``|rho| >= target`` of
      :func:`numerics.complexity` against the chain's median (censored at the run's end; SE
      from the order statistics), ``target`` 90% of the way from ``rho_0`` to the predicted
      mean at half the run.
    """
    p = m.problem
    runs = profile.trajectory_runs
    steps = _steps(profile, p, runs, profile.trajectory_steps)
    sched = Schedule(eta0=m.eta * K0**POWER, k0=K0, power=POWER)
    stride = max(1, steps // 4)
    pred = predict(p, sched, steps, profile.trajectory_rho0, stride, engine="scalar")
    if not pred.success:
        return [not_applicable(q, f"predict failed: {pred.message}") for q in ("trajectory", "band", "passage")]
    sim = simulate(p, sched, steps=steps, runs=runs, rho0=profile.trajectory_rho0, stride=1,
                   seed=m.stream(len(profile.moment_rhos) + len(profile.drag_rhos) + 1))
    recorded = [int(k) for k in pred.step]  # 0, S, 2 S, 3 S, steps
    out = []
    for i in (1, 2, -1):
        x = sim.rho[:, recorded[i]]
        out.append(judge("trajectory", None, 1.0 - pred.rho_corrected[i], 1.0 - x.mean(),
                         x.std(ddof=1) / math.sqrt(runs), step=recorded[i], steps=steps,
                         plain=float(1.0 - pred.rho_plain[i]), schedule=sched.as_dict(), runs=runs))
    tab = _tables(p)
    seed = m.stream(len(profile.moment_rhos) + len(profile.drag_rhos) + 2)
    bd = band(p, sched, steps, profile.trajectory_rho0, stride=stride, runs=profile.prediction_runs, seed=seed,
              tables=tab)
    widen = math.sqrt(1.0 + runs / profile.prediction_runs)  # the prediction's own quantile error
    for i in (2, -1):
        k = recorded[i]
        j = int(np.flatnonzero(bd.step == k)[0])
        x = sim.rho[:, k]
        for q, theory in ((0.1, bd.q10[j]), (0.9, bd.q90[j])):
            out.append(judge("band", None, 1.0 - theory, 1.0 - float(np.quantile(x, q)), widen * _order_se(x, q),
                             step=k, quantile=q, steps=steps, runs=runs, prediction_runs=profile.prediction_runs))
    half = float(pred.rho_corrected[2])
    target = min(0.99, profile.trajectory_rho0 + 0.9 * (half - profile.trajectory_rho0))
    if not target > profile.trajectory_rho0 + 0.05:
        out.append(not_applicable("passage", f"the predicted mean at step {recorded[2]} ({half:.3g}) is not above "
                                             f"rho_0 = {profile.trajectory_rho0}: no level to pass"))
        return out
    cx = complexity(p, sched, profile.trajectory_rho0, target, runs=profile.prediction_runs, horizon=steps,
                    seed=seed + 1, tables=tab)
    first = first_hits(sim.rho, target, never=steps + 1).astype(float)
    mc = float(np.median(first))
    detail = {"target": target, "steps": steps, "runs": runs, "prediction_runs": profile.prediction_runs,
              "theory_q10": cx.q10_steps, "theory_q90": cx.q90_steps,
              "mc_q10": float(np.quantile(first, 0.1)), "mc_q90": float(np.quantile(first, 0.9)),
              "censored": int((first > steps).sum())}
    if mc < MIN_PASSAGE:  # a property of the experiment, not of the theory under test
        out.append(not_applicable("passage", f"the chain's median first passage to |rho| >= {target:.3g} is step "
                                             f"{mc:g}: a passage in fewer than {MIN_PASSAGE} steps tests the chain's "
                                             "discreteness, not the diffusion (a small-step limit)"))
        return out
    theory_reached, mc_reached = math.isfinite(cx.median_steps), mc <= steps
    theory = cx.median_steps if theory_reached else float(steps + 1)
    c = judge("passage", None, theory, mc, widen * _order_se(first, 0.5), **detail)
    if theory_reached and mc_reached:
        out.append(c)
    elif not theory_reached and not mc_reached:
        out.append(not_applicable("passage", f"neither the diffusion nor the chain reaches |rho| >= {target:.3g} "
                                             f"in half of the runs within {steps} steps"))
    elif c.status == "fail":  # one median beyond the run (counted as steps + 1): the gap is at least this
        out.append(replace(c, detail={**c.detail, "censored_median": "theory" if mc_reached else "mc"}))
    else:
        out.append(not_applicable("passage", f"the {'diffusion' if mc_reached else 'chain'}'s median lies beyond the "
                                             f"run's {steps} steps and the other's at {min(theory, mc):.0f}: "
                                             "a longer run decides"))
    return out


def splitting(m: DrawnModel, profile: Profile) -> Comparison:
    """(8) bistable models: ``P(+xi | rho* + w)`` of :func:`numerics.splitting_probability`
    (scale function) against the fraction of ``split_runs`` constant-step chains that reach
    ``b = (rho* + 1)/2`` before ``a = (rho* - 1)/2``, ``w = sqrt(eta Sigma(rho*) / (2 F'(rho*)))``
    (at most ``(1 - rho*)/4``, halfway to ``b``).

    The step is the model's ``eta``, raised until 8 escape times ``1 / (eta F'(rho*))`` fit in
    ``split_steps`` (recorded) and lowered to ``eta F'(rho*) <= numerics.SPLIT_GROWTH``; runs are
    cut to the draw budget.
    """
    p = m.problem
    tab = _tables(p)
    try:
        ref = splitting_probability(p, Schedule.constant(m.eta), 0.0, tables=tab)
    except ValueError as exc:
        return not_applicable("splitting", str(exc))
    # at least 8 escape times within split_steps, but eta F'(rho*) at most SPLIT_GROWTH, where the
    # scale function predicts a constant-step chain (as in the suite's sga.splitting)
    eta = min(max(m.eta, 8.0 / (ref.rate * profile.split_steps)), SPLIT_GROWTH / ref.rate)
    steps = math.ceil(8.0 / (ref.rate * eta))
    runs = min(profile.split_runs, int(profile.max_draws // (steps * p.batch * 4 * p.L)))
    if runs < 30:
        return not_applicable("splitting", f"{steps} steps of {runs} runs fit the draw budget "
                                           f"({profile.max_draws:.3g} normals); at least 30 runs are needed")
    sched = Schedule.constant(eta)
    w = math.sqrt(eta * float(tab.variance(np.array(ref.unstable))) / (2.0 * ref.rate))
    # the start stays halfway between rho* and b = (rho* + 1)/2 when the noise width is wider
    rho0 = float(ref.unstable + min(w, (1.0 - ref.unstable) / 4.0))
    pred = splitting_probability(p, sched, rho0, tables=tab)
    sim = simulate(p, sched, steps=steps, runs=runs, rho0=rho0, stride=1,
                   seed=m.stream(len(profile.moment_rhos) + len(profile.drag_rhos) + 3))
    n, plus = exits(sim.rho, pred.a, pred.b)
    detail = {"eta": eta, "model_eta": m.eta, "rho_star": ref.unstable, "rate": ref.rate, "noise_width": w,
              "rho0": rho0, "a": pred.a, "b": pred.b, "steps": steps, "runs": runs, "decided": n,
              "gaussian": pred.gaussian}
    if n < 0.95 * runs:
        return not_applicable("splitting", f"{runs - n} of {runs} runs reach neither a = {pred.a:.3g} nor "
                                           f"b = {pred.b:.3g} within {steps} steps")
    frac = plus / n
    se = math.sqrt(max(frac * (1.0 - frac), 1.0 / n) / n)
    return judge("splitting", None, pred.probability, frac, se, **detail)
