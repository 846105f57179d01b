"""The data of the derivation appendix (``sigrec notes``), built in one place.

:func:`appendix_data` computes everything the appendix shows and returns it frozen:
the symbolic derivations and the display forms sympy proves equal to them, the
landscape's region certificate (its figure draws the proved boxes), the claims with their evidence (decided in
:mod:`verify.suite`), the effective-dynamics record and its figure spec, the 40-digit
quadrature table of the diffusion section, the priors table (certificates and pole
alphas), the reproduction and the signal-subspace section (:mod:`._appendix_subspace`).
``verify.render`` only typesets an :class:`AppendixData`, so editing the prose re-runs nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sympy as sp

from ...theory import (
    DEFAULT_REGION,
    Model,
    ModelBox,
    RegionCertificate,
    canonical_prior,
    certify,
    compact,
    derive,
    derive_diffusion,
    derive_effective,
    derive_general,
    general_criteria,
    monotone_analysis,
    parse_prior,
    pole_alpha,
    pole_signs,
    region_proposition,
    same,
    sparse_threshold_prior,
    symbols,
    variance_quadrature,
)
from ..suite import PAPER_MEAN_FINAL_ALIGNMENT, claims
from ._appendix_subspace import SubspaceData, subspace_data
from ._bounds import Bound, below
from ._evidence import Evidence
from ._region_figure import RegionLine, region_boundaries
from ._reproduce import PROTOCOL

rho, theta, alpha, beta, sigma2, m = (symbols.rho, symbols.theta, symbols.alpha, symbols.beta, symbols.sigma2,
                                      symbols.m)

#: parameter points of the diffusion section's quadrature table (one per prior)
DIFFUSION_POINTS = (
    ("fixed", {"rho": 0.3, "theta": 0.7, "alpha": 0.2, "beta": 1.1, "sigma2": 0.9}),
    ("rademacher", {"rho": -0.6, "theta": 1.3, "alpha": 0.05, "beta": 0.8, "sigma2": 1.2}),
)
#: the priors of the priors table: the paper's, the symmetric one, and one member of each new family
PRIORS = ("fixed", "rademacher", "rademacher(p=0.7)", "bernoulli(p=0.3)", "gaussian(mu=1, tau=0.5)",
          "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])")
#: the priors whose default region the appendix certifies: every prior of the priors table (its
#: three-atom discrete law included) and a law with four atoms
REGION_PRIORS = (*PRIORS, "discrete(values=[-1, 0, 1, 3], probs=[0.1, 0.2, 0.3, 0.4])")
#: the signal strength at which the pole criterion is tabulated (beta = sigma2 = 1)
PRIORS_THETA = 2.0
#: the argument of the MGF in the priors section
T = sp.Symbol("t", real=True)


def shown(display, derived):
    """``display`` after checking that sympy finds it equal to the ``derived`` object."""
    if not same(display, derived):
        raise AssertionError(f"display form {display} is not equal to the derived {derived}")
    return display


@dataclass(frozen=True)
class Derivations:
    """The sympy objects the appendix prints, and the display forms proved equal to them.

    ``forms`` maps a display's name to the sympy expression printed: each checked
    against the derived object with ``theory.same``, solved for, or the narrowest
    equivalent form (``theory.compact``) of a derived object, all computed here.
    """

    fixed: object
    rademacher: object
    landscape: object
    landscape_rademacher: object
    effective: object
    diffusion: object
    general: object
    criteria: object
    forms: dict = field(default_factory=dict)


@dataclass(frozen=True)
class QuadratureRow:
    """One row of the diffusion section's table: sympy against 40-digit quadrature.

    ``rel_diff`` measures the working precision only (the rule is exact), so the table prints
    ``bound``, the tolerance ``10**(10 - dps)`` of theory's quadrature cross-checks.
    """

    prior: str
    point: dict
    symbolic: float
    quadrature: float
    rel_diff: float
    bound: Bound


@dataclass(frozen=True)
class PriorRow:
    """One prior of the priors table.

    ``below``/``above``: certified landscape at ``c*(1 -+ 1e-6)`` (``None`` when ``c*``
    is 0 or infinite); ``pole_roots``: the alphas where ``F'(-1) = 0`` at
    :data:`PRIORS_THETA`; ``minus``: the pole exponent at ``-1`` when there is none.
    """

    spec: str
    family: str
    support: tuple
    mgf: object
    mean: object
    threshold: float
    below: str | None
    above: str | None
    pole_roots: tuple
    minus: float | None


@dataclass(frozen=True)
class Landscape:
    """The landscape section's figure data: the fixed prior's region certificate on
    :data:`theory.DEFAULT_REGION` (every leaf box proved monotone or bistable for every parameter
    in it, or undecided) and the closed-form boundaries drawn beside it.

    Attributes
    ----------
    certificate : theory.RegionCertificate
        The region certificate of the fixed prior on :data:`theory.DEFAULT_REGION`.
    lines : tuple of RegionLine
        The closed-form boundaries of that region, drawn over the certified boxes.
    """

    certificate: RegionCertificate
    lines: tuple[RegionLine, ...]


@dataclass(frozen=True)
class AppendixData:
    """Everything the appendix shows, computed (see :func:`appendix_data`).

    ``suite`` is False without a suite run (theory sections only: no claims, no
    effective-dynamics table, no evidence table); ``reproduction`` is ``None`` without
    the flagship reproduction (no claim 6).

    Attributes
    ----------
    derivations : Derivations
        The symbolic derivations and the display forms proved equal to them.
    landscape : Landscape or None
        The fixed prior's region certificate and boundaries drawn in the landscape section.
    diffusion : tuple of QuadratureRow
        The diffusion section's table: sympy against 40-digit quadrature, one row per prior of
        :data:`DIFFUSION_POINTS`.
    priors : tuple of PriorRow
        The priors table, one row per prior of :data:`PRIORS`.
    suite : bool
        True when a suite run was given (claims, effective-dynamics table, evidence table).
    seed : int or None
        The suite run's seed; ``None`` without a suite run.
    run : Evidence or None
        The suite run the claims come from (preset, seed, date, commit), or ``None``.
    claims : dict
        Claim number -> its verdict (``Claim``) decided from the run's records and the reproduction;
        empty without a suite run.
    counts : dict
        Case name -> the case's configuration (``SuiteConfig.as_dict()["cases"]`` entry), for captions.
    effective : dict or None
        ``details`` of the ``sga.effective_drift`` record; ``None`` when the run has none.
    effective_figure : object
        That record's figure (a spec, or the path of its PNG), or ``None``.
    robbins_monro : bool or None
        Whether the suite's schedule satisfies Robbins--Monro; ``None``: no schedule given.
    reproduction : tuple of ConfigResult or None
        The flagship reproduction (claim 6); ``None`` without it.
    regions : tuple of theory.RegionProposition
        The region propositions, one per prior of :data:`REGION_PRIORS`.
    protocol : Protocol
        The reproduction's protocol (:data:`PROTOCOL`), quoted by the experiments section.
    paper_mean : float
        The mean final alignment the paper reports (claim 6).
    priors_theta : float
        The signal strength at which the priors table's pole criterion is tabulated (``beta = sigma2 = 1``).
    subspace : SubspaceData or None
        The section on the signal subspace (``verify.studies._appendix_subspace``), or ``None``.
    quadrature : Bound or None
        Claim 1: the lemmas' relative difference from the 50-digit quadrature, below the check's
        tolerance; ``None`` without the check's records.
    """

    derivations: Derivations
    #: the fixed prior's region certificate drawn in the landscape section (:func:`landscape`)
    landscape: Landscape | None
    diffusion: tuple[QuadratureRow, ...]
    priors: tuple[PriorRow, ...]
    suite: bool = False
    seed: int | None = None
    #: the suite run the claims come from (preset, seed, date, commit), or ``None``
    run: Evidence | None = None
    claims: dict = field(default_factory=dict)
    #: case name -> the case's configuration (for captions)
    counts: dict = field(default_factory=dict)
    #: ``details`` of the ``sga.effective_drift`` record, and its figure spec
    effective: dict | None = None
    effective_figure: object = None
    #: whether the suite's schedule satisfies Robbins--Monro (``None``: no schedule given)
    robbins_monro: bool | None = None
    reproduction: tuple | None = None
    #: the region propositions: one ``theory.RegionProposition`` per prior of :data:`REGION_PRIORS`
    regions: tuple = ()
    protocol: object = PROTOCOL
    paper_mean: float = PAPER_MEAN_FINAL_ALIGNMENT
    priors_theta: float = PRIORS_THETA
    #: the section on the signal subspace (``verify.studies._appendix_subspace``), or ``None``
    subspace: SubspaceData | None = None
    #: claim 1: the lemmas' relative difference from the 50-digit quadrature, below the check's
    #: tolerance (``None`` without the check's records)
    quadrature: Bound | None = None


def derivations() -> Derivations:
    """The derivation objects and the checked display forms of every section."""
    fixed, rad = derive("fixed", engine="scalar"), derive("rademacher", engine="scalar")
    ma, mr = monotone_analysis("fixed"), monotone_analysis("rademacher")
    forms = {}
    # Gaussian tilting: the table of tilted means and first moments, M written as a symbol
    M = fixed.lemmas[0]
    Ms = sp.Symbol("M", positive=True)
    e, ch, sh = sp.exp(beta * theta * rho), sp.cosh(beta * theta * rho), sp.sinh(beta * theta * rho)
    rows = []
    for prior, (mean, moment), shapes in (
            ("fixed", fixed.lemmas[2:], (e, theta * e, beta * sigma2 * e)),
            ("Rademacher", rad.lemmas[2:], (ch, theta * sh, beta * sigma2 * ch))):
        shapes_shown = [shown(M.rhs * shapes[0], mean.rhs), shown(M.rhs * shapes[1], moment.rhs[0]),
                        shown(M.rhs * shapes[2], moment.rhs[1])]
        rows.append((prior, tuple(f.subs(M.rhs, Ms) for f in shapes_shown)))
    forms["lemma_table"] = tuple(rows)
    # the limit: m for both priors, and F' of F = (1 - rho^2) S(rho) in general
    forms["m_fixed"] = shown(alpha * e / (alpha * e + 1 - alpha), fixed.m)
    forms["m_rademacher"] = shown(alpha * sh / (alpha * ch + 1 - alpha), rad.m)
    forms["j"], forms["j_prime"] = compact(fixed.objective_poly), compact(fixed.slope_poly)
    S = sp.Function("S")
    forms["F_prime_generic"] = sp.diff((1 - rho**2) * S(rho), rho)
    # the landscape: h, h(-1), m_c through Delta, alpha_c through m_c
    forms["h"] = shown(sigma2 * (1 + beta * theta * rho * (1 - m)) + theta**2 * m * (1 - m), ma.sign_factor)
    forms["h_minus1"] = shown(sigma2 * (1 - beta * theta * (1 - m)) + theta**2 * m * (1 - m),
                              ma.endpoint_quadratic)
    disc = (theta - beta * sigma2) ** 2 + 4 * sigma2
    inside = next(a for a in sp.preorder_traversal(ma.critical_m) if isinstance(a, sp.Pow) and a.exp == sp.S.Half)
    if sp.expand(disc - inside.base) != 0:
        raise AssertionError("the discriminant under the root of m_c differs from Delta")
    Delta = sp.Symbol("Delta", positive=True)
    mc_shown = shown((theta + beta * sigma2 - sp.sqrt(disc)) / (2 * theta), ma.critical_m)
    forms["Delta"], forms["discriminant"] = Delta, disc
    forms["m_c"] = mc_shown.subs(sp.sqrt(disc), sp.sqrt(Delta))
    forms["sparse_field"] = compact(fixed.sparse.field)
    forms["rademacher_sign_factor"] = compact(mr.sign_factor)
    mcs = sp.Symbol("m_c", positive=True)
    # alpha_c solves m(-1) = m_c for alpha; printed through m_c, checked against the derived alpha_c
    ac = sp.factor(sp.solve(sp.Eq(fixed.m.subs(rho, -1), mcs), alpha)[0])
    if not same(ac.subs(mcs, ma.critical_m), ma.critical_alpha):
        raise AssertionError("alpha_c through m_c differs from the derived alpha_c")
    forms["m_c_symbol"], forms["alpha_c"] = mcs, ac
    # recovery: F'(1) = -2 j'(1) through m_+ = m(1), and h(1)
    mp = sp.Symbol("m_+", positive=True)
    shown((-2 * ma.positive_factor * ma.sign_factor).subs(rho, 1).subs(m, fixed.m.subs(rho, 1)),
          fixed.field_prime_plus)
    h1 = shown(sigma2 * (1 + beta * theta * (1 - m)) + theta**2 * m * (1 - m), ma.sign_factor.subs(rho, 1))
    forms["m_plus_symbol"] = mp
    forms["sparse_F_prime_plus"] = compact(fixed.sparse.field_prime_plus)
    forms["sparse_F_prime_minus"] = compact(fixed.sparse.field_prime_minus)
    forms["F_prime_plus_factor"] = -2 * ma.positive_factor.subs(m, mp)
    forms["h_plus1"] = h1.subs(m, mp)
    # nuisance mass under the Rademacher prior
    forms["nu_rademacher"] = shown((1 - alpha) / (alpha * ch + 1 - alpha), rad.noise_mass)
    # any prior: the named form of g, the informative mass w and the pole quadratic's coefficients
    g, crit = derive_general(), general_criteria()
    w, mu1, v = (sp.Symbol(n, real=True) for n in ("w", "mu1", "v"))
    K, A = sp.Symbol("K", positive=True), sp.Symbol("A", positive=True)
    K_of = (1 - w) * mu1**2 + v
    A_named = beta * theta**2 * w * K + beta * sigma2  # A in terms of K
    g_short = mu1 * A + beta * sigma2 * T * K
    if sp.simplify(g_short.subs(A, A_named).subs(K, K_of).subs(T, sp.Symbol("t", real=True))
                   - crit.sign_factor) != 0:
        raise AssertionError("the named form of g differs from general_criteria().sign_factor")
    forms["g"], forms["K"], forms["A"] = g_short, K_of, A_named
    forms["w_general"] = sp.factor(sp.together(1 - g.noise_mass))
    q = sp.Poly(crit.pole_quadratic, w).all_coeffs()[::-1]
    forms["pole_coefficients"] = tuple(sp.factor(c) for c in q)
    return Derivations(fixed, rad, ma, mr, derive_effective("fixed"), derive_diffusion("fixed"), g, crit, forms)


def landscape() -> Landscape:
    """The fixed prior's region certificate on :data:`theory.DEFAULT_REGION` (also the first
    region proposition's) and its closed-form boundaries."""
    r = DEFAULT_REGION
    cert = certify(ModelBox(r["theta"], r["alpha"], r["beta"], r["sigma2"], "fixed"))
    assert isinstance(cert, RegionCertificate)
    return Landscape(cert, region_boundaries(cert.region))


def quadrature_rows() -> tuple[QuadratureRow, ...]:
    """The diffusion section's table: ``theory.variance_quadrature`` at 40 digits."""
    rows = []
    for prior, p in DIFFUSION_POINTS:
        q = variance_quadrature(prior, p, dps=40)
        bound = below(q.rel_diff, 10 - q.dps, f"the relative difference of sympy and quadrature ({prior})")
        rows.append(QuadratureRow(prior, dict(p), q.symbolic, q.quadrature, q.rel_diff, bound))
    return tuple(rows)


def prior_rows() -> tuple[PriorRow, ...]:
    """The priors table: sparse thresholds, certificates on both sides, pole alphas."""
    rows = []
    for spec in PRIORS:
        spec = canonical_prior(spec)
        law = parse_prior(spec)
        c = sparse_threshold_prior(spec)
        below = above = None
        if 0 < c < math.inf:
            below = certify(Model(c * (1 - 1e-6), 0.0, 1.0, 1.0, spec), engine="scalar").status
            above = certify(Model(c * (1 + 1e-6), 0.0, 1.0, 1.0, spec), engine="scalar").status
        roots = tuple(pole_alpha(spec, PRIORS_THETA))
        minus = None if roots else pole_signs(Model(PRIORS_THETA, 0.5, 1.0, 1.0, spec))[1]
        support = (law.support or ()) if law.family == "discrete" else ()
        rows.append(PriorRow(spec, law.family, support, law.mgf(T), sp.Rational(law.mean), c, below, above, roots,
                             minus))
    return tuple(rows)


def quadrature_bound(records) -> Bound | None:
    """Claim 1's agreement of the lemmas with quadrature, as the tolerance of the
    ``derivation.quadrature`` check (``10**(10 - dps)``); each record's value is checked below it."""
    recs = [r for r in records if r.id == "derivation.quadrature" and r.value is not None]
    if not recs:
        return None
    exponent = max(math.ceil(math.log10(r.threshold) - 1e-9) for r in recs)  # a power of ten >= each tolerance
    for r in recs:
        below(r.value, exponent, "the lemmas' relative difference from quadrature")
    return Bound(exponent, "the lemmas' relative difference from quadrature")


def appendix_data(result=None, reproduction=None, schedule=None, progress=None) -> AppendixData:
    """Compute the appendix's data.

    Parameters
    ----------
    result : verify.suite.SuiteResult or Evidence, optional
        A suite run, fresh or as committed evidence (``sigrec notes`` reads the
        notes folder's ``evidence.json``): the claims, the effective-dynamics table and
        figure, the evidence table.
    reproduction : list of ConfigResult, optional
        The flagship reproduction (claim 6).
    schedule : numerics.Schedule, optional
        The suite's schedule, whose Robbins--Monro conditions the notes state.
    progress : callable, optional
        ``progress(label, done, total)`` before each section is computed (the sections take
        minutes in all: the derivations, the landscape certificate, the region propositions).
    """
    sections = ["derivations", "landscape certificate", "quadrature rows", "prior rows",
                *(f"region proposition {i + 1}/{len(REGION_PRIORS)}" for i in range(len(REGION_PRIORS))), "subspace"]

    def step(label: str):
        if progress is not None:
            progress(f"appendix: {label}", sections.index(label), len(sections))

    found, counts, effective, figure, seed, run = {}, {}, None, None, None, None
    if result is not None:
        run = result if isinstance(result, Evidence) else Evidence.from_result(result)
        found = {c.number: c for c in claims(run.records, reproduction)}
        counts = {c["name"]: c for c in run.cases}
        seed = run.seed
        recs = [r for r in run.records if r.id == "sga.effective_drift"]
        if recs:
            effective = recs[0].details
            figure = run.figure
    step("derivations")
    derived = derivations()
    step("landscape certificate")
    land = landscape()
    step("quadrature rows")
    diffusion = quadrature_rows()
    step("prior rows")
    priors = prior_rows()
    regions = []
    for i, spec in enumerate(REGION_PRIORS):
        step(f"region proposition {i + 1}/{len(REGION_PRIORS)}")
        given = land.certificate if spec == "fixed" and land is not None else None  # computed once
        regions.append(region_proposition(spec, certificate=given))
    step("subspace")
    return AppendixData(
        derivations=derived,
        landscape=land,
        diffusion=diffusion,
        priors=priors,
        regions=tuple(regions),
        suite=result is not None,
        seed=seed,
        run=run,
        claims=found,
        counts=counts,
        effective=effective,
        effective_figure=figure,
        robbins_monro=None if schedule is None else bool(schedule.robbins_monro().holds),
        reproduction=None if reproduction is None else tuple(reproduction),
        subspace=subspace_data(),
        quadrature=None if run is None else quadrature_bound(run.records),
    )
