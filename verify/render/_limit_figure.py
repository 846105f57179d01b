"""The figure of where the limit describes a finite system (``sigrec limit --figure``): the distance
between the limit field and the exact chain's over ``(beta, L)``, a contour at the tolerance and the
tokens needed per ``beta``. Draws only what it is given (a ``verify.studies.LimitMap`` and the
tokens its ``crossing`` computed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import style


def _edges(centres: np.ndarray, log: bool) -> np.ndarray:
    """Cell edges halfway between ``centres`` (in ``log`` scale when asked), the ends mirrored."""
    c = np.log(centres) if log else np.asarray(centres, float)
    if c.size == 1:
        e = np.array([c[0] - 0.5, c[0] + 0.5])
    else:
        mid = (c[1:] + c[:-1]) / 2
        e = np.concatenate([[2 * c[0] - mid[0]], mid, [2 * c[-1] - mid[-1]]])
    return np.exp(e) if log else e


def plot_limit_map(lmap, tol: float, tokens, path) -> dict:
    """Draw ``lmap`` (a :class:`sigrec.verify.studies.LimitMap`) to ``path`` (PNG and PDF): colour =
    the distance (log scale), a contour at ``tol``, and ``tokens`` (per beta, ``nan`` where the grid
    is not enough) as the tokens-needed curve. Returns what was drawn."""
    from matplotlib.colors import LogNorm  # matplotlib loads only when a figure is drawn

    D = lmap.distance if lmap.expansion is None else lmap.expansion
    Ls, betas = lmap.Ls.astype(float), lmap.betas
    fig, ax = style.figure(size=(5.0, 3.4))
    positive = D[np.isfinite(D) & (D > 0)]
    lo, hi = (max(float(positive.min()), 1e-4), float(positive.max())) if positive.size else (1e-3, 1.0)
    vmin = min(lo, tol / 3)
    norm = LogNorm(vmin=vmin, vmax=max(hi, 3 * tol))
    mesh = ax.pcolormesh(_edges(Ls, True), _edges(betas, False), np.maximum(D, vmin), norm=norm,
                         cmap="viridis", shading="flat")
    what = "expansion's error" if lmap.expansion is not None else "distance"
    fig.colorbar(mesh, ax=ax, label=rf"{what} $\max_\rho|\bar x-F|/\max|F|$")
    drawn = {"cells": int(D.size), "contour": False, "tokens": int(np.isfinite(tokens).sum())}
    if betas.size > 1 and Ls.size > 1 and np.nanmin(D) < tol < np.nanmax(D):
        ax.contour(Ls, betas, D, levels=[tol], colors="w", linewidths=1.2, linestyles="--")
        drawn["contour"] = True
    tokens = np.asarray(tokens, float)
    ok = np.isfinite(tokens)
    ax.plot(tokens[ok], betas[ok], "-", color="C3", lw=1.2)
    bound = ok & (tokens <= Ls[0])  # already below at the smallest size: an upper bound
    ax.plot(tokens[ok & ~bound], betas[ok & ~bound], "o", color="C3", ms=4,
            label=f"tokens needed for {tol:g} (from the grid)")
    if bound.any():
        ax.plot(tokens[bound], betas[bound], "o", mfc="none", color="C3", ms=5,
                label="at most (below at the smallest size)")
    ax.plot([], [], "w--", lw=1.2, label=f"contour {tol:g}")
    style.log_axis(ax, "x")
    ax.set_xlim(_edges(Ls, True)[[0, -1]])
    ax.set_xlabel(r"tokens $L$ ($R=\max(1, \mathrm{round}(\alpha L))$)")
    ax.set_ylabel(r"$\beta$")
    m = lmap.model
    extra = {r"\theta": m.theta, r"\alpha": m.alpha, r"\sigma^2": m.sigma2, "d": lmap.d}
    if lmap.eta is not None:
        extra[r"\eta"] = lmap.eta
    ax.set_title(f"limit vs exact chain, {style.plain(str(m.law))} prior: " + style.params(**extra), fontsize=7)
    leg = ax.legend(loc="upper left", fontsize=6, frameon=True, facecolor="0.3", edgecolor="none", labelcolor="w")
    leg.get_frame().set_alpha(0.6)
    style.save(fig, Path(path))
    return drawn
