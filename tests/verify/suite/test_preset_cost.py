"""The suite's cost: each check run's token-steps and CPU seconds in its records, the totals, the
report's cost table, and ``sigrec bench --preset-cost`` comparing a run before and after stopping.

The checks are stubs that simulate a known number of token-steps (the real ones take minutes): the
machinery is tested, not a saving. A stub draws fewer runs when ``ctx.sequential``, so that before
and after differ by a known ratio.
"""

from __future__ import annotations

import dataclasses

import pytest

from sigrec.numerics import Problem, Schedule, executor, simulate
from sigrec.verify.checks import REGISTRY, Case, CheckRecord
from sigrec.verify.cli._bench import format_preset_cost
from sigrec.verify.render import markdown, report_dict
from sigrec.verify.suite import SuiteConfig, check_costs, preset_cost, run_suite

PROBLEM = Problem(theta=1.0, R=10, L=60, d=3, batch=2)
STEPS = 5
CASE = Case("c", 1.0, 300 / 3000, R=300, L=3000, d=10)  # inside validity: both checks run
CHECKS = ("sga.convergence", "sga.filtering")
_SHARED: dict = {}


def _runs(ctx) -> int:
    return 4 if ctx.sequential else 8


def _record(check_id, status="pass"):
    return CheckRecord(id=check_id, kind="consistency", status=status, value=None, threshold=None, certified=False,
                       message="stub", details={}, model=None, seconds=0.0)


def _shared_run(ctx):
    """One simulation two stubs share, as sga.convergence and sga.filtering share theirs."""
    key = (ctx.seed, ctx.sequential)
    if key not in _SHARED:
        _SHARED[key] = simulate(PROBLEM, Schedule.constant(0.05), steps=STEPS, runs=_runs(ctx), seed=ctx.seed)
    return _SHARED[key]


def _convergence(case, ctx):
    _shared_run(ctx)
    return [_record("sga.convergence.recovery"), _record("sga.convergence")]


def _filtering(flip):
    def run(case, ctx):
        _shared_run(ctx)  # from the cache: draws nothing here
        simulate(PROBLEM, Schedule.constant(0.05), steps=1, runs=3, seed=1)
        return [_record("sga.filtering", "fail" if flip and ctx.sequential else "pass")]
    return run


@pytest.fixture
def stubs(monkeypatch):
    def install(flip=False):
        _SHARED.clear()
        for cid, run in (("sga.convergence", _convergence), ("sga.filtering", _filtering(flip))):
            monkeypatch.setitem(REGISTRY, cid, dataclasses.replace(REGISTRY[cid], run=run))
        return SuiteConfig(cases=(CASE,), checks=CHECKS)
    yield install
    _SHARED.clear()


def test_each_record_carries_its_check_runs_cost_and_a_shared_simulation_counts_once(stubs):
    per_step = PROBLEM.L * PROBLEM.batch
    with executor(workers=1):
        result = run_suite(stubs())
    spent = [(r.id, r.details["check"], r.details["token_steps"]) for r in result.records]
    assert spent == [("sga.convergence.recovery", "sga.convergence", 4 * STEPS * per_step),
                     ("sga.convergence", "sga.convergence", 4 * STEPS * per_step),
                     ("sga.filtering", "sga.filtering", 3 * per_step)]
    assert all(r.details["cpu_seconds"] >= 0.0 for r in result.records)
    costs = check_costs(result.records)
    assert [(c["check"], c["case"], c["records"]) for c in costs] == [("sga.convergence", "c", 2),
                                                                      ("sga.filtering", "c", 1)]
    assert result.summary["token_steps"] == (4 * STEPS + 3) * per_step
    text = markdown({**report_dict(result), "out": None})
    assert "## Cost" in text and "| `sga.convergence` | c | 2 |" in text
    assert f"{(4 * STEPS + 3) * per_step:.4g} |" in text
    assert check_costs([{"details": {"case": "c"}}]) == []  # a report from before costs were recorded


def test_preset_cost_compares_the_fixed_designs_with_stopping(stubs):
    per_step = PROBLEM.L * PROBLEM.batch
    cost = preset_cost(stubs())
    rows = {c["check"]: c for c in cost["checks"]}
    assert rows["sga.convergence"]["token_steps_before"] == 8 * STEPS * per_step
    assert rows["sga.convergence"]["token_steps_after"] == 4 * STEPS * per_step
    assert rows["sga.convergence"]["token_steps_ratio"] == 0.5
    assert rows["sga.filtering"]["token_steps_ratio"] == 1.0
    t = cost["totals"]
    assert t["token_steps_before"] == (8 * STEPS + 3) * per_step
    assert t["token_steps_after"] == (4 * STEPS + 3) * per_step
    assert t["process_cpu_seconds_before"] > 0 and t["seconds_after"] > 0
    assert cost["identical"] and cost["differences"] == []
    text = format_preset_cost(cost)
    assert "identical before and after" in text and "sga.convergence" in text


def test_preset_cost_says_when_the_verdicts_differ(stubs):
    cost = preset_cost(stubs(flip=True))
    assert not cost["identical"]
    assert cost["differences"] == ["record sga.filtering on c: pass before, fail after"]
    assert "DIFFER" in format_preset_cost(cost)
