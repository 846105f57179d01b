"""Appendix section: the signal subspace (k-dimensional signal, one query and several heads).

Only prints the section's data (``verify.studies.appendix_data().subspace``): the display
forms checked by sympy against ``theory.derive``, the certified transition brackets
(``theory.certify_transition``), the certified weak-signal range, the region certificate of
``onehot(2)`` (``theory.certify`` of a ``ModelBox``) and the figures' arrays. Bracket ends are rounded
outwards, so a printed bracket still contains the certified one.
"""

from __future__ import annotations

import math
from collections import Counter
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from pathlib import Path

from ....theory import tex
from .._region_figure import draw_region_k2
from .._subspace_figure import plot_heads_angles, plot_subspace_flow
from ._format import NAMES, _bound, _g, _num

#: decimals of the printed transition brackets (the certified width is about 1e-10)
DIGITS = 13


def outward(lo: float, hi: float, digits: int = DIGITS) -> tuple[str, str]:
    """``[lo, hi]`` printed with ``digits`` decimals, ``lo`` rounded down and ``hi`` up (exactly,
    from the binary floats), so that the printed bracket contains the certified one."""
    q = Decimal(1).scaleb(-digits)
    return (str(Decimal(lo).quantize(q, rounding=ROUND_FLOOR)), str(Decimal(hi).quantize(q, rounding=ROUND_CEILING)))


def _pair(x: float, y: float) -> str:
    return f"({x:.3f},\\,{y:.3f})"


def subspace_section(doc, data, out: Path) -> None:
    """The model, the limit objective and its gradient, the projected flow, ``k = 1``, the mixture
    and its certified transition, the weak signal, the heads, and the two figures."""
    s = data.subspace
    if s is None:
        return
    f = s.forms
    names = dict(NAMES)
    doc.section("The signal subspace")
    doc.para(
        "Informative tokens may carry a $k$-dimensional signal. Let $U=[\\xi_1\\cdots\\xi_k]$ have orthonormal "
        "columns in $\\mathbb{R}^{d}$; an informative token is $x_i=\\theta Us_i+z_i$ with $s_i$ drawn from a law on "
        "$\\mathbb{R}^{k}$, a nuisance token is $x_i=z_i$, $z_i\\sim N(0,\\sigma^{2}I_d)$, and a fraction $\\alpha$ "
        "of the tokens is informative; scores, softmax and the objective $\\|f\\|^{2}$ are those of the model "
        "section, and $k=1$ is that model. The law studied here is `onehot(k)`: $s=e_j$ with probability $1/k$ "
        "each, the signal one of $k$ orthonormal directions. For $k=2$ its moment generating function is "
        f"$M_s(t)={tex(f['mgf'])}$."
    )
    doc.derivation("The limit objective")
    doc.para(
        "The Gaussian tilting of the limit section, applied coordinate by coordinate, gives with the overlaps "
        "$r=U^{\\top}q\\in\\mathbb{R}^{k}$ ($\\|r\\|\\le1$) and $t=br$, $b=\\beta\\theta$: "
        f"$f={tex(f['c_q'])}\\,q+\\theta\\,U m(r)$, where the coefficient of $q$ is free of $r$ (checked by sympy) and "
        "$m=\\alpha\\nabla M_s(t)/(\\alpha M_s(t)+1-\\alpha)$. For `onehot(2)` sympy finds"
    )
    doc.eq(f"m_1 = {tex(f['m'][0], names)},\\qquad m_2 = {tex(f['m'][1], names)},")
    doc.para("and the objective, a function of $r$ alone, and its gradient $g=\\nabla_r j$ are, through $m_1,m_2$,")
    doc.eq(f"j(r) = {tex(f['j'], names)},")
    doc.eq(f"g_1 = {tex(f['g1'], names)},")
    doc.para(
        "and $g_2$ with the indices exchanged. Each display is the derived object of sympy once $m$ is substituted "
        "(checked for $k=2$ and, with sums over three indices, for $k=3$); in general "
        "$j=\\beta^{2}\\sigma^{4}+\\theta^{2}\\|m\\|^{2}+2b\\sigma^{2}\\langle r,m\\rangle$."
    )
    doc.end_derivation()
    doc.para(
        "**The projected flow.** Gradient ascent of the query on the unit sphere closes in the overlaps: "
        "multiplying $\\dot q=(I-qq^{\\top})\\nabla_q j(U^{\\top}q)$ by $U^{\\top}$ gives"
    )
    doc.eq("\\dot r = g(r)-\\langle r,g\\rangle\\,r,\\qquad "
           "\\frac{d\\|r\\|^{2}}{dt} = 2\\langle r,g\\rangle\\left(1-\\|r\\|^{2}\\right),")
    doc.para(
        "so the unit sphere $\\|r\\|=1$ ($q$ inside the span) is invariant and, for $d>k$, the flow runs on the "
        "closed ball. An equilibrium on the sphere has a radial eigenvalue $-2\\langle r,g\\rangle$ (whether $q$ is "
        "pulled into the span) and $k-1$ tangent ones; inside the ball it needs $g=0$. **One dimension is the "
        "scalar theory.** For $k=1$ and the law `fixed` the objective $j(r_1)$ with $r_1=\\rho$ is the "
        "$j(\\rho)$ of the limit "
        "section (sympy: the difference is 0), and $\\dot r_1=(1-\\rho^{2})j'(\\rho)=F(\\rho)$."
    )
    _flow_figure(doc, s, out)  # early in the text, so that the figure and the table float apart
    _mixture(doc, s)
    _flow_text(doc, s)
    _transition(doc, s)
    _region(doc, s, out)
    _heads(doc, s, out)


def _mixture(doc, s) -> None:
    f = s.forms
    names = {**NAMES, f["w"]: "w", f["k"]: "k"}
    doc.para(
        "**The mixture.** $j$ is invariant under permutations of $r$, so the mixture "
        "$r^{*}=(1,\\dots,1)/\\sqrt{k}$, the query $(\\xi_1+\\dots+\\xi_k)/\\sqrt{k}$, is an equilibrium for every "
        "parameter. With the informative mass $w$ there, its radial eigenvalue is $-2\\lambda$ and its tangent "
        "eigenvalue $E$ (multiplicity $k-1$) is"
    )
    doc.eq(f"w = {tex(f['w_of'], names)},\\qquad \\lambda = {tex(f['lam'], names)},")
    doc.eq(f"E = {tex(f['tangent'], names)} - \\lambda,")
    doc.para(
        "which sympy finds equal to $H_{11}-H_{12}-\\lambda$ and $\\lambda=\\langle r^{*},g\\rangle$ from the Hessian "
        "$H$ of the derived $j$ ($k=2,3$). As $\\lambda>0$, the mixture is stable exactly while $E<0$. Its root "
        "$\\theta_c$ in $\\theta$ is certified by interval arithmetic (`certify_transition`): the sign of $E$ is "
        "certified on a range of $\\theta$ outside one bracket holding exactly one simple root, and $\\lambda>0$ on "
        "the whole range."
    )


def _transition(doc, s) -> None:
    tr = s.transitions
    doc.statement(
        "proposition", "the certified transition",
        "Law `onehot(k)`, $\\beta=\\sigma^{2}=1$. For each row of the table below the mixture "
        "$(\\xi_1+\\dots+\\xi_k)/\\sqrt{k}$ is a stable equilibrium of the one-query flow for every $\\theta$ in the "
        "column *stable on* (tangent and radial eigenvalues negative), and for $\\theta$ above the bracket of "
        "$\\theta_c$ (up to $2\\theta_c$) it has $k-1$ positive tangent eigenvalues: the query specialises. "
        f"In particular at the paper's $\\theta={_g(s.weak[0].bracket.theta_min)}$ the mixture, with overlap "
        "$1/\\sqrt{k}$ with every $\\xi_j$, is locally attracting: a query near it does not pick one $\\xi_j$."
    )
    rows = []
    for t, w in zip(tr, s.weak, strict=True):
        if not (t.certified and w.bracket.certified):
            rows.append([str(t.k), _g(t.alpha), "not certified", "—", "—"])
            continue
        lo, hi = outward(t.lo, t.hi)
        stable_end = outward(w.bracket.lo, w.bracket.hi, 6)[0]
        rows.append([f"${t.k}$", f"${_g(t.alpha)}$", f"$[{lo},\\,{hi}]$",
                     f"$[{_g(w.bracket.theta_min)},\\,{stable_end}]$", f"${_num(w.tangent, 3)}$"])
    doc.table(["$k$", "$\\alpha$", "$\\theta_c\\in$ (certified)", "stable on (certified)", "$E$ at $\\theta=0.25$"],
              rows, caption="The mixture/specialisation transition of `onehot(k)`, $\\beta=\\sigma^{2}=1$. Brackets "
              "rounded outwards; the tangent eigenvalue $E$ at $\\theta=0.25$ is the closed form in floating point.",
              align="cclcr")


def _flow_figure(doc, s, out: Path) -> None:
    plot_subspace_flow(s.flow, out / "subspace_flow.png")
    doc.figure("subspace_flow",
               "The one-query flow $\\dot r=g-\\langle r,g\\rangle r$ on the disk of overlaps, `onehot(2)`, "
               "$\\beta=\\sigma^{2}=1$, below ($\\theta=" + _g(s.flow[0].theta) + "$) and above ($\\theta="
               + _g(s.flow[-1].theta) + "$) the transition: streamlines (grey), ODE paths from six starts (blue), "
               "the certified equilibria filled when stable and open when unstable.")


def _flow_text(doc, s) -> None:
    parts = []
    for p in s.flow:
        stable = [e for e in p.equilibria if e[2]]
        unstable = [e for e in p.equilibria if not e[2]]
        where = "on the circle" if all(e[3] == "circle" for e in p.equilibria) else "on the disk"
        parts.append(
            f"at $\\theta={_g(p.theta)}$ {'exactly ' if p.complete else ''}{len(p.equilibria)} equilibria {where}, "
            + (", ".join(f"${_pair(e[0], e[1])}$ ({_kind(e)})" for e in stable) + " stable" if stable
               else "none stable")
            + ("; " + ", ".join(f"${_pair(e[0], e[1])}$ ({_kind(e)})" for e in unstable) + " unstable"
               if unstable else ""))
    complete = all(p.complete for p in s.flow)
    doc.para(
        "For $k=2$ the whole disk is certified (`certify_circle` isolates every zero of the tangential field on the "
        "circle, `certify_disk` every zero of $g$ inside). "
        + ("Every angle and box was decided: " if complete else "Some angles or boxes are undecided: ")
        + "; ".join(parts) + ". So on the two sides of $\\theta_c$ the stable states are the mixture alone, then "
        "two specialised states with the mixture between them, now unstable. Each kind is decided from the "
        "equilibrium's Krawczyk box: a mixture is fixed by the swap of $\\xi_1,\\xi_2$ (proved: the swapped "
        "enclosure lies in the box, where the equilibrium is the only one), a specialised state leans to one "
        "$\\xi_j$ positively more than to the other, a tilted one does neither."
    )


def _kind(e) -> str:
    """The certified kind of a flow panel's equilibrium, in words for the text."""
    return e[4].replace("mixture+", "mixture").replace("mixture-", "anti-mixture")


def _k2_row(status: str, equilibria) -> list:
    """The table cells of a status from the equilibria of one of its leaves (every leaf of a status has
    the same counts: ``theory.status_of``): on the circle and inside (stable ones in parentheses), and
    the status when it is a name (``mixture``, ``specialised``) rather than those counts."""
    if status == "undecided":
        return ["—", "—", "undecided (no claim)"]
    cells = []
    for kind in ("circle", "interior"):
        found = [e for e in equilibria if e.kind == kind]
        cells.append(f"{len(found)} ({sum(e.stable for e in found)})")
    return [*cells, "" if status[0].isdigit() else status]


def _region(doc, s, out: Path) -> None:
    """The region proposition of ``onehot(2)``: the structure of every equilibrium, per leaf."""
    cert = s.region
    (t0, t1), (a0, a1) = cert.region["ranges"]["theta"], cert.region["ranges"]["alpha"]
    fixed = cert.region["fixed"]
    area = (t1 - t0) * (math.log10(a1) - math.log10(a0))
    undecided = cert.fractions.get("undecided", 0.0)
    counts = Counter(b.status for b in cert.boxes)
    equilibria = {b.status: b.equilibria for b in cert.boxes}  # the same counts in every leaf of a status
    domain = (f"$D=\\{{(\\theta,\\alpha):{_g(t0)}<\\theta\\le{_g(t1)},\\ {_g(a0)}\\le\\alpha\\le{_g(a1)}\\}}$, "
              f"$\\beta={_g(fixed['beta'])}$, $\\sigma^{{2}}={_g(fixed['sigma2'])}$")
    draw_region_k2(cert, out / "subspace_region.png", title=f"{s.law}: the equilibria proved on each leaf")
    doc.statement(
        "proposition", "the landscape of `onehot(2)` on a compact region (computer-assisted)",
        f"On {domain}, let $B\\subset D$ be the union of the undecided leaves of the table below, of area "
        f"{_g(undecided * area, 2)} in $(\\theta,\\log_{{10}}\\alpha)$ units out of {_g(area)} "
        f"({100 * undecided:.2f}%). For every $(\\theta,\\alpha)\\in D\\setminus B$ the one-query flow has "
        "finitely many equilibria on the closed disk of overlaps, each hyperbolic, and their number on the "
        "circle, inside the disk, and how many are stable (every eigenvalue of the flow's Jacobian there "
        "negative) are those of one row of the table, the same for every parameter of the leaf that holds it.")
    cells = {x: _k2_row(x, equilibria[x]) for x in counts}
    order = sorted(counts, key=lambda x: (x == "undecided", cells[x][0]))
    rows = [[*cells[x], f"{100 * cert.fractions.get(x, 0.0):.2f}%", f"{counts[x]:,}"] for x in order]
    doc.table(["on the circle (stable)", "inside (stable)", "name", "area", "leaves"], rows,
              caption=f"The region certificate of `{s.law}` on $D$ (`sigrec phase --prior '{s.law}' --region`; "
              f"leaves down to $2^{{{round(math.log2(cert.region['min_width']))}}}$ of each side): the structure "
              "proved on each leaf, its share of the area in $(\\theta,\\log_{10}\\alpha)$ and the number of leaves.",
              align="cclrr")
    doc.para(
        "*Proof (computer-assisted).* On each leaf the parameters enter as interval balls covering it. The circle "
        "is tiled into arcs on which the tangential field $T$ has one certified sign and arcs holding exactly one "
        "simple zero of $T$ ($T'$ of one sign, $T$ of opposite signs at the ends, the radial eigenvalue of one "
        "sign). The brackets of $g_1$ and $g_2$ (displayed above, $m_i>0$) differ by "
        "$b(\\theta(m_1-m_2)+\\beta\\sigma^{2}(r_1-r_2))$, which has the sign of $r_1-r_2$ as $m_1-m_2$ does, so "
        "every zero of $g$ inside the disk lies on the diagonal $r_1=r_2$, which is tiled in the same way, with the "
        "inertia of the Hessian certified. The enclosures are second-order forms in the angle and the parameters, "
        "with the field written in the weights $n_i=u_i/(2\\Delta)=m_i/\\alpha$ and $1/\\Delta$ "
        "($u_i=e^{b r_i}$, $\\Delta=\\alpha(u_1+u_2)/2+1-\\alpha$), which are "
        "bounded (written in the exponentials $u_i$, the derivatives are large terms that cancel, and interval "
        "arithmetic loses the cancellation). $T$ is odd about $\\pi/4$ and $-3\\pi/4$, where all three phase "
        "boundaries pass: a leaf across one is proved once and split into sub-boxes by the certified signs of "
        "$T'$ and $\\langle r,g\\rangle$ at those two points alone. Every leaf's tiling is audited (contiguous, "
        f"cyclically consistent signs); {len(cert.boxes):,} leaves. The tests compare random points of certified "
        "leaves with an independent count of the field's zeros (40-digit roots of the derived gradient from a grid "
        "of starts), away from $\\beta=\\sigma^{2}=1$. The proofs are of $g/(\\theta\\alpha)$, smooth down to "
        "$\\theta=0$, with the same zeros and signs for $\\theta>0$; at $\\theta=0$ the objective is constant, so "
        "the claim of a leaf starting there is for $\\theta>0$. What is *not* proved: anything in $B$, which is the "
        "band along the three phase boundaries, or outside $D$.")
    doc.figure("subspace_region",
               f"The region certificate of `{s.law}` on $D$, $\\beta=\\sigma^{{2}}=1$: each leaf in the colour of "
               "the structure proved for every parameter in it; the undecided leaves, along the phase boundaries, "
               "outlined in red.")


def _heads(doc, s, out: Path) -> None:
    doc.para(
        "**Several heads.** $H$ orthonormal queries $Q=[q_1\\cdots q_H]$ with the objective "
        "$\\sum_h j(U^{\\top}q_h)$ and Riemannian gradient ascent on the Stiefel manifold (embedded metric): "
        "the flow closes in $M=U^{\\top}Q$ ($k\\times H$, columns $m_h$),"
    )
    doc.eq("\\dot M = \\Gamma - M\\,\\mathrm{sym}\\left(M^{\\top}\\Gamma\\right),\\qquad "
           "\\Gamma=[g(m_1)\\cdots g(m_H)],")
    doc.para(
        "with $\\mathrm{sym}(A)=(A+A^{\\top})/2$; the cosines of the principal angles between "
        "$\\operatorname{span}Q$ and $\\operatorname{span}U$ are the "
        "singular values of $M$. The findings below are **numerical evidence** (floating-point ODE and "
        "eigenvalues of the Jacobian, not interval certificates), `onehot(2)`, $\\beta=\\sigma^{2}=1$, "
        "from random orthonormal starting frames:"
    )
    plot_heads_angles(s.heads, out / "subspace_heads.png")
    doc.figure("subspace_heads",
               "Principal angles between $\\operatorname{span}Q$ and $\\operatorname{span}U$ along the heads' flow "
               "($H=k=2$, `onehot(2)`, $\\beta=\\sigma^{2}=1$) from random starting frames: recovery at "
               f"$\\theta={_g(s.heads[0].theta)}$, $\\alpha={_g(s.heads[0].alpha)}$; "
               f"at $\\theta={_g(s.heads[-1].theta)}$, "
               f"$\\alpha={_g(s.heads[-1].alpha)}$ the runs end " + " and ".join(dict.fromkeys(s.heads[-1].ends)) + ".")
    items = []
    for p in s.heads:
        kinds = list(dict.fromkeys(p.ends))
        parts = []
        for e in kinds:
            runs = [i for i, x in enumerate(p.ends) if x == e]
            tops = dict.fromkeys(_num(p.top_eigenvalue[i], 3) for i in runs)
            state = ("stable" if all(p.stable[i] for i in runs) else "not stable") + \
                ", largest real part of an eigenvalue " + ", ".join(f"${x}$" for x in tops)
            parts.append(f"{len(runs)} of {len(p.ends)} runs end {e} (objective ${_g(p.objectives[runs[0]], 4)}$; "
                         f"{state})")
        items.append(f"$H=k=2$, $\\theta={_g(p.theta)}$, $\\alpha={_g(p.alpha)}$: " + "; ".join(parts) + ".")
    items.append(
        "*Recovered*: both principal angles tend to 0, $\\operatorname{span}Q=\\operatorname{span}U$. "
        "*Shared direction*: the angles end at $(0,\\pi/2)$, both heads keep the same overlap with the span and "
        "$\\operatorname{span}Q$ misses one direction of the signal. Where both occur, the shared state is a "
        "stable equilibrium with a lower objective: at strong signal, recovery by two heads is not universal.")
    e = s.extra
    same_end = all(max(abs(a - b) for a, b in zip(n, e.norms[0], strict=True)) < 1e-6 for n in e.norms)
    norms = ", ".join(_g(x) for x in e.norms[0])
    items.append(
        f"$H=3>k=2$, $\\theta={_g(e.theta)}$, $\\alpha={_g(e.alpha)}$, {len(e.seeds)} runs: every run ends with "
        f"$\\operatorname{{span}}U$ inside $\\operatorname{{span}}Q$ ($\\max|MM^{{\\top}}-I|{_bound(e.span_bound)}$), "
        f"the heads' overlap norms $\\|m_h\\|$ ending at {norms}"
        + (" in every run" if same_end else " in the first run")
        + ": two heads specialise, the extra one keeps a small overlap and has no direction of its own.")
    doc.items(items)
