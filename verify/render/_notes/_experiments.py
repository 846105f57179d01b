"""Appendix section: claim 6, the experiments (the flagship reproduction)."""

from __future__ import annotations

from pathlib import Path

from .._reproduce_figure import plot_reproduction
from ._format import _g, _int, _status


def reproduce_section(doc, data, out: Path, claim=None) -> None:
    """Claim 6, the flagship reproduction (its verdict is decided in :mod:`verify.suite`)."""
    results, PAPER_MEAN_FINAL_ALIGNMENT = data.reproduction, data.paper_mean

    doc.section("Claim 6: the experiments")
    doc.statement("proposition", "empirical",
                  f"Over 30 independent runs with $R=500$ informative and $N=10{{,}}000$ nuisance tokens, the mean "
                  f"final alignment is ${PAPER_MEAN_FINAL_ALIGNMENT}$, robustly in $N$ and for weak signals "
                  "($\\theta=0.25$).")
    p = data.protocol
    doc.para(
        f"The paper does not report its dimension, schedule or iteration count. Fixed here: $d={p.d}$, "
        f"{p.steps:,} steps, {p.runs} runs, $\\eta_k={p.eta0:g}/(k+{p.k0:g})^{{{p.power:g}}}$, the exact reduced "
        f"simulator, seed {p.seed}. The renormalisation drags the iterates below the ODE by an amount that grows "
        "with $\\eta d/L$, which is why $d$ is small and the steps decay like $1/k$."
    )
    rows = []
    for r in results:
        corr = "—" if r.ode_corrected_prediction is None else _g(r.ode_corrected_prediction, 4)
        rows.append([f"${_g(r.theta)}$", f"${r.L - r.R:,}$".replace(",", "{,}"), r.landscape,
                     f"${_g(r.mean_final_alignment, 4)}\\pm{_g(r.sd_final_alignment, 2)}$",
                     f"{r.runs_positive}/{r.runs_negative}", _g(r.ode_prediction, 4), corr,
                     f"{_g(r.nuisance_mass_final)} / {_g(r.nuisance_mass_predicted)}"])
    doc.table(["$\\theta$", "$N$", "landscape", "mean $|\\rho_K|$", "$+\\xi/-\\xi$", "ODE", "corrected",
               "$\\nu$: measured / limit"], rows,
              caption=f"Flagship configuration, $R=500$, {p.runs} runs; the paper reports "
                      f"${PAPER_MEAN_FINAL_ALIGNMENT}$ and a vanishing nuisance mass.",
              widths=(0.6, 1.1, 1.5, 2.1, 1.0, 1.0, 1.3, 1.9))
    figs = plot_reproduction(results, out, PAPER_MEAN_FINAL_ALIGNMENT)
    first = results[0]
    doc.figure(Path(figs[0]).stem,
               f"Alignment against iteration $k$ ($\\theta={_g(first.theta)}$, $R={_int(first.R).strip('$')}$, "
               f"$N={_int(first.L - first.R).strip('$')}$, $d={first.d}$): mean and 10--90% band of "
               "$|\\rho_k|$ over the runs (the same in either basin), the plain ODE (dashed) and the finite-step "
               "corrected ODE (dotted), from the same starts.")
    if claim is not None:
        q = claim.quantities
        _status(doc, claim, f"Mean final $|\\rho|$ ${_g(q['mean_final_alignment'], 4)}$ over {q['runs']} runs against "
                            f"the reported ${q['paper_mean']}$, under the protocol above; at large $d$ or with slowly "
                            "decaying steps the drag holds the iterates below $0.99$.")
