"""Appendix section: effective dynamics at practical step sizes (sga.effective_drift)."""

from __future__ import annotations

import shutil
from pathlib import Path

import sympy as sp

from ....theory import tex
from ..figures import draw
from ._format import _g, _int, _schedule_math, rho


def effective_section(doc, data, out: Path) -> None:
    """Effective dynamics at practical step sizes: the derivation, and the table and
    figure of the ``sga.effective_drift`` record when the suite ran it."""
    doc.section("Effective dynamics at practical step sizes")
    e = data.derivations.effective
    doc.para(
        "With $X=\\langle Pg,\\xi\\rangle$ and $Y=\\|Pg\\|^{2}$ one renormalised step is "
        "$\\rho'=(\\rho+\\eta X)/\\sqrt{1+\\eta^{2}Y}$; sympy expands it to second order in $\\eta$:"
    )
    doc.eq("\\rho' = " + tex(e.step_series) + " + O(\\eta^{3}),\\qquad "
           "\\frac{\\mathbb{E}[\\rho'-\\rho]}{\\eta} = " + tex(e.step_drift) + ".")
    doc.para(
        "So the iterates follow $F_\\eta=\\mathbb{E}X-\\tfrac{\\eta}{2}\\rho\\,\\mathbb{E}\\|Pg\\|^{2}$ "
        "on the time axis $t_k$: the renormalisation drags them towards the equator. $\\mathbb{E}X$ is the "
        "gradient of the finite-$L$ objective, $F+O(1/L)$. The second moment needs second-order Gaussian "
        "tilting, again by sympy ($c$ the tilt):"
    )
    lem = e.lemmas[:3]
    doc.eq(",\\quad ".join(f"\\mathbb{{E}}\\,y^{{{x.name.split('[')[1].rstrip(']')}}}e^{{c y}} = {tex(x.rhs)}"
                           for x in lem) + ",")
    V_o, V_p, F_, Lb, d_ = sp.symbols("V_o V_p F L_B d")
    doc.eq("\\mathbb{E}\\|Pg\\|^{2} = " + tex(F_**2 / (1 - rho**2) + ((d_ - 2) * V_o + V_p) / Lb)
           + " + O(L^{-2}),\\qquad L_B = LB.")
    doc.para(
        "The closed forms give token $i$ the softmax weight $w_i/(LD)$; the toolkit keeps the token's own weight in "
        "its normaliser, $a_i=w_i/(w_i+LD)$, and the self-interaction of each token with the out-of-plane part of "
        "$f$ (in and out of the plane), and integrates over the token law by Gauss--Hermite quadrature. With "
        "log-normal weights the closed forms are the leading order only while $k\\,\\mathbb{E}w^{k+1}/"
        "(LD\\,\\mathbb{E}w^{k})$ is small for $k=2,3$; at $\\beta=1.5$, $L=3200$ it is 1.7 for $k=3$ and "
        "the closed forms overstate $\\mathbb{E}\\|Pg\\|^{2}$ by half. The correction matters when "
        "$\\eta(d-2)V_o/(2L)$ is comparable with $F/\\rho$; with a constant step the iterates settle at the "
        "stable zero of $F_\\eta$, below 1, because $F$ vanishes at the pole and the drag does not."
    )
    details = data.effective
    if details is not None:
        rows = []
        for c in details["cases"]:
            pl = c.get("plateau") or {}
            pr = c.get("problem") or {}
            rows.append([f"${_g(pr.get('theta'))}$", f"{_int(pr.get('R'))}/{_int(pr.get('L'))}", _int(pr.get("d")),
                         _schedule_math(c.get("schedule") or {}), _int(c["steps"]), _int(c.get("runs")),
                         _g(c["sup_error_plain"], 2),
                         _g(c["sup_error_corrected"], 2),
                         f"${_g(pl['measured'], 4)}\\pm{_g(pl['standard_error'], 2)}$ / {_g(pl['predicted'], 4)}"
                         if pl else "—"])
        doc.table(["$\\theta$", "$R/L$", "$d$", "step $\\eta_k$", "steps", "runs", "plain ODE", "corrected ODE",
                   "plateau: measured / predicted"], rows,
                  caption="The corrected ODE against the exact chain: largest distance between the simulated mean "
                          "alignment and the plain or the corrected ODE, and the constant-step plateau.",
                  widths=(0.6, 1.6, 0.5, 2.1, 0.8, 0.6, 0.9, 1.35, 1.85))
        if data.effective_figure is not None:
            _place(data.effective_figure, out / "effective_drift.png")
            first = details["cases"][0]
            doc.figure("effective_drift",
                       f"Mean alignment of the recursion ({_effective_case(first)}; bands: 10--90% and 25--75% of "
                       "runs) against the plain limit ODE and the finite-step corrected ODE.")


def _effective_case(c: dict) -> str:
    """An effective-drift configuration in math mode, from its recorded parameters."""
    p = c.get("problem") or {}
    parts = [f"\\theta={_g(p['theta'])}"] if "theta" in p else []
    parts += [f"{k}={int(p[k]):,}".replace(",", "{,}") for k in ("R", "L", "d") if k in p]
    text = "$" + "$, $".join(parts) + "$" if parts else str(c.get("case", ""))
    return text + ", $\\eta_k=" + _schedule_math(c.get("schedule") or {}).strip("$") + "$" if c.get("schedule") \
        else text


def _place(figure, png: Path) -> None:
    """Draw a figure spec at ``png`` (and its PDF), or copy a drawn PNG and its PDF there."""
    if not isinstance(figure, Path):
        draw(figure, png)
        return
    for src, dst in ((figure, png), (figure.with_suffix(".pdf"), png.with_suffix(".pdf"))):
        if src.resolve() != dst.resolve():
            shutil.copyfile(src, dst)
