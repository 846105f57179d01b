"""Checks that compare the stochastic recursion with the limit theory (docs/design.md section 3):
``sga.convergence`` (+ the condition ``sga.convergence.recovery``), ``sga.filtering`` (+ the
condition ``sga.filtering.vanishes``) and ``stepsize.robbins_monro`` (of the schedule those runs use).
``ode.lyapunov`` lives in :mod:`._lyapunov`, the default schedule in :mod:`._schedule`,
``sga.tracking`` in :mod:`._tracking`, the finite-size checks in :mod:`._finite`.

Every check has the signature ``check_xxx(case, ctx) -> list[CheckRecord]``
(:class:`Case`, :class:`CheckContext`). The limit model is ``case.model``; the simulated
instance ``case.problem``. Nothing here is certified: it is numerical evidence.

What each check uses of the case
--------------------------------
* ``sga.convergence`` / ``sga.filtering``: the exact reduced simulator at the case's
  ``(theta, R, L, d, beta, sigma2, prior)``, ``q_0`` uniform on the sphere, the schedule
  in use, for as many steps as the budget allows (see :func:`default_schedule`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...numerics import (
    Schedule,
    Simulation,
    SimulationOptions,
    decisive_runs,
    effective_step,
    flow_map,
    measure_rate,
    plan_recovery,
    schedule_text,
    simulate,
)
from ...theory import central_difference, certified_basin, evaluate
from ._common import one_step_increments
from ._context import CheckContext, certificate, equilibria
from ._figures import nuisance_figure, trajectories_figure
from ._record import CheckRecord
from ._schedule import RECOVERY_LEVEL, _schedule_seed, default_schedule

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

#: fraction of recovered runs for the condition "recovery" to hold
RECOVERY_FRACTION = 0.9
#: a planned run's chance of a false "fails" (fewer than RECOVERY_FRACTION recovered while the plan's
#: recovery rate holds) that its run count (``numerics.decisive_runs``) keeps below
FALSE_FAILS = 0.05
#: one-step draws of the exact chain at each unstable equilibrium that measure the noise band's variance
NOISE_BAND_DRAWS = 200
#: runs, token-step (runs x steps x L) budgets of the simulations and of a planned, decisive
#: recovery run: ``Preset.sga_runs``, ``Preset.sga_sim_budget``, ``Preset.sga_plan_budget``


@dataclass(frozen=True)
class ConvergenceDesign:
    """The runs of ``sga.convergence`` and ``sga.filtering``: ``runs`` runs of ``steps`` steps of
    ``schedule``; ``info`` says how it was designed (the record's ``schedule_design``)."""

    schedule: Schedule
    steps: int
    runs: int
    info: dict


@dataclass(frozen=True)
class ConvergenceRun:
    """The simulation those checks share: its :class:`ConvergenceDesign` and the runs."""

    design: ConvergenceDesign
    sim: Simulation


@lru_cache(maxsize=8)
def convergence_schedule(case: Case, ctx: CheckContext) -> ConvergenceDesign:
    """The :class:`ConvergenceDesign` of the runs of ``sga.convergence`` and ``sga.filtering``
    (cached; ``stepsize.robbins_monro`` judges this schedule, the one in use).

    The budget planner (``numerics.plan_recovery``) designs a decisive run: its last steps
    leave the drag plateau above the recovery level and the corrected ODE carries every
    planned start past it. When that plan fits ``Preset.sga_plan_budget`` it is run (and
    ``info["planned"]`` is true); otherwise :func:`default_schedule` spends the ordinary
    budget and the plan is reported as what would decide the check.
    """
    problem = case.problem
    preset = ctx.preset
    rate = measure_rate(problem, seed=ctx.seed_for(case.name, "pilot"))
    plan = plan_recovery(problem, target=RECOVERY_LEVEL, runs=preset.sga_runs, seconds_per_token_step=rate)
    if plan.feasible:  # the runs the verdict needs at the plan's recovery rate (at most the preset's)
        plan = plan.with_runs(decisive_runs(plan.predicted_fraction, fraction=RECOVERY_FRACTION,
                                            false_fails=FALSE_FAILS, most=preset.sga_runs))
    budget = preset.sga_plan_budget if ctx.budget is None else ctx.budget
    if plan.feasible and plan.token_steps <= budget:
        sched, steps, runs = plan.schedule, plan.steps, plan.runs
        assert sched is not None  # a feasible plan has its schedule
        info = {"planned": True, "plan": plan.as_dict(), "drag_limited": False, "steps": steps,
                "ode_time_reached": float(sched.times(steps)[-1]), "ode_time_needed": plan.ode_time}
    else:
        sched, steps, info = default_schedule(problem, preset=preset, seed=_schedule_seed(case, ctx))
        runs = preset.sga_runs
        info = {**info, "planned": False, "plan": plan.as_dict(), "plan_text": plan.describe()}
    return ConvergenceDesign(sched, steps, runs, info)


def check_robbins_monro(case: Case, ctx: CheckContext, *, schedule: Schedule | None = None) -> list[CheckRecord]:
    """``stepsize.robbins_monro`` (condition): sympy series tests for the schedule in use.

    ``schedule`` defaults to the schedule ``sga.convergence`` runs on the case's instance (its
    decisive plan where that fits the budget, else :func:`default_schedule`;
    :func:`convergence_schedule`, cached and shared with that check).
    """
    t0 = time.perf_counter()
    planned = False
    if schedule is None:
        design = convergence_schedule(case, ctx)
        schedule, planned = design.schedule, bool(design.info.get("planned"))
    rm = schedule.robbins_monro()
    msg = rm.reason
    if planned and not rm.holds:
        msg += ("; this is the decisive run's schedule (numerics.plan_recovery), so the recovery it shows is "
                "evidence at a finite step, outside the theorem's Robbins-Monro hypothesis")
    return [CheckRecord(
        id="stepsize.robbins_monro", kind="condition", status="holds" if rm.holds else "fails",
        value=schedule.power, threshold=None, certified=False, message=msg,
        details={"schedule": schedule.as_dict(), **rm.as_dict(),
                 "note": "decided by sympy Sum.is_convergent on the exact rational schedule"},
        model=case.model.as_dict(), seconds=time.perf_counter() - t0)]



@lru_cache(maxsize=8)
def _convergence_run(case: Case, ctx: CheckContext) -> ConvergenceRun:
    """The simulation shared by ``sga.convergence`` and ``sga.filtering`` (cached), on
    :func:`convergence_schedule`."""
    d = convergence_schedule(case, ctx)
    sim = simulate(case.problem, d.schedule, steps=d.steps, runs=d.runs, stride=max(1, d.steps // 400),
                   seed=ctx.seed_for(case.name, "sga.convergence"), options=SimulationOptions(workers=2))
    return ConvergenceRun(d, sim)


@dataclass(frozen=True)
class NoiseBand:
    """Where the step noise, not the start, decides the basin: one interval per unstable
    interior equilibrium.

    Near an unstable ``rho*`` (rate ``lam = F'(rho*) > 0``) the iterates follow, on the ODE
    time axis, ``dy = lam y dt + sqrt(eta(t) v) dW`` (``y = rho - rho*``, ``v`` the variance of
    the projected gradient along ``xi`` at ``rho*``, measured by one step of the exact chain).
    ``y e^{-lam t}`` tends to ``y0 + G``, ``G ~ N(0, s^2)``, ``s^2 = v int e^{-2 lam t} eta(t) dt
    = eta_eff v / (2 lam)`` with ``eta_eff`` of :func:`numerics.effective_step` (the schedule's
    steps weighted over the escape); the sign of the limit is the start's unless
    ``|y0| < 3 s`` (a flip has probability below 0.14% outside). The half-width is ``3 s``,
    at least ``0.02`` (the equilibrium is a bracket midpoint), and the interval is clipped
    to ``[-1, 1]``.

    Attributes
    ----------
    parts : tuple of dict
        Per unstable equilibrium: ``rho_star``, ``rate``, ``variance``, ``eta_effective``,
        ``spread`` (``s``), ``half_width`` and ``interval`` (``[lo, hi]`` inside ``[-1, 1]``).
    """

    parts: tuple

    @property
    def half_width(self) -> float:
        return max((p["half_width"] for p in self.parts), default=0.0)

    def contains(self, rho) -> np.ndarray:
        rho = np.asarray(rho, dtype=float)
        out = np.zeros(rho.shape, bool)
        for p in self.parts:
            lo, hi = p["interval"]
            out |= (rho > lo) & (rho < hi)
        return out

    def describe(self) -> str:
        return "; ".join(
            f"[{p['interval'][0]:.3g}, {p['interval'][1]:.3g}] around rho* = {p['rho_star']:.4g}: "
            f"3 s, s = sqrt(eta_eff v / (2 F'(rho*))) = {p['spread']:.3g} with eta_eff = {p['eta_effective']:.3g}, "
            f"v = {p['variance']:.3g}, F'(rho*) = {p['rate']:.3g}" for p in self.parts)


def noise_band(m, eq, problem, sched, seed) -> NoiseBand:
    """The :class:`NoiseBand` of the unstable interior equilibria in ``eq`` under ``sched``."""
    parts = []
    for r in eq:
        lam = float(central_difference(lambda u: float(evaluate(m, u, engine="scalar").field), r, 1e-6))
        if not lam > 0:  # a stable interior point separates no basins
            continue
        x, _ = one_step_increments(problem, r, NOISE_BAND_DRAWS, seed)
        v = float(x.var(ddof=1))
        eta_eff = effective_step(sched, lam)
        spread = math.sqrt(eta_eff * v / (2 * lam))
        half = max(0.02, 3.0 * spread)
        parts.append({"rho_star": float(r), "rate": lam, "variance": v, "eta_effective": eta_eff,
                      "spread": spread, "half_width": half,
                      "interval": [max(-1.0, r - half), min(1.0, r + half)]})
    return NoiseBand(tuple(parts))


def check_convergence(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``sga.convergence``: recovery (condition) and agreement with the ODE basins (consistency).

    Runs the reduced chain at the given ``(R, L, d)`` from ``q_0`` uniform on the sphere:
    the planner's decisive run when it fits the budget, with the runs its verdict needs
    (``numerics.decisive_runs``: 10 when the plan's diffusion paths all recover, at most the
    preset's ``sga_runs``), else ``sga_runs`` runs (16 quick, 20 paper) of
    :func:`default_schedule`. Condition "recovery":
    at least :data:`RECOVERY_FRACTION` of the runs end with ``|rho| >= 0.99``; when the
    simulated ODE time is shorter than the ODE needs and recovery is not seen, the
    condition is "undecided". Consistency: the sign of ``rho_final`` equals the sign of
    certified ODE limit (:func:`certified_limits`: ``theory.certified_basin`` with the
    certificate of ``theory.certify``) from the run's own ``rho_0``, for every run
    whose ``rho_0`` is outside the noise band around an unstable interior equilibrium
    (:func:`noise_band`) and whom the ODE flow, run for the ODE time the simulation
    had, has carried clear of zero (``|Phi_t(rho_0)| >= 3 s``, ``s`` the robust spread of
    ``rho_final - Phi_t(rho_0)`` over runs: a run still near zero when the budget ends is
    not evidence either way), and that is not held back (``|rho_final| < 0.99`` and more than
    ``3 s`` from where the ODE puts it: a run slowed near an unstable pole, say, has not yet
    chosen; it counts against recovery in the condition); pass iff at least 95% of those agree
    (and at least one).
    """
    t0 = time.perf_counter()
    m = case.model
    run = _convergence_run(case, ctx)
    sched, steps, info, sim = run.design.schedule, run.design.steps, run.design.info, run.sim
    eq = equilibria(m)
    r0, rf = sim.initial_rho, sim.final_rho
    pred = certified_limits(m, r0)
    band = noise_band(m, eq, case.problem, sched, ctx.seed_for(case.name, "sga.convergence", "band"))
    amb = band.contains(r0)
    recovered = np.abs(rf) >= RECOVERY_LEVEL
    frac = float(recovered.mean())
    plus, minus = float((rf >= RECOVERY_LEVEL).mean()), float((rf <= -RECOVERY_LEVEL).mean())
    cstatus = _recovery_status(frac, info)
    # the ODE from each run's own start, over the ODE time the run actually had: a run that
    # the flow has not yet carried clear of zero (|rho| below the run-to-run noise of the
    # iterates around it) is not evidence either way
    at_end = flow_map(m, r0, float(sim.times[-1]), equilibria=eq).rho
    resid = rf - at_end
    spread = 1.4826 * float(np.median(np.abs(resid - np.median(resid))))
    settled = np.abs(at_end) >= 3.0 * spread
    # a run neither recovered nor where the ODE puts it has been held back (e.g. near an unstable
    # pole, where the escape is slow and noisy: the plan's diffusion paths miss 0.99 there too):
    # its sign is not yet its limit's; it counts against recovery in the condition, not here
    held = (np.abs(rf) < RECOVERY_LEVEL) & (np.abs(resid) > 3.0 * spread)
    decided = ~amb & (np.abs(pred) == 1) & settled & ~held
    agree = np.sign(rf[decided]) == np.sign(pred[decided])
    agree_frac = float(agree.mean()) if agree.size else float("nan")
    # steps forced above the drag-free scale: the iterates follow the drag-corrected dynamics,
    # not the limit ODE, so their signs say nothing about the ODE basins; and a check that
    # compared no run has measured nothing
    if info["drag_limited"] or agree.size == 0:
        cons_status = "inconclusive"
    else:
        cons_status = "pass" if agree_frac >= 0.95 else "fail"
    figs, specs = ctx.drawn("sga_trajectories", case, lambda path: trajectories_figure(
        path, m, sim, eq, "SGA (uniform starts) vs ODE from the same starts",
        claim="claim 4: recovery up to sign (sga.convergence)"))
    common = {"schedule": sched.as_dict(), "steps": steps, "runs": sim.runs, "schedule_design": info,
              "problem": case.problem.as_dict(), "equilibria_midpoints": eq, "figures": figs}
    rec_msg, budget_msg = _recovery_message(frac, plus, minus, run, ctx, cstatus)
    return [
        CheckRecord(id="sga.convergence.recovery", kind="condition", status=cstatus, value=frac,
                    threshold=RECOVERY_FRACTION, certified=False, message=rec_msg,
                    details={**common, "fraction_plus": plus, "fraction_minus": minus,
                             "final_rho_quantiles": np.quantile(rf, [0.1, 0.5, 0.9]).tolist(),
                             "mean_abs_final_rho": float(np.abs(rf).mean())},
                    model=m.as_dict(), seconds=time.perf_counter() - t0, figures=specs),
        CheckRecord(id="sga.convergence", kind="consistency", status=cons_status,
                    value=agree_frac, threshold=0.95, certified=False,
                    message=_convergence_message(agree, amb, settled, band, info, budget_msg, sched,
                                                 int((held & settled & ~amb).sum())),
                    details={**common, "agree": int(agree.sum()), "decided": int(agree.size),
                             "ambiguous": int(amb.sum()), "band": band.half_width, "noise_band": list(band.parts),
                             "unsettled": int((~settled).sum()),
                             "held_back": int((held & settled & ~amb).sum()),
                             "noise_spread": spread,
                             "predicted_plus": int((pred[decided] == 1).sum()),
                             "predicted_minus": int((pred[decided] == -1).sum()),
                             "disagreeing_rho0": r0[decided][~agree].tolist()},
                    model=m.as_dict(), seconds=time.perf_counter() - t0, figures=specs),
    ]


def _recovery_status(frac: float, info: dict) -> str:
    """The verdict of ``sga.convergence.recovery`` from the recovered fraction and the run's design."""
    if frac >= RECOVERY_FRACTION:
        return "holds"
    # a finite run is evidence against almost-sure recovery only when it had ample
    # ODE time and steps small enough that the renormalisation drag cannot hold it back
    reached = info["ode_time_reached"] >= 1.5 * info["ode_time_needed"] and not info["drag_limited"]
    # a planned run had what recovery needs (plateau and ODE time): a shortfall is evidence
    return "fails" if reached or info["planned"] else "undecided"


def _recovery_message(frac: float, plus: float, minus: float, run: ConvergenceRun, ctx: CheckContext,
                      cstatus: str) -> tuple[str, str]:
    """The message of ``sga.convergence.recovery`` and, for a run that was not the planned one,
    what deciding it needs (also quoted by ``sga.convergence``)."""
    runs, steps, sched, info = run.sim.runs, run.design.steps, run.design.schedule, run.design.info
    rec_msg = (f"{frac:.0%} of {runs} runs reach |rho| >= {RECOVERY_LEVEL} (+xi {plus:.0%}, -xi {minus:.0%}) "
               f"after {steps} steps (ODE time {info['ode_time_reached']:.3g}, needed ~{info['ode_time_needed']:.3g})")
    if info["planned"]:
        rec_msg += f"; planned decisive run: {info['plan']['steps']:,} steps of {schedule_text(sched)}, " \
                   f"corrected ODE predicts |rho| >= {info['plan']['predicted_end']:.4f} from every planned start; " \
                   f"{runs} runs: the fewest that tolerate one unrecovered run and keep a false 'fails' below " \
                   f"{FALSE_FAILS:.0%} at the plan's recovery rate ({info['plan']['predicted_fraction']:.1%} of " \
                   f"diffusion paths)"
    budget_msg = ""
    if info["drag_limited"]:
        rec_msg += "; step budget forced steps above the drag-free scale"
    if not info["planned"]:
        how = ""
        if info["plan"]["feasible"]:
            need = info["plan"]["token_steps"]
            how = (" (--preset paper runs it)" if ctx.budget is None and ctx.preset.larger_fits("sga_plan_budget", need)
                   else f" (rerun with --budget {need:.3g})")
        budget_msg = f"; deciding it needs: {info['plan_text']}{how}"
    if cstatus == "undecided":
        rec_msg += " (budget-limited: not evidence against almost-sure recovery)" + budget_msg
    return rec_msg, budget_msg


def certified_limits(model, starts) -> np.ndarray:
    """The certified limit of the limit flow from each start (``theory.certified_basin``, one
    cached certificate): ``+-1``, an interior equilibrium (bracket midpoint), the start itself
    when it is fixed, and ``nan`` where the basin is not certified (a start at a root or within
    its bracket, a gap of the certificate, ``theta = 0``), so that such a run is not compared."""
    cert = certificate(model)
    out = np.full(np.shape(starts), np.nan)
    for i, r in enumerate(np.asarray(starts, dtype=float).ravel()):
        try:
            out.flat[i] = certified_basin(model, float(r), certificate=cert).limit.point
        except ValueError:
            pass
    return out


def _convergence_message(agree, amb, settled, band: NoiseBand, info, budget_msg: str, sched, held: int = 0) -> str:
    """The message of ``sga.convergence``: what was compared, what was excluded and why, and,
    when nothing decisive was measured, what would decide it."""
    msg = (f"sign of rho_final agrees with the certified ODE basin of rho_0 (ball arithmetic) for "
           f"{int(agree.sum())}/{agree.size} runs "
           f"({int(amb.sum())} started where the step noise decides the basin and "
           f"{int((~settled & ~amb).sum())} not yet carried clear of 0 by the ODE excluded"
           + (f"; {held} held back, neither recovered nor where the ODE puts them, excluded" if held else "") + ")")
    if band.parts:
        msg += f"; noise band {band.describe()}"
    if info["drag_limited"]:
        return msg + ("; inconclusive: the steps were above the drag-free scale, so the iterates follow the "
                      "drag-corrected dynamics, not the limit ODE" + budget_msg)
    if agree.size == 0:
        msg += "; inconclusive: no run could be compared"
        if band.parts and band.half_width > 0.1:
            # s^2 is proportional to eta_eff, which scales with eta0 at a fixed k0 and power
            factor = (0.1 / band.half_width) ** 2
            msg += (f": the noise band is +-{band.half_width:.3g}; steps {1 / factor:.3g} times smaller "
                    f"(eta0 <= {sched.eta0 * factor:.3g}) would narrow it to +-0.1")
        else:
            msg += ": the runs need more ODE time to leave 0" + budget_msg
    return msg


# ----------------------------------------------------------------- sga.filtering


def filtering_expansion(case: Case, ctx: CheckContext, steps: bool = True) -> tuple:
    """``((d, L, 0),)``: ``sga.filtering`` compares the limit nuisance mass at the measured ``rho_k``
    with the case's instance, allowing ``2 / L`` for the ratio-of-sums bias; that allowance is
    the finite-``L`` expansion's, so the instance's ``A2 / L`` decides (the steps do not enter)."""
    return ((case.d, case.L, 0.0),)


def check_filtering(case: Case, ctx: CheckContext) -> list[CheckRecord]:
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
    m = case.model
    assert case.L is not None  # an instance check: the case is simulated
    run = _convergence_run(case, ctx)
    sched, steps, sim = run.design.schedule, run.design.steps, run.sim
    rho_k = sim.sampled_rho
    measured = sim.noise_mass[..., 0]  # one head
    predicted = evaluate(m, rho_k, engine="scalar").noise_mass
    diff = (measured - predicted).ravel()
    mean, se = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(diff.size))
    tol = 4 * se + 2.0 / case.L
    ok = abs(mean) <= tol
    at1 = float(evaluate(m, 1.0, engine="scalar").noise_mass)
    vanishes = at1 <= 1e-12
    figs, specs = ctx.drawn("nuisance_mass", case, lambda path: nuisance_figure(path, m, rho_k, measured, at1))
    if m.prior.family == "fixed":
        formula = "(1-alpha)/(alpha e^(beta theta) + 1 - alpha)"
    elif m.prior.spec == "rademacher":
        formula = "(1-alpha) sech(beta theta)/(alpha + (1-alpha) sech(beta theta))"
    else:
        formula = "(1-alpha)/(alpha M_s(beta theta) + 1 - alpha), M_s the MGF of the prior"
    return [
        CheckRecord(id="sga.filtering", kind="consistency", status="pass" if ok else "fail",
                    value=mean, threshold=tol, certified=False,
                    message=(f"measured - predicted nuisance mass over {diff.size} samples: {mean:+.2e} "
                             f"(SE {se:.1e}, allowed {tol:.1e} = 4 SE + 2/L)"),
                    details={"mean_difference": mean, "standard_error": se, "finite_size_allowance": 2.0 / case.L,
                             "max_abs_binned": None, "samples": int(diff.size), "mean_measured": float(measured.mean()),
                             "mean_predicted": float(predicted.mean()), "figures": figs,
                             "schedule": sched.as_dict(), "steps": steps},
                    model=m.as_dict(), seconds=time.perf_counter() - t0, figures=specs),
        CheckRecord(id="sga.filtering.vanishes", kind="condition", status="holds" if vanishes else "fails",
                    value=at1, threshold=0.0, certified=False,
                    message=(f"limit nuisance mass at the attractor rho=1 is {at1:.4g} = {formula}; "
                             + ("it vanishes (alpha = 1: no nuisance tokens)" if vanishes else
                                "it does not vanish: it is zero only when alpha = 1 (the paper claims it vanishes)")),
                    details={"noise_mass_at_1": at1, "formula": formula, "vanishes_iff": "alpha = 1",
                             "paper_claim": "nuisance attention mass vanishes"},
                    model=m.as_dict(), seconds=time.perf_counter() - t0),
    ]
