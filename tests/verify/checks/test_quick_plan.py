"""The default preset decides recovery on the paper's own cases: its planned runs fit its budget.

A test on the plan, not a verify run: ``sga.convergence`` runs the planner's schedule exactly when
the plan is feasible and its token-steps fit ``Preset.sga_plan_budget`` (then "fewer than 90% of
the runs recovered" would be a finding, and recovery is never "undecided"). The plan's promises
are checked by routes other than the planner's own: the last step's plateau by
``theory.stationary_alignment`` (brentq on the scalar drift), the mean by ``numerics.predict``.
"""

import pytest

from sigrec.numerics import plan_recovery, predict
from sigrec.theory import stationary_alignment
from sigrec.verify.checks import PAPER, QUICK
from sigrec.verify.checks._schedule import RECOVERY_LEVEL
from sigrec.verify.suite._cases import CASES, PAPER_CASES
from sigrec.verify.suite._claims import dimension_note


def _case(cases, name):
    return next(c for c in cases if c.name == name)


@pytest.mark.parametrize("name", ["paper-weak", "paper-bistable"])
def test_the_default_runs_a_decisive_plan_on_the_papers_case(name):
    case = _case(CASES, name)
    # the paper's own model: theta 0.25 or 2, R = 500, N = 10,000, at the default's small d
    assert (case.theta, case.R, case.L - case.R) == ({"paper-weak": 0.25, "paper-bistable": 2.0}[name], 500, 10_000)
    assert case.d == 2 and "sga.convergence" in case.checks
    p = case.problem
    plan = plan_recovery(p, target=RECOVERY_LEVEL, runs=QUICK.sga_runs)
    assert plan.feasible, plan.message
    assert plan.token_steps <= QUICK.sga_plan_budget  # so the check runs it (planned, not budget-limited)
    assert plan.predicted_fraction >= 0.97
    pl = stationary_alignment(p.model, plan.last_step, p.d, p.L, p.batch)
    assert pl.rho - 2 * pl.spread > RECOVERY_LEVEL
    # the corrected-ODE mean from the slowest planned start ends past the target (predict's route)
    worst = min(abs(predict(p, plan.schedule, plan.steps, r0, plan.steps).rho_corrected[-1]) for r0 in plan.starts)
    assert worst >= RECOVERY_LEVEL and worst == pytest.approx(plan.predicted_end, rel=1e-9)


def test_the_paper_preset_keeps_the_papers_dimensions_and_the_report_says_which_d_ran():
    assert _case(PAPER_CASES, "paper-weak").d == PAPER.weak_d == 100
    assert _case(PAPER_CASES, "paper-bistable").d == PAPER.bistable_d == 3
    weak = _case(CASES, "paper-weak").description
    assert "d = 2" in weak and "--preset paper" in weak

    class R:
        def __init__(self, case, d):
            self.details = {"case": case, "problem": {"d": d}}

    note = dimension_note([R("paper-weak", 2), R("paper-bistable", 2), R("rademacher", 5)])
    assert note == "; the paper's cases ran at d = 2 (--preset paper: paper-bistable at d = 3, paper-weak at d = 100)"
    assert dimension_note([R("paper-weak", 100), R("paper-bistable", 3)]) == ""
    assert dimension_note([R("rademacher", 2)]) == ""
    mixed = dimension_note([R("paper-weak", 3), R("paper-bistable", 2)])
    assert "d = 2 (paper-bistable), 3 (paper-weak)" in mixed
