"""The suite runner: which check runs on which case, in what order; the result."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..checks import REGISTRY, CheckContext, CheckRecord, select
from ._cases import SuiteConfig
from ._claims import Claim, claims


@dataclass(frozen=True)
class SuiteResult:
    """Records of one suite run, with its configuration, summary and claim verdicts."""

    config: SuiteConfig
    records: tuple[CheckRecord, ...]
    seconds: float
    summary: dict = field(default_factory=dict)
    figures: tuple = ()
    claims: tuple[Claim, ...] = ()

    @property
    def ok(self) -> bool:
        """True iff every consistency check passed."""
        return not any(r.failed for r in self.records)


def _with_case(records, case):
    return [replace(r, details={**r.details, "case": case.name}) for r in records]


def plan(config: SuiteConfig) -> list[tuple[str, object, object]]:
    """``(label, check, case)`` in run order.

    Model-independent checks listed before the first per-case check in the registry run
    first; then every case with its checks; then the remaining model-independent ones.
    """
    chosen = select(config.checks)
    order = list(REGISTRY.values())
    first_case_check = next(i for i, c in enumerate(order) if c.scope != "once")
    before = [c for c in chosen if c.scope == "once" and order.index(c) < first_case_check]
    after = [c for c in chosen if c.scope == "once" and order.index(c) > first_case_check]
    steps = [(c.id, c, None) for c in before]
    for case in config.cases:
        wanted = {c.id for c in select(case.checks)}
        steps += [(f"{c.id}: {case.name}", c, case) for c in chosen
                  if c.scope != "once" and c.id in wanted and c.applies(case)]
    steps += [(c.id, c, None) for c in after]
    return steps


def summarize(records) -> dict:
    consistency = [r for r in records if r.kind == "consistency"]
    conditions = [r for r in records if r.kind == "condition"]
    return {
        "checks": len(records),
        "consistency_passed": sum(r.status == "pass" for r in consistency),
        "consistency_failed": sum(r.status == "fail" for r in consistency),
        "consistency_inconclusive": sum(r.status == "inconclusive" for r in consistency),
        "conditions_holding": sum(r.status == "holds" for r in conditions),
        "conditions_failing": sum(r.status == "fails" for r in conditions),
        "conditions_undecided": sum(r.status == "undecided" for r in conditions),
        "conditions_inconclusive": sum(r.status == "inconclusive" for r in conditions),
        "certified": sum(r.certified for r in records),
        "ok": not any(r.failed for r in records),
    }


def run_suite(config: SuiteConfig, progress=None, figure_dir: Path | None = None) -> SuiteResult:
    """Run every check of ``config`` in order.

    ``progress``, if given, is called as ``progress(label, done, total)`` before
    each step and once at the end. Figures go to ``figure_dir`` when given.
    """
    t0 = time.perf_counter()
    if figure_dir is not None:
        figure_dir.mkdir(parents=True, exist_ok=True)
    ctx = CheckContext(seed=config.seed, quick=config.preset == "quick", figure_dir=figure_dir,
                       quadrature_points=config.quadrature_points, quadrature_dps=config.quadrature_dps,
                       budget=config.budget)
    steps = plan(config)
    records: list[CheckRecord] = []
    for i, (label, check, case) in enumerate(steps):
        if progress:
            progress(label, i, len(steps))
        out = check.run(case, ctx)
        records.extend(out if case is None else _with_case(out, case))
    if progress:
        progress("done", len(steps), len(steps))
    figures = tuple(f for r in records for f in r.details.get("figures", []))
    return SuiteResult(config, tuple(records), time.perf_counter() - t0, summarize(records), figures,
                       claims(records))
