"""The figure of ``sigrec phase --prior 'onehot(k=2)'``: the certified mixture/specialisation
transition ``theta_c(alpha)`` of one query on a k-dimensional signal (docs/subspace-certificates.md).

Draws what it is given (the certified brackets per ``alpha``); nothing is certified or solved here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .style import figure, log_axis, params_text, plain, save


def plot_subspace_phase(doc: dict, path: Path) -> None:
    """``doc``: ``law``, ``beta``, ``sigma2``, ``theta_max`` and ``brackets`` (each with ``alpha``,
    ``lo``, ``hi``, ``certified``, ``theta_range``). Shaded where the certificate speaks: between
    ``theta_range[0]`` and the curve the mixture ``(xi_1 + ... + xi_k)/sqrt k`` is certified stable,
    between the curve and ``theta_range[1]`` certified unstable; white is not examined. The
    brackets are certified at the marked ``alpha``; the line and the shading between them
    interpolate (PNG at ``path`` and a PDF next to it)."""
    rows = [b for b in doc["brackets"] if b["certified"]]
    alphas = np.array([b["alpha"] for b in rows])
    mids = np.array([(b["lo"] + b["hi"]) / 2 for b in rows])
    fig, ax = figure(size=(5.0, 3.4))
    top = doc["theta_max"]
    if rows:
        low = np.array([b["theta_range"][0] for b in rows])
        high = np.minimum([b["theta_range"][1] for b in rows], top)
        ax.fill_between(alphas, low, mids, color="#9ecae1", lw=0,
                        label="mixture stable (certified at the marked points)")
        ax.fill_between(alphas, mids, high, color="#fdae6b", lw=0,
                        label="mixture unstable, specialises (certified at the marked points)")
        ax.plot(alphas, mids, "k-", lw=1.2, label="interpolated between certified points")
        width = max(b["hi"] - b["lo"] for b in rows)
        ax.plot(alphas, mids, "ko", ms=3.5, label=rf"certified $\theta_c$ (brackets $\leq${width:.0e} wide)")
    bad = [b["alpha"] for b in doc["brackets"] if not b["certified"]]
    if bad:
        ax.plot(bad, [top * 0.05] * len(bad), "rx", label="not certified")
    ax.set_xscale("log")
    log_axis(ax, "x")
    ax.set_xlim(min(b["alpha"] for b in doc["brackets"]), max(b["alpha"] for b in doc["brackets"]))
    ax.set_ylim(0, top)
    ax.set_xlabel(r"$\alpha=R/L$")
    ax.set_ylabel(r"$\theta$")
    ax.set_title(f"one query, {plain(doc['law'])}: transition certified at the marked alpha, " +
                 params_text(beta=doc["beta"], sigma2=doc["sigma2"]))
    ax.legend(loc="lower left", frameon=True, framealpha=0.9, fontsize="small")
    save(fig, path)
