"""Interior equilibria of the ODE: zeros of ``j'`` in ``(-1, 1)`` (numerical evidence)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ...core.validate import alignments
from ...theory import Model
from . import _field
from ._field import check_model


@dataclass(frozen=True)
class Equilibria:
    """Interior zeros of ``j'`` in ``(-1, 1)`` (numerical evidence, not certified).

    Attributes
    ----------
    points : tuple of float
        Sorted interior equilibria ``rho*``.
    stable : tuple of bool
        ``F'(rho*) < 0`` (judged from the sign of ``j'`` on either side).
    degenerate : bool
        ``j'`` vanishes on the whole grid (e.g. ``theta = 0``): every point is fixed.
    certified : bool
        Always False here; a certified list comes from ``theory``.
    """

    points: tuple
    stable: tuple
    degenerate: bool = False
    certified: bool = False


def find_equilibria(model: Model, n_grid: int = 4000) -> Equilibria:
    """Locate interior equilibria from sign changes of ``j'`` and ``brentq``.

    Parameters
    ----------
    model : theory.Model
    n_grid : int
        Number of grid intervals on ``[-1, 1]``. Sign changes between neighbours are
        refined by ``brentq``; exact zeros on the grid (e.g. ``rho = 0`` for the
        Rademacher prior, on the grid when ``n_grid`` is even) are kept as they are.
        Zeros closer together than the grid spacing, or without a sign change, are
        missed: use the certified list from ``theory`` when it matters.
    """
    check_model(model)
    grid = np.linspace(-1.0, 1.0, int(n_grid) + 1)[1:-1]
    slopes = _field._slope(model, grid)
    scale = np.max(np.abs(slopes))
    if scale == 0.0:
        return Equilibria((), (), degenerate=True)
    zeros = []
    for i in np.flatnonzero(slopes == 0.0):
        zeros.append(float(grid[i]))
    for i in np.flatnonzero(slopes[:-1] * slopes[1:] < 0):
        zeros.append(brentq(lambda r: float(_field._slope(model, r)), grid[i], grid[i + 1], xtol=1e-16, rtol=8.9e-16))
    points = tuple(sorted(zeros))
    return Equilibria(points, tuple(_stability(model, p) for p in points))


def _stability(model: Model, point: float) -> bool:
    """Stable iff ``j'`` goes from + to - through ``point`` (small symmetric probe)."""
    h = 1e-6 * max(1.0, abs(point))
    left, right = _field._slope(model, [max(point - h, -1.0), min(point + h, 1.0)])
    return bool(left > 0 > right)


def equilibrium_points(model: Model, equilibria) -> tuple[tuple, bool]:
    if equilibria is None:
        eq = find_equilibria(model)
        return eq.points, eq.degenerate
    if isinstance(equilibria, Equilibria):
        return equilibria.points, equilibria.degenerate
    pts = alignments("equilibria", list(equilibria)).ravel()
    if np.any(np.abs(pts) >= 1):
        raise ValueError(f"`equilibria` must lie in (-1, 1), got {equilibria!r}")
    return tuple(sorted(float(p) for p in pts)), False
