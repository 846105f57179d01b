"""Symbolic derivation of the high-dimensional limit, its evaluators and cross-checks.

``theory`` knows nothing of ``numerics`` or ``verify`` (DESIGN.md section 6).
"""

from ._derivation import Derivation, SparseLimit, derive
from ._evaluate import FieldValues, evaluate, evaluate_mp, pole_exponents, stable_forms_agree
from ._lemmas import Lemma
from ._model import PRIORS, Model

__all__ = [
    "PRIORS",
    "Derivation",
    "FieldValues",
    "Lemma",
    "Model",
    "SparseLimit",
    "derive",
    "evaluate",
    "evaluate_mp",
    "pole_exponents",
    "stable_forms_agree",
]
