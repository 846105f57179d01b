"""Certify the one equilibrium of the subspace flow near a given point (docs/subspace-certificates.md).

Where a flow ends (:func:`theory.integrate_subspace_flow`, the limit ODE of ``sigrec predict``)
is a float point; this polishes it in mpmath and classifies it (the numerical
:func:`theory._field._equilibria.classify`: location, label), then certifies it with the
Krawczyk test of :func:`theory.certify` (subspace engine) (a box holding exactly one equilibrium, its
stability). It does not prove that the flow converges to *that* equilibrium: the box is near
the end point, at the distance the caller reports.
"""

from __future__ import annotations

import numpy as np

from .._field._equilibria import _polish, classify
from .._field._subspace import evaluate_subspace
from .._model import Model
from ._subspace import SubspaceBox, certify_subspace


def certify_equilibrium(model: Model, r, prec: int = 128, sphere_tol: float = 1e-8) -> SubspaceBox:
    """The certified box (or ``undecided``) of the equilibrium near ``r``: on the sphere when
    ``| |r| - 1 | <= sphere_tol``, else inside; ``ValueError`` when ``r`` is not near an equilibrium
    (the flow there exceeds ``1e-6``)."""
    if not isinstance(model, Model) or model.heads != 1:
        raise ValueError("`model` must be a theory.Model with one head, got "
                         + (f"{model.heads} heads" if isinstance(model, Model) else type(model).__name__))
    if model.theta == 0:
        raise ValueError("`theta` = 0: the objective is constant, every r is an equilibrium")
    r = np.asarray(r, dtype=float).reshape(-1)
    v = evaluate_subspace(model, r / max(1.0, float(np.linalg.norm(r))))
    if float(np.linalg.norm(v.flow)) > 1e-6:
        raise ValueError(f"`r` is not near an equilibrium: |dr/dt| = {float(np.linalg.norm(v.flow)):.3g} there")
    norm = float(np.linalg.norm(r))
    if abs(norm - 1) <= sphere_tol:
        r = r / norm
    elif norm > 1:
        raise ValueError(f"`r` must lie in the unit ball, got |r| = {norm!r}")
    eq = classify(model, _polish(model, r, 30), 30)
    return certify_subspace(model, equilibria=[eq], prec=prec).boxes[0]
