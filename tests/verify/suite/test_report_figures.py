"""The report lists each figure once, though two checks that share a simulation both name it."""

from __future__ import annotations

import dataclasses

from sigrec.verify.checks import REGISTRY, Case, CheckRecord
from sigrec.verify.suite import SuiteConfig, run_suite


def _stub(check_id, paths):
    def run(case, ctx):
        return [CheckRecord(id=check_id, kind="consistency", status="pass", value=None, threshold=None,
                            certified=False, message="stub", details={"figures": list(paths)},
                            model=case.model.as_dict(), seconds=0.0)]
    return run


def test_a_shared_trajectory_figure_is_listed_once(monkeypatch, tmp_path):
    """sga.convergence and sga.filtering draw from one simulation and both name its trajectory
    figure (stubbed here: the real checks take a minute); the suite's figure list holds it once,
    in first-seen order."""
    shared, own = str(tmp_path / "sga_trajectories-c.png"), str(tmp_path / "nuisance-c.png")
    for cid, paths in (("sga.convergence", (shared,)), ("sga.filtering", (shared, own))):
        monkeypatch.setitem(REGISTRY, cid, dataclasses.replace(REGISTRY[cid], run=_stub(cid, paths)))
    case = Case("c", 1.0, 300 / 3000, R=300, L=3000, d=10)  # inside validity: both checks run
    result = run_suite(SuiteConfig(cases=(case,), checks=("sga.convergence", "sga.filtering")), figure_dir=tmp_path)
    assert [f for r in result.records for f in r.details["figures"]] == [shared, shared, own]
    assert result.figures == (shared, own)
