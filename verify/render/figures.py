"""The figures of the verification report: one function per figure, data in, file out.

Checks compute; these functions only draw what the checks computed (plus, where a
figure needs a reference curve, the limit field or flow from ``theory``/``numerics``).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import flow_map
from ...theory import evaluate, pole_exponents

from .style import figure, save


def field(model, cert, path, title: str = "") -> str:
    """The field ``F(rho)`` with certified interior equilibria and pole stability marked."""
    r = np.linspace(-1, 1, 801)
    v = evaluate(model, r)
    fig, ax = figure(size=(5.6, 3.4))
    ax.plot(r, v.field, "C0-", lw=1.6, label=r"$F(\rho)$" + (r" (sparse: $F/\alpha$)" if model.sparse else ""))
    ax.axhline(0, color="k", lw=0.6)
    plus, minus = pole_exponents(model)
    for x, ex in ((1.0, plus), (-1.0, minus)):
        ax.plot([x], [0], "o", ms=8, mfc="C2" if ex < 0 else "white", mec="C2")
    for e in cert.equilibria:
        ax.plot([e.midpoint], [0], "s", ms=7, mfc="C3" if e.stability == "stable" else "white", mec="C3",
                label=rf"certified $\rho^*\in[{e.lo:.6f},{e.hi:.6f}]$ ({e.stability})")
    ax.set_xlabel(r"alignment $\rho$")
    ax.set_ylabel("field")
    ax.set_title(title or f"{model.prior}, theta={model.theta:g}, alpha={model.alpha:.4g}: {cert.status}"
                 f" ({'certified' if cert.certified else 'not certified'})")
    ax.legend(loc="best")
    return save(fig, path)


def trajectories(path, model, sim, equilibria, title: str) -> str:
    """SGA iterates and the ODE from the same starts: median and 10-90% band of each."""
    t = sim.times
    fl = flow_map(model, sim.initial_rho[:, None], t[None, :], equilibria=equilibria, rtol=1e-10).rho
    fig, ax = figure()
    for data, colour, label in ((sim.rho, "C0", "SGA"), (fl, "C1", "ODE")):
        q = np.quantile(data, [0.1, 0.5, 0.9], axis=0)
        ax.fill_between(t, q[0], q[2], color=colour, alpha=0.25, lw=0)
        ax.plot(t, q[1], color=colour, label=f"{label} median (10-90% band)")
    ax.set_xlabel("ODE time t_k = sum eta_j")
    ax.set_ylabel("rho")
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return save(fig, path)


def nuisance_mass(path, model, rho_k, measured, at1: float) -> str:
    """Measured nuisance attention mass (binned by alignment) against the limit curve."""
    fig, ax = figure()
    r = rho_k.ravel()
    bins = np.linspace(r.min(), r.max(), 21)
    which = np.clip(np.digitize(r, bins) - 1, 0, bins.size - 2)
    centres, mm, ms = [], [], []
    for b in range(bins.size - 1):
        sel = which == b
        if sel.sum() >= 5:
            centres.append(r[sel].mean())
            mm.append(measured.ravel()[sel].mean())
            ms.append(measured.ravel()[sel].std(ddof=1) / math.sqrt(sel.sum()))
    grid = np.linspace(-1, 1, 401)
    ax.plot(grid, evaluate(model, grid).noise_mass, color="C1", label="limit prediction")
    ax.errorbar(centres, mm, yerr=2 * np.array(ms), fmt="o", ms=3, color="C0", label="measured (binned, 2 SE)")
    ax.axhline(at1, color="gray", ls=":", lw=0.8, label=f"limit at rho=1: {at1:.3g}")
    ax.set_xlabel("rho")
    ax.set_ylabel("nuisance attention mass")
    ax.legend(fontsize=8)
    return save(fig, path)


def tracking(path, design, results, fit) -> str:
    """``E_T(t)`` over start times, and its median sup against the step and against ``1/L``."""
    fig, axes = figure(ncols=3)
    base_L, starts_t, T = design.L, design.start_times, design.T
    ax = axes[0]
    for (L, eta), E in results.items():
        if L == base_L:
            q = np.quantile(E, [0.1, 0.5, 0.9], axis=0)
            ax.plot(starts_t + T, q[1], "o-", ms=3, label=f"eta={eta:.3g}")
            ax.fill_between(starts_t + T, q[0], q[2], alpha=0.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t + T")
    ax.set_ylabel("E_T(t)")
    ax.legend()
    ax = axes[1]
    etas = np.array(design.etas)
    ax.loglog(etas, [fit.S[(base_L, e)] for e in etas], "o-", label=f"slope {fit.p_eta:.2f}+-{fit.se_eta:.2f}")
    ax.axhline(design.D / 4, color="gray", ls=":", label="D/4 bound")
    ax.set_xlabel("step eta")
    ax.set_ylabel("median sup_t E_T")
    ax.legend()
    ax = axes[2]
    Ls = np.array(design.Ls)
    ax.loglog(1.0 / Ls, [fit.S[(L, design.eta_max)] for L in Ls], "o-", label=f"slope {fit.p_L:.2f}+-{fit.se_L:.2f}")
    ax.set_xlabel("1/L")
    ax.set_ylabel("median sup_t E_T")
    ax.legend()
    return save(fig, path)


def finite_size(path, rows, rhos, C_over_L, slope, slope_se) -> str:
    """``|mean - F|`` against ``L`` on log-log axes with the fitted ``C / L``."""
    fig, ax = figure()
    Larr = np.array([r["L"] for r in rows], float)
    err = np.array([r["err"] for r in rows])
    se = np.array([r["se"] for r in rows])
    for rho in rhos:
        sel = np.array([r["rho"] == rho for r in rows])
        ax.errorbar(Larr[sel], np.abs(err[sel]), yerr=2 * se[sel], fmt="o", ms=4, label=f"|mean - F|, rho={rho}")
        C = C_over_L[str(rho)]["C"]
        if C != 0:
            ax.plot(Larr[sel], abs(C) / Larr[sel], "--", lw=1, label=f"|C|/L, C={C:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("L (alpha fixed)")
    ax.set_ylabel("error of the MC mean gradient")
    ax.set_title("free slope " + (f"{slope:.2f}+-{slope_se:.2f}" if slope is not None
                                  else "undetermined (bias below MC error)"))
    ax.legend()
    return save(fig, path)


def effective_drift(sim, pred, path, *, title: str | None = None) -> str:
    """Plain ODE, corrected ODE and the simulated mean with 10-90% and 25-75% bands.

    ``sim`` (numerics.Simulation) and ``pred`` (numerics Prediction) must share record steps.
    """
    t = sim.times
    q10, q25, q75, q90 = np.quantile(sim.rho, [0.1, 0.25, 0.75, 0.9], axis=0)
    fig, ax = figure()
    ax.fill_between(t, q10, q90, color="C0", alpha=0.15, lw=0, label="simulation 10-90%")
    ax.fill_between(t, q25, q75, color="C0", alpha=0.3, lw=0, label="simulation 25-75%")
    ax.plot(t, sim.rho.mean(axis=0), color="C0", lw=1.2, label=f"simulated mean ({sim.runs} runs)")
    ax.plot(pred.time, pred.rho_plain, "k--", lw=1.2, label="limit ODE")
    ax.plot(pred.time, pred.rho_corrected, color="C3", lw=1.5, label="corrected ODE")
    ax.set_xlabel(r"ODE time $t_k=\sum_{j<k}\eta_j$")
    ax.set_ylabel(r"alignment $\rho$")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=8, loc="lower right")
    return save(fig, path)
