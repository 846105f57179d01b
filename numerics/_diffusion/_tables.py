"""``F_eta = A - eta B`` and ``Sigma`` tabulated on a uniform grid of ``rho``, and the drag plateau.

:func:`stable_zeros` is the one search for the stable zeros of a drift sampled on a grid: the
plateau here, the budget planner's attractors and the refusals of :func:`numerics.complexity`
(the starts the finite-step drift holds below a target) all read them from it.
"""

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

    def advance(self, rho: np.ndarray, eta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One Euler-Maruyama step of the paths ``rho`` (shape ``(S, runs)``) at the steps ``eta``
        (shape ``(S, 1)``): ``rho + eta F_eta + eta sqrt(Sigma) N`` (not clipped)."""
        v = self.lookup(rho)
        return rho + eta * (v[..., 0] - eta * v[..., 1]) + eta * np.sqrt(np.maximum(v[..., 2], 0.0)) * \
            rng.standard_normal(rho.shape)


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
    sig = alignment_variance(problem.model, r, problem.L, problem.batch, d=problem.d,
                             variance_scale=variance_scale).variance
    table = np.column_stack([cd.A(r), cd.B(r), sig])
    r.setflags(write=False)
    table.setflags(write=False)
    return DiffusionTables(problem, r, table, float(variance_scale), float(drag_scale))


@dataclass(frozen=True)
class StableZeros:
    """The stable zeros of a drift sampled on an increasing grid of ``[-1, 1]``.

    A stable zero is a ``+ -> -`` sign change: a cell ``[grid[i], grid[i + 1]]`` with
    ``drift[i] > 0 >= drift[i + 1]``, located by linear interpolation in the cell.

    Attributes
    ----------
    grid, drift : ndarray, shape (n,)
    cells : ndarray of int
        The left index ``i`` of each stable cell, increasing.
    zeros : ndarray
        The interpolated zero in each cell.
    """

    grid: np.ndarray = field(repr=False)
    drift: np.ndarray = field(repr=False)
    cells: np.ndarray
    zeros: np.ndarray

    def carried(self, starts) -> np.ndarray:
        """Where the drift carries each start: the first stable zero at or above its cell when the
        drift at the cell's left node is positive, else the last stable zero below the cell; the
        pole ``+1`` or ``-1`` when there is none on that side."""
        n = self.grid.size
        i = np.clip(np.searchsorted(self.grid, starts) - 1, 0, n - 2)
        nxt = np.searchsorted(self.cells, i)  # the stable cells cells[nxt:] lie at or above the start's cell
        padded = np.concatenate([[-1.0], self.zeros, [1.0]])
        return np.where(self.drift[i] > 0, padded[nxt + 1], padded[nxt])

    def held(self, starts, target: float) -> tuple[float, float]:
        """``(fraction, plateau)``: the fraction of ``starts`` carried to a stable zero with
        ``|rho| < target``, and the largest such ``|rho|`` (0 when none)."""
        end = self.carried(starts)
        stuck = np.abs(end) < target
        return float(stuck.mean()), float(np.abs(end[stuck]).max()) if stuck.any() else 0.0

    def attractor(self, pole: float) -> int | None:
        """The cell of the stable zero the pole ``+1`` (``-1``) turns into at a finite step: the
        last (first) stable cell, if its near end lies strictly on the pole's side of 0; ``None``
        when that zero is gone."""
        if self.cells.size == 0:
            return None
        if pole > 0:
            i = int(self.cells[-1])
            return i if self.grid[i] > 0 else None
        i = int(self.cells[0])
        return i if self.grid[i + 1] < 0 else None


def stable_zeros(grid, drift) -> StableZeros:
    """The stable zeros of ``drift`` sampled on ``grid`` (:class:`StableZeros`)."""
    grid, drift = np.asarray(grid, dtype=float), np.asarray(drift, dtype=float)
    cells = np.flatnonzero((drift[:-1] > 0) & (drift[1:] <= 0))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflowed drift: +inf to -inf in one cell
        zeros = grid[cells] + (grid[cells + 1] - grid[cells]) * drift[cells] / (drift[cells] - drift[cells + 1])
    return StableZeros(grid, drift, cells, zeros)


def drift_zeros(tables: DiffusionTables, eta: float) -> StableZeros:
    """The stable zeros of ``F_eta = A - eta B`` on the table grid."""
    with np.errstate(over="ignore", invalid="ignore"):  # a huge step: the drift is -inf where B > 0
        f = tables.table[:, 0] - eta * tables.table[:, 1]
    return stable_zeros(tables.grid, f)


def plateau_at(tables: DiffusionTables, eta: float) -> float:
    """Largest stable zero of ``F_eta = A - eta B`` in ``(0, 1]`` on the table grid (1 if ``eta = 0``)."""
    if eta <= 0:
        return 1.0
    z = drift_zeros(tables, eta)
    positive = np.flatnonzero(tables.grid[z.cells] >= 0)
    return float(z.zeros[positive[-1]]) if positive.size else 0.0
