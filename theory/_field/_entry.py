"""The one evaluation entry: the limit at given states, by the model's engine.

:func:`evaluate` (float64) and :func:`evaluate_mp` (mpmath) take alignments ``rho`` for the scalar
engine (one query on one signal direction: :mod:`._scalar`, closed forms, overflow-safe), overlap
vectors ``r = U^T q`` for the subspace engine (:mod:`._subspace`, every ``k``) and, for a model of
``H > 1`` heads, frames ``M = U^T Q`` (``k x H``: the reduced flow of :mod:`._heads`); the engine
is the model's own (:attr:`theory.Model.engine`, the heads' for ``H > 1``) unless ``engine`` names
one, and :data:`EVALUATORS` holds each engine's pair of evaluators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

from .._model import Model, engine_for
from ._heads import HeadsValues, evaluate_heads, evaluate_heads_mp
from ._scalar import FieldValues
from ._scalar import evaluate as evaluate_scalar
from ._scalar import evaluate_mp as evaluate_scalar_mp
from ._subspace import SubspaceValues, evaluate_subspace, evaluate_subspace_mp

#: ``{engine: (float64 evaluator, mpmath evaluator)}``; ``"heads"`` is the subspace engine of a
#: model with ``H > 1`` heads (its state is the frame ``M = U^T Q``)
EVALUATORS: dict[str, tuple[Callable[..., Any], Callable[..., dict]]] = {
    "scalar": (evaluate_scalar, evaluate_scalar_mp),
    "subspace": (evaluate_subspace, evaluate_subspace_mp),
    "heads": (evaluate_heads, evaluate_heads_mp),
}


def _engine(model: Model, engine: str, operation: str) -> str:
    """The key of :data:`EVALUATORS` for ``model``: :func:`theory.engine_for`'s choice, the heads'
    reduced flow for ``H > 1`` (``engine="subspace"`` names one query's state, so it refuses them)."""
    chosen = engine_for(model, engine, operation)
    if model.heads > 1 and chosen != "heads":
        if engine != "auto":
            raise ValueError(f"`engine` {engine!r} evaluates one query; the state of {model.heads} heads is the "
                             "k x H matrix M = U^T Q: give engine 'auto'")
        return "heads"
    return chosen


@overload
def evaluate(model: Model, points, *, engine: Literal["scalar"]) -> FieldValues: ...
@overload
def evaluate(model: Model, points, *, engine: Literal["subspace"]) -> SubspaceValues: ...
@overload
def evaluate(model: Model, points, *, engine: str = "auto") -> FieldValues | SubspaceValues | HeadsValues: ...


def evaluate(model: Model, points, *, engine: str = "auto") -> FieldValues | SubspaceValues | HeadsValues:
    """The derived limit at ``points`` (float64).

    Parameters
    ----------
    model : Model
    points : array_like
        Scalar engine: alignments ``rho`` in ``[-1, 1]`` (any shape). Subspace engine: overlap
        vectors ``r`` in the unit ball, shape ``(k,)`` or ``(n, k)``. ``H > 1`` heads: frames
        ``M = U^T Q`` with singular values ``<= 1``, shape ``(k, H)`` or ``(n, k, H)``.
    engine : {"auto", "scalar", "subspace"}

    Returns
    -------
    FieldValues, SubspaceValues or HeadsValues
        ``objective``, ``slope = j'``, ``field = F``, ``noise_mass`` (scalar); ``objective``,
        ``gradient``, ``hessian``, ``flow``, ``m`` (subspace); ``objective``, ``gradient``
        (``Gamma``), ``flow`` (``dM/dt``), ``angles`` (heads), with the points' leading shape.
        A caller that names the engine gets its result type (for type checkers too).
    """
    return EVALUATORS[_engine(model, engine, "evaluate")][0](model, points)


def evaluate_mp(model: Model, point, dps: int = 50, *, engine: str = "auto") -> dict:
    """The derived limit at one state in mpmath at ``dps`` digits (a dict of mpf values: see
    :func:`theory._field._scalar.evaluate_mp`, :func:`theory._field._subspace.evaluate_subspace_mp`
    and :func:`theory._field._heads.evaluate_heads_mp`)."""
    return EVALUATORS[_engine(model, engine, "evaluate_mp")][1](model, point, dps)
