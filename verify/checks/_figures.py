"""Figure specs: everything a figure of a check needs, computed, as frozen data.

A check never draws. Where it has a figure it builds one of these specs (the field
values, the ODE curves from the runs' starts, the equilibria, the labels) with the path
its PNG goes to, and returns it on its record (``CheckRecord.figures``, next to
``details["figures"]``, which lists the same paths). ``verify.render.figures.draw``
turns a spec into a PNG and a PDF and computes nothing: every theory or numerics call
a figure needs is made here, by the builder functions below.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...numerics import Problem, Schedule, flow_map
from ...theory import Certificate, Model, evaluate, pole_signs

#: points of the field curve on [-1, 1] and of the limit nuisance-mass curve
FIELD_POINTS, NUISANCE_POINTS = 801, 401


@dataclass(frozen=True, eq=False)
class FieldFigure:
    """The field ``F(rho)`` on a grid, the pole signs and the certified equilibria."""

    kind: ClassVar[str] = "field"
    path: str
    model: Model
    certificate: Certificate
    rho: np.ndarray
    field: np.ndarray
    #: ``pole_signs(model)``: the signs of the exponents at ``+1`` and ``-1`` (negative: attracting)
    poles: tuple[int, int]
    title: str = ""


@dataclass(frozen=True, eq=False)
class TrajectoriesFigure:
    """Runs of a simulation and the ODE from each run's start, on the same times."""

    kind: ClassVar[str] = "trajectories"
    path: str
    times: np.ndarray
    #: shape (runs, n): the simulated alignment and the flow from the same starts
    rho: np.ndarray
    ode: np.ndarray
    initial_rho: np.ndarray
    runs: int
    problem: Problem
    schedule: Schedule
    title: str = ""
    #: the claim and check the figure supports (its caption)
    claim: str = ""


@dataclass(frozen=True, eq=False)
class NuisanceFigure:
    """Measured nuisance attention mass against the alignment, and the limit curve."""

    kind: ClassVar[str] = "nuisance_mass"
    path: str
    model: Model
    rho: np.ndarray
    measured: np.ndarray
    grid: np.ndarray
    limit: np.ndarray
    at1: float


@dataclass(frozen=True, eq=False)
class TrackingFigure:
    """``E_T(t)`` per step at the base ``L``, and the medians of its sup against step and ``1/L``."""

    kind: ClassVar[str] = "tracking"
    path: str
    base: Problem
    T: float
    start_times: np.ndarray
    D: float
    #: ``(eta, E)`` at the base ``L``, ``E`` of shape (runs, start times)
    curves: tuple
    etas: tuple
    S_eta: tuple
    Ls: tuple
    S_L: tuple
    p_eta: float
    se_eta: float
    p_L: float
    se_L: float


@dataclass(frozen=True, eq=False)
class FiniteSizeFigure:
    """``|mean - F|`` against ``L`` per alignment, with the fitted ``C / L`` and the
    leading-order theory's (``C_theory``: alignment -> ``C``, from ``theory.effective_drift``)."""

    kind: ClassVar[str] = "finite_size"
    path: str
    rows: tuple
    rhos: tuple
    C_over_L: dict
    slope: float | None
    slope_se: float | None
    model: Model | None = None
    C_theory: dict | None = None


@dataclass(frozen=True, eq=False)
class EffectiveDriftFigure:
    """The simulated mean alignment with bands, the plain and the corrected ODE."""

    kind: ClassVar[str] = "effective_drift"
    path: str
    times: np.ndarray
    rho: np.ndarray
    runs: int
    problem: Problem
    schedule: Schedule
    ode_time: np.ndarray
    rho_plain: np.ndarray
    rho_corrected: np.ndarray
    title: str | None = None

    def save_data(self, path) -> None:
        """Write the spec's data to ``path`` (``.npz``), so that the figure can be redrawn at
        another size (the appendix draws it at body text size) without rerunning anything."""
        meta = json.dumps({"runs": self.runs, "problem": self.problem.as_dict(), "schedule": self.schedule.as_dict(),
                           "title": self.title})
        np.savez_compressed(path, times=self.times, rho=self.rho, ode_time=self.ode_time, rho_plain=self.rho_plain,
                            rho_corrected=self.rho_corrected, meta=np.array(meta))

    @classmethod
    def load_data(cls, path, figure_path) -> EffectiveDriftFigure:
        """The spec :meth:`save_data` wrote to ``path``, drawing to ``figure_path``."""
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            s = meta["schedule"]
            return cls(str(figure_path), z["times"], z["rho"], int(meta["runs"]), Problem.from_dict(meta["problem"]),
                       Schedule(eta0=s["eta0"], k0=s["k0"], power=s["power"], kind=s["kind"]), z["ode_time"],
                       z["rho_plain"], z["rho_corrected"], meta["title"])


#: every kind of figure spec
FigureSpec = FieldFigure | TrajectoriesFigure | NuisanceFigure | TrackingFigure | FiniteSizeFigure | \
    EffectiveDriftFigure


def field_figure(path, model: Model, cert: Certificate, title: str = "") -> FieldFigure:
    """The spec of the field figure of ``model`` with the certificate ``cert``."""
    r = np.linspace(-1, 1, FIELD_POINTS)
    return FieldFigure(str(path), model, cert, r, evaluate(model, r, engine="scalar").field, pole_signs(model), title)


def trajectories_figure(path, model: Model, sim, equilibria, title: str = "", claim: str = "") -> TrajectoriesFigure:
    """The spec of the runs of ``sim`` and the ODE of ``model`` from the same starts.

    ``sim`` needs ``times``, ``rho``, ``initial_rho``, ``runs``, ``problem`` and
    ``schedule`` (a ``numerics.Simulation``); the title's instance is ``sim``'s own.
    """
    t = sim.times
    fl = flow_map(model, sim.initial_rho[:, None], t[None, :], equilibria=equilibria, rtol=1e-10).rho
    return TrajectoriesFigure(str(path), t, sim.rho, fl, np.asarray(sim.initial_rho), sim.runs, sim.problem,
                              sim.schedule, title, claim)


def nuisance_figure(path, model: Model, rho_k, measured, at1: float) -> NuisanceFigure:
    """The spec of the measured nuisance mass (at alignments ``rho_k``) against the limit."""
    grid = np.linspace(-1, 1, NUISANCE_POINTS)
    return NuisanceFigure(str(path), model, np.asarray(rho_k), np.asarray(measured), grid,
                          evaluate(model, grid, engine="scalar").noise_mass, at1)


def tracking_figure(path, design, results: dict, fit) -> TrackingFigure:
    """The spec of the pseudotrajectory error of a ``TrackingDesign``, its errors and fit."""
    base_L = design.L
    curves = tuple((eta, E) for (L, eta), E in results.items() if L == base_L)
    etas, Ls = tuple(design.etas), tuple(design.Ls)
    return TrackingFigure(str(path), design.base, design.T, design.start_times, design.D, curves, etas,
                          tuple(fit.S[(base_L, e)] for e in etas), Ls, tuple(fit.S[(L, design.eta_max)] for L in Ls),
                          fit.p_eta, fit.se_eta, fit.p_L, fit.se_L)


def finite_size_figure(path, rows, rhos, C_over_L, slope, slope_se, model: Model | None = None,
                       C_theory: dict | None = None) -> FiniteSizeFigure:
    """The spec of the finite-size bias figure (``rows``: dicts with ``L``, ``rho``, ``err``, ``se``)."""
    return FiniteSizeFigure(str(path), tuple(rows), tuple(rhos), dict(C_over_L), slope, slope_se, model,
                            None if C_theory is None else dict(C_theory))


def effective_drift_figure(path, sim, pred, title: str | None = None) -> EffectiveDriftFigure:
    """The spec of the effective-drift figure; ``sim`` and ``pred`` share record steps."""
    return EffectiveDriftFigure(str(path), sim.times, sim.rho, sim.runs, sim.problem, sim.schedule, pred.time,
                                pred.rho_plain, pred.rho_corrected, title)
