"""Numerics: the limiting ODE and its flow map, step schedules, and the simulators.

``numerics`` may use ``theory`` (the field it integrates); it knows nothing of
``verify`` (docs/design.md section 6). Input validation uses the public
:mod:`sigrec.theory.validate`.
"""

from ._bench import BenchReport, benchmark
from ._corrected import CorrectedDrift, Prediction, corrected_drift, integrate_corrected, predict
from ._cluster import SCHEDULER_ENV, in_worker, shutdown_local
from ._executor import Executor, Stopped, current_executor, describe, executor
from ._machine import available_memory, machine_workers
from ._progress import report
from ._diffusion import (
    Band,
    Complexity,
    Scaling,
    ScheduleSearch,
    DiffusionRun,
    DiffusionTables,
    FirstPassage,
    OneStepMoments,
    Splitting,
    band,
    complexity,
    optimize_schedule,
    scaling_exponents,
    censored_quantile,
    diffusion_tables,
    effective_step,
    first_passage,
    one_step_moments,
    plain_ode_step,
    simulate_diffusion,
    splitting_probability,
)
from ._full import FullKernel, pooled_objective, token_gradient
from ._init import initial_rho, spawn_generators
from ._start import StartLaw, start_law
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
from ._planner import RecoveryPlan, measure_rate, plan_recovery
from ._schedule import RobbinsMonro, Schedule
from ._simulate import SIMULATORS, Problem, Simulation, simulate

__all__ = [
    "RecoveryPlan",
    "measure_rate",
    "plan_recovery",
    "StartLaw",
    "start_law",
    "Band",
    "Complexity",
    "Scaling",
    "ScheduleSearch",
    "complexity",
    "optimize_schedule",
    "scaling_exponents",
    "DiffusionRun",
    "DiffusionTables",
    "FirstPassage",
    "OneStepMoments",
    "Splitting",
    "band",
    "censored_quantile",
    "diffusion_tables",
    "effective_step",
    "first_passage",
    "one_step_moments",
    "plain_ode_step",
    "simulate_diffusion",
    "splitting_probability",
    "CorrectedDrift",
    "Prediction",
    "corrected_drift",
    "integrate_corrected",
    "predict",
    "SIMULATORS",
    "SCHEDULER_ENV",
    "Executor",
    "available_memory",
    "current_executor",
    "describe",
    "executor",
    "in_worker",
    "machine_workers",
    "Stopped",
    "report",
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
