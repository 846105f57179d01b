"""The first-passage law of ``|rho| >= target`` under the diffusion, and the plain-ODE step.

:func:`passage` is the one pipeline (starts, paths, censored quantiles, plain-ODE step)
behind :func:`first_passage` and :func:`numerics.complexity`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...core.validate import instance, integer, real
from .._ode import time_to_alignment
from .._schedule import Schedule
from .._simulate._driver import Problem
from .._simulate._start import start_law
from ._paths import simulate_diffusion
from ._tables import DiffusionTables, diffusion_tables


@dataclass(frozen=True)
class FirstPassage:
    """Law of the first step ``k`` with ``|rho_k| >= target``.

    Attributes
    ----------
    target : float
    steps : ndarray of int, shape (runs,)
        First-passage steps (``-1``: not reached within ``horizon``).
    horizon : int
    median, q10, q90 : float
        Quantiles over all runs (``inf`` when more than that fraction is censored).
    reached : float
        Fraction of runs that reached the target.
    plus_fraction : float
        Fraction of runs whose first passage is at ``+target``.
    plain_ode_step : float
        First ``k`` with ``t_k`` past the plain-ODE hitting time from the median start
        (``inf`` if the ODE never reaches the target or beyond the horizon, ``nan`` when the
        hitting time cannot be computed: :func:`plain_ode_step`).
    """

    target: float
    steps: np.ndarray = field(repr=False)
    horizon: int = 0
    median: float = math.inf
    q10: float = math.inf
    q90: float = math.inf
    reached: float = 0.0
    plus_fraction: float = 0.0
    plain_ode_step: float = math.inf


def first_hits(rho: np.ndarray, level: float, never: int = -1) -> np.ndarray:
    """First recorded index with ``|rho| >= level`` per run (``never`` where no index does), for
    paths ``rho`` of shape ``(runs, steps + 1)``: how the chain's first passages are read from its
    recorded alignments, by the diffusion checks and the validation study alike."""
    hit = np.abs(np.asarray(rho)) >= level
    return np.where(hit.any(axis=1), hit.argmax(axis=1), never)


def exits(rho: np.ndarray, a: float, b: float) -> tuple[int, int]:
    """``(decided, plus)``: of the paths ``rho`` (shape ``(runs, steps + 1)``), how many leave
    ``(a, b)`` within the recorded steps, and how many of those reach ``b`` first (what
    :func:`splitting_probability` predicts)."""
    rho = np.asarray(rho)
    late = rho.shape[1]
    up = np.where((rho >= b).any(axis=1), (rho >= b).argmax(axis=1), late)
    down = np.where((rho <= a).any(axis=1), (rho <= a).argmax(axis=1), late)
    decided = (up < late) | (down < late)
    return int(decided.sum()), int((up < down).sum())


def censored_quantile(steps: np.ndarray, q: float) -> float:
    """Quantile ``q`` of first-passage steps with ``-1`` = censored (treated as ``+inf``)."""
    x = np.where(steps < 0, np.inf, steps.astype(float))
    v = float(np.quantile(x, q, method="inverted_cdf"))
    return v


def plain_ode_step(problem: Problem, schedule: Schedule, rho0: float, target: float, horizon: int) -> float:
    """First step whose ODE time ``t_k`` reaches the plain-ODE hitting time of ``|rho| = target``
    (``inf`` if never or beyond ``horizon``; ``nan`` when that time cannot be computed, i.e. the
    status of :func:`numerics.time_to_alignment` is not ``"ok"``)."""
    hit = time_to_alignment(problem.model, rho0, target)
    if hit.status != "ok":  # no number rather than a wrong one
        return math.nan
    t = float(hit.time)
    if not math.isfinite(t):
        return math.inf
    times = schedule.times(horizon)
    k = int(np.searchsorted(times, t))
    return float(k) if k <= horizon else math.inf


@dataclass(frozen=True)
class Paths:
    """The diffusion paths of a first passage: ``runs`` of them from ``default_rng(seed)``, up to
    ``horizon`` steps (or until ``stop_fraction`` of them have passed)."""

    runs: int
    seed: int | np.random.SeedSequence | np.random.Generator | None
    horizon: int
    stop_fraction: float | None = None


def passage(problem: Problem, schedule: Schedule, tables: DiffusionTables, target: float, rho0,
            paths: Paths) -> FirstPassage:
    """The first-passage pipeline on validated inputs (``rho0`` a start or ``None`` = uniform).

    ``runs`` starts from ``default_rng(seed)`` (uniform: one Beta draw of size ``runs``),
    paths on the same generator, censored quantiles, and the plain-ODE step from the fixed start
    or from the median of ``|rho0|``.
    """
    runs, seed, horizon, stop_fraction = paths.runs, paths.seed, paths.horizon, paths.stop_fraction
    rng = np.random.default_rng(seed)
    r0 = start_law(problem.d).starts(rng, runs, rho0)
    run = simulate_diffusion(tables, schedule.eta(np.arange(horizon)), r0, level=target, seed=rng,
                             stop_fraction=stop_fraction)
    hits = run.first_passage[0]
    start = float(rho0) if rho0 is not None else float(np.median(np.abs(r0)))
    return FirstPassage(
        float(target), hits, horizon, censored_quantile(hits, 0.5), censored_quantile(hits, 0.1),
        censored_quantile(hits, 0.9), float((hits >= 0).mean()),
        float((run.passage_sign[0] > 0).mean()), plain_ode_step(problem, schedule, start, target, horizon))


def first_passage(problem: Problem, schedule: Schedule, target: float = 0.99, rho0=None, *,
                  horizon: int = 20_000, runs: int = 2000, seed=0,
                  tables: DiffusionTables | None = None) -> FirstPassage:
    """First-passage law of ``|rho| >= target`` under the diffusion.

    ``rho0`` fixed, or ``None`` for uniform starts on the sphere. The plain-ODE step is
    computed from the fixed start, or from the median of ``|rho0|`` for uniform starts
    (signed towards ``+xi``).
    """
    instance("schedule", schedule, Schedule)
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    horizon = integer("horizon", horizon, 1)
    runs = integer("runs", runs, 10)
    tab = tables or diffusion_tables(problem)
    start = None if rho0 is None else real("rho0", rho0, lower=-1.0, upper=1.0)
    return passage(problem, schedule, tab, target, start, Paths(runs, seed, horizon))
