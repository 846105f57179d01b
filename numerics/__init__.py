"""Numerics: the limiting ODE and its flow map, step schedules, and the simulators.

``numerics`` may use ``theory`` (the field it integrates); it knows nothing of
``verify`` (docs/design.md section 6). Input validation uses the public
:mod:`sigrec.core.validate`.

Layout, one concept per subpackage: :mod:`._simulate` (the stochastic recursion: one driver
over the full, exact reduced and compiled kernels), :mod:`._ode` (the limit ODE, its flow
map and basins, the finite-step corrected ODE, the step at a certified time),
:mod:`._diffusion` (the diffusion approximation: band, first passage, splitting, schedule
search), :mod:`._gradient` (the finite-``L`` gradient and its control variate),
:mod:`._parallel` (the executor on ``dask.distributed``); :mod:`._schedule` (step sizes),
:mod:`._planner` (decisive budgets), :mod:`._plateaus` (drag plateaus), :mod:`._bench` (throughput),
:mod:`._cost` (token-steps drawn).

The public names below are what ``verify``, the tests of other packages and the
documents use (docs/design.md section 6, "Public API of ``sigrec.numerics``"). Result
classes and building blocks stay in their private modules (e.g.
``numerics._diffusion.Complexity``, ``numerics._ode.find_equilibria``).
"""

from ._bench import benchmark
from ._cost import TokenCount, count_token_steps
from ._diffusion import (
    SPLIT_GROWTH,
    SearchBudget,
    band,
    censored_quantile,
    complexity,
    diffusion_tables,
    effective_step,
    exits,
    first_hits,
    measured_law,
    one_step_moments,
    optimize_schedule,
    route_tables,
    scaling_exponents,
    simulate_diffusion,
    splitting_probability,
)
from ._diffusion._measured import MeasuredLaw, MeasureOptions, usable_features
from ._diffusion._route import METHODS as ROUTE_METHODS
from ._diffusion._route import PathPrediction, RoutedTables, predict_paths
from ._gradient._crossfit import CrossFitMean
from ._gradient._influence import feature_names, gradient_features
from ._ode import basins, flow_map, integrate, time_to_alignment
from ._ode._certified_time import CertifiedCrossing, CrossingStep, certified_crossing, crossing_step, ode_time_ball
from ._ode._corrected import corrected_drift
from ._ode._predict import Correction, predict
from ._ode._subspace import SubspacePath, subspace_path
from ._parallel._cluster import shutdown_local
from ._parallel._executor import Executor, current_executor, describe, executor
from ._parallel._machine import available_memory, machine_workers
from ._parallel._progress import report
from ._parallel._region_tasks import certify_region_tasks
from ._planner import decisive_runs, measure_rate, plan_recovery, schedule_text
from ._schedule import Schedule
from ._simulate._driver import LONG_CONTEXT, SimulationOptions, kernel_floats, simulate
from ._simulate._init import initial_rho, spawn_generators
from ._simulate._problem import Problem
from ._simulate._result import Simulation
from ._simulate._start import start_law

__all__ = [
    # problems, schedules, simulations
    "Problem",
    "Schedule",
    "Simulation",
    "simulate",
    "SimulationOptions",
    "LONG_CONTEXT",
    "kernel_floats",
    "spawn_generators",
    "initial_rho",
    "gradient_features",
    "feature_names",
    "usable_features",
    "CrossFitMean",
    "start_law",
    # the limit ODE
    "integrate",
    "flow_map",
    "basins",
    "time_to_alignment",
    # the finite-step corrected ODE
    "corrected_drift",
    "predict",
    "Correction",
    # the diffusion approximation
    "diffusion_tables",
    "simulate_diffusion",
    "band",
    "censored_quantile",
    "first_hits",
    "exits",
    "splitting_probability",
    "SPLIT_GROWTH",
    "effective_step",
    "one_step_moments",
    "MeasuredLaw",
    "measured_law",
    "MeasureOptions",
    "RoutedTables",
    "route_tables",
    "PathPrediction",
    "predict_paths",
    "ROUTE_METHODS",
    "complexity",
    "optimize_schedule",
    "SearchBudget",
    "scaling_exponents",
    # budgets and throughput
    "plan_recovery",
    "decisive_runs",
    "schedule_text",
    "measure_rate",
    "benchmark",
    "count_token_steps",
    "TokenCount",
    # the executor (docs/design.md section 8)
    "Executor",
    "executor",
    "current_executor",
    "describe",
    "report",
    "machine_workers",
    "available_memory",
    "shutdown_local",
    # the k-dimensional signal subspace, H heads (docs/subspace-simulation.md)
    "subspace_path",
    "SubspacePath",
    # region certificates on the executor
    "certify_region_tasks",
    # the step at which a schedule crosses a certified ODE time
    "crossing_step",
    "CrossingStep",
    "ode_time_ball",
    "certified_crossing",
    "CertifiedCrossing",
]
