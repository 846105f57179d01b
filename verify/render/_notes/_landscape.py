"""Appendix section: claim 2, the landscape, with the figure of its region certificate."""

from __future__ import annotations

from pathlib import Path

from ....theory import display, tex
from .._region_figure import draw_region
from ._format import NAMES, _case_math, _g, _status


def monotone_section(doc, data, out: Path, claim=None, counts=None) -> None:
    doc.section("Claim 2: the landscape")
    der = data.derivations
    ma, forms = der.landscape, der.forms
    doc.statement("proposition", "monotone landscape, as claimed",
                  "For every $\\theta>0$ and $\\alpha\\in(0,1]$ the alignment field is strictly positive on "
                  "$(-1,1)$: $F$ has no interior zero (no spurious trap) and $+\\xi$ is the only attractor.")
    doc.para("The derivation below shows what is true instead (the lemma on the sign of the slope).")
    doc.statement("lemma", "sign of the slope",
                  "Fixed prior. $j'=2bm\\,h$ with $h$ below. (i) $h>0$ for $\\rho\\ge0$. (ii) If $b\\le1$, "
                  "then $F>0$ on $(-1,1)$ for every $\\alpha$. (iii) If $b>1$, then $-\\xi$ attracts "
                  "(the landscape is bistable) if and only if $\\alpha<\\alpha_c$, with $\\alpha_c$ and $m_c$ below. "
                  "(iv) In the sparse regime $F$ is monotone iff $b\\le1$; otherwise it has one unstable interior "
                  "zero at $\\rho^*=-1/b$. (v) Rademacher prior: $\\rho=0$ is always an unstable equilibrium and both "
                  "poles attract.")
    doc.derivation()
    doc.para("sympy finds that $m$ is logistic in $\\rho$ and factors the slope through a positive prefactor:")
    doc.eq(f"m' = {tex(ma.m_prime_identity, NAMES)},\\qquad j' = {tex(ma.positive_factor, NAMES)}\\,h,")
    doc.eq(f"h = {tex(forms['h'], NAMES)}.")
    doc.para(
        "For $\\rho\\ge0$ every term of $h$ is positive (i). If $b\\le1$, then $1+b\\rho(1-m)\\ge1-b(1-m)\\ge m$ "
        "on $[-1,1]$, so $h\\ge\\sigma^{2}m>0$ (ii). At the pole $\\rho=-1$, $F'(-1)=2j'(-1)$ has the sign of "
        "$h(-1)$, a quadratic in $m=m(-1)$:"
    )
    doc.eq(f"h(-1) = {tex(forms['h_minus1'], NAMES)}.")
    doc.para("Its root in $(0,1)$, which exists iff $b>1$, is")
    mc_tex = tex(forms["m_c"], {forms["Delta"]: r"\Delta"})
    doc.eq(f"m_c = {mc_tex},\\qquad "
           f"\\Delta = {tex(forms['discriminant'])}.")
    ac, mcs = forms["alpha_c"], forms["m_c_symbol"]
    doc.para("and $m(-1)=m_c$ gives the critical informative fraction (sympy's solution for $\\alpha$, equal to the "
             "derived closed form):")
    doc.eq(f"\\alpha_c = {tex(ac, {**NAMES, mcs: 'm_c'})}.")
    doc.para(
        "So for $b>1$, $-\\xi$ attracts iff $\\alpha<\\alpha_c$ (iii). Not proved symbolically: that "
        f"$\\alpha>\\alpha_c$ excludes two interior roots; interval arithmetic {_agreement(data)}. In the "
        "sparse regime the rescaled field is"
    )
    doc.eq(f"\\lim_{{\\alpha\\to0}}\\frac{{F}}{{\\alpha}} = {tex(forms['sparse_field'], NAMES)},")
    doc.para(f"whose sign inside $(-1,1)$ is that of ${tex(ma.sparse_sign_factor, NAMES)}$, with the single zero "
             f"$\\rho^*={tex(ma.sparse_equilibrium, NAMES)}$ when $b>1$ (iv); $\\sigma^{{2}}$ drops out of the "
             "threshold. Under the Rademacher prior $m$ is odd (sympy: $m(-\\rho)+m(\\rho)$ simplifies to 0), so "
             "$j'$ is odd and vanishes at $\\rho=0$, and")
    doc.eq(display("\\frac{j'}{2\\theta\\rho}", forms["rademacher_sign_factor"], NAMES).latex)
    doc.para("is positive because $m/\\rho>0$ and $m'>0$ (v).")
    doc.end_derivation()
    _landscape_figure(doc, data.landscape, out)
    if claim is not None:
        bad = []
        for c in claim.counterexamples:
            eqs = "; ".join(
                ("$\\rho^*=0$ exactly" if e["exact"] and e["lo"] == 0 else
                 f"$\\rho^*\\in[{e['lo']:.6f},\\,{e['hi']:.6f}]$") + f" ({e['stability']})" for e in c["equilibria"])
            bad.append(f"{_case_math(c['model'], (counts or {}).get(c['case']))}: {eqs}")
        text = ("It holds when $b\\le1$ (proved above) and on the certified cases with $b>1$, "
                "$\\alpha\\ge\\alpha_c$. It fails, with a certified interior equilibrium (so $-\\xi$ attracts too), "
                "for " + "; ".join(bad) + "." if bad else "It holds on every case checked.")
        _status(doc, claim, text)


def _agreement(data) -> str:
    """How the certified boxes compare with ``alpha_c``: the fixed prior's region proposition."""
    fixed = [r for r in data.regions if r.prior == "fixed"]
    if not fixed:
        return "decides each model in the suite (the certified sign of $j'$)"
    f = fixed[0]
    verdict = ("agrees with $\\alpha_c$ on every certified box" if f.agrees
               else f"contradicts $\\alpha_c$ on {len(f.contradictions)} certified boxes")
    return f"decides each model (the certified sign of $j'$) and, over the region of the figure below, {verdict}"


def _landscape_figure(doc, land, out: Path) -> None:
    """The landscape figure and its paragraph: the boxes of the fixed prior's region certificate
    as proved (``verify.studies.Landscape``), not statuses sampled at points."""
    if land is None:
        return
    cert = land.certificate
    drawn = draw_region(cert, out / "phase.png", lines=land.lines,
                        title="fixed prior, $\\beta=1$, $\\sigma^2=1$: each box proved for every parameter in it")
    n, fr = drawn["patches"], cert.fractions
    (t0, t1), (a0, a1) = cert.region["ranges"]["theta"], cert.region["ranges"]["alpha"]
    fixed = cert.region["fixed"]
    doc.para(
        f"The landscape over $(\\theta,\\alpha)$ (fixed prior, $\\beta={_g(fixed['beta'])}$, "
        f"$\\sigma^{{2}}={_g(fixed['sigma2'])}$) is drawn from the region certificate of the proposition on "
        f"parameter regions below: ${_g(t0)}<\\theta\\le{_g(t1)}$ and ${_g(a0)}\\le\\alpha\\le{_g(a1)}$ are "
        f"split into {len(cert.boxes):,} leaf boxes, and on each box interval arithmetic proves the status for "
        f"every parameter in it: {n['monotone']:,} boxes monotone ({100 * fr['monotone']:.2f}% of the area in "
        f"$(\\theta,\\log_{{10}}\\alpha)$), {n['bistable']:,} bistable ({100 * fr['bistable']:.2f}%); "
        f"{n['undecided']:,} small boxes along the boundary ({100 * fr['undecided']:.2f}%) are undecided, not "
        f"proved either way ({'every proof audited' if cert.certified else 'not every proof passed its audit'}). "
        "The figure draws these boxes, not points: a colour is a statement about its whole box."
    )
    doc.figure("phase", "Certified landscape of the fixed prior over $(\\theta,\\alpha)$, $\\beta=\\sigma^{2}=1$: "
                        "boxes proved monotone (blue) or bistable (orange) for every parameter in them; undecided "
                        "boxes (red, outlined so that the thin band shows) are not proved. Solid: closed form "
                        "$\\alpha_c(\\theta)$; dashed: sparse threshold $\\beta\\theta=1$. "
                        "At $\\theta=0$ the field vanishes identically (the left edge).")
