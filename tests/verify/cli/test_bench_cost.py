"""``sigrec bench --preset-cost NAME`` refuses what it cannot run in one error line (its machinery:
tests/verify/suite/test_preset_cost.py)."""

from __future__ import annotations

from ._run import error_line


def test_an_unknown_preset_is_one_error_line(capsys):
    line = error_line(capsys, ["bench", "--preset-cost", "bogus"])
    assert "--preset-cost" in line and "bogus" in line


def test_preset_cost_refuses_the_other_modes_flags(capsys):
    line = error_line(capsys, ["bench", "--preset-cost", "quick", "--quick"])
    assert "`--preset-cost`" in line
