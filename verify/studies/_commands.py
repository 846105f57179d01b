"""The computations behind the commands at one model: ``field``, ``predict``, ``simulate``, ``complexity``.

Each command parses its flags, calls one function here and hands the record it returns to one
renderer (:mod:`..render._commands_text`, or ``as_dict()`` for ``--json``). The branches on the
engine and on the heads, the library calls they compose and the summary statistics live here; each
function refuses a non-finite result (:func:`require_finite`) with the parameters named.
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
    band,
    certified_crossing,
    complexity,
    optimize_schedule,
    predict,
    route_tables,
    scaling_exponents,
    simulate,
)
from ...theory import HeadsEquilibrium, Model, SubspaceBox, evaluate, heads_flow, heads_objective, principal_angles
from ._guard import quiet_numerics, require_finite

#: the parameters a non-finite trajectory is blamed on
_FLAGS = "`eta0`, `k0`, `power` and the model flags"
_R0_SCALAR = ("`r0` is the start of the subspace model (a k-dimensional law or --heads > 1); "
              "a scalar prior starts at `rho0`")


@dataclass(frozen=True)
class FieldPoints:
    """The limit field at the points of ``sigrec field`` (:func:`field_points`).

    Attributes
    ----------
    model : theory.Model
    engine : {"scalar", "subspace", "heads"}
    values : object
        :func:`theory.evaluate` at the alignments (``scalar``) or at the overlap vectors
        (``subspace``); for ``heads`` a dict: the frame ``M``, its summed objective, the reduced flow
        and the principal angles.
    """

    model: Model
    engine: str
    values: Any

    def points(self) -> list[dict]:
        v = self.values
        if self.engine == "scalar":
            return [{"rho": float(v.rho[i]), "objective": float(v.objective[i]), "slope": float(v.slope[i]),
                     "field": float(v.field[i]), "noise_mass": float(v.noise_mass[i])} for i in range(len(v.rho))]
        return [{"r": r.tolist(), "objective": float(j), "gradient": g.tolist(), "field": f.tolist()}
                for r, j, g, f in zip(v.r, v.objective, v.gradient, v.flow, strict=True)]

    def as_dict(self) -> dict:
        if self.engine == "heads":
            return {"model": self.model.as_dict(), **self.values}
        return {"model": self.model.as_dict(), "points": self.points()}


def field_points(model: Model, rho=None, r=None) -> FieldPoints:
    """The limit objective, slope, field and nuisance mass at the alignments ``rho`` (scalar
    engine), or the objective, gradient and flow at the overlap vectors ``r`` (``k x 1`` arrays;
    subspace engine); with ``model.heads > 1`` the vectors of ``r`` are the columns of one frame."""
    if (rho is None) == (r is None):
        raise ValueError("give the points as `rho` (alignments, scalar prior) or `r` (overlap vectors), "
                         "one of the two")
    if model.heads > 1:
        if r is None or len(r) != model.heads:
            raise ValueError(f"with --heads {model.heads} give the frame M = U^T Q as its {model.heads} columns "
                             f"m_h in `r` (--r, {model.heads} vectors of k = {model.k} entries)")
        M = np.column_stack([v[:, 0] for v in r])
        flow = heads_flow(model, M)
        return FieldPoints(model, "heads", {"M": M.tolist(), "objective": heads_objective(model, M),
                                            "flow": flow.tolist(), "principal_angles": principal_angles(M).tolist()})
    if r is not None:
        return FieldPoints(model, "subspace", evaluate(model, [v[:, 0] for v in r], engine="subspace"))
    if model.k > 1:
        raise ValueError(f"`rho` is the scalar alignment; with the {model.k}-dimensional law {model.law} give "
                         "overlap vectors `r` (--r 0.6,0.3 ...)")
    bad = [x for x in rho if not -1.0 <= x <= 1.0]
    if bad:
        raise ValueError(f"`rho` must lie in [-1, 1], got {bad[0]!r}")
    return FieldPoints(model, "scalar", evaluate(model, rho, engine="scalar"))


@dataclass(frozen=True)
class PredictionRequest:
    """What ``sigrec predict`` asks of :func:`prediction`.

    Attributes
    ----------
    steps, stride : int
        The iterations and the report stride.
    rho0 : float or None
        The start of a scalar prior (``None``: :func:`numerics.predict`'s default).
    M0 : ndarray or None
        The ``k x H`` start overlaps of the subspace model (required there; refused with a scalar prior).
    band_runs, seed : int or None
        The diffusion band's paths and seed (scalar prior; default 2000 and 0).
    method : str
    drift_se : float or None
        The band's route (:func:`numerics.route_tables`).
    """

    steps: int
    stride: int = 1
    rho0: float | None = None
    M0: np.ndarray | tuple | None = None
    band_runs: int | None = None
    seed: int | None = None
    method: str = "auto"
    drift_se: float | None = None


@dataclass(frozen=True)
class ScalarPrediction:
    """The plain and corrected ODE of a scalar prior with the diffusion band on its route.

    Attributes
    ----------
    problem : numerics.Problem
    schedule : numerics.Schedule
    pred, band, routed : object
        What :func:`numerics.predict`, :func:`numerics.band` and :func:`numerics.route_tables` return.
    """

    problem: Problem
    schedule: Schedule
    pred: Any
    band: Any
    routed: Any

    def as_dict(self) -> dict:
        pred, bd = self.pred, self.band
        return {
            "model": self.problem.model.as_dict(), "problem": self.problem.as_dict(),
            "schedule": self.schedule.as_dict(), "rho0": pred.rho0, "step": pred.step.tolist(),
            "time": pred.time.tolist(), "eta": pred.eta.tolist(), "rho_plain": pred.rho_plain.tolist(),
            "rho_corrected": pred.rho_corrected.tolist(), "rho_q10": bd.q10.tolist(),
            "rho_median": bd.q50.tolist(), "rho_q90": bd.q90.tolist(), "rho_mean_diffusion": bd.mean.tolist(),
            "band": {"runs": bd.runs, "method": bd.method, "route": bd.route,
                     **({} if bd.median_range is None else {"median_range": list(bd.median_range)})},
            "route": self.routed.as_dict(), "validity": pred.validity.as_dict(),
        }


@dataclass(frozen=True)
class SubspacePrediction:
    """The limit ODE of the overlaps ``M = U^T Q`` and the equilibrium it settles at.

    Attributes
    ----------
    problem : numerics.Problem
    schedule : numerics.Schedule
    M0 : ndarray
        The start overlaps.
    pred : object
        What :func:`numerics.predict` returns (subspace engine).
    limit : dict
        The long-time limit: ``t_max``, ``speed``, ``settled``, the limit overlaps and ``equilibrium``.
    equilibrium : dict or None
        The equilibrium it settles at (certified box for one head, numerical for several).
    angles : list or None
        The principal angles at every reported step (several heads).
    """

    problem: Problem
    schedule: Schedule
    M0: np.ndarray
    pred: Any
    limit: dict
    equilibrium: dict | None
    angles: list | None

    def as_dict(self) -> dict:
        H, pred = self.problem.heads, self.pred
        M = pred.path.M
        out = {"model": self.problem.model.as_dict(),
               "problem": {"R": self.problem.R, "L": self.problem.L, "d": self.problem.d}, "heads": H,
               "schedule": self.schedule.as_dict(), "r0": self.M0.tolist(), "step": pred.step.tolist(),
               "time": pred.time.tolist(), ("r" if H == 1 else "M"): (M[:, :, 0] if H == 1 else M).tolist(),
               "limit": self.limit, "note": pred.note}
        if self.angles is not None:
            out["principal_angles"] = self.angles
        return out


def prediction(problem: Problem, schedule: Schedule,
               request: PredictionRequest) -> ScalarPrediction | SubspacePrediction:
    """:func:`numerics.predict` of the model's engine; for a scalar prior with the 10-90% band of
    the diffusion on the route of ``request.method`` (:func:`numerics.route_tables`, :func:`numerics.band`)."""
    if not problem.model.scalar:
        return _subspace_prediction(problem, schedule, request)
    if request.M0 is not None:
        raise ValueError(_R0_SCALAR)
    runs = 2000 if request.band_runs is None else request.band_runs
    seed = 0 if request.seed is None else request.seed
    with quiet_numerics():
        pred = predict(problem, schedule, request.steps, request.rho0, request.stride, engine="scalar")
    if not pred.success:
        raise ValueError(f"{_FLAGS}: the ODE integration failed ({pred.message})")
    require_finite(_FLAGS, pred.time, pred.eta, pred.rho_plain, pred.rho_corrected)
    if runs < 10:
        raise ValueError(f"`band-runs` must be >= 10, got {runs!r}")
    with quiet_numerics():
        routed = route_tables(problem, schedule, request.steps, method=request.method, drift_se=request.drift_se,
                              seed=seed)
        bd = band(problem, schedule, request.steps, request.rho0, stride=request.stride, runs=runs, seed=seed,
                  route=routed)
    require_finite(f"{_FLAGS} (diffusion band)", bd.q10, bd.q50, bd.q90, bd.mean)
    return ScalarPrediction(problem, schedule, pred, bd, routed)


def _subspace_prediction(problem: Problem, schedule: Schedule, request: PredictionRequest) -> SubspacePrediction:
    if request.rho0 is not None:
        raise ValueError("`rho0` is the scalar start; with a k-dimensional law or heads give the start overlaps "
                         "`r0` (k x H numbers, row-major)")
    for flag, value in (("band_runs", request.band_runs), ("seed", request.seed)):
        if value is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is for the diffusion band of a scalar prior; "
                             "the subspace prediction is the limit ODE only")
    if not isinstance(request.M0, np.ndarray):
        raise ValueError("`r0` is required: the start overlaps U^T Q_0 (k x H numbers, row-major)")
    with quiet_numerics():
        pred = predict(problem, schedule, request.steps, M0=request.M0, stride=request.stride, engine="subspace")
    path, eq, H = pred.path, pred.equilibrium, problem.heads
    require_finite(_FLAGS, path.M, path.M_limit)
    limit: dict[str, Any] = {"t_max": path.t_limit, "speed": path.speed, "settled": pred.settled}
    doc: dict[str, Any] | None = None
    if H == 1:
        limit["r"] = path.M_limit[:, 0].tolist()
        if pred.reason:
            limit["not_certified"] = pred.reason
        if isinstance(eq, SubspaceBox):
            doc = {"r": [list(x) for x in eq.bounds()], "kind": eq.classification, "location": eq.kind,
                   "stability": eq.status, "certified": eq.certified, "distance": pred.distance()}
            if eq.reason:
                doc["reason"] = eq.reason
    else:
        limit["M"] = path.M_limit.tolist()
        limit["principal_angles"] = principal_angles(path.M_limit).tolist()
        if isinstance(eq, HeadsEquilibrium):
            doc = {"M": eq.M.tolist(), "stability": "stable" if eq.stable else (
                "neutral" if eq.neutral else "unstable"), "certified": False,
                "largest_eigenvalue": float(eq.eigenvalues[0].real), "principal_angles": eq.angles.tolist(),
                "objective": eq.objective, "evidence": "numerical (Jacobian eigenvalues; no interval certificate "
                "for heads)"}
    if doc is not None:
        limit["equilibrium"] = doc
    angles = None if H == 1 else [principal_angles(M).tolist() for M in path.M]
    return SubspacePrediction(problem, schedule, request.M0, pred, limit, doc, angles)


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

    def fraction_aligned(self, threshold: float) -> float:
        """The fraction of runs that end with ``|rho| >= threshold`` (scalar engine)."""
        return float(np.mean(np.abs(self.sim.final_rho) >= threshold))

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
                "fraction_aligned_0.99": self.fraction_aligned(0.99), "wall_s": sim.wall_s,
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
        raise ValueError(_R0_SCALAR)
    seed = request.seed
    if seed is None:  # fresh OS entropy (an int when no entropy is given), reported so the run can be repeated
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)
        seed = entropy % 2**63
    with quiet_numerics():
        sim = simulate(problem, schedule, steps=request.steps, runs=request.runs, simulator=request.simulator,
                       rho0=request.rho0, M0=request.M0, seed=seed, stride=request.stride, progress=progress)
    require_finite(_FLAGS, sim.overlaps, sim.times)
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
        search = optimize_schedule(problem, request.rho0, request.target, start=schedule, final_runs=request.runs,
                                   horizon=request.horizon, seed=request.seed, progress=progress)
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
