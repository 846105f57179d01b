"""Units of a suite run: one check on one case (:func:`_run_check`, the records it names), and
for a distributed run the units the plan is cut into (each model-independent check, or one case
with all its checks) and their fan-out on the executor (docs/design.md section 8).
"""

from __future__ import annotations

import threading
import time
from contextlib import closing
from dataclasses import dataclass, replace

from ...numerics import count_token_steps, current_executor, report
from ..checks import REGISTRY, Case, Check, CheckContext, CheckRecord


def ran_on(check: Check, case: Case | None) -> str:
    """What ``check`` runs on, said in its records (``details["ran_on"]``) unless a record says more
    precisely (a check that simulates instances of its own, e.g. ``sga.tracking``'s ladder of sizes):
    ``"built-in: ..."`` for a model-independent check, else the case's limit model or its instance."""
    if case is None:
        return f"built-in: {check.builtin}"
    if check.scope == "model" or not case.simulated:
        return f"{case.name}: the limit model"
    p = case.problem
    return f"{case.name}: R {p.R}, L {p.L}, d {p.d}"


def _run_check(check, case, ctx) -> list[CheckRecord]:
    """The records of ``check`` on ``case`` (``None`` for a model-independent check), each naming
    its case, what it ran on (:func:`ran_on`), the check that ran (``details["check"]``) and the
    run's cost, the same on each of its records: ``details["token_steps"]``, the tokens its own
    samplers drew (:func:`numerics.count_token_steps`), and ``details["cpu_seconds"]``.

    A simulation that two checks share from a cache (``sga.convergence`` and ``sga.filtering``;
    ``sga.fluctuations`` and ``sga.hitting_time``) counts once, on whichever check ran it first: the
    other draws nothing. The CPU seconds are this process's clock when the executor is in-process
    (the whole process does this check), else this thread's (other units may share the worker
    process), plus the CPU seconds the check's blocks of runs report from the workers they ran on.
    """
    where = ran_on(check, case)
    named = {} if case is None else {"case": case.name}
    clock = time.process_time if current_executor().backend == "inline" else time.thread_time
    cpu0 = clock()
    with count_token_steps() as cost:
        records = check.run(case, ctx)
    spent = {"check": check.id, "token_steps": cost.token_steps,
             "cpu_seconds": round(clock() - cpu0 + cost.cpu_elsewhere, 3)}
    return [replace(r, details={**r.details, **named, "ran_on": r.details.get("ran_on", where), **spent})
            for r in records]


@dataclass(frozen=True)
class _Unit:
    """One unit of work of a distributed suite run: a model-independent check alone, or
    one case with all its checks (they share cached simulations). Picklable, pure."""

    checks: tuple[str, ...]
    case: Case | None
    #: its ``figure_dir`` is where the figures go on the machine that runs the suite
    #: (``None``: no figures); the unit only names paths there, it writes nothing
    ctx: CheckContext
    #: position in the plan's units, and the run its progress is reported to
    index: int = 0
    run: str | None = None

    @property
    def label(self) -> str:
        return self.checks[0] if self.case is None else self.case.name


#: model-independent checks that share one unit when consecutive in the plan: they derive the same
#: sympy objects (``theory.derive`` of each prior, cached per process), which a unit of their own
#: on each worker would derive twice
_SHARED_DERIVATION = frozenset({"derivation.quadrature", "field.endpoints"})


def _groups(steps) -> list[tuple]:
    """The plan's steps grouped into ``(check ids, case)`` units: each case with its checks
    (consecutive in the plan), the consecutive checks of :data:`_SHARED_DERIVATION` together,
    every other ``once`` check alone, in plan order."""
    groups: list[list] = []
    for _, check, case in steps:
        last = groups[-1][-1] if groups else None
        shared = (case is None and last is not None and last[1] is None
                  and {check.id, last[0]} <= _SHARED_DERIVATION)
        if shared or (case is not None and last is not None and last[1] is case):
            groups[-1].append((check.id, case))
        else:
            groups.append([(check.id, case)])
    return [(tuple(cid for cid, _ in g), g[0][1]) for g in groups]


def _run_unit(u: _Unit) -> list[CheckRecord]:
    """The records of one unit, run wherever the scheduler put it.

    A record's figures are specs (data, drawn where the report is written), so a worker
    writes no file and need not share a file system with the client.
    """
    records = []
    for k, cid in enumerate(u.checks):
        current_executor().raise_if_stopped()  # the command was interrupted: stop here
        report(u.run, {"unit": u.index, "done": k, "check": cid})
        records.extend(_run_check(REGISTRY[cid], u.case, u.ctx))
    return records


def _run_distributed(ex, groups, total: int, ctx, progress, done0: int = 0,
                     finished_unit=None) -> list[list[CheckRecord]]:
    """The records of each unit of ``groups`` (``(check ids, case)``, :func:`_groups`), each a
    fan-out task on ``ex``, in the order of ``groups``; ``finished_unit(i, records)`` is called as
    unit ``i`` finishes.

    Units report each check they start; ``progress(label, done, total)`` is called from
    those reports (on the client's event thread) and as units finish, with ``done`` (from
    ``done0``, the steps already done elsewhere) never decreasing and nothing after the last unit.
    """
    seen = [0] * len(groups)  # checks of each unit known to be finished
    lock = threading.Lock()
    state = {"open": True}

    def advance(i, done, label):
        with lock:
            seen[i] = max(seen[i], done)
            if progress and state["open"]:
                progress(label, done0 + sum(seen), total)

    def on_report(msg):
        unit = work[msg["unit"]]
        case = "" if unit.case is None else f": {unit.case.name}"
        advance(msg["unit"], msg["done"], f"{msg['check']}{case}")

    parts: dict[int, list[CheckRecord]] = {}
    with ex.events(on_report) as run:
        work = [_Unit(checks, case, ctx, i, run) for i, (checks, case) in enumerate(groups)]
        advance(0, 0, f"{len(work)} units on {ex.workers} workers")
        try:
            with closing(ex.as_completed(_run_unit, work, fan_out=True)) as finished:
                for i, recs in finished:
                    parts[i] = recs
                    if finished_unit is not None:
                        finished_unit(i, recs)
                    advance(i, len(work[i].checks), f"{work[i].label} done")
        finally:
            with lock:
                state["open"] = False
    return [parts[i] for i in range(len(groups))]
