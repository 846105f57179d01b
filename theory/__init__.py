"""Symbolic derivation of the high-dimensional limit, its evaluators and cross-checks.

``theory`` knows nothing of ``numerics`` or ``verify`` (docs/design.md section 6).

Layout. First-order chain (the limit ODE): :mod:`._lemmas` (Gaussian lemmas),
:mod:`._derivation` (symbolic derivation), :mod:`._evaluate` (numeric evaluators),
:mod:`._quadrature` (mpmath cross-checks), :mod:`._conditions` and :mod:`._certify`
(sign of the field). Finite-step chain (the effective drift): :mod:`._effective_lemmas`,
:mod:`._effective_derivation`, :mod:`._effective_evaluate`, :mod:`._effective_quadrature`; its second moment (the diffusion): :mod:`._diffusion`.
Shared: :mod:`.validate` (public: the input validators), :mod:`._model`, :mod:`._priors` (signal priors),
:mod:`._symbols` (exported as ``symbols``), :mod:`._calculus`, :mod:`._latex`.
"""

from . import _symbols as symbols
from . import validate
from ._calculus import central_difference
from ._certify import Bracket, Certificate, certify, pole_signs
from ._conditions import (
    GeneralCriteria,
    MonotoneAnalysis,
    critical_alpha,
    general_criteria,
    monotone_analysis,
    pole_alpha,
    sparse_threshold,
    sparse_threshold_prior,
)
from ._derivation import Derivation, SparseLimit, derive, derive_general
from ._diffusion import (
    AlignmentVariance,
    DiffusionDerivation,
    VarianceQuadrature,
    alignment_variance,
    derive_diffusion,
    variance_quadrature,
)
from ._effective_derivation import EffectiveDerivation, derive_effective
from ._effective_evaluate import (
    EffectiveDrift,
    GradientSecondMoment,
    Plateau,
    effective_drift,
    gradient_second_moment,
    stationary_alignment,
)
from ._effective_quadrature import EffectiveQuadrature, effective_quadrature
from ._evaluate import FieldValues, evaluate, evaluate_mp, pole_exponents, pole_exponents_mp, stable_forms_agree
from ._latex import Display, compact, display, same, tex, width
from ._lemmas import Lemma
from ._model import PRIORS, Model
from ._priors import FAMILIES, Prior, canonical_prior, parse_prior
from ._quadrature import QuadratureResult, cross_check
from .validate import alignments

__all__ = [
    "AlignmentVariance",
    "DiffusionDerivation",
    "VarianceQuadrature",
    "alignment_variance",
    "derive_diffusion",
    "variance_quadrature",
    "PRIORS",
    "FAMILIES",
    "Prior",
    "canonical_prior",
    "parse_prior",
    "derive_general",
    "Bracket",
    "Certificate",
    "MonotoneAnalysis",
    "certify",
    "pole_signs",
    "pole_exponents_mp",
    "GeneralCriteria",
    "general_criteria",
    "pole_alpha",
    "sparse_threshold_prior",
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
    "central_difference",
    "cross_check",
    "QuadratureResult",
    "symbols",
    "tex",
    "validate",
]
