"""The figure of ``sigrec phase --heads H``: where a stable state with heads sharing a signal
direction is certified, over the ``(theta, alpha)`` grid (:func:`verify.studies.heads_diagram`).

Draws the document it is given (``HeadsDiagram.as_dict()``); nothing is certified or solved here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .style import figure, params_text, plain, save

#: the cell categories, in colour order: which shared kinds are certified stable at the point
CATEGORIES = (
    ((), "#e0e0e0", "no stable shared state among the equilibria found"),
    (("shared-direction",), "#fdae6b", "stable shared-direction (heads share a direction, some direction is missed)"),
    (("recovered-shared",), "#9ecae1",
     "stable recovered-shared (heads share a direction, every direction is covered)"),
    (("recovered-shared", "shared-direction"), "#bcbddc", "stable shared-direction and stable recovered-shared"),
)
#: above this many grid points the cells are too small for their text: colour and hatching only
MAX_LABELLED = 120


def _edges(values: np.ndarray, log: bool) -> np.ndarray:
    """Cell edges around the grid values: midpoints between neighbours (geometric on a log axis),
    the outer cells as wide as their neighbour (a lone value: a cell of relative width 0.4)."""
    x = np.log10(values) if log else np.asarray(values, dtype=float)
    if len(x) == 1:
        half = 0.15 if log else 0.2 * max(abs(x[0]), 1e-12)
        inner = np.array([x[0] - half, x[0] + half])
    else:
        mid = (x[1:] + x[:-1]) / 2
        inner = np.concatenate([[x[0] - (mid[0] - x[0])], mid, [x[-1] + (x[-1] - mid[-1])]])
    return 10**inner if log else inner


def _category(cell: dict) -> int:
    shared = tuple(sorted(k for k in cell["stable_kinds"] if k in ("shared-direction", "recovered-shared")))
    return [c[0] for c in CATEGORIES].index(shared)


def _label(cell: dict) -> str:
    kinds = list(cell["stable_kinds"]) or ["none stable"]
    if cell["undecided"]:
        kinds.append(f"{cell['undecided']} undecided")
    return "\n".join(kinds)


def _stride(values) -> int:
    """Every how many grid values a tick is labelled: at most 8 labels on an axis."""
    return -(-len(values) // 8)


def _draw_cells(ax, doc: dict, t_edges, a_edges, log: bool) -> bool:
    """Hatch the cells with an undecided box and write the stable kinds in each (small grids only);
    whether any cell is hatched."""
    from matplotlib.patches import Rectangle

    hatched, labelled = False, len(doc["cells"]) <= MAX_LABELLED
    for n, cell in enumerate(doc["cells"]):
        i, j = divmod(n, len(t_edges) - 1)
        x0, x1, y0, y1 = t_edges[j], t_edges[j + 1], a_edges[i], a_edges[i + 1]
        if cell["undecided"]:
            hatched = True
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, hatch="///", edgecolor="#d62728",
                                   linewidth=0))
        if labelled:
            back = dict(facecolor="white", alpha=0.8, edgecolor="none", pad=1.0) if cell["undecided"] else None
            ym = np.sqrt(y0 * y1) if log else (y0 + y1) / 2
            ax.text((x0 + x1) / 2, ym, _label(cell), ha="center", va="center", fontsize=6, linespacing=1.1,
                    bbox=back)
    return hatched


def plot_heads_phase(doc: dict, path: Path) -> None:
    """``doc``: :meth:`verify.studies.HeadsDiagram.as_dict`. One cell per grid point, coloured by the
    shared kinds (``shared-direction``, ``recovered-shared``) certified stable at its point, hatched
    where some box there is undecided, and labelled with every stable kind found there. The kinds are
    certified at the points, not between them, and the lists come from a numerical search: a kind
    missing is not proved absent (PNG at ``path`` and a PDF next to it)."""
    from matplotlib.colors import ListedColormap  # matplotlib loads only when a figure is drawn
    from matplotlib.patches import Patch

    thetas, alphas = np.array(doc["thetas"]), np.array(doc["alphas"])
    log = bool((alphas > 0).all())
    t_edges, a_edges = _edges(thetas, False), _edges(alphas, log)
    n_t = len(thetas)
    grid = np.array([_category(c) for c in doc["cells"]], dtype=float).reshape(len(alphas), n_t)
    fig, ax = figure(size=(6.0, 4.2))
    ax.pcolormesh(t_edges, a_edges, grid, cmap=ListedColormap([c[1] for c in CATEGORIES]), vmin=-0.5,
                  vmax=len(CATEGORIES) - 0.5, shading="flat", edgecolors="white", linewidth=1.0)
    hatched = _draw_cells(ax, doc, t_edges, a_edges, log)
    if log:
        ax.set_yscale("log")
    ax.set_xlim(t_edges[0], t_edges[-1])
    ax.set_ylim(a_edges[0], a_edges[-1])
    ax.set_xticks(thetas[::_stride(thetas)], [f"{t:.3g}" for t in thetas[::_stride(thetas)]])
    ax.set_yticks(alphas[::_stride(alphas)], [f"{a:.3g}" for a in alphas[::_stride(alphas)]])
    ax.minorticks_off()
    ax.set_xlabel(r"$\theta$ (grid points at the cell centres)")
    ax.set_ylabel(r"$\alpha=R/L$")
    handles = [Patch(color=colour, label=label) for _, colour, label in CATEGORIES]  # all: they define the kinds
    if hatched:
        handles.append(Patch(facecolor="white", edgecolor="#d62728", hatch="///",
                             label="hatched: some equilibrium found there is undecided"))
    else:
        handles.append(Patch(color="none", label="every equilibrium found is decided (stable, saddle or unstable)"))
    if len(doc["cells"]) <= MAX_LABELLED:
        handles.append(Patch(color="none", label="cell text: the kinds certified stable at the cell's grid point"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, frameon=False)
    ax.set_title(f"stable states of H = {doc['heads']} heads, {plain(doc['law'])}, "
                 + params_text(beta=doc["beta"], sigma2=doc["sigma2"])
                 + "\ncertified at each grid point; the lists come from a numerical search "
                 "and are not proved complete")
    save(fig, path)
