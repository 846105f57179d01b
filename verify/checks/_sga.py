"""Checks that compare the stochastic recursion with the limit theory (DESIGN.md section 3).

``ode.lyapunov``, ``stepsize.robbins_monro``, ``sga.convergence``, ``sga.tracking``,
``sga.filtering`` (+ the condition ``sga.filtering.vanishes``). The finite-size checks
(``finite_size.rate``, ``simulator.reduced_exact``) live in :mod:`verify._checks_finite`.

Every check has the signature ``check_xxx(model_cfg, *, seed, quick, figure_dir=None)``
and returns a list of :class:`verify._records.CheckRecord`. ``model_cfg`` is a
:class:`numerics.Problem`; the limit model is ``model_cfg.model`` (``alpha = R / L``).
Nothing here is certified: it is numerical evidence (``certified=False``).

What each check uses of ``model_cfg``
------------------------------------
* ``ode.lyapunov``: the limit model only.
* ``stepsize.robbins_monro``: the schedule in use (:func:`default_schedule` unless one
  is passed).
* ``sga.convergence`` / ``sga.filtering``: the exact reduced simulator at the given
  ``(theta, R, L, d, beta, sigma2, prior, batch)``, ``q_0`` uniform on the sphere, the
  schedule in use, for as many steps as the budget allows (see :func:`default_schedule`).
* ``sga.tracking``: the given ``(theta, alpha, beta, sigma2, prior)``, with ``d`` capped
  at :data:`TRACK_D_MAX` and ``L`` scanned downwards from the given ``L`` at fixed
  ``alpha``, constant steps scanned downwards. Why cap ``d``: the renormalisation of
  ``q`` adds a drift ``-(eta/2) rho E|P g|^2`` with ``E|P g|^2 ~ d / L``, an
  ``O(eta d / L)`` bias that vanishes in the limit (``d`` fixed, ``L -> inf``,
  ``eta -> 0``) but at the paper's sizes and affordable steps can dominate the
  comparison; it is the subject of the effective-drift issue, not of this check.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...numerics import Problem, Schedule, basins, flow_map, integrate, simulate, time_to_alignment
from ...theory import certify, evaluate

from ._record import CheckRecord

#: largest dimension used by ``sga.tracking`` (see the module docstring)
TRACK_D_MAX = 10
#: |rho_final| >= this counts as recovered (DESIGN.md section 3)
RECOVERY_LEVEL = 0.99
#: fraction of recovered runs for the condition "recovery" to hold
RECOVERY_FRACTION = 0.9
#: token-steps (runs x steps x L) budgets of the simulations, quick / full
SIM_BUDGET = {True: 4.0e7, False: 1.2e9}
#: fewest steps a convergence run takes when the budget allows (see default_schedule)
MIN_STEPS = 400
TRACK_BUDGET = {True: 5.0e7, False: 1.5e9}
RUNS = {True: 16, False: 32}


# ----------------------------------------------------------------- small helpers


def _fig_path(figure_dir, name: str, cfg: Problem) -> Path | None:
    if figure_dir is None:
        return None
    figure_dir = Path(figure_dir)
    figure_dir.mkdir(parents=True, exist_ok=True)
    tag = f"{cfg.prior}_t{cfg.theta:g}_R{cfg.R}_L{cfg.L}_d{cfg.d}".replace(".", "p")
    return figure_dir / f"{name}_{tag}.png"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def loglog_fit(x, y, w=None) -> tuple[float, float, float]:
    """Weighted least squares of ``log y = a + p log x``; returns ``(p, se_p, a)``.

    ``w`` are weights (inverse variances of ``log y``); without them the standard
    error is the usual OLS one (``nan`` for two points).
    """
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    n = lx.size
    w = np.ones(n) if w is None else np.asarray(w, float)
    A = np.stack([np.ones(n), lx], axis=1)
    W = np.diag(w)
    cov = np.linalg.inv(A.T @ W @ A)
    a, p = cov @ A.T @ W @ ly
    if n > 2:
        resid = ly - a - p * lx
        scale = float(resid @ W @ resid) / (n - 2)
        se = math.sqrt(cov[1, 1] * scale) if w is None or np.all(w == 1) else math.sqrt(cov[1, 1] * max(scale, 1.0))
    else:
        se = math.sqrt(cov[1, 1]) if w is not None else float("nan")
    return float(p), float(se), float(a)


def one_step_increments(cfg: Problem, rho: float, n: int, seed: int, eta: float = 1e-7):
    """Samples of the projected stochastic gradient along ``xi`` at alignment ``rho``.

    One step of the exact reduced chain with a tiny constant step ``eta``:
    ``rho_1 = (rho + eta s c) / sqrt(1 + eta^2 |P g|^2)`` with ``s c = <P_q g, xi>``,
    so ``(rho_1 - rho) / eta = <P_q g, xi> + O(eta |P g|^2)`` (``eta = 1e-7`` makes the
    remainder and the rounding ``~1e-9 / eta`` negligible against the effects measured).

    Returns
    -------
    x : ndarray, shape (n,)
        ``<P_q g, xi>`` samples (their mean tends to ``F(rho)``).
    noise_mass : ndarray, shape (n,)
        Nuisance attention mass of the same token collections.
    """
    xs, ms = [], []
    chunk = int(max(1, min(n, 3_000_000 // (3 * cfg.L))))
    for i, lo in enumerate(range(0, n, chunk)):
        sim = simulate(cfg, Schedule.constant(eta), steps=1, runs=min(chunk, n - lo), rho0=rho,
                       seed=int(seed) * 7919 + i)
        xs.append((sim.rho[:, 1] - rho) / eta)
        ms.append(sim.noise_mass[:, 0])
    return np.concatenate(xs), np.concatenate(ms)


def _scaled_problem(cfg: Problem, L: int, d: int | None = None) -> Problem:
    """``cfg`` with ``L`` tokens at (as nearly as integers allow) the same ``alpha``."""
    R = max(1, round(cfg.R * L / cfg.L)) if cfg.R else 0
    return Problem(theta=cfg.theta, R=min(R, L), L=L, d=cfg.d if d is None else d, beta=cfg.beta,
                   sigma2=cfg.sigma2, prior=cfg.prior, batch=cfg.batch)


@lru_cache(maxsize=32)
def _equilibria(model) -> tuple:
    """Midpoints of the certified brackets of the interior equilibria (``theory.certify``)."""
    cert = certify(model)
    return tuple(0.5 * (b.lo + b.hi) for b in cert.equilibria)


# ----------------------------------------------------------------- ode.lyapunov


def check_lyapunov(model_cfg: Problem, *, seed: int = 0, quick: bool = True, figure_dir=None) -> list[CheckRecord]:
    """``ode.lyapunov``: ``J = j(rho(t))`` is non-decreasing along integrated trajectories.

    Uses only the limit model. Starts: a grid of ``7`` (quick) or ``41`` points in
    ``(-1, 1)``; each trajectory is sampled at ``200`` times up to the horizon at which
    the slowest start reaches ``|rho| = 0.99`` (or ``20 / max|F|``). ``J`` is evaluated
    by ``theory.evaluate``. Tolerance on a decrease: ``1e-12 (1 + |J|)``, the rounding
    level of the float evaluation of ``j``.
    """
    t0 = time.perf_counter()
    m = model_cfg.model
    starts = np.linspace(-0.98, 0.98, 7 if quick else 41)
    eq = _equilibria(m)
    fmax = float(np.max(np.abs(evaluate(m, np.linspace(-1, 1, 401)).field)))
    hit = time_to_alignment(m, starts, 0.99, equilibria=eq).time
    finite = hit[np.isfinite(hit)]
    horizon = float(finite.max()) * 1.2 if finite.size else 20.0 / max(fmax, 1e-300)
    if not math.isfinite(horizon) or horizon <= 0:
        horizon = 1.0
    times = np.linspace(0.0, horizon, 200)
    worst, worst_start, increase, failures = 0.0, None, [], 0
    for r0 in starts:
        traj = integrate(m, float(r0), times)
        if not traj.success:
            failures += 1
            continue
        J = evaluate(m, traj.rho).objective
        dJ = np.diff(J) / (1.0 + np.abs(J[:-1]))
        if dJ.min() < worst:
            worst, worst_start = float(dJ.min()), float(r0)
        increase.append(float(J[-1] - J[0]))
    tol = 1e-12
    ok = worst >= -tol and failures == 0
    return [CheckRecord(
        id="ode.lyapunov", kind="consistency", status="pass" if ok else "fail",
        value=worst, threshold=-tol, certified=False,
        message=(f"J non-decreasing along {starts.size} ODE trajectories up to t = {horizon:.3g}: "
                 f"largest relative decrease {max(-worst, 0.0):.1e} (tolerance {tol:.0e})"
                 + (f", {failures} integrations failed" if failures else "")),
        details={"starts": starts.tolist(), "horizon": horizon, "samples_per_trajectory": times.size,
                 "worst_relative_decrease": -worst, "worst_start": worst_start,
                 "total_increase_min": min(increase) if increase else None, "integration_failures": failures,
                 "equilibria": eq},
        model=m.as_dict(), seconds=time.perf_counter() - t0)]


# ----------------------------------------------------------------- schedule


def default_schedule(model_cfg: Problem, *, quick: bool = True, seed: int = 0) -> tuple[Schedule, int, dict]:
    """The Robbins–Monro schedule and step count used by ``sga.convergence``/``sga.filtering``.

    ``eta_k = eta0 / (k + k0)^0.6`` with ``k0 = 100`` (``1/2 < 0.6 <= 1``). The first
    step ``eps = eta0 / k0^0.6`` is the largest for which the renormalisation drag at
    ``rho = 0.99``, ``(eps/2) rho E|P g|^2`` (measured by one step of the reduced chain,
    common random numbers at two step sizes), is below half of ``F(0.99)``, so that the
    iterates can actually reach ``|rho| >= 0.99`` — unless the step budget
    (:data:`SIM_BUDGET`) cannot then reach the ODE time needed, in which case ``eps`` is
    raised to the value that reaches it and ``details["drag_limited"]`` says so.

    Returns ``(schedule, steps, details)``.
    """
    m = model_cfg.model
    runs = RUNS[quick]
    p, k0 = 0.6, 100.0
    # ODE time needed from the typical start (|rho_0| ~ 1/sqrt(d)) to |rho| = 0.99, x 1.5
    r_typ = 1.0 / math.sqrt(model_cfg.d)
    eq = _equilibria(m)
    # (starts at a quarter of the typical size too: near an unstable equilibrium at 0,
    # as under the rademacher prior, runs need longer than from the typical start)
    t_hit = time_to_alignment(m, [-r_typ, -r_typ / 4, 0.0, r_typ / 4, r_typ], 0.99, equilibria=eq).time
    t_hit = t_hit[np.isfinite(t_hit)]
    fmax = float(np.max(np.abs(evaluate(m, np.linspace(-1, 1, 401)).field)))
    t_need = 1.5 * float(t_hit.max()) if t_hit.size else 10.0 / max(fmax, 1e-12)
    # drag coefficient E|P g|^2 at rho = 0.99 from two step sizes with the same draws
    r = RECOVERY_LEVEL
    n = 200 if quick else 800
    x, _ = one_step_increments(model_cfg, r, n, seed + 11)
    sim = simulate(model_cfg, Schedule.constant(1.0), steps=1, runs=min(n, int(3_000_000 // (3 * model_cfg.L)) or 1),
                   rho0=r, seed=(seed + 11) * 7919)
    k = sim.rho.shape[0]
    pg2 = np.mean(((r + x[:k]) / sim.rho[:, 1]) ** 2 - 1.0)
    F99 = float(evaluate(m, r).field)
    eps_drag = 0.5 * abs(F99) * 2.0 / max(r * pg2, 1e-300)
    max_steps = int(SIM_BUDGET[quick] // (runs * model_cfg.L))
    max_steps = max(max_steps, 50)

    def steps_for(eps):
        c = eps * k0**p  # eta0
        # t_k = sum eta_j ~ c/(1-p) ((k+k0)^(1-p) - k0^(1-p))
        target = (t_need * (1 - p) / c + k0 ** (1 - p)) ** (1 / (1 - p)) - k0
        return int(math.ceil(max(target, 1.0)))

    eps = min(eps_drag, 1.0)
    drag_limited = False
    if steps_for(eps) > max_steps:
        lo, hi = eps, 1e3
        for _ in range(80):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if steps_for(mid) > max_steps else (lo, mid)
        eps, drag_limited = hi, True
    # A strong field allows large first steps, but then a handful of steps ends with a
    # large final step whose noise keeps runs below the level: spend the budget on at
    # least MIN_STEPS smaller steps instead (same ODE time).
    floor = min(MIN_STEPS, max_steps)
    if not drag_limited and steps_for(eps) < floor:
        lo, hi = 1e-9, eps
        for _ in range(80):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if steps_for(mid) > floor else (lo, mid)
        eps = hi
    steps = min(steps_for(eps), max_steps)
    sched = Schedule(eta0=eps * k0**p, k0=k0, power=p)
    info = {"first_step": eps, "eps_drag": eps_drag, "mean_Pg2_at_0.99": float(pg2), "F_at_0.99": F99,
            "ode_time_needed": t_need, "ode_time_reached": float(sched.times(steps)[-1]), "steps": steps,
            "max_steps": max_steps, "drag_limited": drag_limited}
    return sched, steps, info


def check_robbins_monro(model_cfg: Problem | None = None, *, seed: int = 0, quick: bool = True, figure_dir=None,
                        schedule: Schedule | None = None) -> list[CheckRecord]:
    """``stepsize.robbins_monro`` (condition): sympy series tests for the schedule in use.

    ``schedule`` defaults to :func:`default_schedule` of ``model_cfg``.
    """
    t0 = time.perf_counter()
    if schedule is None:
        schedule = default_schedule(model_cfg, quick=quick, seed=seed)[0]
    rm = schedule.robbins_monro()
    return [CheckRecord(
        id="stepsize.robbins_monro", kind="condition", status="holds" if rm.holds else "fails",
        value=schedule.power, threshold=None, certified=False, message=rm.reason,
        details={"schedule": schedule.as_dict(), **rm.as_dict(),
                 "note": "decided by sympy Sum.is_convergent on the exact rational schedule"},
        model=None if model_cfg is None else model_cfg.model.as_dict(), seconds=time.perf_counter() - t0)]


# ----------------------------------------------------------------- shared run


@lru_cache(maxsize=8)
def _convergence_run(cfg: Problem, quick: bool, seed: int):
    """The simulation shared by ``sga.convergence`` and ``sga.filtering`` (cached)."""
    sched, steps, info = default_schedule(cfg, quick=quick, seed=seed)
    stride = max(1, steps // 400)
    sim = simulate(cfg, sched, steps=steps, runs=RUNS[quick], seed=seed, stride=stride, workers=2)
    return sched, steps, info, sim


def _ambiguity_band(m, eq, cfg, sched, seed) -> float:
    """Half-width around an unstable interior equilibrium inside which noise decides the basin.

    The escape from an unstable point ``rho*`` with rate ``lam = F'(rho*)`` and step
    ``eps`` spreads over ``sqrt(eps v / (2 lam))`` (``v`` the one-step variance of the
    projected gradient at ``rho*``, measured); three of those, floored at ``0.02``.
    """
    if not eq:
        return 0.0
    eps = float(sched.eta(0))
    widths = []
    for r in eq:
        v = _pilot_variance(cfg, r, 200, seed + 5)
        h = 1e-6
        lam = abs(float(evaluate(m, r + h).field - evaluate(m, r - h).field) / (2 * h))
        widths.append(3.0 * math.sqrt(eps * v / (2 * max(lam, 1e-12))))
    return max(0.02, max(widths))


def check_convergence(model_cfg: Problem, *, seed: int = 0, quick: bool = True,
                      figure_dir=None) -> list[CheckRecord]:
    """``sga.convergence``: recovery (condition) and agreement with the ODE basins (consistency).

    Runs ``16`` (quick) / ``32`` runs of the reduced chain at the given ``(R, L, d)`` from
    ``q_0`` uniform on the sphere with :func:`default_schedule`. Condition "recovery":
    at least :data:`RECOVERY_FRACTION` of the runs end with ``|rho| >= 0.99``; when the
    simulated ODE time is shorter than the ODE needs and recovery is not seen, the
    condition is "undecided". Consistency: the sign of ``rho_final`` equals the sign of
    the ODE limit (``numerics.basins`` with the certified equilibria of
    ``theory.certify``, bracket midpoints) from the run's own ``rho_0``, for every run
    whose ``rho_0`` is outside the noise band around an unstable interior equilibrium
    (:func:`_ambiguity_band`); pass iff at least 95% of those agree (and at least one).
    """
    t0 = time.perf_counter()
    m = model_cfg.model
    sched, steps, info, sim = _convergence_run(model_cfg, quick, seed)
    eq = _equilibria(m)
    r0, rf = sim.initial_rho, sim.final_rho
    pred = basins(m, r0, equilibria=eq).limit
    band = _ambiguity_band(m, eq, model_cfg, sched, seed)
    amb = np.zeros(r0.shape, bool)
    for e in eq:
        amb |= np.abs(r0 - e) < band
    recovered = np.abs(rf) >= RECOVERY_LEVEL
    frac = float(recovered.mean())
    plus, minus = float((rf >= RECOVERY_LEVEL).mean()), float((rf <= -RECOVERY_LEVEL).mean())
    # a finite run is evidence against almost-sure recovery only when it had ample
    # ODE time and steps small enough that the renormalisation drag cannot hold it back
    reached = info["ode_time_reached"] >= 1.5 * info["ode_time_needed"] and not info["drag_limited"]
    if frac >= RECOVERY_FRACTION:
        cstatus = "holds"
    elif reached:
        cstatus = "fails"
    else:
        cstatus = "undecided"
    decided = ~amb & (np.abs(pred) == 1)
    agree = np.sign(rf[decided]) == np.sign(pred[decided])
    agree_frac = float(agree.mean()) if agree.size else float("nan")
    ok = agree.size > 0 and agree_frac >= 0.95
    figs = []
    path = _fig_path(figure_dir, "sga_trajectories", model_cfg)
    if path is not None:
        figs.append(_plot_trajectories(path, m, sim, eq, "SGA (uniform starts) vs ODE from the same starts"))
    common = {"schedule": sched.as_dict(), "steps": steps, "runs": sim.runs, "schedule_design": info,
              "problem": model_cfg.as_dict(), "equilibria_midpoints": eq, "figures": figs}
    rec_msg = (f"{frac:.0%} of {sim.runs} runs reach |rho| >= {RECOVERY_LEVEL} (+xi {plus:.0%}, -xi {minus:.0%}) "
               f"after {steps} steps (ODE time {info['ode_time_reached']:.3g}, needed ~{info['ode_time_needed']:.3g})")
    if info["drag_limited"]:
        rec_msg += "; step budget forced steps above the drag-free scale"
    if cstatus == "undecided":
        rec_msg += " (budget-limited: not evidence against almost-sure recovery)"
    return [
        CheckRecord(id="sga.convergence.recovery", kind="condition", status=cstatus, value=frac,
                    threshold=RECOVERY_FRACTION, certified=False, message=rec_msg,
                    details={**common, "fraction_plus": plus, "fraction_minus": minus,
                             "final_rho_quantiles": np.quantile(rf, [0.1, 0.5, 0.9]).tolist(),
                             "mean_abs_final_rho": float(np.abs(rf).mean())},
                    model=m.as_dict(), seconds=time.perf_counter() - t0),
        CheckRecord(id="sga.convergence", kind="consistency", status="pass" if ok else "fail",
                    value=agree_frac, threshold=0.95, certified=False,
                    message=(f"sign of rho_final agrees with the ODE basin of rho_0 for {int(agree.sum())}/{agree.size} "
                             f"runs ({int(amb.sum())} within +-{band:.3g} of an unstable equilibrium excluded)"),
                    details={**common, "agree": int(agree.sum()), "decided": int(agree.size),
                             "ambiguous": int(amb.sum()), "band": band,
                             "predicted_plus": int((pred[decided] == 1).sum()),
                             "predicted_minus": int((pred[decided] == -1).sum()),
                             "disagreeing_rho0": r0[decided][~agree].tolist()},
                    model=m.as_dict(), seconds=time.perf_counter() - t0),
    ]


def _plot_trajectories(path, m, sim, eq, title):
    plt = _pyplot()
    t = sim.times
    fl = flow_map(m, sim.initial_rho[:, None], t[None, :], equilibria=eq, rtol=1e-10).rho
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for data, colour, label in ((sim.rho, "C0", "SGA"), (fl, "C1", "ODE")):
        q = np.quantile(data, [0.1, 0.5, 0.9], axis=0)
        ax.fill_between(t, q[0], q[2], color=colour, alpha=0.25, lw=0)
        ax.plot(t, q[1], color=colour, label=f"{label} median (10-90% band)")
    ax.set_xlabel("ODE time t_k = sum eta_j")
    ax.set_ylabel("rho")
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)


# ----------------------------------------------------------------- sga.filtering


def check_filtering(model_cfg: Problem, *, seed: int = 0, quick: bool = True, figure_dir=None) -> list[CheckRecord]:
    """``sga.filtering`` (consistency) and ``sga.filtering.vanishes`` (condition).

    Consistency: along the runs of ``sga.convergence`` the measured nuisance mass of the
    step-``k`` sample (``Simulation.noise_mass``) is compared with the limit
    ``theory.evaluate(model, rho_k).noise_mass`` at the measured ``rho_k``. The mean
    difference must be within ``4`` standard errors (samples are independent given
    ``rho_k``) plus the finite-size allowance ``2 / L`` (the ratio-of-sums bias is
    ``O(1/L)``; ``L |bias|`` measured below 1 on the presets).

    Condition: whether the limit nuisance mass vanishes at the attractor ``rho = 1``.
    Under the fixed prior it is ``(1 - alpha) / (alpha e^{beta theta} + 1 - alpha)``,
    zero only for ``alpha = 1`` (the paper says it vanishes); under the Rademacher prior
    ``(1 - alpha) sech / (alpha + (1 - alpha) sech)`` at ``beta theta``, also zero only for
    ``alpha = 1``.
    """
    t0 = time.perf_counter()
    m = model_cfg.model
    sched, steps, info, sim = _convergence_run(model_cfg, quick, seed)
    idx = np.searchsorted(sim.record_steps, sim.sample_steps)
    rho_k = sim.rho[:, idx]
    measured = sim.noise_mass
    predicted = evaluate(m, rho_k).noise_mass
    diff = (measured - predicted).ravel()
    mean, se = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(diff.size))
    tol = 4 * se + 2.0 / model_cfg.L
    ok = abs(mean) <= tol
    at1 = float(evaluate(m, 1.0).noise_mass)
    vanishes = at1 <= 1e-12
    figs = []
    path = _fig_path(figure_dir, "nuisance_mass", model_cfg)
    if path is not None:
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        r = rho_k.ravel()
        bins = np.linspace(r.min(), r.max(), 21)
        which = np.clip(np.digitize(r, bins) - 1, 0, bins.size - 2)
        centres, mm, ms = [], [], []
        for b in range(bins.size - 1):
            sel = which == b
            if sel.sum() >= 5:
                centres.append(r[sel].mean())
                mm.append(measured.ravel()[sel].mean())
                ms.append(measured.ravel()[sel].std(ddof=1) / math.sqrt(sel.sum()))
        grid = np.linspace(-1, 1, 401)
        ax.plot(grid, evaluate(m, grid).noise_mass, color="C1", label="limit prediction")
        ax.errorbar(centres, mm, yerr=2 * np.array(ms), fmt="o", ms=3, color="C0", label="measured (binned, 2 SE)")
        ax.axhline(at1, color="gray", ls=":", lw=0.8, label=f"limit at rho=1: {at1:.3g}")
        ax.set_xlabel("rho")
        ax.set_ylabel("nuisance attention mass")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        figs.append(str(path))
    if m.prior == "fixed":
        formula = "(1-alpha)/(alpha e^(beta theta) + 1 - alpha)"
    else:
        formula = "(1-alpha) sech(beta theta)/(alpha + (1-alpha) sech(beta theta))"
    return [
        CheckRecord(id="sga.filtering", kind="consistency", status="pass" if ok else "fail",
                    value=mean, threshold=tol, certified=False,
                    message=(f"measured - predicted nuisance mass over {diff.size} samples: {mean:+.2e} "
                             f"(SE {se:.1e}, allowed {tol:.1e} = 4 SE + 2/L)"),
                    details={"mean_difference": mean, "standard_error": se, "finite_size_allowance": 2.0 / model_cfg.L,
                             "max_abs_binned": None, "samples": int(diff.size), "mean_measured": float(measured.mean()),
                             "mean_predicted": float(predicted.mean()), "figures": figs,
                             "schedule": sched.as_dict(), "steps": steps},
                    model=m.as_dict(), seconds=time.perf_counter() - t0),
        CheckRecord(id="sga.filtering.vanishes", kind="condition", status="holds" if vanishes else "fails",
                    value=at1, threshold=0.0, certified=False,
                    message=(f"limit nuisance mass at the attractor rho=1 is {at1:.4g} = {formula}; "
                             + ("it vanishes (alpha = 1: no nuisance tokens)" if vanishes else
                                "it does not vanish: it is zero only when alpha = 1 (the paper claims it vanishes)")),
                    details={"noise_mass_at_1": at1, "formula": formula, "vanishes_iff": "alpha = 1",
                             "paper_claim": "nuisance attention mass vanishes"},
                    model=m.as_dict(), seconds=time.perf_counter() - t0),
    ]


# ----------------------------------------------------------------- sga.tracking


def _tracking_errors(model, sim, starts_t, T, n_h: int = 40):
    """``E_T(t_s)`` for every run and start time: shape ``(runs, n_starts)``.

    ``rho_bar`` is the piecewise-linear interpolation of the iterates on ``t_k``; the sup
    over ``0 <= h <= T`` is taken over (up to ``n_h``) nodes ``t_k`` in ``[t_s, t_s + T]``
    (with ``|F'| eta << 1`` the flow is nearly linear between nodes, so the sup over
    nodes is the sup up to ``O(eta^2)``). The flow is restarted at ``rho_bar(t_s)``.
    """
    t = sim.times
    runs = sim.runs
    out = np.empty((runs, len(starts_t)))
    for j, ts in enumerate(starts_t):
        k0 = int(np.searchsorted(t, ts))
        k1 = int(np.searchsorted(t, ts + T, side="right")) - 1
        nodes = np.unique(np.linspace(k0, max(k1, k0), n_h).round().astype(int))
        start = sim.rho[:, k0]
        h = t[nodes] - t[k0]
        phi = flow_map(model, start[:, None], h[None, :], rtol=1e-10).rho
        out[:, j] = np.max(np.abs(sim.rho[:, nodes] - phi), axis=1)
    return out


def _pilot_variance(cfg: Problem, rho: float, n: int, seed: int) -> float:
    x, _ = one_step_increments(cfg, rho, n, seed)
    return float(x.var(ddof=1))


def check_tracking(model_cfg: Problem, *, seed: int = 0, quick: bool = True, figure_dir=None,
                   snr: float | None = None) -> list[CheckRecord]:
    """``sga.tracking``: asymptotic-pseudotrajectory error against the restarted flow.

    Design (DESIGN.md sections 3, 7). The limit model of ``model_cfg``; dimension
    ``d_t = min(d, TRACK_D_MAX)``. Fixed start ``rho_0`` at the largest ``|F|`` on
    ``[-0.9, 0.9]``; ``t_end`` the ODE time from there to ``|rho| = 0.95``; horizon
    ``T = t_end / 3``; start times ``t_s`` on 7 points of ``[0, t_end]``; simulated to
    ``t_end + T``. Constant steps (the step scale is then the step itself): the
    smallest ``eta_min`` makes the predicted noise over the horizon ``sqrt(eta v T)``
    (``v`` the one-step variance of the projected gradient at ``rho_0``, from a pilot)
    a fraction ``1 / snr`` of the ODE displacement ``D`` over a horizon; the budget
    :data:`TRACK_BUDGET` may lower ``snr``. Configurations: ``eta in {4, 2, 1} eta_min``
    at ``L``, and ``L / 4, L / 2`` at ``4 eta_min``.

    Per configuration ``S`` = median over runs of ``max_s E_T(t_s)``. Exponents:
    ``S ~ eta^p_eta`` and ``S ~ L^-p_L`` by log-log fits, standard errors by bootstrap
    over runs. Pass iff (i) ``p_eta - 2 se > 0`` and ``p_eta >= 0.25``, (ii) ``p_L - 2 se > 0``, (iii) ``S`` at the smallest scale ``<= D / 4`` (a field wrong by a
    factor 1.5 leaves an error ``~ D / 2`` that does not shrink); when the budget forces
    ``snr < 4`` the noise alone reaches ``D / 4`` and (iii) is reported as not testable
    (``None``), the trends still fail a wrong field (its error does not shrink). The decrease with
    ``t`` (``E_T(t_s)`` quantiles) is reported, not judged: it also holds for a wrong field.
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    runs = RUNS[quick]
    base = _scaled_problem(model_cfg, model_cfg.L, d=min(model_cfg.d, TRACK_D_MAX))
    m = base.model
    grid = np.linspace(-0.9, 0.9, 181)
    F = evaluate(m, grid).field
    i = int(np.argmax(np.abs(F)))
    eq = _equilibria(m)
    # start upstream of the fastest point, halfway from the fixed point behind it
    behind = [e for e in (-1.0, *eq, 1.0) if (e < grid[i]) == (F[i] > 0) and e != grid[i]]
    back = max(behind) if F[i] > 0 else min(behind)
    rho0 = float(0.5 * (grid[i] + back))
    t_end = float(time_to_alignment(m, rho0, 0.95, equilibria=eq).time)
    if not math.isfinite(t_end) or t_end <= 0:
        t_end = 5.0 / max(abs(F[i]), 1e-12)
    T = t_end / 3.0
    t_total = t_end + T
    starts_t = np.linspace(0.0, t_end, 7)
    ode_pts = integrate(m, rho0, starts_t).rho
    D = float(np.max(np.abs(flow_map(m, ode_pts, T, rtol=1e-10).rho - ode_pts)))
    v = _pilot_variance(base, rho0, 400 if quick else 1600, seed + 3)
    snr_target = snr if snr is not None else (6.0 if quick else 10.0)
    eta_min = D**2 / (snr_target**2 * v * T)
    # token-step cost: runs * t_total * (L (1/eta_min + 1/(2 eta_min) + 1/(4 eta_min)) + (L/4 + L/2)/(4 eta_min))
    cost = runs * t_total * base.L / eta_min * (1 + 0.5 + 0.25 + 0.25 * 0.75)
    if cost > TRACK_BUDGET[quick]:
        eta_min *= cost / TRACK_BUDGET[quick]
        snr_target = D / math.sqrt(eta_min * v * T)
    # at least 40 steps per horizon and |F'| eta_max <= 0.05 (Euler error well below the noise)
    fprime = float(np.max(np.abs(np.gradient(F, grid))))
    eta_max = min(4 * eta_min, T / 40, 0.05 / max(fprime, 1e-12))
    eta_min = eta_max / 4
    configs = [(base.L, eta_max), (base.L, eta_max / 2), (base.L, eta_min),
               (max(8, base.L // 4), eta_max), (max(8, base.L // 2), eta_max)]
    results = {}
    sims = {}
    for L, eta in configs:
        cfg = base if L == base.L else _scaled_problem(base, L)
        steps = int(math.ceil(t_total / eta))
        sim = simulate(cfg, Schedule.constant(eta), steps=steps, runs=runs, rho0=rho0,
                       seed=seed + 1000 + L + int(1e6 * eta) % 100000, stride=max(1, steps // 2000),
                       workers=2)
        E = _tracking_errors(cfg.model, sim, starts_t, T)
        results[(L, eta)] = E
        sims[(L, eta)] = sim

    def summary(E):
        return float(np.median(E.max(axis=1)))

    def fits(resample):
        Ss = {}
        for key, E in results.items():
            Ee = E[resample(E.shape[0])] if resample else E
            Ss[key] = summary(Ee)
        etas = [eta_max, eta_max / 2, eta_min]
        Ls = [max(8, base.L // 4), max(8, base.L // 2), base.L]
        pe = loglog_fit(etas, [Ss[(base.L, e)] for e in etas])[0]
        pL = -loglog_fit(Ls, [Ss[(L, eta_max)] for L in Ls])[0]
        return pe, pL, Ss

    p_eta, p_L, S = fits(None)
    boot = np.array([fits(lambda n: rng.integers(0, n, n))[:2] for _ in range(200)])
    se_eta, se_L = (float(s) for s in boot.std(axis=0, ddof=1))
    S_small = S[(base.L, eta_min)]
    crit = {"eta_trend": p_eta - 2 * se_eta > 0 and p_eta >= 0.25,
            "L_trend": p_L - 2 * se_L > 0,
            "absolute": S_small <= D / 4 if snr_target >= 4 else None}
    # below snr 4 (budget-limited) the noise alone reaches D / 4: judge the trends only
    ok = all(v for v in crit.values() if v is not None)
    per_t = {f"L={L},eta={eta:.4g}": {"quantiles_10_50_90": np.quantile(E, [0.1, 0.5, 0.9], axis=0).tolist()}
             for (L, eta), E in results.items()}
    med_t = np.median(results[(base.L, eta_min)], axis=0)
    pos = starts_t > 0
    p_t = float(loglog_fit(starts_t[pos] + T, np.maximum(med_t[pos], 1e-300))[0]) if pos.sum() >= 2 else float("nan")
    figs = []
    path = _fig_path(figure_dir, "tracking_error", model_cfg)
    if path is not None:
        figs.append(_plot_tracking(path, results, S, starts_t, T, eta_max, eta_min, base, p_eta, se_eta, p_L, se_L, D))
    path = _fig_path(figure_dir, "sga_vs_ode_tracking", model_cfg)
    if path is not None:
        figs.append(_plot_trajectories(path, m, sims[(base.L, eta_min)], eq,
                                       f"SGA vs ODE from rho0={rho0:.2f}, L={base.L}, d={base.d}, eta={eta_min:.3g}"))
    return [CheckRecord(
        id="sga.tracking", kind="consistency", status="pass" if ok else "fail",
        # the threshold is shown only when the absolute criterion was applied
        value=S_small, threshold=D / 4 if crit["absolute"] is not None else None, certified=False,
        message=(f"E_T (median over runs of sup over t) {S_small:.3g} at the smallest scale vs ODE motion D={D:.3g}; "
                 f"exponents: eta^{p_eta:.2f}+-{se_eta:.2f}, (1/L)^{p_L:.2f}+-{se_L:.2f}; E_T(t) ~ t^{p_t:.2f}"
                 + ("" if crit["absolute"] is not None else
                    "; the absolute bound D/4 is not testable at this budget (noise alone reaches it): "
                    "judged on the trends")),
        details={"criteria": crit, "p_eta": p_eta, "se_eta": se_eta, "p_L": p_L, "se_L": se_L, "p_t": p_t,
                 "summary_S": {f"L={L},eta={eta:.4g}": s for (L, eta), s in S.items()},
                 "D": D, "T": T, "t_end": t_end, "rho0": rho0, "start_times": starts_t.tolist(),
                 "d_used": base.d, "pilot_variance": v, "snr_target": snr_target, "eta_min": eta_min,
                 "runs": runs, "E_T_over_t": per_t, "figures": figs},
        model=m.as_dict(), seconds=time.perf_counter() - t0)]


def _plot_tracking(path, results, S, starts_t, T, eta_max, eta_min, base, p_eta, se_eta, p_L, se_L, D):
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    ax = axes[0]
    for (L, eta), E in results.items():
        if L == base.L:
            q = np.quantile(E, [0.1, 0.5, 0.9], axis=0)
            ax.plot(starts_t + T, q[1], "o-", ms=3, label=f"eta={eta:.3g}")
            ax.fill_between(starts_t + T, q[0], q[2], alpha=0.2)
    ax.set_xscale("log"); ax.set_yscale("log")
    ax.set_xlabel("t + T"); ax.set_ylabel("E_T(t)"); ax.legend(fontsize=7)
    ax = axes[1]
    etas = np.array([eta_max, eta_max / 2, eta_min])
    ax.loglog(etas, [S[(base.L, e)] for e in etas], "o-", label=f"slope {p_eta:.2f}+-{se_eta:.2f}")
    ax.axhline(D / 4, color="gray", ls=":", label="D/4 bound")
    ax.set_xlabel("step eta"); ax.set_ylabel("median sup_t E_T"); ax.legend(fontsize=7)
    ax = axes[2]
    Ls = np.array([max(8, base.L // 4), max(8, base.L // 2), base.L])
    ax.loglog(1.0 / Ls, [S[(L, eta_max)] for L in Ls], "o-", label=f"slope {p_L:.2f}+-{se_L:.2f}")
    ax.set_xlabel("1/L"); ax.set_ylabel("median sup_t E_T"); ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
