"""Appendix section: the diffusion approximation (docs/design.md section 1.1).

Only prints: the equations are printed from the sympy objects of
:func:`sigrec.theory.derive_diffusion`; the quadrature table (``theory.variance_quadrature``,
40 digits) is computed by ``verify.studies.appendix_data``.
"""

from __future__ import annotations

import sympy as sp

from ....theory import tex
from ._format import _bound

#: LaTeX names of the parameters in the quadrature table
_SYMBOL = {"rho": "\\rho", "theta": "\\theta", "alpha": "\\alpha", "beta": "\\beta", "sigma2": "\\sigma^{2}"}


def diffusion_section(doc, data) -> None:
    """Add the section "Fluctuations: the diffusion approximation" to ``doc``."""
    der = data.derivations.diffusion
    V_p = sp.Symbol("V_p", positive=True)
    doc.section("Fluctuations: the diffusion approximation")
    doc.para(
        "The corrected ODE gives the mean of the iterates. From the same step expansion "
        "$\\rho'=\\rho+\\eta X-\\tfrac{\\eta^2}{2}\\rho Y+O(\\eta^3)$ the conditional variance of one "
        "increment is $\\eta^2\\operatorname{Var}(X\\mid\\rho)+O(\\eta^3)$. Since "
        "$X=\\langle Pg,\\xi\\rangle=\\sqrt{1-\\rho^2}\\,\\langle g,e_\\perp\\rangle$, the delta method gives, to "
        "leading order in $1/L$ (mini-batch $B$),"
    )
    doc.eq("\\operatorname{Var}(\\rho'-\\rho\\mid\\rho) = "
           + tex(der.increment_variance.subs(der.in_plane_variance, V_p)) + ",\\qquad "
           "V_p=\\sum_{\\text{kinds}}w_{\\text{kind}}\\operatorname{Var}_{\\text{kind}}\\langle\\psi,e_\\perp\\rangle")
    doc.para(
        "where $\\psi$ is the influence function of one token and $V_p$ its in-plane variance, obtained by the same "
        "second-order Gaussian tilting as $\\mathbb{E}\\|Pg\\|^2$ (sympy). The out-of-plane noise enters $X$ only "
        "at relative order $d/L$. Independent check: tensor Gauss-Hermite quadrature of the influence function "
        "at 40 digits, without the one-dimensional lemmas:"
    )
    rows = []
    for q in data.diffusion:
        pts = ", ".join(f"{_SYMBOL[k]}={v}" for k, v in q.point.items())
        rows.append([q.prior, f"${pts}$", f"{q.symbolic:.12g}", f"{q.quadrature:.12g}", f"${_bound(q.bound)}$"])
    doc.table(["prior", "point", "$(1-\\rho^{2})V_p$, sympy", "quadrature", "rel. diff."], rows,
              widths=(1.7, 2.7, 2.1, 2.1, 1.2),
              caption="$LB\\operatorname{Var}(X\\mid\\rho)$: sympy against 40-digit quadrature (numerical evidence). "
                      "The rule is exact, so the relative difference measures the working precision only; it is "
                      "shown as the bound it is checked to be below.")
    doc.para(
        "On the ODE time axis the chain is then approximated by the diffusion "
        "$d\\rho=F_\\eta(\\rho)\\,dt+\\sqrt{\\eta(t)\\Sigma(\\rho)}\\,dW$ "
        "with $\\Sigma=\\operatorname{Var}(X\\mid\\rho)$. "
        "For a constant step the probability of reaching $b$ before $a$ from $\\rho_0$ is given by the scale "
        "function; sympy verifies that it solves $F u'+\\tfrac{\\eta\\Sigma}{2}u''=0$, $u(a)=0$, $u(b)=1$ "
        f"({'verified' if der.splitting_verified else 'NOT verified'}):"
    )
    doc.eq("s(r) = " + tex(der.scale_density) + ",\\qquad u(\\rho_0) = " + tex(der.splitting))
    doc.para(
        "Band, first-passage law and sample complexity come from the diffusion sampled on the step grid "
        "(one normal per run and step; `sigrec complexity`), checked against the exact reduced chain by "
        "the suite's comparisons of the 10-90% band, the first passage and the splitting probability."
    )
