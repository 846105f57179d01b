"""The computations behind the commands that sample paths: ``simulate`` (the recursion's runs) and
``complexity`` (the diffusion's passage steps), as in :mod:`._commands`: one call, one record.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...numerics import (
    Problem,
    Schedule,
    SearchBudget,
    SimulationOptions,
    certified_crossing,
    complexity,
    optimize_schedule,
    route_tables,
    scaling_exponents,
    simulate,
)
from ._commands import R0_SCALAR, TRAJECTORY_FLAGS
from ._guard import quiet_numerics, require_finite


@dataclass(frozen=True)
class SimulationRequest:
    """What ``sigrec simulate`` asks of :func:`simulation`.

    Attributes
    ----------
    steps, runs, simulator, rho0, M0, stride : object
        As in :func:`numerics.simulate` (``M0``: the ``k x H`` start overlaps of the subspace model).
    seed : int or None
        ``None`` draws a fresh 63-bit seed from OS entropy, reported.
    """

    steps: int
    runs: int
    simulator: str = "reduced"
    rho0: float | None = None
    M0: np.ndarray | None = None
    seed: int | None = None
    stride: int = 1


@dataclass(frozen=True)
class SimulationRun:
    """A simulation with the seed it ran on and the start it was given.

    Attributes
    ----------
    sim : numerics.Simulation
    seed : int
    rho0 : float or None
    M0 : ndarray or None
    """

    sim: Any
    seed: int
    rho0: float | None
    M0: np.ndarray | None

    def as_dict(self, saved: str | None = None) -> dict:
        sim = self.sim
        problem, schedule = sim.problem, sim.schedule
        if sim.engine == "scalar":
            final = sim.final_rho
            return {
                "simulator": sim.simulator, "model": problem.model.as_dict(), "problem": problem.as_dict(),
                "schedule": {**schedule.as_dict(), "robbins_monro": schedule.robbins_monro().as_dict(),
                             "t_final": float(sim.times[-1])},
                "steps": sim.steps, "runs": sim.runs, "seed": self.seed, "rho0": self.rho0,
                "initial_rho": sim.initial_rho.tolist(), "final_rho": final.tolist(),
                "mean_abs_final_rho": float(np.mean(np.abs(final))),
                "fraction_aligned_0.99": sim.fraction_aligned(0.99), "wall_s": sim.wall_s,
                "run_steps_per_s": sim.steps * sim.runs / sim.wall_s if sim.wall_s > 0 else None, "saved": saved,
            }
        final = sim.final_overlaps  # runs x k x H
        out = {"simulator": sim.simulator, "model": problem.model.as_dict(), "problem": problem.as_dict(),
               "heads": sim.heads, "schedule": {**schedule.as_dict(), "t_final": float(sim.times[-1])},
               "steps": sim.steps, "runs": sim.runs, "seed": self.seed,
               "r0": None if self.M0 is None else self.M0.tolist()}
        if sim.heads == 1:
            out["initial_r"] = sim.overlaps[:, 0, :, 0].tolist()
            out["final_r"] = final[:, :, 0].tolist()
            out["mean_final_norm"] = float(np.mean(np.linalg.norm(final[:, :, 0], axis=1)))
        else:
            angles = sim.principal_angles()[:, -1]
            out["initial_M"] = sim.overlaps[:, 0].tolist()
            out["final_M"] = final.tolist()
            out["final_principal_angles"] = angles.tolist()
            out["mean_final_principal_angles"] = np.mean(angles, axis=0).tolist()
        return {**out, "wall_s": sim.wall_s, "saved": saved}


def simulation(problem: Problem, schedule: Schedule, request: SimulationRequest,
               progress: Callable[[int], None] | None = None) -> SimulationRun:
    """:func:`numerics.simulate` of ``request`` (floating-point warnings silenced, the trajectories
    refused unless finite); ``progress(step)`` as the run advances."""
    if problem.model.scalar and request.M0 is not None:
        raise ValueError(R0_SCALAR)
    seed = request.seed
    if seed is None:  # fresh OS entropy (an int when no entropy is given), reported so the run can be repeated
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)
        seed = entropy % 2**63
    with quiet_numerics():
        sim = simulate(problem, schedule, steps=request.steps, runs=request.runs, rho0=request.rho0, seed=seed,
                       stride=request.stride,
                       options=SimulationOptions(simulator=request.simulator, M0=request.M0, progress=progress))
    require_finite(TRAJECTORY_FLAGS, sim.overlaps, sim.times)
    return SimulationRun(sim, seed, request.rho0, request.M0)


@dataclass(frozen=True)
class ComplexityRequest:
    """What ``sigrec complexity`` asks of :func:`complexity_study`.

    Attributes
    ----------
    rho0, target : float
        The start (``None``: uniform on the sphere) and the alignment level to reach.
    runs, horizon, seed : int
        The diffusion's paths, step cap and seed.
    method : str
    drift_se : float or None
        The route (:func:`numerics.route_tables`).
    optimize, scaling : bool
        Search the schedule (:func:`numerics.optimize_schedule`); fit the exponents in ``d`` and ``L``.
    """

    rho0: float | None = None
    target: float = 0.99
    runs: int = 2000
    horizon: int = 200_000
    seed: int = 0
    method: str = "auto"
    drift_se: float | None = None
    optimize: bool = False
    scaling: bool = False


@dataclass(frozen=True)
class ComplexityStudy:
    """The steps to reach ``|rho| >= target``.

    Attributes
    ----------
    problem : numerics.Problem
    request : ComplexityRequest
    given, reported : object
        The given schedule's :func:`numerics.complexity`, and the reported one's (the search's winner
        with ``optimize``, else the given).
    routed, search : object
        The route of the given schedule (``None`` with ``optimize``) and the search (else ``None``).
    certified : object
        The reported schedule's certified plain-ODE crossing (:func:`numerics.certified_crossing`).
    scaling : tuple
        The exponents (:func:`numerics.scaling_exponents`), with ``scaling``.
    wall_s : float
    """

    problem: Problem
    request: ComplexityRequest
    given: Any
    reported: Any
    routed: Any
    search: Any
    certified: Any
    scaling: tuple
    wall_s: float

    def as_dict(self) -> dict:
        problem, request, best = self.problem, self.request, self.reported
        out = {
            "model": problem.model.as_dict(), "problem": problem.as_dict(), "rho0": request.rho0,
            "starts": "fixed" if request.rho0 is not None else "uniform on the sphere", "target": request.target,
            **self.given.as_dict(),
            "token_collections_median": _num(self.given.median_steps * problem.batch),
            "token_collections_q90": _num(self.given.q90_steps * problem.batch),
            "method": "diffusion d rho = F_eta dt + sqrt(eta Sigma) dW sampled on the step grid (docs/design.md "
                      "section 1.1)",
            "route": self.routed.as_dict() if self.routed is not None else {
                "route": "expansion", "method": request.method,
                "reason": "the schedule search runs on the expansion's diffusion tables"},
        }
        if self.search is not None:
            out["given"] = self.given.as_dict()
            out.update(best.as_dict())
            out["token_collections_median"] = _num(best.median_steps * problem.batch)
            out["token_collections_q90"] = _num(best.q90_steps * problem.batch)
            out["search"] = self.search.as_dict()
        out["certified_ode_steps"] = self.certified.as_dict()
        if request.scaling:
            out["scaling"] = {s.parameter: s.as_dict() for s in self.scaling}
        out["wall_s"] = self.wall_s
        return out


def complexity_study(problem: Problem, schedule: Schedule, request: ComplexityRequest,
                     progress: Callable[[str, int, int], None] | None = None) -> ComplexityStudy:
    """The diffusion's passage steps of ``schedule`` on the route of ``request.method``, or with
    ``request.optimize`` the schedule search (:func:`numerics.optimize_schedule`, ``progress(stage,
    done, total)``); then the certified plain-ODE crossing and, with ``request.scaling``, the
    exponents. A refusal of the library (a ``status`` other than ``ok``) is raised as its ``reason``."""
    t0 = time.perf_counter()
    if request.optimize and request.method == "measured":
        raise ValueError("`method` measured is for a given schedule: the schedule search (--optimize) runs the "
                         "diffusion of the expansion for every candidate; drop --optimize to measure the given one")
    search = routed = None
    if request.optimize:
        search = optimize_schedule(problem, request.rho0, request.target, start=schedule,
                                   budget=SearchBudget(final_runs=request.runs, horizon=request.horizon),
                                   seed=request.seed, progress=progress)
        _refuse(search)
        given, reported = search.start, search.best
    else:
        with quiet_numerics():
            routed = route_tables(problem, schedule, request.horizon, method=request.method,
                                  drift_se=request.drift_se, seed=request.seed)
            given = reported = complexity(problem, schedule, request.rho0, request.target, runs=request.runs,
                                          horizon=request.horizon, seed=request.seed, route=routed)
    _refuse(reported)  # numbers or a refusal: the reported schedule's quantiles and plain-ODE step are finite
    certified = certified_crossing(problem.model, reported.schedule, request.rho0, request.target)
    scaling: tuple = ()
    if request.scaling:
        scaling = tuple(scaling_exponents(problem, reported.schedule, request.rho0, request.target,
                                          runs=max(200, request.runs // 2), horizon=request.horizon,
                                          seed=request.seed))
        for s in scaling:
            _refuse(s)
    return ComplexityStudy(problem, request, given, reported, routed, search, certified, scaling,
                           time.perf_counter() - t0)


def _num(x):
    return None if x is None or not math.isfinite(x) else x


def _refuse(result) -> None:
    if result.status != "ok":
        raise ValueError(result.reason)
