"""Symbolic derivation of the high-dimensional limit, its evaluators and cross-checks.

``theory`` knows nothing of ``numerics`` or ``verify`` (docs/design.md section 6).

Layout. First-order chain (the limit ODE): :mod:`._lemmas` (Gaussian lemmas),
:mod:`._derivation` (symbolic derivation), :mod:`._evaluate` (numeric evaluators),
:mod:`._quadrature` (mpmath cross-checks), :mod:`._conditions` and :mod:`._certify`
(sign of the field), :mod:`._critical` (thresholds along ``alpha`` from the certificate), :mod:`._region` (certificates over parameter boxes), :mod:`._roots` (root isolation in ball arithmetic). Finite-step
chain (the effective drift): :mod:`._effective_lemmas`, :mod:`._effective_derivation`,
:mod:`._effective_evaluate`, :mod:`._effective_quadrature`; its second moment (the
diffusion): :mod:`._diffusion`. Shared: :mod:`.validate` (public: the input validators),
:mod:`._model`, :mod:`._priors` (signal priors: a subpackage), :mod:`._symbols` (exported
as ``symbols``), :mod:`._calculus`, :mod:`._cache`, :mod:`._latex`.

Public API (docs/design.md section 6): the names of ``__all__`` below, grouped as there.
The result classes (``FieldValues``, ``Derivation``, ``EffectiveDrift``, ...) are what the
functions return; they are not exported.
"""

from . import _symbols as symbols
from . import validate
from ._calculus import central_difference
from ._certify import Bracket, Certificate, certify, pole_signs
from ._critical import Thresholds, thresholds
from ._conditions import (
    critical_alpha,
    general_criteria,
    monotone_analysis,
    pole_alpha,
    sparse_threshold,
    sparse_threshold_prior,
)
from ._derivation import derive, derive_general
from ._diffusion import alignment_variance, derive_diffusion, variance_quadrature
from ._effective_derivation import derive_effective
from ._effective_evaluate import effective_drift, gradient_second_moment, stationary_alignment, validity
from ._effective_quadrature import effective_quadrature
from ._evaluate import evaluate, evaluate_mp, pole_exponents, pole_exponents_mp, stable_forms_agree
from ._latex import Display, compact, display, same, tex, width
from ._model import Model
from ._priors import FAMILIES, Prior, canonical_prior, parse_prior
from ._quadrature import cross_check
from ._subspace import (
    SubspaceModel,
    derive_subspace,
    evaluate_subspace,
    evaluate_subspace_mp,
    integrate_subspace_flow,
)
from ._subspace_laws import SubspaceLaw, parse_subspace_law
from ._subspace_quadrature import subspace_quadrature
from ._subspace_stability import critical_thetas, find_subspace_equilibria, mixture_eigenvalues
from ._region import RegionBox, RegionCertificate, certify_region
from ._subspace_certify import SubspaceBox, SubspaceCertificate, certify_subspace
from ._subspace_transition import TransitionBracket, certify_transition
from ._subspace_circle import CircleCertificate, DiskCertificate, certify_circle, certify_disk
from ._subspace_complete import SubspaceCompleteness, subspace_completeness
from ._subspace_near import certify_equilibrium
from ._heads import heads_equilibrium, heads_flow, heads_jacobian, integrate_heads, principal_angles
from ._priors import RangedPrior, parse_ranged_prior
from ._region_proposition import DEFAULT_REGION, RegionProposition, region_proposition
from ._basin import Basin, certified_basin
from ._token_moments import token_feature_means
from ._cache import private_cache_folder
from ._ode_time import TimeEnclosure, certified_time

__all__ = [
    # the model and its prior
    "Model",
    "Prior",
    "FAMILIES",
    "parse_prior",
    "canonical_prior",
    # symbolic derivations
    "derive",
    "derive_general",
    "derive_effective",
    "derive_diffusion",
    # numeric evaluators
    "evaluate",
    "evaluate_mp",
    "pole_exponents",
    "pole_exponents_mp",
    "effective_drift",
    "gradient_second_moment",
    "stationary_alignment",
    "validity",
    "token_feature_means",
    "private_cache_folder",
    "alignment_variance",
    "central_difference",
    # the sign of the field: certificates and criteria
    "certify",
    "Certificate",
    "Bracket",
    "pole_signs",
    "certify_region",
    "RegionCertificate",
    "RegionBox",
    "critical_alpha",
    "sparse_threshold",
    "sparse_threshold_prior",
    "pole_alpha",
    "thresholds",
    "Thresholds",
    "monotone_analysis",
    "general_criteria",
    # independent cross-checks
    "cross_check",
    "effective_quadrature",
    "variance_quadrature",
    "stable_forms_agree",
    # the k-dimensional signal subspace, one query (docs/subspace.md)
    "SubspaceLaw",
    "parse_subspace_law",
    "SubspaceModel",
    "derive_subspace",
    "evaluate_subspace",
    "evaluate_subspace_mp",
    "integrate_subspace_flow",
    "subspace_quadrature",
    "find_subspace_equilibria",
    "mixture_eigenvalues",
    "critical_thetas",
    # interval certificates of the subspace flow (docs/subspace-certificates.md)
    "certify_subspace",
    "SubspaceCertificate",
    "SubspaceBox",
    "certify_transition",
    "TransitionBracket",
    "certify_circle",
    "CircleCertificate",
    "certify_disk",
    "DiskCertificate",
    "subspace_completeness",
    "SubspaceCompleteness",
    "certify_equilibrium",
    # several orthonormal heads on the signal subspace (docs/subspace-certificates.md)
    "heads_flow",
    "heads_jacobian",
    "integrate_heads",
    "heads_equilibrium",
    "principal_angles",
    # symbols, printing and input validation
    "symbols",
    "tex",
    "display",
    "Display",
    "compact",
    "same",
    "width",
    "validate",
    # region certificates: ranged priors, the appendix proposition
    "RangedPrior",
    "parse_ranged_prior",
    "region_proposition",
    "RegionProposition",
    "DEFAULT_REGION",
    # certified quantities of the limit ODE: basins and times
    "certified_basin",
    "Basin",
    "certified_time",
    "TimeEnclosure",
]
