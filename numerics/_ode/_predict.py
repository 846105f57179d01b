"""The one prediction entry: :func:`predict`, the limit dynamics along a schedule, by engine.

One query on one signal direction (the scalar engine, :mod:`._corrected`): the plain and the
finite-step corrected ODE of ``E rho_k`` (a :class:`Prediction`, with the stated validity of the
expansion). Any model (the subspace engine, :mod:`._subspace`): the limit ODE of the overlaps
``M = U^T Q`` and the equilibrium it settles at (a :class:`SubspacePrediction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, overload

from ...core.validate import instance, integer
from ...theory import engine_for
from .._schedule import Schedule
from .._simulate._driver import fixed_start
from .._simulate._problem import Problem
from ._corrected import Prediction, predict_scalar
from ._subspace import SubspacePrediction, predict_subspace


@dataclass(frozen=True)
class Correction:
    """The terms of the scalar engine's finite-step corrected drift (:func:`numerics.corrected_drift`).

    Attributes
    ----------
    finite_L : bool
        Whether the finite-``L`` term enters.
    drag_scale : float
        The factor on the step-size drag.
    """

    finite_L: bool = True
    drag_scale: float = 1.0


@overload
def predict(problem: Problem, schedule: Schedule, steps: int, rho0=None, stride: int = 1, *, M0=None,
            engine: Literal["scalar"], correction: Correction | None = None) -> Prediction: ...
@overload
def predict(problem: Problem, schedule: Schedule, steps: int, rho0=None, stride: int = 1, *, M0=None,
            engine: Literal["subspace"], correction: Correction | None = None) -> SubspacePrediction: ...
@overload
def predict(problem: Problem, schedule: Schedule, steps: int, rho0=None, stride: int = 1, *, M0=None,
            engine: str = "auto", correction: Correction | None = None) -> Prediction | SubspacePrediction: ...


def predict(problem: Problem, schedule: Schedule, steps: int, rho0=None, stride: int = 1, *, M0=None,
            engine: str = "auto", correction: Correction | None = None) -> Prediction | SubspacePrediction:
    """The limit dynamics of ``problem`` at iterations ``k = 0, S, 2S, ..., steps``.

    Parameters
    ----------
    problem : Problem
    schedule : Schedule
        Same conventions as :func:`numerics.simulate` (``k`` counts from 0).
    steps : int
        ``>= 1``.
    rho0 : float, optional
        Start of one query on one signal direction, in ``[-1, 1]``.
    stride : int
        ``S >= 1``; the last step is always included.
    M0 : array_like (k, H), optional
        Start overlaps ``U^T Q_0`` of any model (``k = H = 1``: ``[[rho0]]``). One of ``rho0`` and
        ``M0`` is required.
    engine : {"auto", "scalar", "subspace"}
        ``"auto"``: the model's own (:attr:`theory.Model.engine`).
    correction : Correction, optional
        Scalar engine: the terms of :func:`numerics.corrected_drift` (default ``Correction()``).
    """
    instance("problem", problem, Problem)
    instance("schedule", schedule, Schedule)
    engine = engine_for(problem.model, engine, "predict")
    steps = integer("steps", steps, 1)
    stride = integer("stride", stride, 1)
    start = fixed_start(problem, engine, rho0, M0)
    if start is None:
        raise ValueError("`rho0` is required: the start alignment in [-1, 1]" if engine == "scalar" else
                         "`M0` is required: the start overlaps U^T Q_0 (a k x H matrix)")
    if engine == "scalar":
        c = Correction() if correction is None else instance("correction", correction, Correction)
        return predict_scalar(problem, schedule, steps, start, stride, finite_L=c.finite_L, drag_scale=c.drag_scale)
    return predict_subspace(problem, schedule, steps, start, stride)
