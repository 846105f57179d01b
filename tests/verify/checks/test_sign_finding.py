"""finite_size.rate: a fitted C of the opposite sign to the leading-order theory is a finding, stated."""

from __future__ import annotations

import numpy as np

from sigrec.verify.checks import Case
from sigrec.verify.checks._finite_fit import _RateFit, _sign_finding


def _fit(C, se):
    return _RateFit(C_over_L={"0.5": {"C": C, "se": se}}, chi2=1.0, dof=3, p_value=0.5,
                    resolved=np.zeros(4, bool), slope=None, slope_se=None)


ROWS = [{"L": L, "rho": 0.5} for L in (100, 200, 400, 800)]


def test_opposite_signs_inside_the_validity_contradict_the_theory():
    case = Case.from_counts("inside", 0.5, 100, 800, 5)  # A2/L well below 0.005 at L = 800
    text, contradicted = _sign_finding(case, ROWS, [0.5], {0.5: {"C_predicted": 74.5}}, _fit(-81.7, 20.0))
    assert contradicted and text.startswith("finding: the bias has the opposite sign to the leading-order theory")
    assert "C fitted -81.7 +- 20 against 74.5" in text and "contradicts the O(1/L) theory inside its validity" in text


def test_outside_the_validity_the_sign_is_a_finding_that_does_not_fail():
    """The issue's model (theta 0.6, beta 2): -81.7 +- 42 against 74.5 is 3.7 SE away, but the ladder's
    sizes are outside the expansion's validity, where the leading-order C is not claimed."""
    case = Case("mine", 0.6, 200 / 4000, beta=2.0, R=200, L=4000, d=20)
    text, contradicted = _sign_finding(case, ROWS, [0.5], {0.5: {"C_predicted": 74.5}}, _fit(-81.7, 21.0))
    assert not contradicted and text.startswith("finding:") and "is not claimed" in text and "A2/L" in text


def test_agreeing_or_unresolved_signs_are_no_finding():
    case = Case.from_counts("inside", 0.5, 100, 800, 5)
    plan = {0.5: {"C_predicted": 74.5}}
    assert _sign_finding(case, ROWS, [0.5], plan, _fit(60.0, 5.0)) == ("", False)
    assert _sign_finding(case, ROWS, [0.5], plan, _fit(-81.7, 42.0)) == ("", False)  # |C| < 3 SE: not resolved
