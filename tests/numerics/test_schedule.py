"""Step schedules: values, ODE times, symbolic Robbins–Monro verdicts, validation."""

import numpy as np
import pytest

from sigrec.numerics import Schedule


def test_first_step_uses_k0_and_k_counts_from_zero():
    s = Schedule(eta0=0.8, k0=4.0, power=0.5)
    np.testing.assert_allclose(s.eta([0, 1, 5]), [0.8 / 2.0, 0.8 / 5**0.5, 0.8 / 3.0], rtol=1e-15)


def test_times_are_partial_sums_of_previous_steps():
    s = Schedule(eta0=0.3, k0=2.0, power=0.75)
    t = s.times(6)
    assert t[0] == 0.0 and t.shape == (7,)
    np.testing.assert_allclose(np.diff(t), s.eta(np.arange(6)), rtol=1e-14)


def test_constant_schedule():
    s = Schedule.constant(0.05)
    assert s.power == 0.0 and s.kind == "constant"
    np.testing.assert_array_equal(s.eta(np.arange(4)), 0.05)
    np.testing.assert_allclose(s.times(3), [0, 0.05, 0.1, 0.15])
    rm = s.robbins_monro()
    assert not rm.holds and rm.sum_diverges and not rm.sum_squares_converges


@pytest.mark.parametrize(
    "power, holds, diverges, squares",
    [(0.4, False, True, False), (0.5, False, True, False), (0.75, True, True, True),
     (1.0, True, True, True), (1.2, False, False, True)],
)
def test_robbins_monro_verdicts(power, holds, diverges, squares):
    rm = Schedule(eta0=0.5, k0=10.0, power=power).robbins_monro()
    assert (rm.holds, rm.sum_diverges, rm.sum_squares_converges) == (holds, diverges, squares)
    assert ("diverges and" in rm.reason) == holds
    if not holds:
        assert ("sum eta_k converges" in rm.reason) == (not diverges)


def test_robbins_monro_does_not_depend_on_eta0_or_k0():
    verdicts = {Schedule(eta0=e, k0=k, power=0.6).robbins_monro().holds for e in (0.01, 3.0) for k in (0.5, 1.0, 100.0)}
    assert verdicts == {True}


@pytest.mark.parametrize(
    "kwargs, name",
    [({"eta0": -0.1}, "eta0"), ({"eta0": 0.0}, "eta0"), ({"k0": 0.0}, "k0"), ({"power": -1.0}, "power"),
     ({"eta0": float("nan")}, "eta0"), ({"kind": "cosine"}, "kind")],
)
def test_bad_schedules_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        Schedule(**kwargs)


def test_negative_step_index_refused():
    with pytest.raises(ValueError, match="k"):
        Schedule().eta([-1])
