"""Appendix sections: the setting, Gaussian tilting and the limit dynamics (claim 1)."""

from __future__ import annotations

from ....theory import display, tex
from ._format import NAMES, _bound, _status, _two


def model_section(doc) -> None:
    doc.section("Setting")
    doc.para(
        "Tokens $x_1,\\dots,x_L\\in\\mathbb{R}^d$: $R$ informative tokens $x_i=\\theta s_i\\xi+z_i$ and "
        "$N=L-R$ nuisance tokens $x_i=z_i$, with $z_i\\sim N(0,\\sigma^{2}I_d)$ i.i.d., $\\|\\xi\\|=1$ and "
        "signal signs $s_i=1$ (fixed prior) or $s_i=\\pm1$ with probability $1/2$ (Rademacher prior). "
        "A query $q\\in S^{d-1}$ scores $u_i=\\beta\\langle q,x_i\\rangle$, the weights are "
        "$a=\\mathrm{softmax}(u)$, the pooled output is $f_q(X)=\\sum_i a_i x_i$ and the objective is "
        "$J(q)=\\mathbb{E}\\|f_q(X)\\|^{2}$. The alignment is $\\rho=\\langle q,\\xi\\rangle$. Training is "
        "projected stochastic gradient ascent on fresh token collections $X_k$,"
    )
    doc.eq("q_{k+1}=\\frac{q_k+\\eta_k P_{q_k}g_k}{\\|q_k+\\eta_k P_{q_k}g_k\\|},\\qquad "
           "P_q=I-qq^{\\top},\\qquad g_k=\\nabla_q\\|f_{q_k}(X_k)\\|^{2}.")
    doc.para(
        "The limit is $R,N\\to\\infty$ with $R/L\\to\\alpha$ at fixed $d$: the proportional regime "
        "$\\alpha\\in(0,1]$, and the sparse regime $\\alpha\\to0$, where the field vanishes like $\\alpha$ and "
        "time is rescaled by $1/\\alpha$. Throughout, $\\beta>0$, $\\sigma^{2}>0$, $\\theta\\ge0$, and "
        "$b=\\beta\\theta$. Every display below is printed from the sympy objects of the derivation (or from a "
        "form sympy proves equal to them); the statements are the paper's claims, each followed by its "
        "derivation and by the toolkit's verdict."
    )


def lemma_section(doc, data) -> None:
    doc.section("Gaussian tilting")
    der = data.derivations
    M, T = der.fixed.lemmas[0], der.fixed.lemmas[1]
    doc.statement("lemma", "Gaussian tilting",
                  "Let $z\\sim N(0,\\sigma^{2}I_d)$, $q\\in S^{d-1}$ and "
                  "$M=\\mathbb{E}\\,e^{\\beta\\langle q,z\\rangle}$. "
                  f"Then $M={tex(M.rhs)}$ and "
                  f"$\\mathbb{{E}}\\,e^{{\\beta\\langle q,z\\rangle}}z={tex(T.rhs[1] / M.rhs)}\\,Mq$. "
                  "For an informative token $x=\\theta s\\xi+z$, averaged over the prior of $s$, the tilted mean and "
                  "first moment are those of the table in the derivation.")
    doc.derivation()
    doc.para("Write $z=yq+z_\\perp$ with $y=\\langle q,z\\rangle\\sim N(0,\\sigma^{2})$ and $z_\\perp$ centred and "
             "independent of $y$. Both are one-dimensional Gaussian integrals, which sympy evaluates:")
    doc.eq(f"M = {tex(M.integral)} = {tex(M.rhs)},")
    doc.eq(f"\\mathbb{{E}}\\,e^{{\\beta y}}y = {tex(T.integral)} = {tex(T.rhs[1])}.")
    doc.para("For an informative token $\\langle q,x\\rangle=\\theta s\\rho+y$. With $b=\\beta\\theta$:")
    rows = [[prior] + ["$" + tex(f, NAMES) + "$" for f in forms] for prior, forms in der.forms["lemma_table"]]
    doc.table(["prior $s$", "$\\mathbb{E}\\,e^{\\beta\\langle q,x\\rangle}$",
               "$\\xi$-part of $\\mathbb{E}\\,e^{\\beta\\langle q,x\\rangle}x$",
               "$q$-part of $\\mathbb{E}\\,e^{\\beta\\langle q,x\\rangle}x$"], rows,
              caption="Tilted mean and first moment of an informative token ($b=\\beta\\theta$).", align="lccc")
    doc.para("Each lemma is recomputed independently by `mpmath` quadrature at 50 digits.")
    doc.end_derivation()


def limit_section(doc, data, claim=None) -> None:
    doc.section("Claim 1: the limit dynamics")
    der = data.derivations
    fixed = der.fixed
    doc.statement("proposition", "limit objective and ODE",
                  "Let $R,N\\to\\infty$ with $R/L\\to\\alpha\\in(0,1]$ at fixed $d$. Then $f_q(X)$ converges almost "
                  "surely to $\\beta\\sigma^{2}q+\\theta m(\\rho)\\xi$, the objective to a function $j(\\rho)$ of the "
                  "alignment alone, and the projected gradient flow on the sphere reduces to the one-dimensional ODE "
                  "$\\dot\\rho=F(\\rho)=(1-\\rho^{2})\\,j'(\\rho)$, with $F(\\pm1)=0$ and $j$ non-decreasing along it.")
    doc.derivation()
    doc.para(
        "Write $f_q(X)=\\sum_i e^{u_i}x_i/\\sum_i e^{u_i}$. Divided by $L$, its numerator and denominator "
        "obey the law of large numbers; by the lemma the limit is $f=c_q\\,q+\\theta m(\\rho)\\,\\xi$ with "
        f"$c_q={tex(fixed.pooled[1])}$ for both priors and the informative coefficient"
    )
    mf, mr = der.forms["m_fixed"], der.forms["m_rademacher"]
    doc.eq(_two(f"m(\\rho) = {tex(mf, NAMES)}", "fixed prior", f"m(\\rho) = {tex(mr, NAMES)}", "Rademacher prior"))
    doc.para(
        "By rotational symmetry about $\\xi$ the limit objective depends on $q$ only through $\\rho$; "
        "$j=\\|f\\|^{2}$ is a polynomial in $(\\rho,m)$ and its total derivative, with $m'=dm/d\\rho$, is"
    )
    doc.eq(display("j", der.forms["j"]).latex + ",")
    doc.eq(display("j'", der.forms["j_prime"]).latex + ".")
    fprime = tex(der.forms["F_prime_generic"]).replace("\\frac{d}{d \\rho} S{\\left(\\rho \\right)}", "j''(\\rho)") \
        .replace("S{\\left(\\rho \\right)}", "j'(\\rho)")
    doc.para("The Riemannian gradient of $j$ on the sphere has $\\xi$-component $(1-\\rho^{2})j'(\\rho)$, so")
    doc.eq(f"F(\\rho) = (1-\\rho^{{2}})\\,j'(\\rho),\\qquad F'(\\rho) = {fprime}.")
    doc.para(
        f"sympy simplifies $F(1)$ and $F(-1)$ to ${fixed.endpoints[0]}$ and ${fixed.endpoints[1]}$ for both priors "
        "and in the sparse limit, and along the ODE "
        "$dj/dt=j'(\\rho)F(\\rho)=(1-\\rho^{2})j'(\\rho)^{2}\\ge0$ (the suite integrates it)."
    )
    doc.end_derivation()
    if claim is not None:
        agree = "" if data.quadrature is None else \
            (f" The lemmas agree with quadrature to a relative difference ${_bound(data.quadrature)}$ "
             "(the check's tolerance).")
        _status(doc, claim, "Every step is a sympy object and $F(\\pm1)=0$ exactly." + agree)
