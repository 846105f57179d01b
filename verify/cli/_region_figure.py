"""The figure of a region certificate (``sigrec certify --figure``, ``sigrec phase``): leaf
boxes coloured by status over the first two ranged parameters, with the closed-form
boundaries where they live on those axes."""

from __future__ import annotations

import math
from pathlib import Path

from ...theory import critical_alpha, pole_alpha, sparse_threshold_prior
from ..render import style

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


def draw_region(cert, path: Path) -> dict:
    """Draw ``cert`` (a :class:`theory.RegionCertificate`) to ``path`` (PNG, and a PDF next to
    it). Returns what was drawn: ``patches`` (status -> number of boxes) and ``lines`` (the
    labels of the boundary curves)."""
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
        if rects:
            ax.add_collection(PatchCollection(rects, facecolors=COLOURS[status], edgecolors="face", linewidths=0.2,
                                              label=status))
    xr = region["ranges"][names[0]]
    yr = region["ranges"][names[1]] if len(names) > 1 else (0.0, 1.0)
    ax.set_xlim(*xr)
    ax.set_ylim(*yr)
    if region["scale"].get(names[0]) == "log":
        ax.set_xscale("log")
    if len(names) > 1 and region["scale"].get(names[1]) == "log":
        style.log_axis(ax, "y")
        ax.set_ylim(*yr)
    handles = [Patch(color=COLOURS[k], label=f"{k} ({cert.fractions[k]:.2%})") for k in COLOURS]
    lines = _boundaries(ax, region, names)
    handles += lines
    ax.set_xlabel(_TEX.get(names[0], names[0]))
    ax.set_ylabel(_TEX.get(names[1], names[1]) if len(names) > 1 else "")
    if len(names) == 1:
        ax.set_yticks([])
    fixed = dict(region["fixed"])
    ax.set_title(f"certified boxes, {region['prior']} prior" + (", " + style.params_text(**fixed) if fixed else ""),
                 fontsize=8)
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False, fontsize=6)
    style.save(fig, path)
    return {"patches": patches, "lines": [h.get_label() for h in lines]}


def _boundaries(ax, region, names) -> list:
    """Draw the boundaries on the ``(theta, alpha)`` axes: fixed prior ``alpha_c(theta)`` and
    ``beta theta = 1``; a point prior with ``E s > 0`` the sign change of ``F'(-1)`` in alpha
    (:func:`theory.pole_alpha`) and ``beta theta = c*``. With ``beta`` the second axis (fixed
    prior): ``beta theta = 1``. Returns the line handles."""
    import numpy as np

    fixed, handles = region["fixed"], []
    if names[0] != "theta" or ":" in region["prior"]:
        return handles
    prior = region["prior"]
    c_star = 1.0 if prior == "fixed" else sparse_threshold_prior(prior)
    lo, hi = region["ranges"]["theta"]
    if len(names) > 1 and names[1] == "alpha" and "beta" in fixed and "sigma2" in fixed:
        beta, sigma2 = fixed["beta"], fixed["sigma2"]
        if prior == "fixed":
            # alpha_c falls to 0 at beta theta = 1: sample densely there
            edge = 1 / beta
            t = np.unique(np.concatenate([np.linspace(lo, hi, 801),
                                          edge + (hi - edge) * np.geomspace(1e-6, 1, 200) if lo < edge < hi else []]))
            ac = np.array([critical_alpha(float(x), beta, sigma2) or np.nan for x in t])
            handles += ax.plot(t, ac, "k-", lw=0.6, label=r"closed form $\alpha_c(\theta)$")
        elif c_star > 0:
            t = np.linspace(max(lo, 1e-3), hi, 161)
            roots = [pole_alpha(prior, float(x), beta, sigma2) for x in t]
            ac = np.array([r[0] if len(r) == 1 else np.nan for r in roots])
            handles += ax.plot(t, ac, "k-", lw=0.6, label=r"sign change of $F'(-1)$")
    if "beta" in fixed and math.isfinite(c_star) and c_star > 0 and lo <= c_star / fixed["beta"] <= hi:
        label = r"$\beta\theta=1$" if prior == "fixed" else rf"$\beta\theta=c^*={c_star:.3g}$"
        handles.append(ax.axvline(c_star / fixed["beta"], color="k", ls="--", lw=0.6, label=label))
    elif len(names) > 1 and names[1] == "beta" and prior == "fixed":
        t = np.linspace(max(lo, 1e-3), hi, 801)
        handles += ax.plot(t, 1 / t, "k--", lw=1, label=r"$\beta\theta=1$")
    return handles
