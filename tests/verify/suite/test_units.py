"""How a distributed suite run cuts the plan into units (verify/suite/_units.py)."""

from __future__ import annotations

from sigrec.verify.suite._cases import SuiteConfig
from sigrec.verify.suite._runner import plan
from sigrec.verify.suite._units import _groups


def test_the_two_symbolic_checks_share_a_unit_and_every_case_is_one():
    steps = plan(SuiteConfig.preset_config("quick"))
    units = _groups(steps)
    # every step is in exactly one unit, in plan order
    assert [cid for checks, _ in units for cid in checks] == [c.id for _, c, _ in steps]
    assert units[0] == (("derivation.quadrature", "field.endpoints"), None)
    cases = [case.name for _, case in units if case is not None]
    assert len(cases) == len(set(cases))  # a case's checks are never split
    assert units[-1] == (("sga.effective_drift",), None)
    # a selection without one of the two leaves the other alone
    only = plan(SuiteConfig(checks=("field.endpoints", "sga.effective_drift"), cases=()))
    assert _groups(only) == [(("field.endpoints",), None), (("sga.effective_drift",), None)]
