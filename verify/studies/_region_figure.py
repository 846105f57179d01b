"""The closed-form boundaries a region certificate's figure draws beside its boxes.

``verify.render.draw_region`` draws the leaf boxes of a :class:`theory.RegionCertificate` over its
first two ranged parameters; the curves here are what the closed forms say about the same axes
(computed here, so that render only draws): on ``(theta, alpha)`` the fixed prior's
``alpha_c(theta)`` and ``beta theta = 1``, a point prior with ``E s > 0`` the sign change of
``F'(-1)`` in alpha (:func:`theory.pole_alpha`) and ``beta theta = c*``; with ``beta`` the second
axis (fixed prior), ``beta theta = 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...theory import critical_alpha, pole_alpha, sparse_threshold_prior


@dataclass(frozen=True)
class RegionLine:
    """One boundary to draw: a curve ``y(x)``, or a vertical line at ``x`` (``y`` empty).

    Attributes
    ----------
    label : str
        The legend entry (TeX, e.g. ``"closed form $\\alpha_c(\\theta)$"``).
    x : ndarray, shape (n,)
        Abscissae on the figure's first axis (``theta``); for a vertical line, its one position.
    y : ndarray, shape (n,) or (0,)
        The curve's values on the second axis at ``x`` (NaN where the boundary does not exist);
        empty for a vertical line.
    style : str
        The matplotlib line style (``"-"``, ``"--"``).
    width : float
        The line width in points.
    """

    label: str
    x: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    style: str = "-"
    width: float = 0.6

    @property
    def vertical(self) -> bool:
        return self.y.size == 0


def region_boundaries(region: dict) -> tuple[RegionLine, ...]:
    """The boundaries on the axes of ``region`` (``RegionCertificate.region``: ``ranges``, ``fixed``,
    ``prior``), in drawing order; none for a ranged prior or a first axis other than ``theta``."""
    fixed, names, lines = region["fixed"], list(region["ranges"])[:2], []
    if names[0] != "theta" or ":" in region["prior"]:
        return ()
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
            lines.append(RegionLine(r"closed form $\alpha_c(\theta)$", t, ac))
        elif c_star > 0:
            t = np.linspace(max(lo, 1e-3), hi, 161)
            roots = [pole_alpha(prior, float(x), beta, sigma2) for x in t]
            ac = np.array([r[0] if len(r) == 1 else np.nan for r in roots])
            lines.append(RegionLine(r"sign change of $F'(-1)$", t, ac))
    if "beta" in fixed and math.isfinite(c_star) and c_star > 0 and lo <= c_star / fixed["beta"] <= hi:
        label = r"$\beta\theta=1$" if prior == "fixed" else rf"$\beta\theta=c^*={c_star:.3g}$"
        lines.append(RegionLine(label, np.array([c_star / fixed["beta"]]), np.array([]), "--"))
    elif len(names) > 1 and names[1] == "beta" and prior == "fixed":
        t = np.linspace(max(lo, 1e-3), hi, 801)
        lines.append(RegionLine(r"$\beta\theta=1$", t, 1 / t, "--", 1.0))
    return tuple(lines)
