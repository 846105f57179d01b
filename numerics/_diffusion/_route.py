"""Which law feeds the diffusion: the ``O(eta)`` expansion or the exact chain's measured one-step law.

Every prediction of the diffusion machinery (band, first passage, complexity, splitting, the
plateau) reads a :class:`._tables.DiffusionTables`. :func:`route_tables` says which:

* ``"expansion"``: the derived ``A - eta B`` and ``Sigma`` (:func:`._tables.diffusion_tables`),
  accurate inside the stated validity of the expansion (:func:`theory.validity`);
* ``"measured"``: the exact chain's one-step drift and variance at the schedule's own steps
  (:func:`._measured.measured_law`; a decaying schedule is measured at its largest and smallest
  step from the same draws, the drift taken linear in ``eta`` between them), with Monte Carlo
  errors: the right answer outside that validity, at the cost of a Monte Carlo of the exact
  step (seconds at ``L = 10^4``);
* ``"auto"`` (the default): the expansion inside its validity, the measured law outside.

The result says which route produced the tables and why (:attr:`RoutedTables.reason`), and for
the measured route carries the law itself, whose bootstrap replicates
(:meth:`RoutedTables.replicates`) give any prediction its Monte Carlo uncertainty;
:func:`predict_paths` reads a prediction off the law's paths with both of its errors (the paths'
own and the law's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...core.validate import instance, integer
from ...theory import Validity, validity
from .._schedule import Schedule
from .._simulate._problem import Problem
from ._measured import MeasuredLaw, MeasureOptions, measured_law
from ._paths import simulate_diffusion
from ._tables import DiffusionTables, diffusion_tables

#: the routes a caller may ask for
METHODS = ("auto", "expansion", "measured")
#: bootstrap replicates of the law behind a prediction's law error (:func:`predict_paths`)
REPLICATES = 8
#: a decaying schedule is measured down to this fraction of its largest step at least (below it
#: the drift is its small-step limit within the measured error: the step enters as ``eta B``)
SMALLEST_STEP_FRACTION = 1e-3


@dataclass(frozen=True)
class RoutedTables:
    """The diffusion tables of one route and why that route (module docstring).

    Attributes
    ----------
    route : {"expansion", "measured"}
    method : {"auto", "expansion", "measured"}
        What was asked for.
    tables : DiffusionTables
    validity : Validity
        The expansion's validity at the schedule's largest step (what ``auto`` decides on).
    reason : str
        Why this route, in one sentence.
    law : MeasuredLaw or None
        The measured law (``route == "measured"``).
    """

    route: str
    method: str
    tables: DiffusionTables = field(repr=False)
    validity: Validity
    reason: str
    law: MeasuredLaw | None = field(default=None, repr=False)

    def replicates(self, count: int = 8, seed: int = 0) -> list[DiffusionTables]:
        """``count`` bootstrap replicates of the measured tables (batches of runs resampled whole,
        :meth:`MeasuredLaw.resample`); empty for the expansion, which has no Monte Carlo error."""
        if self.law is None:
            return []
        rng = np.random.default_rng(seed)
        return [self.law.resample(rng).tables() for _ in range(integer("count", count, 1))]

    def as_dict(self) -> dict:
        """The route, its reason and validity, and (measured route only) ``"measured"``: the law's steps,
        points, draws and errors (keys absent, not null, where they do not apply)."""
        out = {"route": self.route, "method": self.method, "reason": self.reason, "validity": self.validity.as_dict()}
        if self.law is not None:
            out["measured"] = self.law.summary()
        return out


def routed(route, default: Callable[[], DiffusionTables]) -> tuple[DiffusionTables, RoutedTables | None]:
    """The tables a ``route`` argument names, and the route if it is one: a :class:`RoutedTables`
    (its tables), a :class:`._tables.DiffusionTables` (themselves) or ``None`` (``default()``)."""
    if route is None:
        return default(), None
    if isinstance(route, DiffusionTables):
        return route, None
    instance("route", route, RoutedTables)
    return route.tables, route


def schedule_steps(schedule: Schedule, steps: int) -> tuple[float, float | None]:
    """The largest step of the first ``steps`` and, if the schedule decays, the smallest (at least
    :data:`SMALLEST_STEP_FRACTION` of the largest); ``None`` for a constant step."""
    ends = schedule.eta(np.array([0, steps - 1]))
    hi, lo = float(np.max(ends)), float(np.min(ends))
    if lo >= hi * (1 - 1e-12):
        return hi, None
    return hi, max(lo, SMALLEST_STEP_FRACTION * hi)


def route_tables(problem: Problem, schedule: Schedule, steps: int, *, method: str = "auto",
                 drift_se: float | None = None, seed: int = 0, workers: int = 1) -> RoutedTables:
    """The diffusion tables for ``problem`` under ``schedule`` over ``steps`` steps, by ``method``.

    Parameters
    ----------
    problem : Problem
        One query on one signal direction, ``R >= 1``.
    schedule : Schedule
    steps : int
        The steps the prediction covers (the horizon): the measured law spans their step sizes.
    method : {"auto", "expansion", "measured"}
        Module docstring.
    drift_se : float, optional
        The measured drift's requested standard error (:func:`measured_law`; default 0.02).
    seed, workers : int
        Of the measured law's Monte Carlo.
    """
    instance("problem", problem, Problem)
    instance("schedule", schedule, Schedule)
    steps = integer("steps", steps, 1)
    if method not in METHODS:
        raise ValueError(f"`method` must be one of {', '.join(METHODS)}, got {method!r}")
    eta_hi, eta_lo = schedule_steps(schedule, steps)
    measurable = math.isfinite(eta_hi) and 0 < eta_hi <= 1
    if method == "measured" and not measurable:
        raise ValueError(f"`eta0`, `k0`, `power`: the measured law needs steps in (0, 1], the largest is {eta_hi:.3g}")
    valid = validity(problem.model, problem.d, problem.L, eta_hi, problem.batch)
    route = method if method != "auto" else ("expansion" if valid.inside or not measurable else "measured")
    if route == "expansion":
        why = ("asked for" if method == "expansion" else "auto: the expansion is") + f" {valid.message}"
        if method == "auto" and not valid.inside:
            why = (f"auto: the measured law needs steps in (0, 1] and the largest is {eta_hi:.3g}, so the expansion, "
                   f"which is {valid.message}")
        return RoutedTables("expansion", method, diffusion_tables(problem), valid, why)
    law = measured_law(problem, eta_hi, eta_low=eta_lo, drift_se=drift_se, seed=seed,
                       options=MeasureOptions(workers=workers))
    why = "asked for" if method == "measured" else "auto: the expansion is " + valid.message
    return RoutedTables("measured", method, law.tables(), valid, why, law)


@dataclass(frozen=True)
class PathPrediction:
    """A prediction read off paths of a measured law, with its two Monte Carlo errors.

    Attributes
    ----------
    value : ndarray
        What the paths of the law give, one entry per predicted number.
    path_se : ndarray
        The paths' own Monte Carlo error (as ``read`` reports it).
    law_se : ndarray
        The standard deviation of the same prediction over bootstrap replicates of the law
        (:meth:`MeasuredLaw.resample`), run on the same paths' normals.
    """

    value: np.ndarray
    path_se: np.ndarray
    law_se: np.ndarray

    def se(self, j: int) -> float:
        """The joint standard error of entry ``j``."""
        return float(math.hypot(self.path_se[j], self.law_se[j]))


def predict_paths(law: MeasuredLaw, etas, rho0: float, runs: int, seed: int,
                  read: Callable[[np.ndarray], tuple], replicates: int = REPLICATES) -> PathPrediction:
    """``read(paths)`` (values and their path errors) on ``runs`` paths of ``law`` from ``rho0`` under
    the steps ``etas``, recorded at every step (array ``(runs, len(etas) + 1)``); the law error from
    ``replicates`` bootstrap replicates of ``law`` run on the same normals (common random numbers,
    so the spread is the law's alone)."""
    etas = np.asarray(etas, dtype=float)
    replicates = integer("replicates", replicates, 2)

    def run(tables) -> np.ndarray:
        return simulate_diffusion(tables, etas, np.full(runs, rho0), stride=1, seed=seed).rho[0]

    value, path_se = read(run(law.tables()))
    rng = np.random.default_rng(seed)
    reps = np.array([read(run(law.resample(rng).tables()))[0] for _ in range(replicates)])
    return PathPrediction(np.asarray(value, float), np.asarray(path_se, float), reps.std(axis=0, ddof=1))
