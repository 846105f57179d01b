"""One plan of a whole suite run (checks x cases) before anything is simulated: what each step
computes, what it shares with the steps before it, and the cost in token-steps
(``sigrec verify --dry-run``).

Each check's cost function (``Check.cost``, :mod:`verify.checks._cost`) names its units of work by
keys; a key met again is shared (computed once, read from the cache by the later step). The suite
runs each case with all its checks as one unit of the executor (:func:`verify.suite.run_suite`), so
what a case's checks share is computed once wherever the unit runs; a key shared *across* cases
(the certificate of one limit model used by two instances, the derivations of the built-in checks)
is computed once per worker process that needs it, and the plan says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..checks import CheckContext
from ._cases import SuiteConfig
from ._runner import context, plan


@dataclass(frozen=True)
class PlanStep:
    """One step of the run: a check on a case, what it computes itself and what it reads from earlier steps.

    Attributes
    ----------
    label : str
        ``"check: case"`` (or the check id of a model-independent check).
    check : str
    case : str or None
    own : tuple of Work
        The work this step computes.
    shared : tuple of (Work, str)
        The work it reads from an earlier step (the label of that step), with whether that step is
        in another unit (then a different worker may compute it again).
    estimated : bool
        False when the check has no cost function (its work is not listed).
    """

    label: str
    check: str
    case: str | None
    own: tuple = ()
    shared: tuple = ()
    estimated: bool = True

    @property
    def token_steps(self) -> float:
        return sum(w.token_steps for w in self.own)

    def as_dict(self) -> dict:
        return {"label": self.label, "check": self.check, "case": self.case, "token_steps": self.token_steps,
                "own": [w.as_dict() for w in self.own],
                "shared": [{**w.as_dict(), "from": src, "other_unit": other} for w, src, other in self.shared],
                "estimated": self.estimated}


@dataclass(frozen=True)
class RunPlan:
    """The plan of a suite run.

    Attributes
    ----------
    steps : tuple of PlanStep
        In run order.
    sequential : bool
        Whether the counted checks may stop early (then the token-steps are the most they draw).
    notes : tuple of str
        What the plan cannot share, and why.
    """

    steps: tuple
    sequential: bool
    notes: tuple = field(default=())

    @property
    def token_steps(self) -> float:
        return sum(s.token_steps for s in self.steps)

    def by_check(self) -> dict:
        out: dict[str, float] = {}
        for s in self.steps:
            out[s.check] = out.get(s.check, 0.0) + s.token_steps
        return out

    def as_dict(self) -> dict:
        return {"token_steps": self.token_steps, "sequential": self.sequential, "by_check": self.by_check(),
                "steps": [s.as_dict() for s in self.steps], "notes": list(self.notes)}

    def describe(self) -> str:
        """The plan as text: one block per step, then the totals."""
        lines = []
        for s in self.steps:
            head = f"{s.label}: " + (f"{s.token_steps:.3g} token-steps" if s.token_steps else "no simulation")
            lines.append(head if s.estimated else f"{s.label}: (cost not estimated)")
            lines += [f"    computes {w.kind}: {w.label}" + (f" [{w.token_steps:.3g} token-steps]" if w.token_steps
                                                                 else "") + (f" ({w.note})" if w.note else "")
                      for w in s.own]
            lines += [f"    shares {w.kind} with {src}" + (" (another unit: its worker may compute it again)"
                                                           if other else "") for w, src, other in s.shared]
        lines.append(f"total: {self.token_steps:.3g} token-steps"
                     + (" at most (sequential checks may stop at an earlier look)" if self.sequential else ""))
        lines += [f"  {cid}: {t:.3g}" for cid, t in sorted(self.by_check().items(), key=lambda kv: -kv[1]) if t]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


#: what the plan cannot share, and why (the protocols differ)
NOT_SHARED = (
    "sga.convergence's runs (uniform starts, the planned decaying schedule, the case's d) cannot serve sga.tracking "
    "(a fixed start, constant steps, restarted flows, d <= 10) nor sga.effective_drift (its own instances at a "
    "constant step): their protocols differ; sga.filtering reads sga.convergence's runs",
    "sga.fluctuations and sga.hitting_time share one set of runs (a fixed start, the reproduction's schedule); "
    "sga.splitting starts beside the unstable equilibrium at a constant step, its own runs",
)


def run_plan(config: SuiteConfig, ctx: CheckContext | None = None) -> RunPlan:
    """The :class:`RunPlan` of ``config`` (the steps of :func:`verify.suite._runner.plan`)."""
    ctx = ctx or context(config)
    seen: dict[tuple, tuple[str, object]] = {}
    out = []
    for label, check, case in plan(config):
        if check.cost is None:
            out.append(PlanStep(label, check.id, getattr(case, "name", None), estimated=False))
            continue
        own, shared = [], []
        for w in check.cost(case, ctx):
            if w.key in seen:
                src, unit = seen[w.key]
                shared.append((w, src, unit is not case))
            else:
                seen[w.key] = (label, case)
                own.append(w)
        out.append(PlanStep(label, check.id, getattr(case, "name", None), tuple(own), tuple(shared)))
    return RunPlan(tuple(out), ctx.sequential, NOT_SHARED)
