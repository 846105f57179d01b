"""Appendix section: any signal prior (docs/design.md section 1.2).

Only prints: every equation comes from the sympy objects of
:func:`sigrec.theory.derive_general` (the derivation with the MGF ``M_s`` left
unspecified) and :func:`sigrec.theory.general_criteria`; the table is computed by
:func:`sigrec.theory.sparse_threshold_prior`, :func:`sigrec.theory.pole_alpha` and
:func:`sigrec.theory.certify` (deterministic).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import sympy as sp

from ...theory import (
    Model,
    canonical_prior,
    certify,
    derive_general,
    general_criteria,
    parse_prior,
    pole_alpha,
    pole_signs,
    sparse_threshold_prior,
    tex,
)
from ...theory import symbols

beta, rho, theta = symbols.beta, symbols.rho, symbols.theta

#: the priors of the table: the paper's, the symmetric one, and one member of each new family
PRIORS = ("fixed", "rademacher", "rademacher(p=0.7)", "bernoulli(p=0.3)", "gaussian(mu=1, tau=0.5)",
          "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])")
#: the signal strength at which the pole criterion is tabulated (beta = sigma2 = 1)
THETA = 2.0

_t = sp.Symbol("t", real=True)


def _mgf_tex(expr) -> str:
    """LaTeX of ``expr`` with ``M_s^{(n)}(beta theta rho)`` written ``M_s', M_s''`` at ``t``."""
    rep = {}
    for sub in expr.atoms(sp.Subs):
        n = sub.expr.derivative_count if isinstance(sub.expr, sp.Derivative) else 0
        rep[sub] = sp.Function("M_s" + "'" * n)(_t)
    for f in expr.atoms(sp.Function):
        if f.func.__name__ == "M_s":
            rep[f] = sp.Function("M_s")(_t)
    text = tex(expr.xreplace(rep).subs(beta * theta * rho, _t))
    return re.sub(r"M_\{s('*)\}(\^\{\d+\})?\{\\left\(t \\right\)\}", r"M_s\1(t)\2", text)


def _prior_tex(spec: str) -> str:
    law = parse_prior(spec)
    if law.family == "discrete":
        return "discrete: " + ", ".join(f"{v} w.p. {q}" for v, q in law.support)
    return spec


def priors_section(doc, out: Path) -> None:
    """Add the section "Any signal prior" to ``doc`` (``out`` is unused: no figure)."""
    g = derive_general()
    crit = general_criteria()
    w, mu1, v = (sp.Symbol(n, real=True) for n in ("w", "mu1", "v"))
    doc.section("Any signal prior")
    doc.para(
        "The informative tokens carry $\\theta s_i\\xi$ with $s_i$ drawn from a prior; only its moment "
        "generating function $M_s(t)=\\mathbb{E}e^{ts}$ enters the limit. Run with $M_s$ an unspecified "
        "function (sympy), the derivation of the limit gives, with $t=\\beta\\theta\\rho$,"
    )
    doc.eq("m = " + _mgf_tex(g.m) + ",\\qquad 1-\\text{nuisance mass} = w = "
           + _mgf_tex(sp.factor(sp.together(1 - g.noise_mass))))
    doc.para("and in the sparse regime ($1/\\alpha$-rescaled)")
    doc.eq("j_s' = " + _mgf_tex(g.sparse.slope)
           + " = 2\\beta\\sigma^{2}\\theta\\,\\frac{d}{dt}\\bigl(t M_s'(t)\\bigr)")
    doc.para(
        "Substituting a family's $M_s$ gives that family's derivation; sympy checks that it equals the "
        "derivation run with the family's law directly (a finite sum over its atoms), so the fixed "
        "($M_s=e^{t}$) and symmetric ($M_s=\\cosh t$) results are special cases. Numerically everything is "
        "written through the law of $s$ tilted by $e^{ts}$: its mean $\\mu_1=M_s'/M_s$ and variance "
        "$v=M_s''/M_s-\\mu_1^{2}\\ge 0$ (sympy proves these forms equal to the derived ones):"
    )
    K, A = sp.Symbol("K", positive=True), sp.Symbol("A", positive=True)
    K_of = (1 - w) * mu1**2 + v
    A_named = beta * theta**2 * w * K + beta * symbols.sigma2  # A in terms of K
    g_short = mu1 * A + beta * symbols.sigma2 * _t * K
    if sp.simplify(g_short.subs(A, A_named).subs(K, K_of).subs(_t, sp.Symbol("t", real=True))
                   - crit.sign_factor) != 0:
        raise AssertionError("the named form of g differs from general_criteria().sign_factor")
    doc.eq("m = " + tex(crit.m) + ",\\qquad m' = " + tex(crit.m_prime) + ",\\qquad "
           "j' = 2\\theta w\\, g")
    doc.eq("g = " + tex(g_short) + ",\\qquad K = " + tex(K_of) + ",\\qquad A = " + tex(A_named))
    q = sp.Poly(crit.pole_quadratic, w).all_coeffs()[::-1]
    doc.eq("g_s = " + tex(crit.sparse_sign_factor) + ",\\qquad Q(w) = g\\big|_{\\rho=-1} = q_0 + q_1 w + q_2 w^{2}")
    doc.eq("q_0 = " + tex(sp.factor(q[0])) + ",\\qquad q_2 = " + tex(sp.factor(q[2])))
    doc.eq("q_1 = " + tex(sp.factor(q[1])))
    doc.para("What follows for every prior (proved; $\\mu_1, v$ at $t=-\\beta\\theta$ in $Q$):")
    doc.items([
        "if $\\mathbb{E}s>0$: $\\mu_1$ increases ($\\mu_1'=v\\ge0$), so $\\mu_1(t)\\ge\\mathbb{E}s>0$ for "
        "$\\rho\\ge0$ and every term of $g$ is positive: no equilibrium with $\\rho\\ge 0$, $+\\xi$ attracts;",
        "if $\\mathbb{E}s=0$: $\\mu_1(t)=t\\,r(t)$ with $r=v(\\tau)>0$ for some $\\tau$ between 0 and $t$, so "
        "$j'$ has the sign of $\\rho$: $\\rho=0$ is the only interior equilibrium (unstable) and both poles "
        "attract; $\\rho=0$ is an equilibrium if and only if $\\mathbb{E}s=0$;",
        "sparse regime ($\\mathbb{E}s>0$): monotone if and only if $\\beta\\theta\\le c^*$, the first zero of "
        "$(tM_s')'$ left of $t=0$; for the fixed prior and every Bernoulli($p$), $g_s=\\mu_1(1+t)$ and $c^*=1$;",
        "$F'(-1)=2j'(-1)$ has the sign of $Q(w)$, $w$ the informative mass at $\\rho=-1$, which increases "
        "from 0 to 1 with $\\alpha$: $-\\xi$ attracts exactly where $Q<0$, and the sign changes of $Q$, mapped "
        "by $\\alpha=w/(w+M_s(-\\beta\\theta)(1-w))$, play the role of $\\alpha_c$ ($Q(0)=\\beta\\sigma^{2}"
        "g_s(-\\beta\\theta)$ is the sparse criterion).",
    ])
    doc.para(
        "Not proved: that a positive-mean prior has no pair of interior equilibria when $Q>0$. The ball-arithmetic "
        "certificate decides it model by model, for every family ($M_s$, $\\mu_1$, $v$ and the third central "
        "moment of the tilted law in python-flint balls); the table checks it on both sides of each sparse "
        f"threshold and gives the pole criterion at $\\theta={THETA:g}$, $\\beta=\\sigma^2=1$."
    )
    rows = []
    for spec in PRIORS:
        spec = canonical_prior(spec)
        law = parse_prior(spec)
        c = sparse_threshold_prior(spec)
        if 0 < c < math.inf:
            below = certify(Model(c * (1 - 1e-6), 0.0, 1.0, 1.0, spec)).status
            above = certify(Model(c * (1 + 1e-6), 0.0, 1.0, 1.0, spec)).status
            c_text, sides = f"{c:.5g}", f"{below} / {above}"
        else:
            c_text, sides = "0" if c == 0 else "none", "bistable / bistable" if c == 0 else "-"
        roots = pole_alpha(spec, THETA)
        if roots:
            pole = ", ".join(f"{a:.4g}" for a in roots)
        else:
            minus = pole_signs(Model(THETA, 0.5, 1.0, 1.0, spec))[1]
            pole = "none: " + ("$-\\xi$ attracts" if minus < 0 else "$-\\xi$ repels")
        rows.append([_prior_tex(spec), f"${tex(law.mgf(_t))}$", f"${sp.latex(sp.Rational(law.mean))}$", c_text,
                     sides, pole])
    doc.table(["prior", "$M_s(t)$", "$\\mathbb{E}s$", "$c^*$", "certified at $c^*(1\\mp10^{-6})$",
               f"$\\alpha$ where $F'(-1)=0$, $\\theta={THETA:g}$"], rows,
              widths=(2.8, 2.5, 0.7, 1.3, 2.0, 2.1),
              caption="Each family: the sparse threshold $c^*$ (root finding at 30 digits) and the certified "
                      "landscape just below and above it ($\\alpha=0$, $\\beta=1$); the pole criterion at "
                      f"$\\theta={THETA:g}$ (certified).")
