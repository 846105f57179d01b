"""The sweep figures: simulated vs predicted -xi fraction with the certified boundary
``alpha_c(theta)``, and the final-alignment map. Draws only what it is given (a
``sigrec.verify.studies.SweepFigure``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import style


def _extent(*arrays) -> float:
    """Upper end of the fraction axes: 15% above the largest finite value, at least 0.005, at most 1."""
    vals = np.concatenate([np.asarray(a, float).ravel() for a in arrays])
    vals = vals[np.isfinite(vals)]
    return float(min(1.0, max(0.005, 1.15 * vals.max()))) if vals.size else 0.6


def plot_sweep(data, out) -> list[str]:
    """Write ``sweep-minus-fraction.png`` and ``sweep-final-alignment.png`` of ``data``
    (a :class:`sigrec.verify.studies.SweepFigure`) into ``out`` (created); their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    thetas, alphas, done, sim = data.thetas, data.alphas, data.done, data.sim
    pred, lo, hi, settled = data.pred, data.lo, data.hi, data.settled
    paths = []

    fig, (a1, a2) = style.figure(ncols=2)
    for mask, face, text in ((settled, "C0", "settled cells (95% binomial interval)"),
                             (done & ~settled, "none",
                              rf"not settled: 10% quantile of $|\rho_K|$ < {data.settled_level}")):
        if mask.any():
            a1.errorbar(pred[mask], sim[mask], yerr=[(sim - lo)[mask], (hi - sim)[mask]], fmt="o", ms=4, capsize=2,
                        color="C0", mfc=face, label=text)
    a1.plot([0, 1], [0, 1], "k--", lw=0.8, label="simulated = predicted")
    a1.set_xlabel(r"predicted fraction ending at $-\xi$ (ODE basin of uniform starts)")
    a1.set_ylabel(r"simulated fraction ending at $-\xi$")
    # the axes follow the data: at larger d uniform starts rarely reach the -xi basin and every
    # fraction is small; a fixed [0, 0.6] square would put all the cells on one point at the origin
    top = _extent(pred[done], hi[done], sim[done])
    a1.set_xlim(-top / 30, top)
    a1.set_ylim(-top / 30, top)
    a1.legend(loc="upper left")
    sc = a2.scatter(np.repeat(thetas, alphas.shape[1])[done.ravel()], alphas[done], c=sim[done], cmap="viridis",
                    vmin=0, vmax=0.5, s=60, edgecolors="k", linewidths=0.4)
    fig.colorbar(sc, ax=a2, label=r"simulated fraction at $-\xi$")
    if data.boundary is not None:
        fine, ac = data.boundary
        a2.plot(fine, ac, "k-", lw=1.2, label=r"$\alpha_c(\theta)$: bistable below (certificates agree)")
        a2.legend(loc="lower right")
    a2.set_yscale("log")
    a2.set_xlabel(r"$\theta$")
    a2.set_ylabel(r"$\alpha=R/L$")
    a2.set_title(rf"fraction of runs at $-\xi$ ({data.label})")
    p = out / "sweep-minus-fraction.png"
    paths.append(style.save(fig, p))

    fig, ax = style.figure()
    final = data.final
    im = ax.imshow(final.T, origin="lower", aspect="auto", cmap="magma", vmin=0, vmax=1)
    ax.set_xticks(range(len(thetas)), [f"{t:g}" for t in thetas])
    ax.set_yticks(range(len(data.x_values)), [f"{v:g}" for v in data.x_values])
    ax.set_xlabel(r"$\theta$")
    ax.set_ylabel(r"$\alpha$" if data.x_dim == "alpha" else f"${data.x_dim}$")
    for (i, j), v in np.ndenumerate(final):
        if np.isfinite(v):
            ax.text(i, j, f"{v:.3f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
    fig.colorbar(im, ax=ax, label=r"mean final $|\rho|$")
    ax.set_title(f"final alignment after {data.steps} steps ({data.label})")
    p = out / "sweep-final-alignment.png"
    paths.append(style.save(fig, p))
    return [str(p) for p in paths]
