"""Appendix section: any signal prior (docs/design.md section 1.2).

Only prints: every equation comes from the sympy objects of
:func:`sigrec.theory.derive_general` (the derivation with the MGF ``M_s`` left
unspecified) and :func:`sigrec.theory.general_criteria`, and the table's thresholds,
certificates and pole alphas are computed, by ``verify.studies.appendix_data``.
"""

from __future__ import annotations

import math
import re

import sympy as sp

from ....theory import symbols, tex

beta, rho, theta = symbols.beta, symbols.rho, symbols.theta

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


def _prior_tex(row) -> str:
    if row.family == "discrete":
        return "discrete: " + ", ".join(f"{v} w.p. {q}" for v, q in row.support)
    return row.spec


def priors_section(doc, data) -> None:
    """Add the section "Any signal prior" to ``doc``."""
    der = data.derivations
    g, crit, forms = der.general, der.criteria, der.forms
    THETA = data.priors_theta
    doc.section("Any signal prior")
    doc.para(
        "The informative tokens carry $\\theta s_i\\xi$ with $s_i$ drawn from a prior; only its moment "
        "generating function $M_s(t)=\\mathbb{E}e^{ts}$ enters the limit. Run with $M_s$ an unspecified "
        "function (sympy), the derivation of the limit gives, with $t=\\beta\\theta\\rho$,"
    )
    doc.eq("m = " + _mgf_tex(g.m) + ",\\qquad 1-\\text{nuisance mass} = w = "
           + _mgf_tex(forms["w_general"]))
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
    g_short, K_of, A_named = forms["g"], forms["K"], forms["A"]
    doc.eq("m = " + tex(crit.m) + ",\\qquad m' = " + tex(crit.m_prime) + ",\\qquad "
           "j' = 2\\theta w\\, g")
    doc.eq("g = " + tex(g_short) + ",\\qquad K = " + tex(K_of) + ",\\qquad A = " + tex(A_named))
    q = forms["pole_coefficients"]
    doc.eq("g_s = " + tex(crit.sparse_sign_factor) + ",\\qquad Q(w) = g\\big|_{\\rho=-1} = q_0 + q_1 w + q_2 w^{2}")
    doc.eq("q_0 = " + tex(q[0]) + ",\\qquad q_2 = " + tex(q[2]))
    doc.eq("q_1 = " + tex(q[1]))
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
    for row in data.priors:
        c = row.threshold
        if 0 < c < math.inf:
            c_text, sides = f"{c:.5g}", f"{row.below} / {row.above}"
        else:
            c_text, sides = "0" if c == 0 else "none", "bistable / bistable" if c == 0 else "-"
        if row.pole_roots:
            pole = ", ".join(f"{a:.4g}" for a in row.pole_roots)
        else:
            pole = "none: " + ("$-\\xi$ attracts" if row.minus < 0 else "$-\\xi$ repels")
        rows.append([_prior_tex(row), f"${tex(row.mgf)}$", f"${sp.latex(row.mean)}$", c_text, sides, pole])
    doc.table(["prior", "$M_s(t)$", "$\\mathbb{E}s$", "$c^*$", "certified at $c^*(1\\mp10^{-6})$",
               f"$\\alpha$ where $F'(-1)=0$, $\\theta={THETA:g}$"], rows,
              widths=(2.8, 2.5, 0.7, 1.3, 2.0, 2.1),
              caption="Each family: the sparse threshold $c^*$ (root finding at 30 digits) and the certified "
                      "landscape just below and above it ($\\alpha=0$, $\\beta=1$); the pole criterion at "
                      f"$\\theta={THETA:g}$ (certified).")
