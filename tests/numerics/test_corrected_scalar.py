"""The corrected ODE's plain-Python right-hand side against scipy's spline and numpy's interp.

``integrate_corrected`` evaluates ``F_eta(rho) = A(rho) - eta B(rho)`` and the schedule's
``eta(t)`` thousands of times with one float each; it uses :meth:`CorrectedDrift.scalar` and
the plain-Python ``eta(t)`` of ``_eta_of_t`` instead of ``CubicSpline.__call__`` and
``np.interp``. Both must give the same numbers to rounding on any model (every prior family,
``beta`` and ``sigma2`` away from 1), at the knots, next to them and at the ends.
"""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule
from sigrec.numerics._ode._corrected import _eta_of_t, corrected_drift, integrate_corrected

MODELS = [
    Problem(0.25, 500, 10_500, 2),
    Problem(0.7, 40, 400, 5, beta=1.7, sigma2=0.6, prior="rademacher(p=0.7)"),
    Problem(1.3, 30, 900, 3, beta=0.6, sigma2=2.2, prior="gaussian(mu=1, tau=0.5)"),
    Problem(2.0, 12, 200, 4, beta=1.1, sigma2=0.8, prior="bernoulli(p=0.3)"),
]


@pytest.mark.parametrize("problem", MODELS, ids=lambda p: p.model.prior.spec)
def test_the_scalar_drift_equals_the_splines_everywhere_on_the_interval(problem):
    cd = corrected_drift(problem, grid=401)
    f = cd.scalar()
    knots = cd.A.x
    rng = np.random.default_rng(7)
    r = np.concatenate([rng.uniform(-1, 1, 1500), knots, np.nextafter(knots, 2.0), np.nextafter(knots, -2.0)])
    r = np.clip(r, -1.0, 1.0)
    for eta in (0.0, 0.02, 0.9):
        want = cd(r, eta)
        got = np.array([f(float(x), eta) for x in r])
        scale = np.max(np.abs(cd.A(knots))) + eta * np.max(np.abs(cd.B(knots)))
        assert np.max(np.abs(got - want)) <= 1e-13 * scale


def test_a_wrong_interval_would_be_seen():
    """The comparison above can fail: evaluating the cubic of the neighbouring interval is far
    off (the tables are not linear)."""
    problem = MODELS[1]
    cd = corrected_drift(problem, grid=401)
    x, c = cd.A.x, cd.A.c
    i = 150
    r = 0.5 * (x[i] + x[i + 1])
    wrong = sum(c[k, i + 1] * (r - x[i + 1]) ** (3 - k) for k in range(4))
    right = cd.scalar()(float(r), 0.0)
    assert abs(right - float(cd.A(r))) < 1e-14 * np.max(np.abs(cd.A(x)))
    # a cubic read off the wrong interval is off by far more than rounding
    assert abs(wrong - right) > 1e-12 * np.max(np.abs(cd.A(x)))


@pytest.mark.parametrize("schedule", [Schedule(eta0=45.0, k0=250.0, power=1.0), Schedule(eta0=2.0, k0=3.0, power=0.7)],
                         ids=["paper", "slow-decay"])
def test_the_schedule_interpolation_is_numpys(schedule):
    steps = 800
    eta = _eta_of_t(schedule, steps)
    t = schedule.times(steps)
    e = schedule.eta(np.arange(steps + 1))
    rng = np.random.default_rng(3)
    q = np.concatenate([rng.uniform(-1.0, 1.1 * t[-1], 4000), t, [t[-1] + 5.0]])
    got = np.array([eta(x) for x in q])
    assert np.allclose(got, np.interp(q, t, e), rtol=1e-14, atol=0.0)


def test_the_corrected_ode_still_matches_an_independent_runge_kutta_solution():
    """The whole ODE solve through the scalar path against a classical Runge-Kutta integration of
    the same drift, evaluated through the splines (numpy), on a decaying schedule."""
    problem = MODELS[2]
    schedule = Schedule(eta0=1.5, k0=30.0, power=1.0)
    steps = 400
    cd = corrected_drift(problem)
    t_end = schedule.times(steps)[-1]
    rho, ok, _ = integrate_corrected(cd, schedule, steps, 0.2, [t_end])
    assert ok
    # classical Runge-Kutta with 4,000 steps on [0, t_end], eta(t) by np.interp, F by the splines
    t = schedule.times(steps)
    e = schedule.eta(np.arange(steps + 1))

    def F(tt, y):
        return float(cd(min(max(y, -1.0), 1.0), np.interp(tt, t, e)))

    n = 4000
    h = t_end / n
    y = 0.2
    for k in range(n):
        tk = k * h
        k1 = F(tk, y)
        k2 = F(tk + h / 2, y + h / 2 * k1)
        k3 = F(tk + h / 2, y + h / 2 * k2)
        k4 = F(tk + h, y + h * k3)
        y += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    assert abs(y - 0.2) > 0.05  # the solution moves: the comparison below is not trivial
    assert abs(rho[0] - y) < 1e-6
