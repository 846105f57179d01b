"""The two figures of the appendix's signal-subspace section (drawing only).

:func:`plot_subspace_flow` draws the :class:`verify.studies._appendix_subspace.FlowPanel`
list (the projected flow of one query on the disk of overlaps ``r = U^T q``, ``k = 2``, with
the certified equilibria and ODE paths); :func:`plot_heads_angles` draws the
``HeadsPanel`` list (principal angles between ``span Q`` and ``span U`` over time). Every
array comes computed; nothing is certified, integrated or evaluated here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .style import figure, params_text, save

#: colours of the ODE paths and of the heads' runs by their end
PATH_COLOUR = "C0"
END_COLOURS = {"recovered": "C0", "shared direction": "C1", "other": "C3"}


def plot_subspace_flow(panels, path: Path) -> None:
    """One panel per :class:`FlowPanel`: streamlines of ``dr/dt`` on the disk (grey), ODE paths
    (blue, a dot at each start), equilibria filled when certified stable and open otherwise
    (circles on the unit circle, squares inside), the unit circle drawn."""
    fig, axes = figure(ncols=len(panels))
    axes = np.atleast_1d(axes)
    t = np.linspace(0, 2 * np.pi, 400)
    for ax, p in zip(axes, panels, strict=True):
        g = p.grid
        ax.streamplot(g, g, p.u, p.v, density=0.8, color="0.65", linewidth=0.5, arrowsize=0.6)
        ax.plot(np.cos(t), np.sin(t), color="k", lw=0.8)
        for r in p.paths:
            ax.plot(r[:, 0], r[:, 1], color=PATH_COLOUR, lw=1.0)
            ax.plot(r[0, 0], r[0, 1], "o", color=PATH_COLOUR, ms=2.5)
        for x, y, stable, where, _kind in p.equilibria:
            ax.plot([x], [y], "o" if where == "circle" else "s", ms=6.5, mec="k", mew=1.0,
                    mfc="k" if stable else "white", zorder=5, clip_on=False)
        ax.set_aspect("equal")
        ax.set_xlim(-1.08, 1.08)
        ax.set_ylim(-1.08, 1.08)
        ax.set_xticks([-1, 0, 1])
        ax.set_yticks([-1, 0, 1])
        ax.set_xlabel(r"$r_1=\langle q,\xi_1\rangle$")
        ax.set_title(params_text(theta=p.theta, alpha=p.alpha))
    axes[0].set_ylabel(r"$r_2=\langle q,\xi_2\rangle$")
    save(fig, path)


def plot_heads_angles(panels, path: Path) -> None:
    """One panel per :class:`HeadsPanel`: both principal angles of every run against time
    (log axis from the first recorded time after 0), solid for the smaller angle and dashed for
    the larger, coloured by how the run ends; one legend, in the last panel."""
    from matplotlib.lines import Line2D

    fig, axes = figure(ncols=len(panels))
    axes = np.atleast_1d(axes)
    ends = []
    for ax, p in zip(axes, panels, strict=True):
        t = np.asarray(p.times, float)
        shown = t > 0
        for run, end in zip(p.angles, p.ends, strict=True):
            colour = END_COLOURS[end]
            ends += [end] if end not in ends else []
            ax.plot(t[shown], run[shown, 0], color=colour, lw=1.1)
            ax.plot(t[shown], run[shown, -1], color=colour, lw=1.1, ls="--")
        ax.set_xscale("log")
        ax.set_ylim(-0.05, np.pi / 2 + 0.08)
        ax.set_yticks([0, np.pi / 4, np.pi / 2])
        ax.set_yticklabels(["$0$", r"$\pi/4$", r"$\pi/2$"])
        ax.set_xlabel("ODE time $t$")
        ax.set_title(params_text(theta=p.theta, alpha=p.alpha))
    handles = [Line2D([], [], color=END_COLOURS[e], lw=1.1, label=e) for e in ends]
    handles += [Line2D([], [], color="0.3", lw=1.1, label="smaller angle"),
                Line2D([], [], color="0.3", lw=1.1, ls="--", label="larger angle")]
    axes[-1].legend(handles=handles, loc="center right", frameon=True, framealpha=0.9, handlelength=1.2, fontsize=8,
                  borderaxespad=0.1, bbox_to_anchor=(1.0, 0.45))
    axes[0].set_ylabel("principal angles")
    save(fig, path)
