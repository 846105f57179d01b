"""Euler–Maruyama paths of the diffusion on the step grid (``dt = eta_k``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...core.validate import instance, integer, real
from ._tables import DiffusionTables


@dataclass(frozen=True)
class DiffusionRun:
    """Paths of the diffusion sampled on the step grid.

    Attributes
    ----------
    tables : DiffusionTables
    etas : ndarray, shape (S, steps)
        Step sizes of each of ``S`` schedules.
    record_steps : ndarray of int, shape (n_rec,)
    rho : ndarray, shape (S, runs, n_rec)
        ``rho_k`` at the recorded steps.
    first_passage : ndarray of int, shape (S, runs)
        First ``k`` with ``|rho_k| >= level`` (``-1``: not within ``steps``).
    passage_sign : ndarray, shape (S, runs)
        Sign of ``rho`` at that step (0 if never).
    final_rho : ndarray, shape (S, runs)
    level : float
    """

    tables: DiffusionTables
    etas: np.ndarray = field(repr=False)
    record_steps: np.ndarray = field(repr=False)
    rho: np.ndarray = field(repr=False)
    first_passage: np.ndarray = field(repr=False)
    passage_sign: np.ndarray = field(repr=False)
    final_rho: np.ndarray = field(repr=False)
    level: float = 0.99


def simulate_diffusion(tables: DiffusionTables, etas, rho0, *, level: float = 0.99, stride: int = 0,
                       seed=None, stop_fraction: float | None = None, stop=None) -> DiffusionRun:
    """Euler–Maruyama paths of the diffusion on the step grid (module docstring).

    Parameters
    ----------
    tables : DiffusionTables
    etas : array_like, shape (steps,) or (S, steps)
        Step sizes ``eta_k``; ``S`` schedules are run side by side on the same normals
        (common random numbers, for comparing schedules).
    rho0 : array_like, shape (runs,)
        Starts (shared by the schedules).
    level : float
        First-passage level in ``(0, 1)``.
    stride : int
        Record ``rho`` every ``stride`` steps (0: only the start and the end).
    seed : int or numpy Generator, optional
    stop_fraction : float, optional
        Stop early once at least this fraction of the runs of *every* schedule has passed
        ``level`` (only with ``stride = 0``; ``final_rho`` is then at the stopping step).
    stop : callable, optional
        ``stop(k, first_passage) -> bool``, asked every 50 steps (``stride = 0`` only);
        ``True`` ends the run at step ``k``.
    """
    instance("tables", tables, DiffusionTables)
    e = np.atleast_2d(np.asarray(etas, dtype=float))
    if e.ndim != 2 or e.shape[1] < 1 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("`etas` must be finite step sizes >= 0 of shape (steps,) or (S, steps)")
    level = real("level", level, lower=0.0, upper=1.0, strict=True)
    r0 = np.asarray(rho0, dtype=float).ravel()
    if r0.size < 1 or np.any(np.abs(r0) > 1) or not np.all(np.isfinite(r0)):
        raise ValueError("`rho0` must be starts in [-1, 1]")
    stride = integer("stride", stride, 0)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    S, steps = e.shape
    runs = r0.size
    rec = np.arange(0, steps + 1, stride) if stride else np.array([0])
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    out = np.empty((S, runs, rec.size))
    rho = np.broadcast_to(r0, (S, runs)).copy()
    out[:, :, 0] = rho
    hit = np.where(np.abs(rho) >= level, 0, -1)
    sign = np.where(hit == 0, np.sign(rho), 0.0)
    ri = 1
    for k in range(steps):
        ek = e[:, k:k + 1]
        rho = tables.advance(rho, ek, rng)
        np.clip(rho, -1.0, 1.0, out=rho)
        new = (hit < 0) & (np.abs(rho) >= level)
        if new.any():
            hit[new] = k + 1
            sign[new] = np.sign(rho[new])
        if ri < rec.size and rec[ri] == k + 1:
            out[:, :, ri] = rho
            ri += 1
        if not stride and k % 50 == 49 and (
                (stop_fraction is not None and np.all((hit >= 0).mean(axis=1) >= stop_fraction))
                or (stop is not None and stop(k + 1, hit))):
            out[:, :, -1] = rho
            break
    return DiffusionRun(tables, e, rec, out, hit, sign, rho.copy(), float(level))
