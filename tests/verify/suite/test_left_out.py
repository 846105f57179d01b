"""The default preset leaves ``finite_size.rate`` out on the paper's weak-signal model at d = 2,
and says why with numbers from the theory; the paper preset runs it at the paper's d = 100."""

from __future__ import annotations

import re

from sigrec.theory import effective_drift
from sigrec.verify.checks import PAPER
from sigrec.verify.suite._cases import SuiteConfig, left_out
from sigrec.verify.suite._runner import plan


def _ids(config, name):
    return [c.id for _, c, case in plan(config) if case is not None and case.name == name]


def test_the_default_leaves_the_rate_out_on_paper_weak_and_says_why():
    quick = SuiteConfig.preset_config("quick")
    weak = next(c for c in quick.cases if c.name == "paper-weak")
    assert weak.d < PAPER.weak_d
    assert "finite_size.rate" not in _ids(quick, "paper-weak")
    assert "finite_size.rate" in _ids(quick, "finite-size")  # the rate is still decided in the default run
    (entry,) = left_out(quick)
    assert entry["check"] == "finite_size.rate" and entry["case"] == "paper-weak"
    # the two bias coefficients it quotes are the theory's, and the d = 2 one is far smaller
    c_small, c_paper = (float(x) for x in re.findall(r"C = (-?[0-9.e+-]+)", entry["reason"]))
    grid = (-0.7, -0.5, -0.3, 0.3, 0.5, 0.7, 0.9)
    for d, quoted in ((weak.d, c_small), (PAPER.weak_d, c_paper)):
        cs = [float(effective_drift(weak.model, r, 1e-12, d, 1.0).finite_L) for r in grid]
        assert any(abs(c - quoted) <= 0.01 * abs(c) + 1e-3 for c in cs)
    assert abs(c_small) * 5 < abs(c_paper)
    assert "--preset paper" in entry["reason"] and "finite-size case" in entry["reason"]


def test_the_paper_preset_runs_the_rate_on_paper_weak_at_the_papers_d():
    paper = SuiteConfig.preset_config("paper")
    assert left_out(paper) == []
    assert "finite_size.rate" in _ids(paper, "paper-weak")
    assert next(c for c in paper.cases if c.name == "paper-weak").d == PAPER.weak_d


def test_your_own_cases_leave_nothing_out():
    from dataclasses import replace

    quick = SuiteConfig.preset_config("quick")
    own = tuple(replace(c, name="mine") if c.name == "paper-weak" else c for c in quick.cases)
    assert left_out(replace(quick, cases=own)) == []
