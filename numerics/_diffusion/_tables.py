"""``F_eta = A - eta B`` and ``Sigma`` tabulated on a uniform grid of ``rho``, and the drag plateau."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...core.validate import instance, integer, real
from ...theory import alignment_variance
from .._ode._corrected import corrected_drift
from .._simulate._driver import Problem

#: uniform rho grid of the diffusion tables
GRID = 4001


@dataclass(frozen=True)
class DiffusionTables:
    """``A``, ``B`` and ``Sigma`` on a uniform grid of ``[-1, 1]`` (``F_eta = A - eta B``).

    Attributes
    ----------
    problem : Problem
    grid : ndarray, shape (n,)
    table : ndarray, shape (n, 3)
        Columns ``A = F + F_1/L``, ``B = rho E|P g|^2 / 2``, ``Sigma``.
    variance_scale, drag_scale : float
    """

    problem: Problem
    grid: np.ndarray = field(repr=False)
    table: np.ndarray = field(repr=False)
    variance_scale: float = 1.0
    drag_scale: float = 1.0

    def lookup(self, r: np.ndarray) -> np.ndarray:
        """Linear interpolation of the three columns at ``r`` (shape ``r.shape + (3,)``)."""
        n = self.grid.size
        x = (np.asarray(r) + 1.0) * ((n - 1) / 2.0)
        i = np.clip(x.astype(np.int64), 0, n - 2)
        w = (x - i)[..., None]
        return self.table[i] * (1.0 - w) + self.table[i + 1] * w

    def drift(self, r, eta):
        v = self.lookup(r)
        return v[..., 0] - np.asarray(eta) * v[..., 1]

    def variance(self, r):
        return self.lookup(r)[..., 2]


def diffusion_tables(problem: Problem, *, variance_scale: float = 1.0, drag_scale: float = 1.0,
                     grid: int = GRID) -> DiffusionTables:
    """Tabulate ``F_eta = A - eta B`` and ``Sigma`` for ``problem`` (``R >= 1``).

    ``variance_scale`` multiplies ``Sigma`` and ``drag_scale`` the drag (1 is the derived
    value; other values exist to show that the checks detect a wrong theory).
    """
    instance("problem", problem, Problem)
    grid = integer("grid", grid, 101)
    return _tabulate(problem, real("variance_scale", variance_scale), real("drag_scale", drag_scale), grid)


@lru_cache(maxsize=32)
def _tabulate(problem: Problem, variance_scale: float, drag_scale: float, grid: int) -> DiffusionTables:
    """The tables of :func:`diffusion_tables`, once per process and argument set (the
    checks, the planner and the validation study ask for the same problem several times;
    the arrays are read-only)."""
    cd = corrected_drift(problem, drag_scale=drag_scale)
    r = np.linspace(-1.0, 1.0, grid)
    sig = alignment_variance(problem.model, r, problem.L, problem.batch, d=problem.d, variance_scale=variance_scale).variance
    table = np.column_stack([cd.A(r), cd.B(r), sig])
    r.setflags(write=False)
    table.setflags(write=False)
    return DiffusionTables(problem, r, table, float(variance_scale), float(drag_scale))


def plateau_at(tables: DiffusionTables, eta: float) -> float:
    """Largest stable zero of ``F_eta = A - eta B`` in ``(0, 1]`` on the table grid (1 if ``eta = 0``)."""
    if eta <= 0:
        return 1.0
    r = tables.grid
    f = tables.table[:, 0] - eta * tables.table[:, 1]
    idx = np.flatnonzero((r[:-1] >= 0) & (f[:-1] > 0) & (f[1:] <= 0))
    if idx.size == 0:
        return 0.0
    i = idx[-1]
    return float(r[i] + (r[i + 1] - r[i]) * f[i] / (f[i] - f[i + 1]))
