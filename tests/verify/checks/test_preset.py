"""The presets: one object each, holding the sizes that were quick/paper tables."""

import pytest

from sigrec.verify.checks import PAPER, PRESETS, QUICK, CheckContext, preset_named
from sigrec.verify.checks._diffusion import Budget, budget


def test_the_presets_hold_the_former_tables():
    assert tuple(PRESETS) == ("quick", "paper") and preset_named("paper") is PAPER
    assert CheckContext().preset is QUICK and QUICK.larger is PAPER and PAPER.larger is None
    assert (QUICK.sga_runs, QUICK.sga_sim_budget, QUICK.sga_plan_budget) == (16, 4.0e7, 6.0e8)
    assert (QUICK.weak_d, QUICK.bistable_d, PAPER.weak_d, PAPER.bistable_d) == (2, 2, 100, 3)
    assert (PAPER.sga_runs, PAPER.sga_sim_budget, PAPER.sga_plan_budget) == (20, 1.2e9, 1.5e10)
    assert (QUICK.tracking_runs, QUICK.tracking_budget, PAPER.tracking_runs, PAPER.tracking_budget) == (
        32, 1.5e8, 32, 1.5e9)
    assert (QUICK.finite_budget, PAPER.finite_budget) == (4.0e7, 8.0e8)
    assert budget(QUICK) == Budget(100, 4000, 400) and budget(PAPER) == Budget(100, 12_000, 300)
    assert len(PAPER.reproduce_configs) == 16 and QUICK.reproduce_configs == ((0.25, 500, 10_000),)


def test_larger_fits_names_what_the_paper_preset_affords():
    assert QUICK.larger_fits("finite_budget", 8.0e8) and not QUICK.larger_fits("finite_budget", 8.1e8)
    assert not PAPER.larger_fits("finite_budget", 1.0)


def test_an_unknown_preset_is_refused_by_name():
    with pytest.raises(ValueError, match=r"`preset` must be one of \('quick', 'paper'\), got 'huge'"):
        preset_named("huge")
