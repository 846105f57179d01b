"""Symbolic derivation of the high-dimensional limit, its evaluators and cross-checks.

``theory`` knows nothing of ``numerics`` or ``verify`` (DESIGN.md section 6).
"""

from ._certify import Bracket, Certificate, certify
from ._conditions import MonotoneAnalysis, critical_alpha, monotone_analysis, sparse_threshold
from ._derivation import Derivation, SparseLimit, derive
from ._effective import (
    EffectiveDerivation,
    EffectiveDrift,
    EffectiveQuadrature,
    GradientSecondMoment,
    Plateau,
    derive_effective,
    effective_drift,
    effective_quadrature,
    gradient_second_moment,
    stationary_alignment,
)
from ._evaluate import FieldValues, evaluate, evaluate_mp, pole_exponents, stable_forms_agree
from ._lemmas import Lemma
from ._model import PRIORS, Model, alignments

__all__ = [
    "PRIORS",
    "Bracket",
    "Certificate",
    "MonotoneAnalysis",
    "certify",
    "critical_alpha",
    "monotone_analysis",
    "sparse_threshold",
    "Derivation",
    "EffectiveDerivation",
    "EffectiveDrift",
    "EffectiveQuadrature",
    "GradientSecondMoment",
    "Plateau",
    "derive_effective",
    "effective_drift",
    "effective_quadrature",
    "gradient_second_moment",
    "stationary_alignment",
    "FieldValues",
    "Lemma",
    "Model",
    "alignments",
    "SparseLimit",
    "derive",
    "evaluate",
    "evaluate_mp",
    "pole_exponents",
    "stable_forms_agree",
]
