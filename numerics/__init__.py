"""Numerics: the limiting ODE and its flow map, step schedules, and the simulators.

``numerics`` may use ``theory`` (the field it integrates); it knows nothing of
``verify`` (docs/design.md section 6). Input validation uses the public
:mod:`sigrec.theory.validate`.
"""

from ._bench import BenchReport, benchmark
from ._corrected import CorrectedDrift, Prediction, corrected_drift, integrate_corrected, predict
from ._executor import SCHEDULER_ENV, Executor, current_executor, executor, in_worker, shutdown_local
from ._full import FullKernel, pooled_objective, token_gradient
from ._init import initial_rho, spawn_generators
from ._ode import (
    AlignmentTime,
    Basins,
    Equilibria,
    FlowMap,
    MpTrajectory,
    Trajectory,
    basins,
    find_equilibria,
    flow_map,
    integrate,
    integrate_mp,
    one_minus_tanh,
    time_to_alignment,
)
from ._reduced import ReducedKernel
from ._planner import RecoveryPlan, measure_rate, plan_recovery, uniform_start_quantiles
from ._schedule import RobbinsMonro, Schedule
from ._simulate import SIMULATORS, Problem, Simulation, simulate

__all__ = [
    "RecoveryPlan",
    "measure_rate",
    "plan_recovery",
    "uniform_start_quantiles",
    "CorrectedDrift",
    "Prediction",
    "corrected_drift",
    "integrate_corrected",
    "predict",
    "SIMULATORS",
    "SCHEDULER_ENV",
    "Executor",
    "current_executor",
    "executor",
    "in_worker",
    "shutdown_local",
    "AlignmentTime",
    "BenchReport",
    "Basins",
    "Equilibria",
    "FlowMap",
    "FullKernel",
    "MpTrajectory",
    "Problem",
    "ReducedKernel",
    "RobbinsMonro",
    "Schedule",
    "Simulation",
    "Trajectory",
    "basins",
    "benchmark",
    "find_equilibria",
    "flow_map",
    "initial_rho",
    "integrate",
    "integrate_mp",
    "one_minus_tanh",
    "pooled_objective",
    "simulate",
    "spawn_generators",
    "time_to_alignment",
    "token_gradient",
]
