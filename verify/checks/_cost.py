"""What a check computes on a case, before anything is simulated: the units of work of the run's plan
(``sigrec verify --dry-run``).

A :class:`Work` names one computation by a key; two checks that name the same key share it (one
computes it, the cached result serves the other within a process). The simulations carry their cost
in token-steps (runs x steps x L x batch; the most they may draw: a sequential check may stop
earlier, :mod:`._sequential`). Each check's cost function reads the same designs the check runs
(the recovery plan, the tracking design, the diffusion horizon: cached, so a dry run followed by
the run computes them once), and draws nothing from the exact chain except the designs' own small
pilots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...numerics import schedule_text
from ._context import CheckContext, certificate
from ._diffusion_band import diffusion_design
from ._effective import cases as effective_cases
from ._sga import NOISE_BAND_DRAWS, convergence_schedule
from ._splitting import splitting_design
from ._tracking import _design, _pilot_seed

if TYPE_CHECKING:  # annotations only: the registry imports this module and Case imports it
    from ._case import Case

#: the kinds of work
KINDS = ("derivation", "certificate", "design", "diffusion tables", "prediction", "simulation")


@dataclass(frozen=True)
class Work:
    """One unit of work of a run's plan.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    key : tuple
        Its identity: checks naming equal keys share one computation.
    label : str
        What it is (protocol, sizes).
    token_steps : float
        For a simulation: the most token-steps it draws (runs x steps x L x batch); else 0.
    note : str
        What else to know (e.g. that a sequential check may stop earlier, or why it is not shared).
    """

    kind: str
    key: tuple = field(repr=False)
    label: str
    token_steps: float = 0.0
    note: str = ""

    def as_dict(self) -> dict:
        return {"kind": self.kind, "label": self.label, "token_steps": self.token_steps, "note": self.note}


def _certificate(case: Case) -> Work:
    return Work("certificate", ("certificate", case.model), "certificate of the limit model (theory.certify, balls)")


def derivations(case: Case | None, ctx: CheckContext) -> tuple[Work, ...]:
    """``derivation.quadrature`` and ``field.endpoints``: the symbolic derivations of every prior family."""
    return (Work("derivation", ("derivations",), "symbolic derivation of every prior family (sympy)"),)


def quadrature(case: Case | None, ctx: CheckContext) -> tuple[Work, ...]:
    """``derivation.quadrature``: the derivations and their quadrature at random points."""
    return (*derivations(case, ctx),
            Work("prediction", ("quadrature",), f"{ctx.quadrature_points} random points per prior at "
                 f"{ctx.quadrature_dps} digits (mpmath)"))


def landscape(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """The certified landscape (``field.*``, ``ode.lyapunov``)."""
    return (_certificate(case),)


def _recovery_plan(case: Case, ctx: CheckContext) -> Work:
    d = convergence_schedule(case, ctx)
    what = "decisive plan (numerics.plan_recovery)" if d.info["planned"] else "default schedule (plan over budget)"
    return Work("design", ("recovery plan", case.name), f"recovery schedule: {what}, {d.runs} runs x {d.steps:,} steps")


def convergence(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``sga.convergence``, ``sga.filtering``, ``stepsize.robbins_monro``: one recovery plan and its runs."""
    d = convergence_schedule(case, ctx)
    sched, steps, runs, p = d.schedule, d.steps, d.runs, case.problem
    sim = Work("simulation", ("convergence runs", case.name),
               f"{runs} runs x {steps:,} steps of {schedule_text(sched)} from uniform starts at L {p.L}, d {p.d}",
               float(runs) * steps * p.L * p.batch,
               "not shared with sga.tracking (constant steps from a fixed start at d <= 10) nor with the diffusion "
               "checks (a fixed start, the reproduction's schedule)")
    unstable = sum(e.stability == "unstable" for e in certificate(case.model).equilibria)
    band = Work("simulation", ("noise band", case.name),
                f"{NOISE_BAND_DRAWS} one-step draws at each of {unstable} unstable equilibria (the noise band)",
                float(unstable * NOISE_BAND_DRAWS * p.L * p.batch))
    works = [_certificate(case), _recovery_plan(case, ctx), sim]
    return tuple([*works, band] if unstable else works)


def robbins_monro(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    return (_recovery_plan(case, ctx),)


def tracking(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``sga.tracking``: its design (a pilot of one-step increments) and five configurations."""
    d = _design(case.problem, ctx.preset, _pilot_seed(case, ctx))
    total = sum(d.runs * math.ceil(d.t_total / eta) * L for L, eta in d.configs)
    return (_certificate(case),
            Work("design", ("tracking design", case.name), f"tracking design: a pilot of {ctx.preset.tracking_pilot} "
                 f"one-step increments; steps {d.eta_min:.3g} to {d.eta_max:.3g}"),
            Work("simulation", ("tracking runs", case.name),
                 f"{len(d.configs)} configurations (L, eta) x {d.runs} runs from rho0 = {d.rho0:.3g} at d {d.base.d}",
                 float(total), "its own protocol: constant steps, restarted flows"))


def finite_size(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``finite_size.rate``: one-step draws at fixed alignments, at most the preset's normals."""
    normals = ctx.preset.finite_budget
    return (Work("simulation", ("finite-size draws", case.name),
                 f"one-step draws on a ladder of L at most {normals:.3g} normals", normals / 3.0,
                 "token-steps ~ normals / 3 (three normals per token)"),)


def reduced_exact(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``simulator.reduced_exact``: both simulators, 5 steps, on two small instances (L 60 and 40)."""
    runs = ctx.preset.reduced_exact_runs
    return (Work("simulation", ("reduced vs full", case.name), f"2 instances x 2 simulators x {runs} runs x 5 steps",
                 float(2 * runs * 5 * (60 + 40))),)


def effective(case: Case | None, ctx: CheckContext) -> tuple[Work, ...]:
    """``sga.effective_drift``: its own three configurations."""
    out = []
    for i, c in enumerate(effective_cases(ctx.preset)):
        runs = c.runs_under(ctx.preset)
        out.append(Work("simulation", ("effective drift", i), f"{c.name}: {runs} runs x {c.steps} steps",
                        float(runs) * c.steps * c.problem.L * c.problem.batch))
    return tuple(out)


def diffusion(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``sga.fluctuations`` and ``sga.hitting_time``: one prediction and one set of runs, shared."""
    d = diffusion_design(case, ctx)
    tables = Work("diffusion tables", ("diffusion tables", case.problem, d["route"]),
                  f"drift and variance tables ({d['route']} route)")
    if d["horizon"] is None:
        return (tables,)
    p = case.problem
    note = "sequential: may stop at the looks of 50% and 75% of the runs" if d["sequential"] else ""
    return (tables,
            Work("prediction", ("diffusion prediction", case.name), f"{d['paths']} diffusion paths to the step cap"),
            Work("simulation", ("diffusion runs", case.name),
                 f"{d['runs']} runs x {d['horizon']:,} steps of {schedule_text(d['schedule'])} from rho0 = 0.1",
                 float(d["runs"]) * d["horizon"] * p.L * p.batch, note))


def splitting(case: Case, ctx: CheckContext) -> tuple[Work, ...]:
    """``sga.splitting``: runs from beside the unstable equilibrium, each stopped at its first exit."""
    tables = Work("diffusion tables", ("diffusion tables", case.problem, "expansion"),
                  "drift and variance tables (expansion route)")
    d = splitting_design(case, ctx)
    if d is None:
        return (tables,)
    p = case.problem
    note = "each run stops at its first exit (about a quarter of the cap on average)"
    if d["sequential"]:
        note += "; sequential: may stop at the looks of 50% and 75% of the runs"
    return (tables, Work("simulation", ("splitting runs", case.name),
                         f"{d['runs']} runs x at most {d['steps']:,} steps at eta = {d['eta']:.3g}",
                         float(d["runs"]) * d["steps"] * p.L * p.batch, note))
