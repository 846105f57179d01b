"""Symbolic derivation of the high-dimensional limit, its evaluators and certificates.

``theory`` knows nothing of ``numerics`` or ``verify``; it uses only the small
:mod:`sigrec.core` below it (docs/design.md section 6).

Layout, one concept per subpackage: :mod:`._laws` (signal laws: scalar priors and
k-dimensional laws, parsed once), :mod:`._model` (the model), :mod:`._derivation` (the sympy
derivation and its independent quadratures), :mod:`._field` (numeric evaluators of the field,
its equilibria and flows), :mod:`._certify` (interval certificates of the field and what
follows from them), :mod:`._region` (certificates over parameter boxes), :mod:`._effective`
(finite-step and finite-size dynamics: the corrected drift, the diffusion, the token moments),
:mod:`._codegen` (the cache of generated code and the code the package ships);
:mod:`._latex` (the printing layer of the notes) and :mod:`._calculus` (finite differences).

Public API (docs/design.md section 6): the names of ``__all__`` below, grouped as there.
The result classes (``FieldValues``, ``Derivation``, ``EffectiveDrift``, ...) are what the
functions return; they are not exported.
"""

from ..core import validate
from ._calculus import central_difference
from ._certify._basin import Basin, certified_basin
from ._certify._circle import CircleCertificate, DiskCertificate, certify_circle, certify_disk
from ._certify._complete import SubspaceCompleteness, subspace_completeness
from ._certify._conditions import (
    critical_alpha,
    general_criteria,
    monotone_analysis,
    pole_alpha,
    sparse_threshold,
    sparse_threshold_prior,
)
from ._certify._critical import Thresholds, thresholds
from ._certify._entry import CERTIFIERS, certify
from ._certify._heads import HeadsBox, HeadsCertificate
from ._certify._near import certify_equilibrium
from ._certify._ode_time import TimeEnclosure, certified_time
from ._certify._options import RegionOptions
from ._certify._protocol import CertificateLike
from ._certify._scalar import Bracket, Certificate, pole_signs
from ._certify._subspace import SubspaceBox, SubspaceCertificate
from ._certify._transition import TransitionBracket, certify_transition
from ._derivation import _symbols as symbols
from ._derivation._entry import derive
from ._derivation._quadrature import cross_check
from ._derivation._scalar import derive_general
from ._derivation._subspace_quadrature import subspace_quadrature
from ._effective._derivation import derive_effective
from ._effective._diffusion import alignment_variance, derive_diffusion, variance_quadrature
from ._effective._evaluate import (
    DriftOptions,
    Validity,
    effective_drift,
    gradient_second_moment,
    stationary_alignment,
    validity,
)
from ._effective._quadrature import effective_quadrature
from ._effective._token_moments import token_feature_means
from ._field._entry import evaluate, evaluate_mp
from ._field._equilibria import critical_thetas, find_subspace_equilibria, mixture_eigenvalues
from ._field._heads import (
    HeadsEquilibrium,
    heads_equilibrium,
    heads_flow,
    heads_jacobian,
    heads_objective,
    heads_random_starts,
    integrate_heads,
    principal_angles,
)
from ._field._scalar import pole_exponents, pole_exponents_mp, stable_forms_agree
from ._field._subspace import integrate_subspace_flow
from ._latex import Display, compact, display, same, tex, width
from ._laws import FAMILIES, Prior, RangedPrior, SignalLaw, canonical_prior, parse_law, parse_prior, parse_ranged_prior
from ._model import ENGINES, MAX_HEADS, Model, ModelBox, engine_for
from ._region._certify import RegionBox, RegionCertificate
from ._region._circle import K2RegionBox, K2RegionCertificate
from ._region._proposition import DEFAULT_REGION, RegionProposition, region_proposition

__all__ = [
    # the model, its signal law and the engines every operation chooses from
    "Model",
    "ModelBox",
    "ENGINES",
    "engine_for",
    "MAX_HEADS",
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
    "DriftOptions",
    "gradient_second_moment",
    "stationary_alignment",
    "validity",
    "Validity",
    "token_feature_means",
    "alignment_variance",
    "central_difference",
    # the one certificate entry (a model or a box of models) and what every certificate answers
    "certify",
    "CERTIFIERS",
    "CertificateLike",
    "RegionOptions",
    # the sign of the field: certificates and criteria
    "Certificate",
    "Bracket",
    "pole_signs",
    "RegionCertificate",
    "RegionBox",
    "K2RegionCertificate",
    "K2RegionBox",
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
    "SignalLaw",
    "parse_law",
    "integrate_subspace_flow",
    "subspace_quadrature",
    "find_subspace_equilibria",
    "mixture_eigenvalues",
    "critical_thetas",
    # interval certificates of the subspace flow (docs/subspace-certificates.md)
    "SubspaceCertificate",
    "SubspaceBox",
    "HeadsCertificate",
    "HeadsBox",
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
    "heads_objective",
    "heads_random_starts",
    "integrate_heads",
    "heads_equilibrium",
    "HeadsEquilibrium",
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
