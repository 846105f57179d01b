"""The simulated checks of a subspace case: ``subspace.tracking``, ``subspace.convergence`` and
``heads.angles`` (module docstring of :mod:`._subspace`, which holds the checks that simulate nothing).

Every simulation has an explicit seed (``ctx.seed_for(case, check, ...)``) and a budget in
token-steps (runs x steps x L); a design that does not fit is not run and the record is
``inconclusive``, naming the budget that would decide it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...numerics import Schedule, SimulationOptions, simulate
from ...theory import evaluate, heads_equilibrium, integrate_heads, integrate_subspace_flow, principal_angles
from ._context import CheckContext
from ._record import CheckRecord
from ._subspace import Started, _mid, distance, subspace_certificate

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

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
    run = Started(case, "subspace.tracking")
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
    return run.done(status, float(err.max()), tol, msg,
                    {"r0": r0.tolist(), "eta": eta, "steps": steps, "runs": runs, "t_end": t_end, "D": D,
                     "times": sim.times.tolist(), "mean": mean.tolist(), "ode": ode.tolist(), "se": se.tolist(),
                     "error": err.tolist(), "pilot_noise": v, "token_steps": cost, "budget": budget,
                     "token_steps_to_decide": need, "seed": sim.seed, "simulator": sim.simulator})


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


@dataclass(frozen=True)
class _Design:
    """The runs of ``subspace.convergence`` (``heads = 1``) and ``heads.angles``: ``STARTS`` uniform
    ``starts`` with the limit flow's end from each (``preds``), each run ``per`` times for ``K`` steps
    of ``schedule`` (``runs`` in all, ``cost`` token-steps against the ``budget`` ``sga_sim_budget``);
    ``info`` is recorded in the details."""

    starts: list
    preds: list
    schedule: Schedule
    K: int
    per: int
    info: dict
    runs: int
    cost: float
    budget: float


def _design(case: Case, ctx: CheckContext, check: str, heads: int) -> _Design:
    """The :class:`_Design` of ``check`` on ``case`` with ``heads`` heads."""
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
    runs = runs_per_start * len(starts)
    return _Design(starts, preds, schedule, K, runs_per_start,
                   {"t_need": t_need, "slowest_rate": rate, "fastest_rate": max(fast), "pilot_noise": v},
                   runs, runs * K * problem.L, _budget(ctx, "sga_sim_budget"))


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
    run = Started(case, "subspace.convergence")
    m, problem = case.model, case.problem
    cert = subspace_certificate(m)
    design = _design(case, ctx, "subspace.convergence", 1)
    starts, preds, schedule, K, per, info = design.starts, design.preds, design.schedule, design.K, design.per, \
        design.info
    runs, cost, budget = design.runs, design.cost, design.budget
    stable = [b for b in cert.boxes if b.status == "stable"]
    labels = []
    for p in preds:
        hit = [b for b in stable if np.linalg.norm(np.asarray(_mid(b)) - p) < 1e-4]
        labels.append(hit[0].label if hit else None)
    details = {"starts": [s[:, 0].tolist() for s in starts], "predicted": [p.tolist() for p in preds],
               "predicted_labels": labels, "steps": K, "runs_per_start": per,
               "schedule": [schedule.eta0, schedule.k0, schedule.power],
               "token_steps": cost, "budget": budget, "near": NEAR, **info}
    if cost > budget:
        return run.done("inconclusive", None, PASS_SHARE,
                        f"not run: reaching the predicted attractors ({', '.join(sorted(set(map(str, labels))))}) "
                        f"needs {K} steps x {runs} runs = {cost:.2g} token-steps (ODE time {1.5 * info['t_need']:g}, "
                        f"slowest contraction rate {info['slowest_rate']:.3g}), above the budget {budget:.2g} "
                        f"(--budget {cost:.2g} runs it)", details)
    near, judged, rows = 0, 0, []
    for i, (M0, p, lab) in enumerate(zip(starts, preds, labels, strict=True)):
        sim = simulate(problem.with_heads(1), schedule, steps=K, runs=per,
                       options=SimulationOptions(M0=M0, engine="subspace"),
                       seed=ctx.seed_for(case.name, "subspace.convergence", i), stride=K)
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
        return run.done("inconclusive", None, PASS_SHARE,
                        "no start's limit is a certified stable equilibrium: nothing to judge", details)
    share = near / judged
    status = "pass" if share >= PASS_SHARE else "fail"
    where = ", ".join(f"{lab}: {sum(r['near'] for r in rows if r['start'] == i)}/{per}"
                      for i, lab in enumerate(labels) if lab is not None)
    return run.done(status, share, PASS_SHARE,
                    f"{near}/{judged} runs end within {NEAR} of the certified attractor the limit ODE predicts "
                    f"from their start, up to the law's symmetries ({where}); {K} steps, eta_k = "
                    f"{schedule.eta0:.3g}/(k + {schedule.k0:.3g}), {cost:.2g} token-steps", details)


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
    run = Started(case, "heads.angles")
    m, problem, H = case.model, case.problem, case.heads
    design = _design(case, ctx, "heads.angles", H)
    starts, schedule, K, per, info = design.starts, design.schedule, design.K, design.per, design.info
    runs, cost, budget = design.runs, design.cost, design.budget
    preds = [np.asarray(p, float).reshape(m.k, H) for p in design.preds]  # H = 1: the overlaps r as a column
    pred_states = [_state(principal_angles(p)) for p in preds]
    details = {"heads": H, "k": m.k, "steps": K, "runs_per_start": per, "token_steps": cost, "budget": budget,
               "predicted_states": pred_states, "predicted_angles": [principal_angles(p).tolist() for p in preds],
               "schedule": [schedule.eta0, schedule.k0, schedule.power], **info}
    if cost > budget:
        return run.done("inconclusive", None, ANGLE_NEAR,
                        f"not run: {H} heads need {K} steps x {runs} runs = {cost:.2g} token-steps to reach the "
                        f"limit flow's end (ODE time {1.5 * info['t_need']:g}), above the budget {budget:.2g} "
                        f"(--budget {cost:.2g} runs it)", details)
    last_angles: list[np.ndarray] = []
    over_time, times = [], None
    for i, M0 in enumerate(starts):
        sim = simulate(problem.with_heads(H), schedule, steps=K, runs=per,
                       options=SimulationOptions(M0=M0, engine="subspace"),
                       seed=ctx.seed_for(case.name, "heads.angles", i), stride=max(1, K // 8))
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
    return run.done(status, float(finals.max()), ANGLE_NEAR,
                    f"H = {H}, k = {m.k} ({what}): {', '.join(f'{n} {s}' for s, n in counts.items())} of "
                    f"{len(states)} runs; median largest angle {med[0, -1]:.3g} -> {med[-1, -1]:.3g} rad over "
                    f"t = 0 -> {times[-1]:.3g}; the limit flow from the same starts predicts {', '.join(pred_states)}; "
                    f"{K} steps, {cost:.2g} token-steps", details)
