"""The computations behind the commands at one model that read the theory: ``field`` and ``predict``.

Each command parses its flags, calls one function here (or in :mod:`._sampled`, for ``simulate`` and
``complexity``) and hands the record it returns to one renderer (:mod:`..render._commands_text`, or
``as_dict()`` for ``--json``). The branches on the engine and on the heads, the library calls they
compose and the summary statistics live here; each function refuses a non-finite result
(:func:`require_finite`) with the parameters named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...numerics import Problem, Schedule, band, predict, route_tables
from ...theory import HeadsEquilibrium, Model, SubspaceBox, evaluate, heads_flow, heads_objective, principal_angles
from ._guard import quiet_numerics, require_finite

#: the parameters a non-finite trajectory is blamed on
TRAJECTORY_FLAGS = "`eta0`, `k0`, `power` and the model flags"
#: the refusal of a subspace start with a scalar prior
R0_SCALAR = ("`r0` is the start of the subspace model (a k-dimensional law or --heads > 1); "
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
        raise ValueError(R0_SCALAR)
    runs = 2000 if request.band_runs is None else request.band_runs
    seed = 0 if request.seed is None else request.seed
    with quiet_numerics():
        pred = predict(problem, schedule, request.steps, request.rho0, request.stride, engine="scalar")
    if not pred.success:
        raise ValueError(f"{TRAJECTORY_FLAGS}: the ODE integration failed ({pred.message})")
    require_finite(TRAJECTORY_FLAGS, pred.time, pred.eta, pred.rho_plain, pred.rho_corrected)
    if runs < 10:
        raise ValueError(f"`band-runs` must be >= 10, got {runs!r}")
    with quiet_numerics():
        routed = route_tables(problem, schedule, request.steps, method=request.method, drift_se=request.drift_se,
                              seed=seed)
        bd = band(problem, schedule, request.steps, request.rho0, stride=request.stride, runs=runs, seed=seed,
                  route=routed)
    require_finite(f"{TRAJECTORY_FLAGS} (diffusion band)", bd.q10, bd.q50, bd.q90, bd.mean)
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
    require_finite(TRAJECTORY_FLAGS, path.M, path.M_limit)
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
