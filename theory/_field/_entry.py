"""The one evaluation entry: the limit at given states, by the model's engine.

:func:`evaluate` (float64) and :func:`evaluate_mp` (mpmath) take alignments ``rho`` for the scalar
engine (one query on one signal direction: :mod:`._scalar`, closed forms, overflow-safe) and
overlap vectors ``r = U^T q`` for the subspace engine (:mod:`._subspace`, every ``k``); the
engine is the model's own (:attr:`theory.Model.engine`) unless ``engine`` names one.
"""

from __future__ import annotations

from typing import Literal, overload

from .._model import Model, engine_for
from ._scalar import FieldValues
from ._scalar import evaluate as evaluate_scalar
from ._scalar import evaluate_mp as evaluate_scalar_mp
from ._subspace import SubspaceValues, evaluate_subspace, evaluate_subspace_mp


def _one_head(model: Model, what: str) -> None:
    if model.heads != 1:
        raise ValueError(f"`heads` must be 1 to {what} (one query); the state of {model.heads} heads is the "
                         "k x H matrix M = U^T Q: theory.heads_flow evaluates its flow")


@overload
def evaluate(model: Model, points, *, engine: Literal["scalar"]) -> FieldValues: ...
@overload
def evaluate(model: Model, points, *, engine: Literal["subspace"]) -> SubspaceValues: ...
@overload
def evaluate(model: Model, points, *, engine: str = "auto") -> FieldValues | SubspaceValues: ...


def evaluate(model: Model, points, *, engine: str = "auto") -> FieldValues | SubspaceValues:
    """The derived limit at ``points`` (float64).

    Parameters
    ----------
    model : Model
    points : array_like
        Scalar engine: alignments ``rho`` in ``[-1, 1]`` (any shape). Subspace engine: overlap
        vectors ``r`` in the unit ball, shape ``(k,)`` or ``(n, k)``.
    engine : {"auto", "scalar", "subspace"}

    Returns
    -------
    FieldValues or SubspaceValues
        ``objective``, ``slope = j'``, ``field = F``, ``noise_mass`` (scalar); ``objective``,
        ``gradient``, ``hessian``, ``flow``, ``m`` (subspace), with the points' leading shape.
        A caller that names the engine gets its result type (for type checkers too).
    """
    if engine_for(model, engine, "evaluate") == "scalar":
        return evaluate_scalar(model, points)
    _one_head(model, "evaluate the field")
    return evaluate_subspace(model, points)


def evaluate_mp(model: Model, point, dps: int = 50, *, engine: str = "auto") -> dict:
    """The derived limit at one state in mpmath at ``dps`` digits (a dict of mpf values: see
    :func:`theory._field._scalar.evaluate_mp` and :func:`theory._field._subspace.evaluate_subspace_mp`)."""
    if engine_for(model, engine, "evaluate_mp") == "scalar":
        return evaluate_scalar_mp(model, point, dps)
    _one_head(model, "evaluate the field")
    return evaluate_subspace_mp(model, point, dps)
