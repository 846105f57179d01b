"""Check ``sga.effective_drift``: the step-size-corrected ODE predicts the mean iterates.

It runs once per suite on its own configurations (:func:`cases`): a weak-signal case at
the paper's token counts, a strong-signal case and a decaying schedule.

Criteria (all must hold for ``pass``):

1. *Tracking.* For each case, with ``e_plain`` and ``e_corr`` the sup over the run of
   ``|mean simulated rho_k - prediction(t_k)|``: ``e_corr <= e_plain / 3`` and
   ``e_excess <= 0.03``, the sup of the corrected distance beyond ``3`` Monte Carlo standard errors
   of the mean (``|mean_k - prediction_k| - 3 SE_k``): the sup of the raw distance over a run
   grows with the noise of the mean, which is not the theory's error.
2. *Plateau.* In the constant-step cases the run-averaged alignment over the window
   where the corrected ODE has relaxed to its plateau agrees with the stable zero of ``F_eta`` (plus the curvature shift
   ``F_eta'' Var / (2 |F_eta'|)``) within ``3`` Monte Carlo standard errors (per-run
   time averages, so correlation along a run is accounted for).
3. *Vanishing correction.* Without simulation: the drag part of the correction,
   ``sup |rho_corrected - rho_plain|`` over a fixed ODE horizon with the finite-``L``
   bias switched off, shrinks linearly with a constant ``eta`` (log-log slope in
   ``[0.9, 1.1]`` over three decades) and is below ``1e-4`` at the smallest scale.
   (The ``O(1/L)`` bias term does not depend on ``eta`` and is reported separately.)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...numerics import Correction, Problem, Schedule, Simulation, SimulationOptions, predict, simulate
from ...theory import DriftOptions, effective_drift, gradient_second_moment, stationary_alignment
from ._context import CheckContext
from ._figures import FigureSpec, effective_drift_figure
from ._preset import QUICK, Preset
from ._record import CheckRecord
from ._sequential import Stopping, block_seed, concat, curtail_margin, look_counts

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

CHECK_ID = "sga.effective_drift"
RATIO = 3.0
ABS_TOL = 0.03
PLATEAU_SIGMAS = 3.0


@dataclass(frozen=True)
class EffectiveCase:
    """One simulated configuration of the check."""

    name: str
    problem: Problem
    schedule: Schedule
    steps: int
    rho0: float
    plateau: bool = False
    #: fewest runs by default: the sup over a run of ``|mean - prediction|`` is noise-limited where
    #: the corrected error is small (the plain/corrected ratio of the strong-signal case grows with
    #: the runs); the two small-``L`` cases cost little per run
    min_runs: int = 0

    def runs_under(self, preset: Preset) -> int:
        """The runs this configuration gets under ``preset``: its ``effective_runs``, at least ``min_runs``."""
        return max(preset.effective_runs, self.min_runs)


def cases(preset: Preset = QUICK) -> tuple[EffectiveCase, ...]:
    """The configurations: the paper's weak-signal instance at a constant step
    (``preset.effective_weak_steps``: 800 steps when quick, which do not reach its plateau;
    3000 otherwise), a strong signal and a decaying schedule."""
    const = Schedule.constant(0.05)
    weak = EffectiveCase("weak signal: theta=0.25, R=500, L=10500, d=100, eta=0.05", Problem(0.25, 500, 10500, 100),
                         const, preset.effective_weak_steps, 0.1, plateau=preset.effective_weak_plateau)
    return (
        weak,
        EffectiveCase("strong signal, eta d/L = 0.003", Problem(1.0, 150, 1000, 30), Schedule.constant(0.1), 800, 0.05,
                      plateau=True, min_runs=60),
        EffectiveCase("decaying eta0=0.4, k0=10, power=0.6", Problem(0.5, 200, 1000, 60),
                      Schedule(eta0=0.4, k0=10.0, power=0.6), 1500, 0.1, min_runs=60),
    )


@dataclass(frozen=True)
class EffectiveRun:
    """The simulation of one configuration, its prediction, the mean of the runs, the three sup
    errors (plain ODE, corrected ODE, corrected beyond 3 SE) and where it stopped (``None``: the
    fixed count)."""

    sim: Simulation
    pred: Any  # numerics.predict (scalar engine)
    mean: np.ndarray
    e_plain: float
    e_corr: float
    e_excess: float
    stopping: Stopping | None


def _run_case(case: EffectiveCase, runs: int, seed: int, stride: int, drag_scale: float,
              sequential: bool = False) -> EffectiveRun:
    """The :class:`EffectiveRun` of one configuration (``runs`` runs; with ``sequential``, in the looks
    of :mod:`._sequential`, stopping at the first that decides a pass: :func:`_decided`)."""
    pred = predict(case.problem, case.schedule, case.steps, case.rho0, stride, engine="scalar",
                   correction=Correction(drag_scale=drag_scale))
    counts = look_counts(runs) if sequential else (runs,)
    sims, done, stopping = [], 0, None
    for j, n in enumerate(counts):
        sims.append(simulate(case.problem, case.schedule, steps=case.steps, runs=n - done, rho0=case.rho0,
                             seed=block_seed(seed, j), stride=stride, options=SimulationOptions(workers=2)))
        done = n
        if n < runs and _decided(case, concat(sims), pred, runs, drag_scale):
            stopping = Stopping(n, runs, counts, "pass")
            break
    if sequential and stopping is None:
        stopping = Stopping(runs, runs, counts, None)
    sim = concat(sims)
    runs = sim.runs
    mean = sim.rho.mean(axis=0)
    e_plain = float(np.max(np.abs(mean - pred.rho_plain)))
    e_corr = float(np.max(np.abs(mean - pred.rho_corrected)))
    se = sim.rho.std(axis=0, ddof=1) / math.sqrt(runs)
    e_excess = float(np.max(np.abs(mean - pred.rho_corrected) - 3.0 * se))
    return EffectiveRun(sim, pred, mean, e_plain, e_corr, e_excess, stopping)


def _decided(case: EffectiveCase, sim, pred, total: int, drag_scale: float) -> bool:
    """Whether the full count of ``total`` runs would pass, with probability ``1 - FALSE_PASS``
    (:func:`._sequential.curtail_margin`: every mean of the full count within ``Delta`` of this
    look's): the sup errors and the plateau pass their rules at the worst means in that band."""
    rho = sim.rho
    mean, margin = rho.mean(axis=0), curtail_margin(rho, total)
    corr, plain = np.abs(mean - pred.rho_corrected), np.abs(mean - pred.rho_plain)
    se_full = rho.std(axis=0, ddof=1) / math.sqrt(total)
    ok = (float(np.max(corr + margin)) <= float(np.max(plain - margin)) / RATIO
          and float(np.max(corr + margin - 3.0 * se_full)) <= ABS_TOL)
    if ok and case.plateau:
        pl = _plateau(case, sim, pred, drag_scale)
        if not pl["ok"] or "tail" not in pl:
            return False
        per_run = rho[:, pl["tail"]].mean(axis=1)
        reach = float(curtail_margin(per_run, total)[0])
        ok = abs(pl["measured"] - pl["predicted"]) + reach <= (PLATEAU_SIGMAS * per_run.std(ddof=1) / math.sqrt(total)
                                                                  + pl["next_order"])
    return ok


def _plateau(case: EffectiveCase, sim, pred, drag_scale: float) -> dict:
    """Simulated average over the stationary window vs the predicted stationary mean.

    The window is where the corrected ODE is within ``0.003`` of its stable zero
    (the iterates have relaxed); it must cover at least a quarter of the run, else
    the plateau is reported as not reached (and the case fails).
    """
    p = case.problem
    pl = stationary_alignment(p.model, case.schedule.eta0, p.d, p.L, p.batch, drag_scale=drag_scale)
    tail = np.abs(pred.rho_corrected - pl.rho) <= 0.003
    if tail.mean() < 0.25:
        return {"root": pl.rho, "ok": False, "message": "plateau not reached within the run",
                "measured": float("nan"), "standard_error": float("nan"), "predicted": pl.rho}
    per_run = sim.rho[:, tail].mean(axis=1)
    measured = float(per_run.mean())
    se = float(per_run.std(ddof=1) / math.sqrt(per_run.size))
    # curvature shift of the mean by the stationary spread, (1/2) F'' Var / |F'|

    h = 1e-3
    f = [float(effective_drift(p.model, pl.rho + k * h, case.schedule.eta0, p.d, p.L, p.batch,
                               options=DriftOptions(drag_scale=drag_scale)).drift) for k in (-1, 0, 1)]
    curv = (f[0] - 2 * f[1] + f[2]) / h**2
    shift = 0.5 * curv * pl.spread**2 / abs(pl.slope)
    predicted = pl.rho + shift
    # The plateau is predicted to first order in eta. The next term of the one-step
    # expansion of 1/sqrt(1 + eta^2 Y) is (3/8) eta^4 Y^2 against (1/2) eta^2 Y, i.e.
    # relative size (3/4) eta^2 E|Pg|^2 of the drag (E Y^2 ~ (E Y)^2 for a sum of many
    # squares); the drag sets 1 - rho, so the neglected part of the plateau is about
    # that fraction of 1 - rho. It is allowed on top of the Monte Carlo error, and reported.

    eta = case.schedule.eta0
    y = float(gradient_second_moment(p.model, pl.rho, p.d, p.L, p.batch).total)
    next_order = 0.75 * eta * eta * y * (1.0 - pl.rho)
    return {
        "measured": measured, "standard_error": se, "predicted": predicted, "root": pl.rho,
        "curvature_shift": shift, "predicted_spread": pl.spread,
        "measured_spread": float(sim.rho[:, tail].std()),
        "next_order": next_order,
        "tolerance": PLATEAU_SIGMAS * se + next_order,
        "ok": abs(measured - predicted) <= PLATEAU_SIGMAS * se + next_order,
        "tail": tail,
    }


def _vanishing(case: EffectiveCase, horizon: float = 20.0) -> dict:
    """Drag part of the correction vs a constant step ``eta`` at a fixed ODE horizon (no simulation)."""
    scales = (1.0, 0.1, 0.01, 0.001)
    diffs = []
    for c in scales:
        eta = case.schedule.eta0 * c
        steps = round(horizon / eta)
        pred = predict(case.problem, Schedule.constant(eta), steps, case.rho0, max(1, steps // 20), engine="scalar",
                       correction=Correction(finite_L=False))
        diffs.append(float(np.max(np.abs(pred.rho_corrected - pred.rho_plain))))
    slope = float(np.polyfit(np.log(scales), np.log(np.maximum(diffs, 1e-300)), 1)[0])
    return {"scales": list(scales), "sup_difference": diffs, "loglog_slope": slope,
            "ok": 0.9 <= slope <= 1.1 and diffs[-1] <= 1e-4}


def check_effective_drift(case: Case | None, ctx: CheckContext, *, runs: int | None = None,
                          drag_scale: float = 1.0) -> list[CheckRecord]:
    """``sga.effective_drift`` (one consistency record).

    Parameters
    ----------
    case : ignored
        The check runs on its own configurations (:func:`cases`).
    ctx : CheckContext
        ``ctx.preset`` quick: the weak-signal case for 800 steps (ODE time 40) instead of 3000,
        30 runs (60 in the two small-``L`` cases); its plateau is then not reached, and only the
        strong-signal case tests the plateau. Configuration ``i`` draws from the stream
        ``ctx.seed_for("sga.effective_drift", i)``; the figure of the first goes to
        ``ctx.figure("effective_drift", ...)``.
    runs : int, optional
        Runs of every case; default ``preset.effective_runs`` (30 quick, 40 paper), at least a
        case's ``min_runs`` (60 for the two small-``L`` cases).
    drag_scale : float
        Multiplies the derived drag in the prediction; anything but 1 is a deliberately
        wrong theory (the tests check that the check then fails).
    """
    t0 = time.perf_counter()
    preset = ctx.preset
    quick = preset.name == "quick"  # recorded in the details
    fixed = runs
    stride = 20
    results, ok_all, worst_ratio, worst_abs, worst_excess = [], True, 0.0, 0.0, -math.inf
    first = None
    for i, config in enumerate(cases(preset)):
        runs = fixed if fixed is not None else config.runs_under(preset)
        run = _run_case(config, runs, ctx.seed_for(CHECK_ID, i), stride, drag_scale, ctx.sequential)
        sim, pred, e_plain, e_corr, e_excess = run.sim, run.pred, run.e_plain, run.e_corr, run.e_excess
        runs = sim.runs
        first = first or (config, sim, pred)
        ok = e_corr <= e_plain / RATIO and e_excess <= ABS_TOL
        entry: dict[str, Any] = {
            "case": config.name, "problem": config.problem.as_dict(), "schedule": config.schedule.as_dict(),
            "steps": config.steps, "rho0": config.rho0, "runs": runs, "sup_error_plain": e_plain,
            "sup_error_corrected": e_corr, "sup_error_corrected_beyond_3se": e_excess,
            "ratio": e_plain / e_corr if e_corr > 0 else math.inf, "ok": ok}
        if run.stopping is not None:
            entry["sequential"] = run.stopping.as_dict()
        if config.plateau:
            entry["plateau"] = _plateau(config, sim, pred, drag_scale)
            entry["plateau"].pop("tail", None)
            ok = ok and entry["plateau"]["ok"]
        results.append(entry)
        ok_all &= ok
        worst_abs = max(worst_abs, e_corr)
        worst_excess = max(worst_excess, e_excess)
        worst_ratio = max(worst_ratio, e_corr / e_plain if e_plain > 0 else math.inf)
    vanish = _vanishing(cases(preset)[0])
    ok_all &= vanish["ok"]
    figs: list[str] = []
    specs: tuple[FigureSpec, ...] = ()
    if ctx.figure_dir is not None and first is not None:
        path = Path(ctx.figure_dir) / "effective_drift.png"
        specs = (effective_drift_figure(path, first[1], first[2], title=first[0].name),)
        figs.append(str(path))
    msg = (f"corrected ODE sup error {worst_abs:.4f}, {max(worst_excess, 0.0):.4f} beyond 3 SE of the mean "
           f"(<= {ABS_TOL}), at most {worst_ratio:.3f} of the plain ODE's "
           f"(<= 1/{RATIO:g}) over {len(results)} cases; plateau "
           + ", ".join(f"{r['plateau']['measured']:.4f}±{r['plateau']['standard_error']:.4f} vs "
                       f"{r['plateau']['predicted']:.4f} (allowed {r['plateau'].get('tolerance', float('nan')):.4f}"
                       f" = {PLATEAU_SIGMAS:g} SE + next-order-in-eta "
                       f"{r['plateau'].get('next_order', float('nan')):.4f})"
                       for r in results if "plateau" in r)
           + f"; drag correction ~ eta^{vanish['loglog_slope']:.2f}"
           + "".join(f"; {r['case'].split(':')[0]}: {r['sequential']['runs']} of {r['sequential']['planned']} runs "
                     "(a look decided it)" for r in results
                     if r.get("sequential", {}).get("stopped_on")))
    return [CheckRecord(
        id=CHECK_ID, kind="consistency", status="pass" if ok_all else "fail",
        value=worst_ratio, threshold=1.0 / RATIO, certified=False, message=msg,
        details={"cases": results, "vanishing": vanish, "seed": ctx.seed, "quick": quick, "drag_scale": drag_scale,
                 "figures": figs, "abs_tolerance": ABS_TOL},
        model=first[0].problem.model.as_dict() if first else None,
        seconds=time.perf_counter() - t0,
        figures=specs,
    )]
