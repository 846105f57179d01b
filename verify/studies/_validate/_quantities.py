"""Each derived quantity of one model against the exact chain (one piece: all share its runs and streams).

The quantities are Monte Carlo of the exact reduced chain, drawn from one set of random streams
and caps (``_stream``, ``_steps``).

Every function returns :class:`Comparison` records; the pass rule is
:func:`judge` (``verify.studies._validate._profile``). A quantity the theory does not
define for a model (no stable plateau) is returned as a :class:`Comparison` with
``status="n/a"`` and the reason, never silently dropped.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from typing import Any, NamedTuple

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
    predict_paths,
    simulate,
    splitting_probability,
)
from ....theory import alignment_variance, effective_drift, gradient_second_moment, stationary_alignment
from ...checks import one_step, one_step_increments, order_se
from ._measured import MeasuredLaw, constant, constant_law, decaying_law, law_detail
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
    route : {"expansion", "measured"}
        What produced ``theory``: the derived ``O(eta)`` law or the exact chain's measured
        one-step law (:data:`ROUTES`); for the measured route ``se`` joins the chain's error
        with the prediction's own (its paths and its law).
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
    route: str = "expansion"

    def as_dict(self) -> dict:
        return asdict(self)


def judge(quantity: str, rho, theory: float, mc: float, se: float, *, route: str = "expansion",
          **detail) -> Comparison:
    """The :class:`Comparison` of ``theory`` with ``mc +- se`` under the pass rule."""
    tol = TOLERANCES[quantity][0]
    allowed = SIGMAS * se + tol * abs(theory)
    gap = abs(theory - mc)
    excess = gap / allowed if allowed > 0 else (0.0 if gap == 0 else math.inf)
    ok = bool(np.isfinite(excess) and excess <= 1.0)
    return Comparison(quantity, rho, float(theory), float(mc), float(se), tol, "pass" if ok else "fail",
                      float(excess), detail, route)


def not_applicable(quantity: str, reason: str, route: str = "expansion") -> Comparison:
    """A :class:`Comparison` the theory does not define for this model (``status="n/a"``, the reason in ``detail``)."""
    nan = float("nan")
    return Comparison(quantity, None, nan, nan, nan, TOLERANCES[quantity][0], "n/a", nan, {"reason": reason}, route)


def error(quantity: str, reason: str, route: str = "expansion") -> Comparison:
    """A :class:`Comparison` whose study raised (``status="error"``, the exception in ``detail``)."""
    return replace(not_applicable(quantity, reason, route), status="error")


def _stream(m: DrawnModel, profile: Profile, k: int) -> int:
    """The model's ``k``-th stream after its one-step ones."""
    return m.stream(len(profile.moment_rhos) + len(profile.drag_rhos) + k)


def decaying_schedule(m: DrawnModel, profile: Profile) -> tuple[Schedule, int]:
    """The decaying chain's schedule (its first step is the model's constant ``eta``) and its steps."""
    runs = profile.trajectory_runs
    return Schedule(eta0=m.eta * K0**POWER, k0=K0, power=POWER), _steps(profile, m.problem, runs,
                                                                        profile.trajectory_steps)


def model_law(m: DrawnModel, profile: Profile) -> MeasuredLaw | str | None:
    """The measured law of the decaying schedule's steps (its top step is the plateau's), the
    reason there is none, or ``None`` when the profile judges the expansion alone."""
    if "measured" not in profile.routes:
        return None
    sched, steps = decaying_schedule(m, profile)
    try:
        return decaying_law(m.problem, sched, steps, _stream(m, profile, 4), profile.law_drift_se)
    except ValueError as exc:
        return f"no measured law: {exc}"


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


class _PlateauStart(NamedTuple):
    """Where the plateau chain starts (``rho``) and its relaxation rate ``|F'|``; the expansion's
    deficit (``None``, with the reason ``why``, when the expansion has no stable plateau)."""

    rho: float
    rate: float
    deficit: float | None
    why: str


def _plateau_start(m: DrawnModel, law) -> _PlateauStart:
    """The expansion's plateau, else the measured drift's stable zero (:class:`_PlateauStart`)."""
    p = m.problem
    try:
        pl = stationary_alignment(p.model, m.eta, p.d, p.L, p.batch)
        why = "" if pl.slope < 0 else f"the plateau is not stable (F_eta' = {pl.slope:.3g})"
    except ValueError as exc:
        pl, why = None, str(exc)
    if pl is not None and not why:
        return _PlateauStart(pl.rho, abs(pl.slope), pl.deficit, "")
    if isinstance(law, MeasuredLaw):
        top = constant(law)
        zero = top.plateau().value
        if math.isfinite(zero):
            slope = float(np.gradient(top.drift, top.grid)[np.argmin(abs(top.grid - zero))])
            if slope < 0:
                return _PlateauStart(zero, -slope, None, why)
    return _PlateauStart(math.nan, math.nan, None, why)


def plateau(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(4) the deficit ``1 - rho_eta`` of the constant-step plateau against ``1 -`` the mean over
    runs of each run's time average over a late window, started at ``rho_eta``. The measured
    route predicts the same window's mean from paths of the exact chain's one-step law."""
    p = m.problem
    law = model_law(m, profile)
    start, rate, deficit, why = _plateau_start(m, law)
    out = [] if deficit is not None else [not_applicable("plateau", why)]
    if not math.isfinite(start):
        return out + ([not_applicable("plateau", law if isinstance(law, str) else
                                      "the measured drift has no stable zero in [0, 1)", "measured")]
                      if law is not None else [])
    tau = 1.0 / (m.eta * rate)  # relaxation time in steps
    burn, window = math.ceil(profile.burn * tau), math.ceil(profile.window * tau)
    cap = _steps(profile, p, profile.plateau_runs, profile.max_steps)
    if burn + window > cap:  # shorten both in proportion
        scale = cap / (burn + window)
        burn, window = max(1, int(burn * scale)), max(10, int(window * scale))
    runs = profile.plateau_runs
    sim = simulate(p, Schedule.constant(m.eta), steps=burn + window, runs=runs, rho0=start, seed=_stream(m, profile, 0))
    per_run = sim.rho[:, burn + 1:].mean(axis=1)
    mc, se = 1.0 - per_run.mean(), per_run.std(ddof=1) / math.sqrt(runs)
    detail: dict[str, Any] = {"rho_start": start, "rho_mc": float(per_run.mean()),
                              "spread_mc": float(sim.rho[:, burn + 1:].std()), "eta": m.eta, "runs": runs,
                              "burn_steps": burn, "window_steps": window, "relaxation_steps": tau}
    if deficit is not None:
        out.append(judge("plateau", None, deficit, mc, se, **detail))
    if isinstance(law, str):
        out.append(not_applicable("plateau", law, "measured"))
    elif law is not None:
        top = constant(law)

        def window_mean(x):
            avg = x[:, burn + 1:].mean(axis=1)
            return [1.0 - avg.mean()], [avg.std(ddof=1) / math.sqrt(avg.size)]

        pr = predict_paths(top, np.full(burn + window, m.eta), start, profile.prediction_runs,
                           _stream(m, profile, 5), window_mean)
        out.append(judge("plateau", None, pr.value[0], mc, math.hypot(se, pr.se(0)), route="measured", **detail,
                         drift_zero=top.plateau().value, **law_detail(top)))
    return out


#: fewest steps of the chain's median first passage for the passage comparison (below, medians
#: of 3 to 8 steps differed from the diffusion's by one step, with no Monte Carlo spread at all)
MIN_PASSAGE = 10

#: the decaying schedule of :func:`decaying`: ``eta_k = eta (K0 / (k + K0))^POWER``
K0, POWER = 20.0, 0.6


@lru_cache(maxsize=2)
def _tables(problem):
    """The diffusion tables of ``problem``, built once for the band, the passage and the splitting."""
    return diffusion_tables(problem)


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

    The measured route predicts all three from paths of the exact chain's one-step law
    (:func:`._measured.predict_paths`), its passage level from its own mean at half the run.
    """
    p = m.problem
    runs = profile.trajectory_runs
    sched, steps = decaying_schedule(m, profile)
    stride = max(1, steps // 4)
    recorded = [0, stride, 2 * stride, 3 * stride, steps]
    sim = simulate(p, sched, steps=steps, runs=runs, rho0=profile.trajectory_rho0, stride=1,
                   seed=_stream(m, profile, 1))
    out = _expansion_decaying(m, profile, sched, steps, sim.rho)
    law = model_law(m, profile)
    if isinstance(law, str):
        out += [not_applicable(q, law, "measured") for q in ("trajectory", "band", "passage")]
    elif law is not None:
        out += _measured_decaying(m, profile, law, sched.eta(np.arange(steps)), recorded, sim.rho)
    return out


def _expansion_decaying(m: DrawnModel, profile: Profile, sched: Schedule, steps: int,
                        chain: np.ndarray) -> list[Comparison]:
    """The expansion's trajectory, band and passage against the decaying chain ``chain``."""
    p = m.problem
    runs = chain.shape[0]
    stride = max(1, steps // 4)
    pred = predict(p, sched, steps, profile.trajectory_rho0, stride, engine="scalar")
    if not pred.success:
        return [not_applicable(q, f"predict failed: {pred.message}") for q in ("trajectory", "band", "passage")]
    recorded = [int(k) for k in pred.step]  # 0, S, 2 S, 3 S, steps
    out = []
    for i in (1, 2, -1):
        x = chain[:, recorded[i]]
        out.append(judge("trajectory", None, 1.0 - pred.rho_corrected[i], 1.0 - x.mean(),
                         x.std(ddof=1) / math.sqrt(runs), step=recorded[i], steps=steps,
                         plain=float(1.0 - pred.rho_plain[i]), schedule=sched.as_dict(), runs=runs))
    tab = _tables(p)
    seed = _stream(m, profile, 2)
    bd = band(p, sched, steps, profile.trajectory_rho0, stride=stride, runs=profile.prediction_runs, seed=seed,
              route=tab)
    widen = math.sqrt(1.0 + runs / profile.prediction_runs)  # the prediction's own quantile error
    for i in (2, -1):
        k = recorded[i]
        j = int(np.flatnonzero(bd.step == k)[0])
        x = chain[:, k]
        for q, theory in ((0.1, bd.q10[j]), (0.9, bd.q90[j])):
            out.append(judge("band", None, 1.0 - theory, 1.0 - float(np.quantile(x, q)), widen * order_se(x, q),
                             step=k, quantile=q, steps=steps, runs=runs, prediction_runs=profile.prediction_runs))
    target = _passage_target(profile, float(pred.rho_corrected[2]), recorded[2])
    if isinstance(target, Comparison):
        return [*out, target]
    cx = complexity(p, sched, profile.trajectory_rho0, target, runs=profile.prediction_runs, horizon=steps,
                    seed=seed + 1, route=tab)
    first = first_hits(chain, target, never=steps + 1).astype(float)
    se = widen * order_se(first, 0.5)
    detail = {"theory_q10": cx.q10_steps, "theory_q90": cx.q90_steps, "prediction_runs": profile.prediction_runs}
    return [*out, _passage(cx.median_steps, first, target, steps, se, "expansion", detail)]


def _passage_target(profile: Profile, half: float, step: int, route: str = "expansion") -> float | Comparison:
    """The passage level, 90% of the way from ``rho_0`` to the predicted mean ``half`` at ``step``
    (at most 0.99), or the n/a record when the prediction does not rise above ``rho_0``."""
    rho0 = profile.trajectory_rho0
    target = min(0.99, rho0 + 0.9 * (half - rho0))
    if not target > rho0 + 0.05:
        return not_applicable("passage", f"the predicted mean at step {step} ({half:.3g}) is not above "
                                         f"rho_0 = {rho0}: no level to pass", route)
    return target


def _passage(median: float, first: np.ndarray, target: float, steps: int, se: float, route: str,
             extra: dict) -> Comparison:
    """The predicted median first passage ``median`` (``inf``: not reached) against the chain's
    first passages ``first`` (``steps + 1`` where never), censored at the run's end."""
    mc = float(np.median(first))
    detail = {"target": target, "steps": steps, "runs": first.size, **extra,
              "mc_q10": float(np.quantile(first, 0.1)), "mc_q90": float(np.quantile(first, 0.9)),
              "censored": int((first > steps).sum())}
    if mc < MIN_PASSAGE:  # a property of the experiment, not of the theory under test
        return not_applicable("passage", f"the chain's median first passage to |rho| >= {target:.3g} is step "
                                         f"{mc:g}: a passage in fewer than {MIN_PASSAGE} steps tests the chain's "
                                         "discreteness, not the diffusion (a small-step limit)", route)
    theory_reached, mc_reached = math.isfinite(median) and median <= steps, mc <= steps
    theory = median if theory_reached else float(steps + 1)
    c = judge("passage", None, theory, mc, se, route=route, **detail)
    if theory_reached and mc_reached:
        return c
    if not theory_reached and not mc_reached:
        return not_applicable("passage", f"neither the prediction nor the chain reaches |rho| >= {target:.3g} "
                                         f"in half of the runs within {steps} steps", route)
    if c.status == "fail":  # one median beyond the run (counted as steps + 1): the gap is at least this
        return replace(c, detail={**c.detail, "censored_median": "theory" if mc_reached else "mc"})
    return not_applicable("passage", f"the {'prediction' if mc_reached else 'chain'}'s median lies beyond the "
                                     f"run's {steps} steps and the other's at {min(theory, mc):.0f}: "
                                     "a longer run decides", route)


def _measured_decaying(m: DrawnModel, profile: Profile, law: MeasuredLaw, etas: np.ndarray, recorded: list,
                       chain: np.ndarray) -> list[Comparison]:
    """The measured route's trajectory, band and passage against the decaying chain ``chain``."""
    runs, steps = chain.shape[0], etas.size
    points = [(recorded[i], None) for i in (1, 2, -1)] + [(recorded[i], q) for i in (2, -1) for q in (0.1, 0.9)]
    level: list[float] = []  # the passage level, set by the first (unresampled) law's own mean at half

    def read(x):
        vals = [1.0 - (x[:, k].mean() if q is None else np.quantile(x[:, k], q)) for k, q in points]
        ses = [x[:, k].std(ddof=1) / math.sqrt(x.shape[0]) if q is None else order_se(x[:, k], q)
               for k, q in points]
        if not level:
            level.append(float(x[:, recorded[2]].mean()))
        target = _passage_target(profile, level[0], recorded[2])
        first = first_hits(x, target if isinstance(target, float) else 2.0, never=steps + 1).astype(float)
        return [*vals, float(np.median(first))], [*ses, order_se(first, 0.5)]

    pr = predict_paths(law, etas, profile.trajectory_rho0, profile.prediction_runs, _stream(m, profile, 5), read)
    info = {"steps": steps, "runs": runs, "prediction_runs": profile.prediction_runs, **law_detail(law)}
    out = []
    for j, (k, q) in enumerate(points):
        x = chain[:, k]
        if q is None:
            mc, se = 1.0 - x.mean(), x.std(ddof=1) / math.sqrt(runs)
            out.append(judge("trajectory", None, pr.value[j], mc, math.hypot(se, pr.se(j)), route="measured",
                             step=k, **info))
        else:
            mc, se = 1.0 - float(np.quantile(x, q)), order_se(x, q)
            out.append(judge("band", None, pr.value[j], mc, math.hypot(se, pr.se(j)), route="measured", step=k,
                             quantile=q, **info))
    target = _passage_target(profile, level[0], recorded[2], "measured")
    if isinstance(target, Comparison):
        return [*out, target]
    first = first_hits(chain, target, never=steps + 1).astype(float)
    j = len(points)
    return [*out, _passage(pr.value[j], first, target, steps, math.hypot(order_se(first, 0.5), pr.se(j)),
                           "measured", {"prediction_runs": profile.prediction_runs, **law_detail(law)})]


def splitting(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(8) bistable models: ``P(+xi | rho* + w)`` of :func:`numerics.splitting_probability`
    (scale function) against the fraction of ``split_runs`` constant-step chains that reach
    ``b = (rho* + 1)/2`` before ``a = (rho* - 1)/2``, ``w = sqrt(eta Sigma(rho*) / (2 F'(rho*)))``
    (at most ``(1 - rho*)/4``, halfway to ``b``). The measured route predicts the same fraction
    from paths of the exact chain's one-step law at that step, from the same start.

    The step is the model's ``eta``, raised until 8 escape times ``1 / (eta F'(rho*))`` fit in
    ``split_steps`` (recorded) and lowered to ``eta F'(rho*) <= numerics.SPLIT_GROWTH``; runs are
    cut to the draw budget.
    """
    p = m.problem
    tab = _tables(p)
    routes = profile.routes

    def na(reason: str) -> list[Comparison]:
        return [not_applicable("splitting", reason, r) for r in routes]

    try:
        ref = splitting_probability(p, Schedule.constant(m.eta), 0.0, tables=tab)
    except ValueError as exc:
        return na(str(exc))
    # at least 8 escape times within split_steps, but eta F'(rho*) at most SPLIT_GROWTH, where the
    # scale function predicts a constant-step chain (as in the suite's sga.splitting)
    eta = min(max(m.eta, 8.0 / (ref.rate * profile.split_steps)), SPLIT_GROWTH / ref.rate)
    steps = math.ceil(8.0 / (ref.rate * eta))
    runs = min(profile.split_runs, int(profile.max_draws // (steps * p.batch * 4 * p.L)))
    if runs < 30:
        return na(f"{steps} steps of {runs} runs fit the draw budget ({profile.max_draws:.3g} normals); at least "
                  "30 runs are needed")
    sched = Schedule.constant(eta)
    w = math.sqrt(eta * float(tab.variance(np.array(ref.unstable))) / (2.0 * ref.rate))
    # the start stays halfway between rho* and b = (rho* + 1)/2 when the noise width is wider
    rho0 = float(ref.unstable + min(w, (1.0 - ref.unstable) / 4.0))
    pred = splitting_probability(p, sched, rho0, tables=tab)
    sim = simulate(p, sched, steps=steps, runs=runs, rho0=rho0, stride=1, seed=_stream(m, profile, 3))
    n, plus = exits(sim.rho, pred.a, pred.b)
    detail: dict[str, Any] = {"eta": eta, "model_eta": m.eta, "rho_star": ref.unstable, "rate": ref.rate,
                              "noise_width": w, "rho0": rho0, "a": pred.a, "b": pred.b, "steps": steps, "runs": runs,
                              "decided": n}
    if n < 0.95 * runs:
        return na(f"{runs - n} of {runs} runs reach neither a = {pred.a:.3g} nor b = {pred.b:.3g} within {steps} "
                  "steps")
    frac = plus / n
    se = math.sqrt(max(frac * (1.0 - frac), 1.0 / n) / n)
    out = [judge("splitting", None, pred.probability, frac, se, **detail, gaussian=pred.gaussian)]
    if "measured" in routes:
        out.append(_measured_splitting(m, profile, eta, steps, rho0, (pred.a, pred.b), (frac, se), detail))
    return out


def _measured_splitting(m: DrawnModel, profile: Profile, eta: float, steps: int, rho0: float, ab: tuple,
                        chain: tuple[float, float], detail: dict) -> Comparison:
    """The measured route's splitting fraction (paths of the law at ``eta`` exiting ``ab``) against the
    chain's (``chain``: its fraction and standard error)."""
    frac, se = chain
    try:
        law = constant_law(m.problem, eta, _stream(m, profile, 6), profile.law_drift_se)
    except ValueError as exc:
        return not_applicable("splitting", f"no measured law: {exc}", "measured")

    def read(x):
        n, plus = exits(x, *ab)
        f = plus / max(n, 1)
        return [f], [math.sqrt(max(f * (1.0 - f), 1.0 / max(n, 1)) / max(n, 1))]

    pr = predict_paths(law, np.full(steps, eta), rho0, profile.prediction_runs, _stream(m, profile, 7), read)
    return judge("splitting", None, pr.value[0], frac, math.hypot(se, pr.se(0)), route="measured", **detail,
                 **law_detail(law))
