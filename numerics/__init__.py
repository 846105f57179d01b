"""Numerics: the limiting ODE and its flow map, step schedules, and the simulators.

``numerics`` may use ``theory`` (the field it integrates); it knows nothing of
``verify`` (docs/design.md section 6). Input validation uses the public
:mod:`sigrec.theory.validate`.
"""

from ._bench import BenchReport, benchmark
from ._corrected import CorrectedDrift, Prediction, corrected_drift, integrate_corrected, predict
from ._diffusion import (
    Band,
    DiffusionRun,
    DiffusionTables,
    FirstPassage,
    OneStepMoments,
    Splitting,
    band,
    censored_quantile,
    diffusion_tables,
    effective_step,
    first_passage,
    one_step_moments,
    plain_ode_step,
    simulate_diffusion,
    splitting_probability,
    uniform_starts,
)
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
from ._schedule import RobbinsMonro, Schedule
from ._simulate import SIMULATORS, Problem, Simulation, simulate

__all__ = [
    "Band",
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
    "uniform_starts",
    "CorrectedDrift",
    "Prediction",
    "corrected_drift",
    "integrate_corrected",
    "predict",
    "SIMULATORS",
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
