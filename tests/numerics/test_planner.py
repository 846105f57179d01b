"""The budget planner: its predictions (plateau, ODE time, end alignment) against simulations."""

import dataclasses
import math

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, plan_recovery, predict, simulate
from sigrec.theory import stationary_alignment, validity

#: a small strong-signal instance: plans are short, simulations cheap
SMALL = Problem(theta=1.0, R=100, L=600, d=10)


#: a model away from every default (beta, sigma2, an asymmetric prior, batch 2): what vanishes at
#: beta = sigma2 = 1 with one collection per step does not vanish here
OFF = Problem(theta=1.3, R=80, L=600, d=6, beta=0.7, sigma2=1.4, prior="rademacher(p=0.8)", batch=2)


@pytest.mark.parametrize("problem", [SMALL, OFF], ids=["default", "off-default"])
def test_plan_is_decisive_and_the_simulation_agrees(problem):
    plan = plan_recovery(problem, target=0.99, runs=24)
    assert plan.feasible, plan.message
    # the last step's plateau lies above the target with margin, as the plan states
    pl = stationary_alignment(problem.model, plan.last_step, problem.d, problem.L, problem.batch)
    assert pl.rho - 2 * pl.spread > 0.99 and plan.plateau - 2 * plan.plateau_spread > 0.99
    if problem is SMALL:  # +xi is the only attractor: the plan's plateau is its plateau
        assert plan.plateau == pytest.approx(pl.rho, rel=1e-6)
    else:  # -xi attracts too (F'(-1) < 0), and its plateau is the lower one the plan reports
        assert plan.plateau < pl.rho
    assert plan.ode_time == pytest.approx(float(plan.schedule.times(plan.steps)[-1]))
    assert plan.token_steps == 24 * plan.steps * problem.L * problem.batch
    assert plan.predicted_fraction >= 0.97
    # it states whether its steps (up to the first) lie inside the expansion's validity
    eta0 = float(plan.schedule.eta(np.zeros(1))[0])
    assert plan.validity == validity(problem.model, problem.d, problem.L, eta0, problem.batch)
    if problem.batch > 1:  # the batch enters E|P g|^2 and so the step parameter
        assert plan.validity.step != validity(problem.model, problem.d, problem.L, eta0).step
    assert plan.as_dict()["validity"] == plan.validity.as_dict()
    assert ("the plan is a guess" in plan.describe()) is (not plan.validity.inside)
    outside = dataclasses.replace(plan, validity=validity(problem.model, 60, problem.L, 1e-3))  # d/L = 0.1
    assert not outside.validity.inside and "the plan is a guess: outside" in outside.describe()
    assert "d/L = 0.1 exceeds" in outside.describe()
    sim = simulate(problem, plan.schedule, steps=plan.steps, runs=200, seed=3)
    final = np.abs(sim.final_rho)
    # decisive: the runs recover as the plan (and its diffusion check) predicts
    assert np.mean(final >= 0.99) >= 0.95
    # the corrected-ODE mean from the run's own starts predicts the simulated mean
    ends = [abs(predict(problem, plan.schedule, plan.steps, float(r0), plan.steps).rho_corrected[-1])
            for r0 in sim.initial_rho[:40]]
    assert abs(final[:40].mean() - np.mean(ends)) <= 4 * final.std(ddof=1) / math.sqrt(40) + 1e-3


def test_half_the_planned_steps_is_not_enough_and_the_simulation_agrees():
    plan = plan_recovery(SMALL, target=0.99, runs=24)
    short = max(2, plan.steps // 8)
    sched = Schedule(eta0=plan.schedule.eta0, k0=plan.schedule.k0, power=plan.schedule.power)
    worst = min(plan.starts, key=abs)
    pred = abs(predict(SMALL, sched, short, worst, short).rho_corrected[-1])
    assert pred < 0.99
    sim = simulate(SMALL, sched, steps=short, runs=200, rho0=worst, seed=4)
    assert np.abs(sim.final_rho).mean() == pytest.approx(pred, abs=0.05)


def test_infeasible_plans_say_why():
    # two informative tokens among twenty in d = 50: the finite-L dynamics cannot carry runs to 0.99
    plan = plan_recovery(Problem(theta=0.2, R=2, L=20, d=50), target=0.99)
    assert not plan.feasible and ("plateau" in plan.message or "steps" in plan.message)
    assert math.isnan(plan.token_steps)
    assert "no decisive plan" in plan.describe()


def test_bad_arguments():
    with pytest.raises(ValueError, match="target"):
        plan_recovery(SMALL, target=1.0)
    with pytest.raises(ValueError, match="runs"):
        plan_recovery(SMALL, runs=0)


def test_an_infeasible_plan_names_the_starts_that_fail_and_what_would_decide_them():
    """theta 0.6, beta 2, R 200, L 4,000, d 20 (issue 41): the refusal said only 'no schedule within
    1,000,000 steps carries every planned start to 0.99'. It now names the longest schedule tried (the
    ladder's last rung below the cap), each failing start with where the corrected ODE leaves it, the
    one beside the unstable equilibrium, and what would decide recovery."""
    import re

    from sigrec.numerics import Problem, plan_recovery

    plan = plan_recovery(Problem(0.6, 200, 4000, 20, beta=2.0), runs=16)
    assert not plan.feasible
    msg = plan.message
    assert "after 262,144 steps" in msg and "below the cap of 1,000,000" in msg
    named = [float(x) for x in re.findall(r"from rho0 = (-?[0-9.]+)", msg)]
    assert sorted(named) == pytest.approx(sorted(plan.starts), abs=1e-4)
    assert "beside the unstable rho* = -0.8546" in msg and "none of the planned starts gets there" in msg
    assert "sigrec complexity" in msg
