"""``sigrec notes``: the derivation appendix, generated from the sympy objects.

Every display formula below is printed by ``theory.tex`` from an object
of ``theory`` (or from a sympy expression assembled here from those objects); the
prose around them is fixed text. Numbers come from seeded runs, rounded, so the
output is reproducible and ``--check`` can compare it exactly.
"""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import sympy as sp

from ...theory import derive, monotone_analysis, symbols, tex

from ._document import Document

rho = symbols.rho
TEXT_FILES = ("appendix.tex", "appendix.md")


def _g(x, digits=3) -> str:
    """Rounded number for prose and tables (reproducible across runs)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int,)):
        return str(x)
    return f"{float(x):.{digits}g}"


def _eq(lhs, rhs) -> str:
    return f"{lhs} = {tex(rhs)}"


def _model_section(doc: Document) -> None:
    doc.section("Model")
    doc.para(
        "Tokens $x_1,\\dots,x_L\\in\\mathbb{R}^d$: $R$ informative tokens $x_i=\\theta s_i\\xi+z_i$ and "
        "$N=L-R$ nuisance tokens $x_i=z_i$, with $z_i\\sim N(0,\\sigma^{2}I_d)$ i.i.d., $\\|\\xi\\|=1$ and "
        "signal signs $s_i=1$ (fixed prior) or $s_i=\\pm1$ with probability $1/2$ (Rademacher prior). "
        "A query $q\\in S^{d-1}$ scores $u_i=\\beta\\langle q,x_i\\rangle$, the weights are "
        "$a=\\mathrm{softmax}(u)$, the pooled output is $f_q(X)=\\sum_i a_i x_i$ and the objective is "
        "$J(q)=\\mathbb{E}\\|f_q(X)\\|^2$. The alignment is $\\rho=\\langle q,\\xi\\rangle$. Training is "
        "projected stochastic gradient ascent, $q_{k+1}=(q_k+\\eta_k P_{q_k}g_k)/\\|q_k+\\eta_k P_{q_k}g_k\\|$ "
        "with $P_q=I-qq^{\\top}$ and $g_k$ the gradient of $\\|f_{q_k}(X_k)\\|^2$ on a fresh token collection."
    )
    doc.para(
        "The limit is $R,N\\to\\infty$ with $R/L\\to\\alpha$ at fixed $d$. The proportional regime is "
        "$\\alpha\\in(0,1]$; the sparse regime is $\\alpha\\to0$, where the field vanishes like $\\alpha$ and "
        "time is rescaled by $1/\\alpha$."
    )


def _lemma_section(doc: Document) -> None:
    doc.section("Gaussian lemmas")
    d = derive("fixed")
    M, T = d.lemmas[0], d.lemmas[1]
    doc.para(
        "Write $z=yq+z_\\perp$ with $y=\\langle q,z\\rangle\\sim N(0,\\sigma^{2})$ and $z_\\perp$ centred and "
        "independent of $y$. The tilted mean and the tilted first moment are one-dimensional Gaussian "
        "integrals, evaluated by sympy:"
    )
    doc.eq(f"\\mathbb{{E}}\\,e^{{\\beta\\langle q,z\\rangle}} = {tex(M.integral)} = {tex(M.rhs)}")
    doc.eq(f"\\mathbb{{E}}\\,e^{{\\beta\\langle q,z\\rangle}}z = q\\,{tex(T.integral)} = {tex(T.rhs[1])}\\,q")
    doc.para("For informative tokens $\\langle q,x\\rangle=\\theta s\\rho+y$; averaging over the prior of $s$:")
    for prior in ("fixed", "rademacher"):
        mean, moment = derive(prior).lemmas[2:]
        doc.eq(f"\\text{{{prior}:}}\\quad \\mathbb{{E}}\\,e^{{\\beta\\langle q,x\\rangle}} = {tex(mean.rhs)},"
               f"\\qquad \\mathbb{{E}}\\,e^{{\\beta\\langle q,x\\rangle}}x = {tex(moment.rhs[0])}\\,\\xi + "
               f"{tex(moment.rhs[1])}\\,q")
    doc.para(
        "Each lemma is recomputed independently by `mpmath.quad` in the orthonormal pair $(\\xi,e_2)$ at 50 "
        "digits (check `derivation.quadrature`; the symbolic and quadrature values agree to better than "
        "$10^{-40}$ relative)."
    )


def _limit_section(doc: Document) -> None:
    doc.section("Limit of the pooled output and the objective")
    doc.para(
        "Numerator and denominator of $f_q(X)=\\sum_i e^{u_i}x_i/\\sum_i e^{u_i}$, divided by $L$, obey the law "
        "of large numbers, so $f_q(X)\\to N/D$ with $N=\\alpha\\,\\mathbb{E}_{\\rm inf}[e^u x]+(1-\\alpha)\\,"
        "\\mathbb{E}_{\\rm nuis}[e^u x]$ and $D$ likewise. The result is $f=c_\\xi\\,\\xi+c_q\\,q$ with "
        "$c_\\xi=\\theta\\,m(\\rho)$, where $m$ is the informative coefficient:"
    )
    for prior in ("fixed", "rademacher"):
        d = derive(prior)
        doc.eq(f"\\text{{{prior}:}}\\quad c_q = {tex(d.pooled[1])},\\qquad m(\\rho) = {tex(d.m)}")
    doc.para(
        "By rotational symmetry about $\\xi$ the limit objective depends on $q$ only through $\\rho$. With "
        "$\\langle\\xi,q\\rangle=\\rho$, $j(\\rho)=\\|f\\|^2$ is a polynomial in $(\\rho,m)$, and its total "
        "derivative, with $m'=dm/d\\rho$, is the slope:"
    )
    d = derive("fixed")
    doc.eq(_eq("j", d.objective_poly))
    doc.eq(_eq("j'", d.slope_poly))
    doc.para("The limit attention mass on nuisance tokens is")
    for prior in ("fixed", "rademacher"):
        doc.eq(f"\\text{{{prior}:}}\\quad " + _eq("\\nu(\\rho)", derive(prior).noise_mass))


def _field_section(doc: Document) -> None:
    doc.section("The alignment field, fixed points and stability")
    doc.para(
        "The Riemannian gradient of $j$ on the sphere has $\\xi$-component $(1-\\rho^2)j'(\\rho)$, so the "
        "limiting ODE is $\\dot\\rho=F(\\rho)$ with"
    )
    S = sp.Function("S")
    generic = sp.diff((1 - rho**2) * S(rho), rho)
    doc.eq("F(\\rho) = (1-\\rho^{2})\\,j'(\\rho),\\qquad F'(\\rho) = " + tex(generic).replace("S", "j'")
           .replace("\\frac{d}{d \\rho} j'{\\left(\\rho \\right)}", "j''(\\rho)").replace("j'{\\left(\\rho \\right)}", "j'(\\rho)"))
    d = derive("fixed")
    doc.para(
        f"Hence $F(\\pm1)=0$ for every model (sympy simplifies $F(1)$ and $F(-1)$ to {d.endpoints[0]} and "
        f"{d.endpoints[1]} for both priors; check `field.endpoints`), $F'(1)=-2j'(1)$ and $F'(-1)=2j'(-1)$. "
        "Along the ODE, $dj/dt=(1-\\rho^2)j'(\\rho)^2\\ge0$: $j$ is a Lyapunov function. In the sparse regime "
        "the rescaled field and its pole exponents are:"
    )
    for prior in ("fixed", "rademacher"):
        sl = derive(prior).sparse
        doc.eq(f"\\text{{{prior}:}}\\quad \\lim_{{\\alpha\\to0}}\\frac{{F}}{{\\alpha}} = {tex(sl.field)},\\qquad "
               f"F'_s(1) = {tex(sl.field_prime_plus)},\\quad F'_s(-1) = {tex(sl.field_prime_minus)}")
    doc.para("In the proportional regime, with the fixed prior, $F'(1)$ in closed form is")
    doc.eq(_eq("F'(1)", d.field_prime_plus))


def _monotone_section(doc: Document) -> None:
    doc.section("Monotonicity and the sparse threshold")
    ma = monotone_analysis("fixed")
    doc.para("Fixed prior. Sympy finds that the informative coefficient is logistic in $\\rho$,")
    doc.eq(_eq("m'", ma.m_prime_identity))
    doc.para("and factors the slope as $j'=P\\cdot h$ with a positive prefactor:")
    doc.eq(f"P = {tex(ma.positive_factor)},\\qquad h = {tex(ma.sign_factor)}")
    doc.items([
        "for $\\rho\\ge0$ every term of $h$ is positive, so $j'>0$;",
        "if $\\beta\\theta\\le1$ then $h\\ge\\sigma^2 m>0$ on $[-1,1]$: the field is monotone for every $\\alpha$;",
        "the pole exponent $F'(-1)=2j'(-1)$ has the sign of $h(-1)$, a quadratic in $m(-1)$;",
    ])
    doc.eq(_eq("h(-1)", ma.endpoint_quadratic))
    doc.para("whose root in $(0,1)$ (it exists iff $\\beta\\theta>1$) and the corresponding critical "
             "informative fraction are")
    doc.eq(_eq("m_c", ma.critical_m))
    doc.eq(_eq("\\alpha_c", ma.critical_alpha))
    doc.para(
        "For $\\beta\\theta>1$, $-\\xi$ attracts (the landscape is bistable, with an unstable interior "
        "equilibrium) iff $\\alpha<\\alpha_c$. Not proved symbolically: that $\\alpha>\\alpha_c$ excludes two "
        "interior roots. The interval-arithmetic check decides each model, and on the phase-diagram grid it "
        "agrees with $\\alpha_c$ everywhere (below)."
    )
    doc.para("Sparse regime: the sign of the rescaled slope is the sign of")
    doc.eq(f"{tex(ma.sparse_sign_factor)},\\qquad \\rho^* = {tex(ma.sparse_equilibrium)}")
    doc.para(
        "so the sparse field is monotone iff $\\beta\\theta\\le1$, and otherwise has one unstable interior "
        "equilibrium at $\\rho^*=-1/(\\beta\\theta)$; $\\sigma^2$ drops out of the threshold."
    )
    mr = monotone_analysis("rademacher")
    doc.para(
        "Rademacher prior: $m$ is odd (sympy: $m(-\\rho)+m(\\rho)$ simplifies to 0), so $j'$ is odd, $\\rho=0$ "
        "is always an equilibrium, and"
    )
    doc.eq(f"\\frac{{j'}}{{2\\theta\\rho}} = {tex(mr.sign_factor)}")
    doc.para("is positive because $m/\\rho>0$ and $m'>0$: $\\rho=0$ is unstable and both poles attract.")


def _phase_section(doc: Document, out: Path) -> None:
    from ..studies import phase_diagram
    from ..studies import plot_phase as plot

    doc.section("Phase diagram")
    pd = phase_diagram(n_theta=32, n_alpha=32, theta_max=4.0, alpha_min=1e-4)
    plot(pd, out / "phase.png")
    counts = pd.counts()
    cells = sum(counts.values())
    certified = "every cell is certified" if pd.all_certified else "the undecided cells are not certified"
    doc.para(
        f"Fixed prior, $\\beta=\\sigma^2=1$, on a ${len(pd.thetas)}\\times{len(pd.alphas)}$ grid of "
        f"$\\theta\\in(0,4]$ and log-spaced $\\alpha\\in[10^{{-4}},1]$, plus the sparse row $\\alpha=0$ "
        f"({cells} cells): interval arithmetic finds {counts['monotone']} monotone, {counts['bistable']} bistable "
        f"and {counts['undecided']} undecided cells ({certified}); the certified status disagrees with the "
        f"closed-form boundary $\\alpha_c(\\theta)$ at {pd.disagreements} points. The sparse row switches at "
        f"$\\beta\\theta=1$."
    )
    doc.figure("phase.png", "Certified landscape over (theta, alpha): monotone (blue) and bistable (orange); "
                            "black: closed-form alpha_c(theta); dashed: sparse threshold beta*theta = 1.")


def _reduced_section(doc: Document) -> None:
    doc.section("The exact reduced simulator")
    chi, chi2, na, sig, vhat, w2, hv = sp.symbols("chi chi' \\|a\\| sigma vhat \\|w\\|^2 h.v")
    a_hat, hvec = sp.symbols("\\hat{a} h")
    doc.para(
        "Because the noise is isotropic, the law of $\\rho_{k+1}$ given $q_k$ depends only on $\\rho_k$. In the "
        "basis $e_1=\\xi$, $e_2\\propto q-\\rho\\xi$ and $m=d-2$ further directions, scores, weights and the "
        "in-plane parts of $f$ and of the gradient use only the two in-plane coordinates of each token ($2L$ "
        "normals). The $m\\times L$ out-of-plane matrix $Z$ enters only through $t=\\sigma^2 Z^{\\top}Za$ and "
        "$\\|Zv\\|^2$ for $v=r-Sa$. Splitting $Z$ along $\\hat a=a/\\|a\\|$ and, inside $\\mathbb{R}^m$, along "
        "$\\gamma=Z\\hat a$ gives, with $\\chi=\\|\\gamma\\|^2\\sim\\chi^2_m$, $h=(I-\\hat a\\hat a^{\\top})n$, "
        "$n\\sim N(0,I_L)$ and an independent $\\chi'\\sim\\chi^2_{m-1}$:"
    )
    doc.eq("t = " + tex(sig**2 * na * (chi * a_hat + sp.sqrt(chi) * hvec)))
    doc.eq("\\|Zv\\|^2 = " + tex((sp.sqrt(chi) * vhat + hv) ** 2 + w2 * chi2)
           + ",\\qquad \\hat v = v\\cdot\\hat a,\\quad \\|w\\|^2 = \\|v\\|^2-\\hat v^2")
    doc.para(
        "So one step costs $3L+2$ random draws and $O(L)$ arithmetic for every $d\\ge3$, exactly in law (the "
        "derivation is in the docstring of `numerics/_reduced.py`; check `simulator.reduced_exact` compares it "
        "with the full $d$-dimensional simulator by two-sample Kolmogorov–Smirnov tests)."
    )


def _stepsize_section(doc: Document, schedule) -> None:
    doc.section("Step sizes")
    k = sp.Symbol("k", integer=True, nonnegative=True)
    eta0, k0, p = sp.symbols("eta_0 k_0 p", positive=True)
    term = eta0 / (k + k0) ** p
    doc.para("The schedule is $\\eta_k=\\eta_0/(k+k_0)^p$ with $k$ counting from 0. Robbins–Monro asks")
    doc.eq(tex(sp.Sum(term, (k, 0, sp.oo))) + " = \\infty,\\qquad " + tex(sp.Sum(term**2, (k, 0, sp.oo)))
           + " < \\infty")
    doc.para(
        "which holds iff $1/2<p\\le1$ (decided by sympy's series tests for the schedule in use). ODE time is "
        "$t_k=\\sum_{j<k}\\eta_j$."
    )
    if schedule is not None:
        rm = schedule.robbins_monro()
        doc.para(f"Schedule used by the suite's simulations: `{rm.reason}` — Robbins–Monro "
                 f"{'holds' if rm.holds else 'does not hold'}.")


def _effective_section(doc: Document, out: Path, result) -> None:
    from ...theory import derive_effective

    doc.section("Effective dynamics at practical step sizes")
    e = derive_effective("fixed")
    doc.para(
        "With $X=\\langle Pg,\\xi\\rangle$ and $Y=\\|Pg\\|^2$ one renormalised step is "
        "$\\rho'=(\\rho+\\eta X)/\\sqrt{1+\\eta^2Y}$; sympy expands it to second order in $\\eta$:"
    )
    doc.eq("\\rho' = " + tex(e.step_series) + " + O(\\eta^{3}),\\qquad "
           "\\frac{\\mathbb{E}[\\rho'-\\rho]}{\\eta} = " + tex(e.step_drift))
    doc.para(
        "So the iterates follow $F_\\eta=\\mathbb{E}X-\\tfrac{\\eta}{2}\\rho\\,\\mathbb{E}\\|Pg\\|^2$ "
        "on the time axis $t_k=\\sum_{j<k}\\eta_j$: the renormalisation drags them towards the equator. "
        "$\\mathbb{E}X$ is the gradient of the finite-$L$ objective, $F+O(1/L)$. The second moment is the squared "
        "mean plus the trace of the covariance, which the delta method on the ratio of token sums gives through "
        "the influence function of one token; its out-of-plane ($d-2$ directions) and in-plane parts need "
        "second-order Gaussian tilting, again by sympy:"
    )
    for lem in e.lemmas[:3]:
        doc.eq(f"\\mathbb{{E}}\\,y^{{{lem.name.split('[')[1].rstrip(']')}}}e^{{c y}} = {tex(lem.rhs)}")
    V_o, V_p, F_, Lb, d_ = sp.symbols("V_o V_p F L_B d")
    doc.eq("\\mathbb{E}\\|Pg\\|^2 = " + tex(F_**2 / (1 - rho**2) + ((d_ - 2) * V_o + V_p) / Lb)
           + " + O(L^{-2}),\\qquad L_B = LB")
    doc.para(
        "At $d/L\\approx0.01$ the leading order is about 6% low because each token also enters the "
        "out-of-plane part of $f$; the toolkit adds that self-interaction to second order in $(d-2)/L$. The "
        "correction matters when $\\eta(d-2)V_o/(2L)$ is comparable with $F/\\rho$; with a constant step the "
        "iterates settle at the stable zero of $F_\\eta$, below 1, because $F$ vanishes at the pole and the drag "
        "does not."
    )
    recs = [r for r in result.records if r.id == "sga.effective_drift"]
    if recs:
        r = recs[0]
        rows = []
        for c in r.details["cases"]:
            pl = c.get("plateau")
            rows.append([c["case"], str(c["steps"]), _g(c["sup_error_plain"]), _g(c["sup_error_corrected"]),
                         "—" if not pl else f"{_g(pl['measured'], 4)} ± {_g(pl['standard_error'], 2)} / "
                         f"{_g(pl['predicted'], 4)}"])
        doc.table(["case", "steps", "sup error, plain ODE", "sup error, corrected ODE",
                   "plateau measured / predicted"], rows,
                  caption="Check sga.effective_drift: 30 runs per case, quick preset.", widths=(5.0, 1.0, 2.0, 2.2, 3.4))
        src = Path(r.details.get("figures", [""])[0]) if r.details.get("figures") else None
        if src is not None and src.exists():
            shutil.copy(src, out / "effective_drift.png")
            doc.figure("effective_drift.png", "Mean alignment of the recursion (band: 10-90% of runs) against the "
                                              "plain limit ODE and the finite-step corrected ODE.")


def _verification_section(doc: Document, result) -> None:
    doc.section("Verification")
    doc.para(
        f"A `sigrec verify --preset quick` run (seed {result.config.seed}). Consistency checks compare theory "
        "with numerics and must pass; conditions are hypotheses or claims of the theorem and may fail "
        "(a finding, not an error). *Certified* means proved by exact symbolic computation or interval "
        "arithmetic; anything else is numerical evidence."
    )
    rows = []
    for r in result.records:
        rows.append([f"`{r.id}`", r.details.get("case", ""), r.kind, r.status, _g(r.value), _g(r.threshold),
                     "certified" if r.certified else "numerical"])
    doc.table(["check", "case", "kind", "status", "value", "threshold", "evidence"], rows,
              caption="Verification records (values rounded to three significant digits).")


def _claims_section(doc: Document, claims) -> None:
    """The claims ledger: verdicts decided in :mod:`verify.suite` (``Claim`` objects), rendered."""
    doc.section("The paper's claims")
    rows = [[f"{c.number}. {c.statement}", f"{c.status}: {c.verdict}", c.regime, c.evidence] for c in claims]
    doc.table(["claim", "verdict", "regime", "evidence"], rows,
              caption="The paper's claims with the toolkit's verdict.", widths=(3.0, 3.2, 3.6, 2.8))


def _reproduce_section(doc: Document, out: Path, results) -> None:
    """The flagship reproduction (its claim verdict is decided in :mod:`verify.suite`)."""
    from ..studies import PAPER_MEAN_FINAL_ALIGNMENT, PROTOCOL
    from ..studies import plot_reproduction as plot

    doc.section("Reproduction of the flagship experiment")
    p = PROTOCOL
    doc.para(
        f"The paper does not report its dimension, schedule or iteration count. Fixed here: $d={p.d}$, "
        f"{p.steps} steps, {p.runs} runs, $\\eta_k={p.eta0:g}/(k+{p.k0:g})^{{{p.power:g}}}$, the exact reduced "
        f"simulator, seed {p.seed}. The renormalisation onto the sphere drags the iterates below the ODE by "
        "an amount that grows with $\\eta d/L$, which is why $d$ is small and the schedule decays like $1/k$."
    )
    rows = []
    for r in results:
        corr = "—" if r.ode_corrected_prediction is None else _g(r.ode_corrected_prediction, 4)
        rows.append([_g(r.theta), f"{r.R}/{r.L - r.R:,}", r.landscape,
                     f"{_g(r.mean_final_alignment, 4)} ± {_g(r.sd_final_alignment, 2)}", _g(r.min_final_alignment, 4),
                     f"{r.runs_positive}/{r.runs_negative}", _g(r.ode_prediction, 4), corr,
                     f"{_g(r.nuisance_mass_final)} / {_g(r.nuisance_mass_predicted)}"])
    rows.append(["paper", "500/10,000", "—", str(PAPER_MEAN_FINAL_ALIGNMENT), "", "", "", "", "vanishes (claimed)"])
    doc.table(["theta", "R/N", "landscape", "mean abs(rho_K) ± sd", "min", "runs +/-", "plain ODE",
               "corrected ODE", "nuisance mass (measured / limit)"], rows,
              caption="Flagship configuration, 30 runs (values rounded).",
              widths=(0.9, 1.5, 1.4, 1.9, 1.0, 0.9, 1.1, 1.3, 2.0))
    figs = plot(results, out)
    doc.figure(Path(figs[0]).name, "Alignment against iteration: mean and 10-90% band over 30 runs; plain ODE "
                                   "(dashed) and finite-step corrected ODE (dotted) on the same time axis.")


def build(out: Path, result=None, schedule=None, extra_sections=(), reproduction=None) -> Document:
    """Assemble the appendix (figures are written into ``out``)."""
    doc = Document("Signal recovery by softmax attention: derivation appendix (generated by sigrec)")
    _model_section(doc)
    _lemma_section(doc)
    _limit_section(doc)
    _field_section(doc)
    _monotone_section(doc)
    _phase_section(doc, out)
    _reduced_section(doc)
    _stepsize_section(doc, schedule)
    for fn in extra_sections:
        fn(doc, out)
    if result is not None:
        _effective_section(doc, out, result)
    if reproduction is not None:
        _reproduce_section(doc, out, reproduction)
    if result is not None:
        from ..suite import claims

        _verification_section(doc, result)
        _claims_section(doc, claims(result.records, reproduction))
    return doc


def write_notes(out: Path, result=None, schedule=None, extra_sections=(), reproduction=None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    doc = build(out, result, schedule, extra_sections, reproduction)
    (out / "appendix.tex").write_text(doc.latex())
    (out / "appendix.md").write_text(doc.markdown())
    return [out / f for f in TEXT_FILES]


def compare(committed: Path, fresh: Path) -> list[str]:
    """Unified diffs of the text files that differ (empty when in sync)."""
    diffs = []
    for name in TEXT_FILES:
        a = (committed / name).read_text().splitlines() if (committed / name).exists() else []
        b = (fresh / name).read_text().splitlines()
        if a != b:
            diffs.append("\n".join(difflib.unified_diff(a, b, f"{committed / name}", f"regenerated/{name}",
                                                        lineterm="", n=1)))
    return diffs
