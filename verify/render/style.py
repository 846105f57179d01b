"""The one plot style of sigrec's figures (report, notes, studies).

Every figure is made through :func:`figure` and written through :func:`save`, so the
backend (Agg, no display), sizes, fonts and resolution are set in one place.
"""

from __future__ import annotations

from pathlib import Path

#: inches; one column of a report / a wide three-panel figure
SIZE = (6.4, 4.0)
WIDE = (12.0, 3.6)
DPI = 120
STYLE = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 7,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
}


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend with the sigrec style applied."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(STYLE)
    return plt


def figure(ncols: int = 1, size=None):
    """A new ``(fig, axes)`` with the house size (``WIDE`` for more than one panel)."""
    plt = pyplot()
    size = size or (SIZE if ncols == 1 else WIDE)
    return plt.subplots(1, ncols, figsize=size, constrained_layout=True)


def save(fig, path) -> str:
    """Write ``fig`` to ``path`` at the house resolution, close it, return the path as a string."""
    plt = pyplot()
    fig.savefig(Path(path), dpi=DPI)
    plt.close(fig)
    return str(path)
