"""The certified crossing step of a schedule, and the certified basin/time against the float ODE."""

import math

import numpy as np
import pytest
from flint import arb, ctx

from sigrec.numerics import Schedule, basins, crossing_step, ode_time_ball, time_to_alignment
from sigrec.theory import Model, certified_basin, certified_time

WEAK = Model.from_counts(0.25, 500, 10_500)
SCHEDULES = [Schedule.constant(0.05), Schedule(0.5, 10.0, 0.75), Schedule(45.0, 250.0, 1.0), Schedule(2.0, 10.0, 0.3),
             Schedule(3.0, 2.0, 1.5), Schedule(0.7, 0.5, 2.5)]


@pytest.mark.parametrize("schedule", SCHEDULES, ids=str)
def test_ode_time_ball_is_the_direct_sum(schedule):
    old, ctx.prec = ctx.prec, 128
    try:
        direct = arb(0)
        times = schedule.times(60)
        for k in range(61):
            ball = ode_time_ball(schedule, k)
            assert ball.overlaps(direct), (k, ball, direct)
            assert math.isclose(float(ball), times[k], rel_tol=1e-12, abs_tol=1e-300)
            direct += arb(schedule.eta0) / (arb(k) + arb(schedule.k0)) ** arb(schedule.power)
    finally:
        ctx.prec = old


@pytest.mark.parametrize("schedule", SCHEDULES[:4], ids=str)
def test_crossing_step_brackets_the_float_cumulative_sum(schedule):
    enc = certified_time(WEAK, 0.0, 0.9)
    step = crossing_step(schedule, enc)
    assert step.k_lo <= step.k_hi <= step.k_lo + 1
    assert step.t_hi >= enc.hi
    if step.k_hi < 5_000_000:
        times = schedule.times(step.k_hi)
        k_float = int(np.searchsorted(times, enc.mid, side="left"))  # first k with t_k >= T
        assert step.k_lo <= k_float <= step.k_hi
        if step.k_lo:
            assert times[step.k_lo - 1] < enc.lo


def test_constant_step_crossing_is_the_ceiling():
    enc = certified_time(WEAK, 0.0, 0.99)
    step = crossing_step(Schedule.constant(0.05), enc)
    assert step.k_lo == math.ceil(enc.lo / 0.05) and step.k_hi == math.ceil(enc.hi / 0.05)


def test_summable_schedule_that_falls_short_is_refused():
    enc = certified_time(WEAK, 0.0, 0.99)
    with pytest.raises(ValueError, match=r"`schedule`.*total ODE time"):
        crossing_step(Schedule(2.0, 10.0, 1.5), enc)
    with pytest.raises(ValueError, match="`time`"):
        crossing_step(Schedule.constant(0.1), (1.0, 2.0))


def test_float_time_to_alignment_lies_in_the_certified_enclosure_where_quad_converges():
    enc = certified_time(WEAK, 0.0, 0.99, rtol=1e-9)
    flt = time_to_alignment(WEAK, [0.0], 0.99)
    assert enc.lo * (1 - 1e-8) <= flt.time[0] <= enc.hi * (1 + 1e-8)


def test_certified_basin_agrees_with_the_float_basins():
    model = Model(3.0, 0.01)
    starts = np.linspace(-0.95, 0.95, 39)
    flt = basins(model, starts).limit
    for rho0, limit in zip(starts, flt, strict=True):
        assert certified_basin(model, float(rho0)).limit.point == limit
