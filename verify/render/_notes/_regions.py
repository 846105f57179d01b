"""Appendix section: computer-assisted propositions on parameter regions.

Only prints: each row is a ``theory.RegionProposition`` (the region certificate of one
prior on the default region and its check against the closed-form criterion), computed
by ``verify.studies.appendix_data``.
"""

from __future__ import annotations

from ._format import _g


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def regions_section(doc, data) -> None:
    rows = data.regions
    if not rows:
        return
    first = rows[0].domain
    (t0, t1), (a0, a1) = first["theta"], first["alpha"]
    domain = (f"$D=\\{{(\\theta,\\alpha):{_g(t0)}<\\theta\\le{_g(t1)},\\ {_g(a0)}\\le\\alpha\\le{_g(a1)}\\}}$, "
              f"$\\beta={_g(first['beta'])}$, $\\sigma^{{2}}={_g(first['sigma2'])}$")
    doc.section("Propositions on parameter regions")
    doc.para(
        f"The landscape's shape is certified over whole boxes of parameters, not only at points. On {domain}, "
        "the box is split adaptively (in $\\theta$ linearly, in $\\alpha$ on a log scale); on each leaf every "
        "parameter enters the sign function of $j'$ as an interval ball covering the leaf, and the leaf is "
        "certified *monotone* ($j'>0$ on $[-1,1]$ for every parameter in it) or *bistable* (for every "
        "parameter, exactly one interior equilibrium, simple and unstable, and both poles stable; for a "
        "mean-zero prior the one equilibrium is $\\rho=0$), or left undecided once its sides are below "
        "$2^{-10}$ of the domain's. The undecided leaves form a thin band along the phase boundary, where "
        "no box can be decided."
    )
    fixed = [r for r in rows if r.prior == "fixed"]
    if fixed:
        f = fixed[0]
        doc.statement(
            "proposition", "the landscape on a compact region, fixed prior (computer-assisted)",
            f"Let $B\\subset D$ be the union of the undecided boxes, of area {_g(f.undecided_area, 2)} in "
            f"$(\\theta,\\log_{{10}}\\alpha)$ units out of {_g(f.area)} ({_pct(f.fractions['undecided'])}). "
            "For every $(\\theta,\\alpha)\\in D\\setminus B$ the field is monotone if $\\alpha\\ge\\alpha_c(\\theta)$ "
            "or $\\beta\\theta\\le1$, and otherwise has exactly one interior equilibrium, which is unstable, "
            "with both poles stable.")
        doc.para(
            "*Proof (computer-assisted).* Each certified box carries its proof in ball arithmetic "
            f"({f.boxes:,} leaves, {'every' if f.certified else 'not every'} proof audited). Each certified "
            "status was compared with the closed-form criterion evaluated (in floating point) at the box's "
            "$\\theta$ ends "
            f"({'no box disagrees' if f.agrees else f'{len(f.contradictions)} boxes disagree'}). This closes, "
            "on $D\\setminus B$, the case the lemma on the sign of the slope leaves to interval arithmetic: "
            "$\\alpha>\\alpha_c$ admits no pair of interior zeros. What is *not* proved: anything in $B$, or "
            "outside $D$.")
    doc.para(
        "The same certificate for the other priors of the previous section (their criterion: the pole "
        "criterion, with $c^*$ in the sparse regime; for a mean-zero prior, bistable everywhere with the "
        "equilibrium at $0$), and a discrete law with four atoms. For a law of three or more atoms the tilted "
        "law over a wide ball of $t=\\beta\\theta\\rho$ is enclosed piece by piece on a dyadic grid of $t$ "
        "(the tilted mean by its monotonicity, $\\log M$ by convexity, the variance and the third cumulant by "
        "the signs of their derivatives or a centred Taylor form), where the point formulas evaluated on the "
        "whole ball over-widen."
    )
    table = []
    for r in rows:
        table.append([r.prior, _pct(r.fractions["monotone"]), _pct(r.fractions["bistable"]),
                      _pct(r.fractions["undecided"]), _g(r.undecided_area, 2), f"{r.boxes:,}",
                      "yes" if r.agrees else f"no ({len(r.contradictions)})"])
    doc.table(["prior", "monotone", "bistable", "undecided", "band area", "leaves", "agrees with criterion"], table,
              caption=f"Region certificates on $D$ (area {_g(rows[0].area)} in $(\\theta,\\log_{{10}}\\alpha)$ "
                      "units): certified fractions of the area, the undecided band's area, the number of leaf boxes, "
                      "and whether every certified box has the status the closed-form criterion gives.",
              widths=(2.85, 1.45, 1.45, 1.6, 1.2, 1.1, 1.35))
