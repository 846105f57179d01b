"""The checks of a subspace case (docs/subspace.md, docs/subspace-certificates.md,
docs/subspace-simulation.md): a k-dimensional signal law and/or ``H`` orthonormal heads.

* ``subspace.quadrature`` (consistency): the float evaluator of the derived limit against an
  independent quadrature, at random overlaps ``r`` in the ball;
* ``subspace.equilibria`` (condition, certified): the certified equilibria, their stability, and
  whether the query specialises (the mixture is not an attractor) or stays at the mixture;
* ``subspace.tracking`` (consistency): mean overlaps of the exact reduced chain against the limit
  ODE ``dr/dt = g - <r, g> r`` on the time scale ``t = sum eta``;
* ``subspace.convergence`` (consistency): runs end at the attractor the limit ODE and the
  certified stability predict from their start, up to the symmetries of the law;
* ``heads.angles`` (condition): the principal angles between ``span Q`` and ``span U`` of ``H``
  heads go to 0 (recovery of ``min(k, H)`` directions), or which other state the runs end in.

Every simulation has an explicit seed (``ctx.seed_for(case, check, ...)``) and a budget in
token-steps (runs x steps x L); a design that does not fit is not run and the record is
``inconclusive``, naming the budget that would decide it.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...numerics import Schedule, SimulationOptions, simulate
from ...theory import (
    certify,
    evaluate,
    heads_equilibrium,
    integrate_heads,
    integrate_subspace_flow,
    principal_angles,
    subspace_quadrature,
)
from ._context import CheckContext
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

#: ``subspace.quadrature``: digits of the quadrature, and the largest relative difference of the
#: float evaluator (float64 rounding of a handful of exponentials) and of the derived expression
#: evaluated in mpmath (the quadrature's own comparison)
QUADRATURE_DPS = 30
FLOAT_TOLERANCE = 1e-9
MP_TOLERANCE = 1e-20
#: ``subspace.tracking``: the tolerance is ``D / TRACK_FRACTION`` (``D`` the ODE motion) and the
#: check is decided when three standard errors of the mean stay below it
TRACK_FRACTION = 8
#: ``subspace.convergence`` / ``heads.angles``: distance in ``r`` (and angle in radians) that
#: counts as "at the attractor", the share of runs that must be there, starts and runs per start
NEAR = 0.1
ANGLE_NEAR = 0.2
PASS_SHARE = 0.85
STARTS = 4
#: token-steps of the one-step pilot that measures the gradient noise
PILOT_RUNS = 200
PILOT_ETA = 1e-3


def _done(case: Case, rid: str, kind: str, status: str, *, value, threshold, message: str, details: dict,
          t0: float, certified: bool = False) -> list[CheckRecord]:
    return [CheckRecord(id=rid, kind=kind, status=status, value=None if value is None else float(value),
                        threshold=None if threshold is None else float(threshold), certified=certified,
                        message=message, details=details, model=case.model.as_dict(),
                        seconds=time.perf_counter() - t0)]


# ---------------------------------------------------------------- symmetries of the law

def symmetries(law) -> str | tuple[tuple[int, ...], ...]:
    """The coordinate symmetries of ``law`` that leave the limit invariant: ``"norm"`` for an
    isotropic Gaussian law (``j`` depends on ``|r|`` only), else a tuple of permutations of the
    ``k`` overlaps that preserve the law (one-hot atoms of equal probability are exchangeable)."""
    k = law.k
    if law.family == "gaussian" and not any(law.mu):
        return "norm"
    if law.family == "onehot" and k <= 6:
        probs = law.probs
        return tuple(p for p in itertools.permutations(range(k)) if all(probs[i] == probs[p[i]] for i in range(k)))
    return (tuple(range(k)),)


def distance(law, a, b) -> float:
    """``min over symmetries g of |a - g b|`` (``| |a| - |b| |`` for an isotropic law)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    sym = symmetries(law)
    if sym == "norm":
        return float(abs(np.linalg.norm(a) - np.linalg.norm(b)))
    return float(min(np.linalg.norm(a - b[list(p)]) for p in sym))


# ---------------------------------------------------------------- subspace.quadrature

def _ball_points(k: int, n: int, seed: int, radius: float = 0.95) -> np.ndarray:
    """``n`` points uniform in the ball of ``radius`` in ``R^k``."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, k))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x * radius * rng.random((n, 1)) ** (1.0 / k)


def check_subspace_quadrature(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.quadrature`` (consistency): ``evaluate_subspace`` (float64, the derived MGF
    route) against :func:`theory.subspace_quadrature` (tanh-sinh quadrature of the token
    moments, independent of the MGF) at ``ctx.quadrature_points`` random overlaps in the ball:

        rel = max(|j_float - j_quad| / |j_quad|, |g_float - g_quad| / |g_quad|)  <=  1e-9,

    and the derived expression in mpmath against the quadrature (``rel <= 1e-20``)."""
    t0 = time.perf_counter()
    m = case.model.with_heads(1)  # the field of one query (of which the heads' flow is built)
    seed = ctx.seed_for(case.name, "subspace.quadrature")
    n = max(1, int(ctx.quadrature_points))
    pts = _ball_points(m.k, n, seed)
    rows, worst_float, worst_mp = [], 0.0, 0.0
    for r in pts:
        v = evaluate(m, r, engine="subspace")
        q = subspace_quadrature(m, r, dps=QUADRATURE_DPS)
        jq, gq = float(q.objective[1]), np.asarray(q.gradient[1], float)
        rel_j = abs(float(v.objective) - jq) / max(abs(jq), 1e-300)
        rel_g = float(np.linalg.norm(np.asarray(v.gradient, float) - gq)) / max(float(np.linalg.norm(gq)), 1e-300)
        rel = max(rel_j, rel_g)
        worst_float, worst_mp = max(worst_float, rel), max(worst_mp, float(q.rel_diff))
        rows.append({"r": r.tolist(), "objective_float": float(v.objective), "objective_quadrature": jq,
                     "gradient_float": np.asarray(v.gradient, float).tolist(), "gradient_quadrature": gq.tolist(),
                     "rel_float": rel, "rel_derived_mp": float(q.rel_diff)})
    ok = worst_float <= FLOAT_TOLERANCE and worst_mp <= MP_TOLERANCE
    return _done(case,
                 "subspace.quadrature",
                 "consistency",
                 "pass" if ok else "fail",
                 value=worst_float,
                 threshold=FLOAT_TOLERANCE,
                 message=f"{n} random overlap point(s) r in the ball, {QUADRATURE_DPS}-digit quadrature: float "
                 f"evaluator j and grad j within {worst_float:.1e} relative (tolerance {FLOAT_TOLERANCE:.0e}); derived "
                 f"expression in mpmath within {worst_mp:.1e} (tolerance {MP_TOLERANCE:.0e})",
                 details={"points": rows, "seed": seed, "dps": QUADRATURE_DPS, "mp_tolerance": MP_TOLERANCE,
                  "max_rel_derived_mp": worst_mp},
                 t0=t0)


# ---------------------------------------------------------------- subspace.equilibria

@lru_cache(maxsize=32)
def subspace_certificate(model):
    """``theory.certify`` of the one-query flow of ``model`` on the subspace engine (with its
    completeness), once per model: the check is about the equilibria of one query (the flow of
    ``H > 1`` orthonormal heads is checked by ``heads.angles``)."""
    return certify(model.with_heads(1), engine="subspace")


def _mid(box) -> list[float]:
    return [float(b.mid()) for b in box.enclosure] if box.enclosure else list(box.start)


def _box_summary(b) -> dict:
    tangent = None if b.tangent_eigenvalue is None else float(b.tangent_eigenvalue.mid())
    return {"label": b.label, "classification": b.classification, "kind": b.kind, "status": b.status, "r": _mid(b),
            "radius": max((float(x.rad()) for x in b.enclosure), default=None) if b.enclosure else None,
            "tangent_eigenvalue": tangent, "tangent_inertia": list(b.tangent_inertia or ()),
            "radial_sign": b.radial_sign, "reason": b.reason}


def _completeness(cert) -> tuple[bool | None, str]:
    """Whether the list of ``cert`` is certified complete (``None`` for ``k >= 3``: not certified),
    and how (the certificate's :class:`theory.SubspaceCompleteness`)."""
    comp = cert.completeness
    if cert.model.k != 2:
        return None, f"completeness is not certified for k >= 3 ({comp.reason})"
    if not comp.complete:
        return False, comp.reason
    n_s = sum(b.kind == "sphere" for b in cert.boxes)
    return True, (f"complete: certify_circle and certify_disk find exactly these {n_s} + {len(cert.boxes) - n_s} "
                  "equilibria, with the same stability")


def check_subspace_equilibria(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.equilibria`` (condition): **the query specialises**, i.e. the symmetric mixture
    ``(xi_1 + ... + xi_k)/sqrt k`` is certified unstable and a specialised equilibrium (near one
    ``xi_j``) is certified stable. ``fails`` when the mixture is certified stable (the query
    stays at the mixture); ``undecided`` when a box is undecided or the law has no mixture /
    specialised classes (a Gaussian law). The record lists every certified equilibrium (box,
    kind, stability) and, for ``k = 2``, whether the list is certified complete
    (``certify_circle`` and ``certify_disk``); the verdict itself rests on the mixture's and the
    specialised boxes alone (local, certified facts), so an incomplete list does not change it."""
    t0 = time.perf_counter()
    m = case.model
    cert = subspace_certificate(m)
    complete, how = _completeness(cert)
    boxes = [_box_summary(b) for b in cert.boxes]
    mixture = next((b for b in cert.boxes if b.classification == "mixture+"), None)
    special = [b for b in cert.boxes if b.classification.startswith("specialised")]
    attractors = sorted({b.classification.split("(")[0] for b in cert.boxes if b.status == "stable"})
    anti = any(b.classification == "mixture-" and b.status == "stable" for b in cert.boxes)
    status, why = "undecided", ""
    if mixture is None:
        why = f"the law {case.prior} has no certified symmetric mixture equilibrium (no mixture/specialised classes)"
    elif mixture.status == "undecided":
        why = f"the mixture's box is undecided: {mixture.reason}"
    elif mixture.status == "stable":
        status = "fails"
    elif any(b.status == "stable" for b in special):
        status = "holds"
    else:
        why = "the mixture is unstable but no specialised equilibrium is certified stable"
    value = None
    if mixture is not None and mixture.tangent_eigenvalue is not None:
        value = float(mixture.tangent_eigenvalue.mid())
    listing = "; ".join(f"{b['label']} {b['status']}" for b in boxes)
    verdict = {"holds": "the mixture is certified unstable and the query specialises",
               "fails": "the mixture (xi_1+...+xi_k)/sqrt k is certified stable: the query does not specialise",
               "undecided": f"undecided: {why}"}[status]
    message = (f"{verdict}; attractors: {', '.join(attractors) or 'none certified'}"
               + ("; the anti-mixture -(xi_1+...+xi_k)/sqrt k is certified stable too" if anti else "")
               + f". Equilibria: {listing}. " + how)
    return _done(case,
                 "subspace.equilibria",
                 "condition",
                 status,
                 value=value,
                 threshold=0.0 if value is not None else None,
                 certified=status != "undecided" and cert.certified,
                 message=message,
                 details={"equilibria": boxes, "attractors": attractors, "anti_mixture_stable": anti,
                  "complete": complete, "completeness": how, "certified_all": cert.certified,
                  "notes": list(cert.notes), "prec": cert.prec,
                  "value": "the mixture's tangent eigenvalue (midpoint of its ball; k = 2)"},
                 t0=t0)


# ---------------------------------------------------------------- shared simulation pieces

def _budget(ctx: CheckContext, field: str) -> float:
    return float(ctx.budget) if ctx.budget is not None else float(getattr(ctx.preset, field))


def gradient_noise(problem, r0, seed: int, runs: int = PILOT_RUNS) -> float:
    """``sum_j Var X_j`` of the one-step increments ``X = (r_1 - r_0)/eta`` of the exact reduced
    chain at ``r0`` (a tiny step ``eta = 1e-3``): the gradient noise per unit of ``t`` and step."""
    M0 = np.asarray(r0, float).reshape(-1, 1)
    sim = simulate(problem.with_heads(1), Schedule.constant(PILOT_ETA), steps=1, runs=runs, seed=seed,
                   options=SimulationOptions(M0=M0, engine="subspace"))
    x = (sim.overlaps[:, 1, :, 0] - M0[:, 0]) / PILOT_ETA
    return float(np.sum(x.var(axis=0, ddof=1)))


def _ode_at(model, r0, times) -> np.ndarray:
    """The limit ODE from ``r0`` at ``times`` (``r0`` itself at ``t = 0``)."""
    return np.array([np.asarray(r0, float) if t <= 0 else integrate_subspace_flow(model, r0, t_max=float(t)).r
                     for t in times])


def _uniform_starts(k: int, d: int, heads: int, n: int, seed: int) -> list[np.ndarray]:
    """``n`` draws of ``M_0 = U^T Q_0`` for ``Q_0`` uniform on the Stiefel manifold of ``R^d``
    (``U`` the first ``k`` coordinates): the uniform start's overlaps."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        Q, R = np.linalg.qr(rng.standard_normal((d, heads)))
        Q = Q * np.sign(np.diag(R))
        out.append(Q[:k].copy())
    return out


def _schedule_for(rate: float, t_need: float, v: float, eta_first: float = 0.5):
    """``eta_k = a / (k + k0)`` with ``eta_0 = a / k0 = eta_first`` and the number of steps ``K``:
    ``K`` reaches ODE time ``t_need`` (``a log((K + k0)/k0) >= t_need``) and brings the predicted
    spread at the attractor, ``Var ~ a^2 v / ((2 a rate - 1) K)`` (Robbins-Monro with
    ``a rate > 1/2``; ``rate`` the slowest contraction rate, ``v`` the gradient noise), below
    ``(NEAR/3)^2``. ``a`` is chosen on a grid from ``1/rate`` to minimise ``K``."""
    best = None
    for a in np.geomspace(1.0 / rate, max(200.0, 2.0 / rate), 60):
        k0 = max(1.0, a / eta_first)
        K = max(k0 * math.expm1(min(t_need / a, 50.0)), a * a * v / ((2 * a * rate - 1) * (NEAR / 3) ** 2), 10.0)
        if best is None or K < best[1]:
            best = (a, K, k0)
    assert best is not None  # the grid has 60 points
    a, K, k0 = best
    return Schedule(eta0=float(a), k0=float(k0), power=1.0), math.ceil(K)


# ---------------------------------------------------------------- subspace.tracking

def _tracking_start(k: int) -> np.ndarray:
    return np.array([0.3] + [0.1] * (k - 1))


def check_subspace_tracking(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.tracking`` (consistency): one query (``H = 1``) from the fixed start
    ``r0 = (0.3, 0.1, ..., 0.1)`` with a constant step; the mean over runs of ``r`` at the recorded
    times against the limit ODE ``r(t)`` (``theory.integrate_subspace_flow``), ``t = k eta``.

    The horizon ``t_end`` is the first of ``1, 2, 4, ..., 64`` at which the ODE has moved
    ``0.3`` (or 64); ``D = max_t |r(t) - r0|``. Pass iff ``|mean r_t - r(t)| <= D/8 + 3 SE_t``
    at every recorded time, decided when ``3 max SE <= D/8``; an error beyond it fails whatever
    the noise. The step is chosen from a pilot of the gradient noise ``v`` so that the
    predicted ``3 SE = 3 sqrt(1.5 eta v t_end / runs)`` is ``D/8`` (at most ``0.05``), and raised
    to fit the budget ``tracking_budget``; undecided at that budget, the record is
    ``inconclusive`` and names the token-steps that would decide it.
    """
    t0 = time.perf_counter()
    m, problem = case.model, case.problem
    runs = int(ctx.preset.tracking_runs)
    r0 = _tracking_start(m.k)
    t_end = 1.0
    while t_end < 64 and np.linalg.norm(_ode_at(m, r0, [t_end])[0] - r0) < 0.3:
        t_end *= 2
    grid = np.linspace(0, t_end, 7)
    D = float(np.max(np.linalg.norm(_ode_at(m, r0, grid) - r0, axis=1)))
    tol = D / TRACK_FRACTION
    v = gradient_noise(problem, r0, ctx.seed_for(case.name, "subspace.tracking", "pilot"))
    # 1.5: the flow can amplify the noise it carries (the estimate eta v t ignores it)
    eta_want = min(0.05, t_end / 40, (tol / 3) ** 2 * runs / max(1.5 * v * t_end, 1e-300))
    budget = _budget(ctx, "tracking_budget")
    eta = max(eta_want, runs * t_end * problem.L / budget)
    steps = math.ceil(t_end / eta)
    sim = simulate(problem.with_heads(1), Schedule.constant(eta), steps=steps, runs=runs,
                   options=SimulationOptions(engine="subspace", M0=r0.reshape(-1, 1)),
                   seed=ctx.seed_for(case.name, "subspace.tracking", repr(eta)), stride=max(1, steps // 6))
    r = sim.overlaps[:, :, :, 0]
    mean = r.mean(axis=0)
    se = np.sqrt(r.var(axis=0, ddof=1).sum(axis=1) / runs)
    ode = _ode_at(m, r0, sim.times)
    err = np.linalg.norm(mean - ode, axis=1)
    over = err > tol + 3 * se
    decided = 3 * float(se.max()) <= tol
    status = "fail" if over.any() else ("pass" if decided else "inconclusive")
    cost = runs * steps * problem.L
    need = cost * (3 * float(se.max()) / tol) ** 2
    worst = int(np.argmax(err - tol - 3 * se)) if over.any() else int(np.argmax(err))
    msg = (f"mean overlaps of {runs} runs of one query (exact reduced chain, eta = {eta:.3g}, {steps} steps to "
           f"t = {t_end:g}) vs the "
           f"limit ODE from r0 = {np.round(r0, 3).tolist()}: max |mean r - r(t)| = {err.max():.3g} (at t = "
           f"{sim.times[worst]:.3g}: {err[worst]:.3g} vs tolerance D/8 = {tol:.3g} + 3 SE = {3 * se[worst]:.3g}); "
           f"ODE motion D = {D:.3g}")
    if status == "inconclusive":
        msg += (f"; the noise (3 SE = {3 * se.max():.3g}) exceeds D/8 at {cost:.2g} token-steps: deciding it needs "
                f"~{need:.2g} token-steps (--budget {need:.2g})")
    return _done(case,
                 "subspace.tracking",
                 "consistency",
                 status,
                 value=float(err.max()),
                 threshold=tol,
                 message=msg,
                 details={"r0": r0.tolist(), "eta": eta, "steps": steps, "runs": runs, "t_end": t_end, "D": D,
                  "times": sim.times.tolist(), "mean": mean.tolist(), "ode": ode.tolist(), "se": se.tolist(),
                  "error": err.tolist(), "pilot_noise": v, "token_steps": cost, "budget": budget,
                  "token_steps_to_decide": need, "seed": sim.seed, "simulator": sim.simulator},
                 t0=t0)


# ---------------------------------------------------------------- subspace.convergence

@dataclass(frozen=True)
class _Rates:
    """The slowest and fastest contraction rates at an equilibrium of the one-query flow."""

    slowest: float
    fastest: float


def _contraction_rates(model, r) -> _Rates:
    """The contraction rates at the equilibrium ``r`` of the one-query flow (float): the
    ``|eigenvalues|`` of the tangent block ``T^T (H - lam I) T`` and the radial ``2 |lam|``."""
    v = evaluate(model.with_heads(1), np.asarray(r, float), engine="subspace")
    r = np.asarray(r, float)
    lam = float(r @ np.asarray(v.gradient, float))
    rates = [2 * abs(lam)]
    if model.k > 1:
        Qm, _ = np.linalg.qr(np.column_stack([r, np.eye(model.k)]))
        T = Qm[:, 1:model.k]
        rates += list(np.abs(np.linalg.eigvalsh(T.T @ (np.asarray(v.hessian, float) - lam * np.eye(model.k)) @ T)))
    return _Rates(float(min(rates)), float(max(rates)))


def _settle_time(gap, near: float, t_cap: float = 4096.0) -> float:
    """A time ``t`` (up to ``t_cap``) with ``gap(t) <= near``: the first of ``1, 2, 4, ...``, then
    three bisection steps towards the first such time (within 1/8 of the doubling)."""
    t = 1.0
    while t < t_cap and gap(t) > near:
        t *= 2
    lo, hi = t / 2, t
    if t > 1.0 and t < t_cap:
        for _ in range(3):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if gap(mid) <= near else (mid, hi)
    return hi


def _design(case: Case, ctx: CheckContext, check: str, heads: int):
    """Starts, limit predictions and schedule of ``subspace.convergence`` (``heads = 1``) and
    ``heads.angles``: ``STARTS`` uniform starts, each run ``runs_per_start`` times."""
    m, problem = case.model, case.problem
    starts = _uniform_starts(m.k, problem.d, heads, STARTS, ctx.seed_for(case.name, check, "starts"))
    preds, t_need, rates, fast = [], 0.0, [], []
    for M0 in starts:
        if heads == 1:
            end = integrate_subspace_flow(m, M0[:, 0], t_max=4096.0).r
            t_s = _settle_time(lambda t, M0=M0, end=end: np.linalg.norm(
                integrate_subspace_flow(m, M0[:, 0], t_max=t).r - end), NEAR / 2)
            preds.append(end)
            at = _contraction_rates(m, end)
            rates.append(at.slowest)
            fast.append(at.fastest)
        else:
            end = integrate_heads(m, M0, t_max=4096.0).M
            t_s = _settle_time(lambda t, M0=M0, end=end: np.linalg.norm(
                integrate_heads(m, M0, t_max=t).M - end), NEAR / 2)
            preds.append(end)
            eq = heads_equilibrium(m, end)
            # H > k: the flow does not see some directions of the frame (neutral eigenvalues, which
            # leave the angles alone); the rate is that of the others
            ev = np.sort(np.real(np.asarray(eq.eigenvalues)))[::-1][int(eq.neutral):]
            rates.append(float(-ev[0]) if ev.size and ev[0] < 0 else 0.0)
            fast.append(float(np.max(np.abs(np.real(np.asarray(eq.eigenvalues))))))
        t_need = max(t_need, t_s)
    rate = max(min(rates), 1e-3)
    v = gradient_noise(problem, np.full(m.k, 0.5 / math.sqrt(m.k)), ctx.seed_for(case.name, check, "pilot"))
    # the first step resolves the fastest contraction (eta |lambda| <= 0.2): a larger one leaves the
    # limit ODE's path from the start, and with it the basin it predicts
    eta_first = min(0.5, 0.2 / max(max(fast), 1e-12))
    schedule, K = _schedule_for(rate, 1.5 * t_need, v * heads, eta_first)
    runs_per_start = max(3, int(ctx.preset.sga_runs) // 5)
    return starts, preds, schedule, K, runs_per_start, {"t_need": t_need, "slowest_rate": rate,
                                                         "fastest_rate": max(fast), "pilot_noise": v}


def check_subspace_convergence(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.convergence`` (consistency): ``STARTS`` uniform starts (``r0 = U^T q_0``, ``q_0``
    uniform on the sphere of ``R^d``), each run a few times with ``eta_k = a/(k + k0)``; the
    limit ODE from each start ends at a certified stable equilibrium (``subspace.equilibria``'s
    boxes; a start whose limit is not certified stable is not judged). Pass iff at least
    ``PASS_SHARE`` of the runs end within ``NEAR`` of that attractor, up to the symmetries of
    the law (:func:`distance`). ``a`` is the inverse of the slowest contraction rate at the
    predicted attractors, ``K`` steps reach ``1.5 x`` the ODE time to within ``NEAR/2`` and bring
    the predicted spread below ``NEAR/3``; a design above the budget ``sga_sim_budget`` is not
    run (``inconclusive``, with the token-steps it needs)."""
    t0 = time.perf_counter()
    m, problem = case.model, case.problem
    cert = subspace_certificate(m)
    starts, preds, schedule, K, per, info = _design(case, ctx, "subspace.convergence", 1)
    stable = [b for b in cert.boxes if b.status == "stable"]
    labels = []
    for p in preds:
        hit = [b for b in stable if np.linalg.norm(np.asarray(_mid(b)) - p) < 1e-4]
        labels.append(hit[0].label if hit else None)
    runs = per * len(starts)
    cost = runs * K * problem.L
    budget = _budget(ctx, "sga_sim_budget")
    details = {"starts": [s[:, 0].tolist() for s in starts], "predicted": [p.tolist() for p in preds],
               "predicted_labels": labels, "steps": K, "runs_per_start": per,
               "schedule": [schedule.eta0, schedule.k0, schedule.power],
               "token_steps": cost, "budget": budget, "near": NEAR, **info}
    if cost > budget:
        return _done(case,
                     "subspace.convergence",
                     "consistency",
                     "inconclusive",
                     value=None,
                     threshold=PASS_SHARE,
                     message=f"not run: reaching the predicted attractors ({', '.join(sorted(set(map(str, labels))))}) "
                     f"needs {K} steps x {runs} runs = {cost:.2g} token-steps (ODE time {1.5 * info['t_need']:g}, "
                     f"slowest contraction rate {info['slowest_rate']:.3g}), above the budget {budget:.2g} "
                     f"(--budget {cost:.2g} runs it)",
                     details=details,
                     t0=t0)
    near, judged, rows = 0, 0, []
    for i, (M0, p, lab) in enumerate(zip(starts, preds, labels, strict=True)):
        sim = simulate(problem.with_heads(1), schedule, steps=K, runs=per,
                       seed=ctx.seed_for(case.name, "subspace.convergence", i), stride=K,
                       options=SimulationOptions(M0=M0, engine="subspace"))
        for r in sim.final_overlaps[:, :, 0]:
            dist = distance(m.law, r, p)
            ok = dist <= NEAR
            if lab is not None:
                judged += 1
                near += ok
            rows.append({"start": i, "end": r.tolist(), "distance": dist, "near": bool(ok)})
    details["runs"] = rows
    details["judged"] = judged
    if judged == 0:
        return _done(case,
                     "subspace.convergence",
                     "consistency",
                     "inconclusive",
                     value=None,
                     threshold=PASS_SHARE,
                     message="no start's limit is a certified stable equilibrium: nothing to judge",
                     details=details,
                     t0=t0)
    share = near / judged
    status = "pass" if share >= PASS_SHARE else "fail"
    where = ", ".join(f"{lab}: {sum(r['near'] for r in rows if r['start'] == i)}/{per}"
                      for i, lab in enumerate(labels) if lab is not None)
    return _done(case,
                 "subspace.convergence",
                 "consistency",
                 status,
                 value=share,
                 threshold=PASS_SHARE,
                 message=f"{near}/{judged} runs end within {NEAR} of the certified attractor the limit ODE predicts "
                 f"from their start, up to the law's symmetries ({where}); {K} steps, eta_k = {schedule.eta0:.3g}/(k + "
                 f"{schedule.k0:.3g}), {cost:.2g} token-steps",
                 details=details,
                 t0=t0)


# ---------------------------------------------------------------- heads.angles

def _state(angles: np.ndarray) -> str:
    """``recovered`` (every angle < ANGLE_NEAR), ``shared direction`` (some angle < ANGLE_NEAR,
    some > pi/2 - 0.3) or ``other``."""
    if np.all(angles < ANGLE_NEAR):
        return "recovered"
    if np.any(angles < ANGLE_NEAR) and np.any(angles > math.pi / 2 - 0.3):
        return "shared direction"
    return "other"


def check_heads_angles(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``heads.angles`` (condition): **the H heads recover ``min(k, H)`` directions of the signal
    subspace**: every principal angle between ``span Q`` and ``span U`` ends below ``0.2`` rad
    (``H = k``: ``span Q = span U``; ``H < k``: ``span Q`` inside ``span U``; ``H > k``: ``span U``
    inside ``span Q``). ``fails`` when some run ends in another state (counted: ``shared
    direction``, angles near ``(0, pi/2)``, or ``other``). Uniform frames as starts; the limit
    flow of the heads (``theory.integrate_heads``) from each start gives the predicted state
    (numerical), reported beside the runs. Budget ``sga_sim_budget`` as in
    ``subspace.convergence``."""
    t0 = time.perf_counter()
    m, problem, H = case.model, case.problem, case.heads
    starts, preds, schedule, K, per, info = _design(case, ctx, "heads.angles", H)
    preds = [np.asarray(p, float).reshape(m.k, H) for p in preds]  # H = 1: the overlaps r as a column
    pred_states = [_state(principal_angles(p)) for p in preds]
    runs = per * len(starts)
    cost = runs * K * problem.L
    budget = _budget(ctx, "sga_sim_budget")
    details = {"heads": H, "k": m.k, "steps": K, "runs_per_start": per, "token_steps": cost, "budget": budget,
               "predicted_states": pred_states, "predicted_angles": [principal_angles(p).tolist() for p in preds],
               "schedule": [schedule.eta0, schedule.k0, schedule.power], **info}
    if cost > budget:
        return _done(case,
                     "heads.angles",
                     "condition",
                     "inconclusive",
                     value=None,
                     threshold=ANGLE_NEAR,
                     message=f"not run: {H} heads need {K} steps x {runs} runs = {cost:.2g} token-steps to reach the "
                     f"limit flow's end (ODE time {1.5 * info['t_need']:g}), above the budget {budget:.2g} "
                     f"(--budget {cost:.2g} runs it)",
                     details=details,
                     t0=t0)
    last_angles: list[np.ndarray] = []
    over_time, times = [], None
    for i, M0 in enumerate(starts):
        sim = simulate(problem.with_heads(H), schedule, steps=K, runs=per,
                       seed=ctx.seed_for(case.name, "heads.angles", i), stride=max(1, K // 8),
                       options=SimulationOptions(M0=M0, engine="subspace"))
        ang = sim.principal_angles()
        last_angles.extend(ang[:, -1])
        over_time.append(ang)
        times = sim.times
    assert times is not None  # set by the runs of the first start
    finals = np.array(last_angles)
    states = [_state(a) for a in finals]
    counts = {s: states.count(s) for s in ("recovered", "shared direction", "other") if s in states}
    med = np.median(np.concatenate(over_time, axis=0), axis=0)  # (n_rec, min(k, H))
    status = "holds" if counts.get("recovered", 0) == len(states) else "fails"
    what = {1: "q in span(U)"}.get(H, "span Q = span U" if H == m.k else
                                  ("span Q inside span U" if H < m.k else "span U inside span Q"))
    details.update({"final_angles": finals.tolist(), "states": states, "counts": counts, "times": times.tolist(),
                    "median_angles_over_time": med.tolist()})
    return _done(case,
                 "heads.angles",
                 "condition",
                 status,
                 value=float(finals.max()),
                 threshold=ANGLE_NEAR,
                 message=f"H = {H}, k = {m.k} ({what}): {', '.join(f'{n} {s}' for s, n in counts.items())} of "
                 f"{len(states)} runs; median largest angle {med[0, -1]:.3g} -> {med[-1, -1]:.3g} rad over "
                 f"t = 0 -> {times[-1]:.3g}; the limit flow from the same starts predicts {', '.join(pred_states)}; "
                 f"{K} steps, {cost:.2g} token-steps",
                 details=details,
                 t0=t0)
