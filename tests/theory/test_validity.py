"""``theory.validity``: the three small parameters of the finite-step expansion, their
limits, and what the message tells the user (the planner's use: tests/numerics/test_planner.py)."""

import math

import numpy as np
import pytest

from sigrec.theory import Model, gradient_second_moment, validity
from sigrec.theory._effective._evaluate import CONCENTRATION_LIMIT, DIMENSION_LIMIT, STEP_LIMIT

MODEL = Model(theta=1.0, alpha=200 / 3200)


def test_step_parameter_is_eta_squared_times_the_largest_second_moment():
    y = gradient_second_moment(MODEL, np.linspace(-1, 1, 81), 20, 3200, 2).total
    for eta in (1e-3, 0.05, 0.3):
        v = validity(MODEL, 20, 3200, eta, 2)
        assert v.step == pytest.approx(eta**2 * y.max(), rel=1e-12)
    # quadrupling eta multiplies it by 16 (same E|Pg|^2)
    assert validity(MODEL, 20, 3200, 0.2, 2).step == pytest.approx(16 * validity(MODEL, 20, 3200, 0.05, 2).step,
                                                                    rel=1e-12)


@pytest.mark.parametrize("d, inside", [(20, True), (int(DIMENSION_LIMIT * 3200), True),
                                       (int(DIMENSION_LIMIT * 3200) + 1, False), (400, False)])
def test_dimension_limit(d, inside):
    v = validity(MODEL, d, 3200, 1e-3)
    assert v.dimension == pytest.approx(d / 3200)
    assert v.concentration <= CONCENTRATION_LIMIT and v.step <= STEP_LIMIT  # only d/L decides here
    assert v.inside is inside
    assert ("d/L" in v.message) and (("exceeds" in v.message) is not inside)
    assert v.as_dict()["limits"] == {"concentration": CONCENTRATION_LIMIT, "step": STEP_LIMIT,
                                     "dimension": DIMENSION_LIMIT}


def test_concentration_falls_like_one_over_L_and_names_the_remedy():
    hot = Model(theta=2.5, alpha=0.1, beta=2.8)
    small, large = validity(hot, 5, 700, 1e-4), validity(hot, 5, 7000, 1e-4)
    assert small.concentration == pytest.approx(10 * large.concentration, rel=1e-9)
    assert not small.inside and "A2/L" in small.message and "more tokens L" in small.message
    huge = validity(MODEL, 20, 3200, 1e300)
    assert not huge.inside and "beyond float64" in huge.message and math.isfinite(huge.step)

