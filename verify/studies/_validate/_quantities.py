"""Each derived quantity of one model against the exact reduced chain (Monte Carlo).

Every function returns :class:`Comparison` records; the pass rule is
:func:`judge` (``verify.studies._validate._profile``). A quantity the theory does not
define for a model (no stable plateau) is returned as a :class:`Comparison` with
``status="n/a"`` and the reason, never silently dropped.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from ....numerics import Schedule, one_step_moments, predict, simulate
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
    status : {"pass", "fail", "n/a"}
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


#: the decaying schedule of :func:`trajectory`: ``eta_k = eta (K0 / (k + K0))^POWER``
K0, POWER = 20.0, 0.6


def trajectory(m: DrawnModel, profile: Profile) -> list[Comparison]:
    """(5) the mean trajectory under a decaying step: ``1 - E rho_k`` of :func:`numerics.predict`
    (the corrected ODE) against ``1 -`` the mean of ``plateau_runs`` runs from
    ``trajectory_rho0``, at a quarter, half and all of the steps (SE over runs)."""
    p = m.problem
    runs = profile.plateau_runs
    steps = _steps(profile, p, runs, profile.trajectory_steps)
    sched = Schedule(eta0=m.eta * K0**POWER, k0=K0, power=POWER)
    pred = predict(p, sched, steps, profile.trajectory_rho0, max(1, steps // 4))
    if not pred.success:
        return [not_applicable("trajectory", f"predict failed: {pred.message}")]
    sim = simulate(p, sched, steps=steps, runs=runs, rho0=profile.trajectory_rho0, stride=max(1, steps // 4),
                   seed=m.stream(len(profile.moment_rhos) + len(profile.drag_rhos) + 1))
    out = []
    for i in (1, 2, -1):  # steps S, 2 S and the last (both record 0, S, 2 S, ..., steps)
        x = sim.rho[:, i]
        out.append(judge("trajectory", None, 1.0 - pred.rho_corrected[i], 1.0 - x.mean(),
                         x.std(ddof=1) / math.sqrt(runs), step=int(sim.record_steps[i]), steps=steps,
                         plain=float(1.0 - pred.rho_plain[i]), schedule=sched.as_dict(), runs=runs))
    return out
