"""The figure of a region certificate (``sigrec certify --figure``, ``sigrec phase``): leaf
boxes coloured by status over the first two ranged parameters, with the closed-form
boundaries where they live on those axes (computed by :func:`verify.studies.region_boundaries`;
this module only draws)."""

from __future__ import annotations

from pathlib import Path

from . import style

#: colours of the statuses (as the point-grid phase figure)
COLOURS = {"monotone": "#9ecae1", "bistable": "#fdae6b", "undecided": "#d62728"}
_TEX = {"theta": r"$\theta$", "alpha": r"$\alpha=R/L$", "beta": r"$\beta$", "sigma2": r"$\sigma^2$"}


def figure_path(text: str) -> Path:
    """A ``.png`` path in an existing folder (``--figure``), or one clear ``ValueError``."""
    path = Path(text)
    if not text.strip() or path.suffix.lower() != ".png":
        raise ValueError(f"`figure` must be a .png path, got {text!r}")
    if not path.parent.is_dir():
        raise ValueError(f"`figure`: folder {str(path.parent)!r} does not exist")
    return path


def draw_region(cert, path: Path, lines=(), title: str | None = None) -> dict:
    """Draw ``cert`` (a :class:`theory.RegionCertificate`) to ``path`` (PNG, and a PDF next to
    it): every leaf box in the colour of the status proved for every parameter in it, the
    undecided boxes outlined (a band thinner than a line still shows), and the closed-form boundaries on
    top. ``lines``: those boundaries (:func:`verify.studies.region_boundaries` of the
    region: the caller computes them; none drawn by default). ``title`` replaces the default.
    Returns what was drawn: ``patches`` (status -> number of boxes) and ``lines`` (the labels of
    the boundary curves)."""
    from matplotlib.collections import PatchCollection  # matplotlib loads only when a figure is drawn
    from matplotlib.patches import Patch, Rectangle

    region = cert.region
    names = list(region["ranges"])[:2]
    fig, ax = style.figure(size=(5.0, 4.0))
    patches = {k: 0 for k in COLOURS}
    for status in COLOURS:  # one collection per status: the figure's artists say what was drawn
        rects = []
        for box in cert.boxes:
            if box.status != status:
                continue
            b = {k: (lo, hi) for k, lo, hi in box.bounds}
            (x0, x1) = b[names[0]]
            (y0, y1) = b[names[1]] if len(names) > 1 else (0.0, 1.0)
            rects.append(Rectangle((x0, y0), x1 - x0, y1 - y0))
        patches[status] = len(rects)
        if not rects:
            continue
        if status == "undecided":  # above the boundary lines: the undecided band often lies under them
            ax.add_collection(PatchCollection(rects, facecolors=COLOURS[status], edgecolors=COLOURS[status],
                                              linewidths=0.8, zorder=4, label=status))
        else:
            ax.add_collection(PatchCollection(rects, facecolors=COLOURS[status], edgecolors="face",
                                              linewidths=0.2, label=status))
    xr = region["ranges"][names[0]]
    yr = region["ranges"][names[1]] if len(names) > 1 else (0.0, 1.0)
    ax.set_xlim(*xr)
    ax.set_ylim(*yr)
    if region["scale"].get(names[0]) == "log":
        ax.set_xscale("log")
    if len(names) > 1 and region["scale"].get(names[1]) == "log":
        style.log_axis(ax, "y")
        ax.set_ylim(*yr)
    words = {"monotone": "monotone, proved on the box", "bistable": "bistable, proved on the box",
             "undecided": "undecided (not proved; outlined in red)"}
    handles = [Patch(color=COLOURS[k], label=f"{words[k]}: {patches[k]} boxes, {cert.fractions[k]:.2%}")
               for k in COLOURS]
    drawn = _boundaries(ax, lines)
    handles += drawn
    ax.set_xlabel(_TEX.get(names[0], names[0]))
    ax.set_ylabel(_TEX.get(names[1], names[1]) if len(names) > 1 else "")
    if len(names) == 1:
        ax.set_yticks([])
    fixed = dict(region["fixed"])
    # a long prior spec (a discrete law's lists) goes on a line of its own so the title fits the axes
    sep = "\n" if len(str(region["prior"])) > 30 else ", "
    default = (f"certified boxes, {region['prior']} prior" + (sep + style.params_text(**fixed) if fixed else ""))
    ax.set_title(default if title is None else title, fontsize=8)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False, fontsize=6)
    style.save(fig, path)
    return {"patches": patches, "lines": [h.get_label() for h in drawn]}


def _boundaries(ax, lines) -> list:
    """Draw the closed-form boundaries ``lines`` (:class:`verify.studies.RegionLine`); returns the
    line handles."""
    handles = []
    for line in lines:
        if line.vertical:
            handles.append(ax.axvline(float(line.x[0]), color="k", ls=line.style, lw=line.width, label=line.label,
                                      zorder=5))
        else:
            handles += ax.plot(line.x, line.y, "k" + line.style, lw=line.width, label=line.label, zorder=5)
    return handles


#: colours of the k = 2 statuses, in the order the phases follow as theta grows (others: grey)
K2_COLOURS = {"mixture": "#9ecae1", "specialised": "#fdae6b", "4 on circle (2 stable), 1 inside (0 stable)": "#a1d99b",
              "6 on circle (3 stable), 1 inside (0 stable)": "#bcbddc", "undecided": "#d62728"}


def draw_region_k2(cert, path: Path, title: str | None = None) -> dict:
    """Draw ``cert`` (a :class:`theory.K2RegionCertificate`) to ``path`` (PNG, and a PDF next to it):
    every leaf in the colour of the structure proved for every parameter in it (:data:`K2_COLOURS`,
    grey for any other), the undecided ones outlined. Returns ``patches`` (status -> number of leaves)."""
    from matplotlib.collections import PatchCollection  # matplotlib loads only when a figure is drawn
    from matplotlib.patches import Patch, Rectangle

    region = cert.region
    fig, ax = style.figure(size=(5.0, 4.2))
    statuses = sorted({b.status for b in cert.boxes} | {"undecided"},
                      key=lambda s: (list(K2_COLOURS).index(s) if s in K2_COLOURS else len(K2_COLOURS) - 1, s))
    patches, handles = {}, []
    for status in statuses:
        rects = []
        for box in cert.boxes:
            if box.status == status:
                b = {k: (lo, hi) for k, lo, hi in box.bounds}
                rects.append(Rectangle((b["theta"][0], b["alpha"][0]), b["theta"][1] - b["theta"][0],
                                       b["alpha"][1] - b["alpha"][0]))
        patches[status] = len(rects)
        colour = K2_COLOURS.get(status, "#969696")
        undecided = status == "undecided"
        if rects:
            ax.add_collection(PatchCollection(rects, facecolors=colour, edgecolors=colour if undecided else "face",
                                              linewidths=0.8 if undecided else 0.2, zorder=4 if undecided else 2))
        words = "undecided (outlined)" if undecided else status
        share = cert.fractions.get(status, 0.0)
        handles.append(Patch(color=colour, label=f"{words}: {len(rects)} leaves, {share:.2%}"))
    ax.set_xlim(*region["ranges"]["theta"])
    if region["scale"]["alpha"] == "log":
        style.log_axis(ax, "y")
    ax.set_ylim(*region["ranges"]["alpha"])
    ax.set_xlabel(_TEX["theta"])
    ax.set_ylabel(_TEX["alpha"])
    default = f"equilibria proved on each leaf, {region['prior']}, " + style.params_text(**region["fixed"])
    ax.set_title(default if title is None else title, fontsize=8)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, frameon=False, fontsize=6)
    style.save(fig, path)
    return {"patches": patches}
