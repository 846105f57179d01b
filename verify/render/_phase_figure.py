"""The figure of the point-grid phase diagram (``sigrec phase --grid``).

Draws a :class:`verify.studies.PhaseDiagram` as it is: each cell in the colour of the status
certified at its one grid point (not over the cell: ``verify.render.draw_region`` draws what a
region certificate proves over boxes), the boundary curve and the sparse threshold it carries;
nothing is certified or solved here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .style import figure, params_text, plain, save


def plot_phase(pd, path: Path) -> None:
    """The landscape certified at the points of a grid over ``(theta, alpha)`` (PNG at ``path``
    and a PDF next to it).

    Cells, each coloured by the status at its grid point: monotone, bistable, undecided,
    degenerate (``theta = 0``); the closed-form ``alpha_c(theta)``
    (fixed prior; for another prior the sign change of ``F'(-1)`` in ``alpha``) and the
    sparse threshold ``beta theta = c*`` on top. The title names the
    prior and the parameters; the legend, not the title, explains the colours.
    """
    from matplotlib.colors import ListedColormap  # matplotlib loads only when a figure is drawn
    from matplotlib.patches import Patch

    codes = {"monotone": 0, "bistable": 1, "undecided": 2, "degenerate": 3}
    colours = ["#9ecae1", "#fdae6b", "#d62728", "#7f7f7f"]
    grid = np.vectorize(codes.get)(pd.status).astype(float)
    fig, ax = figure(size=(5.0, 3.4))
    dt = pd.thetas[1] - pd.thetas[0]
    t_edges = np.concatenate([pd.thetas - dt / 2, [pd.thetas[-1] + dt / 2]])
    la = np.log10(pd.alphas)
    da = la[1] - la[0]
    a_edges = 10 ** np.concatenate([la - da / 2, [la[-1] + da / 2]])
    ax.pcolormesh(t_edges, a_edges, grid, cmap=ListedColormap(colours), vmin=-0.5, vmax=3.5, shading="flat",
                  antialiased=False, edgecolors="face", linewidth=0.4)  # cells overlap: no seams in the PDF
    ax.set_yscale("log")
    words = {"monotone": "monotone", "bistable": "bistable", "undecided": "undecided",
             "degenerate": r"degenerate ($\theta=0$, $F\equiv0$)"}
    handles = [Patch(color=colours[codes[k]], label=f"{words[k]} at the cell's point") for k in codes
               if (pd.status == k).any()]
    fine, ac = pd.curve_thetas, pd.curve_alphas
    if np.isfinite(ac).any():
        label = (r"closed form $\alpha_c(\theta)$" if pd.prior == "fixed"
                 else r"pole criterion: $F'(-1)=0$")
        handles += ax.plot(fine, ac, "k-", lw=1.5, label=label)
    c_star = pd.sparse_threshold
    if 0 < c_star < math.inf:
        handles.append(ax.axvline(c_star / pd.beta, color="k", ls="--", lw=1,
                                  label=rf"$\beta\theta={c_star:.4g}$ (sparse threshold)"))
    ax.set_xlabel(r"$\theta$")
    ax.set_ylabel(r"$\alpha=R/L$")
    ax.set_title(f"certified at grid points (not between), {plain(pd.prior)} prior, "
                 + params_text(beta=pd.beta, sigma2=pd.sigma2))
    ax.set_ylim(a_edges[0], 1)
    ax.set_xlim(t_edges[0], t_edges[-1])
    ax.legend(handles=handles, loc="lower right", frameon=True, framealpha=0.9)
    save(fig, path)
