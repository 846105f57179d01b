"""The verification suite: presets, the ordered list of checks, the runner."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ._checks_theory import check_endpoints, check_quadrature
from ._records import CheckRecord

PRESETS = ("quick", "paper")


@dataclass(frozen=True)
class SuiteConfig:
    """Everything a suite run depends on (recorded in the report)."""

    preset: str = "quick"
    seed: int = 20260606
    quadrature_points: int = 2
    quadrature_dps: int = 50

    @classmethod
    def preset_config(cls, preset: str) -> "SuiteConfig":
        if preset not in PRESETS:
            raise ValueError(f"`preset` must be one of {PRESETS}, got {preset!r}")
        if preset == "quick":
            return cls(preset="quick")
        return cls(preset="paper", quadrature_points=6)


@dataclass(frozen=True)
class SuiteResult:
    config: SuiteConfig
    records: tuple[CheckRecord, ...]
    seconds: float
    summary: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True iff every consistency check passed."""
        return not any(r.failed for r in self.records)


def _steps(config: SuiteConfig):
    """(label, callable -> list of records) in run order."""
    return [
        ("derivation.quadrature", lambda: [check_quadrature(config.quadrature_points, config.quadrature_dps, config.seed)]),
        ("field.endpoints", lambda: [check_endpoints()]),
    ]


def summarize(records) -> dict:
    consistency = [r for r in records if r.kind == "consistency"]
    conditions = [r for r in records if r.kind == "condition"]
    return {
        "checks": len(records),
        "consistency_passed": sum(r.status == "pass" for r in consistency),
        "consistency_failed": sum(r.status != "pass" for r in consistency),
        "conditions_holding": sum(r.status == "holds" for r in conditions),
        "conditions_failing": sum(r.status == "fails" for r in conditions),
        "conditions_undecided": sum(r.status == "undecided" for r in conditions),
        "certified": sum(r.certified for r in records),
        "ok": not any(r.failed for r in records),
    }


def run_suite(config: SuiteConfig, progress=None) -> SuiteResult:
    """Run every check of ``config`` in order.

    ``progress``, if given, is called as ``progress(label, done, total)`` before
    each step and once at the end.
    """
    t0 = time.perf_counter()
    steps = _steps(config)
    records: list[CheckRecord] = []
    for i, (label, fn) in enumerate(steps):
        if progress:
            progress(label, i, len(steps))
        records.extend(fn())
    if progress:
        progress("done", len(steps), len(steps))
    return SuiteResult(config, tuple(records), time.perf_counter() - t0, summarize(records))
