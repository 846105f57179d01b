"""The measured route's predictions of the chain experiments the validation runs.

The measured route (:func:`numerics.route_tables` with ``method="measured"``) feeds the
diffusion machinery the exact chain's one-step law, measured by Monte Carlo at the schedule's
own steps. Each experiment of :mod:`._quantities` (the plateau's late window, the decaying
chain's mean, band and first passage, the splitting chain's exits) is predicted here by the same
protocol run on paths of that law (:func:`numerics.simulate_diffusion` on its tables, which step
by the exact step's own draws), so both routes predict the same number of the same chain.

A prediction's standard error joins two Monte Carlo errors: the paths' own (over the paths) and
the law's (the spread of the same prediction over bootstrap replicates of the law, batches of its
runs resampled whole, on the same paths' normals): :func:`numerics.predict_paths`.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from ....numerics import MeasuredLaw, Problem, Schedule, measured_law, route_tables


@lru_cache(maxsize=4)
def decaying_law(problem: Problem, schedule: Schedule, steps: int, seed: int, drift_se: float | None) -> MeasuredLaw:
    """The law of a decaying schedule's largest and smallest step (one Monte Carlo, shared by the
    plateau, whose constant step is the largest, and the decaying chain)."""
    law = route_tables(problem, schedule, steps, method="measured", seed=seed, drift_se=drift_se).law
    assert law is not None  # the measured route always carries its law
    return law


def constant(law: MeasuredLaw) -> MeasuredLaw:
    """The law at its own (largest) step alone: what a constant step at ``law.eta`` reads."""
    return dataclasses.replace(law, low=None)


@lru_cache(maxsize=1)
def constant_law(problem: Problem, eta: float, seed: int, drift_se: float | None) -> MeasuredLaw:
    """The law of a constant step (the splitting chain's)."""
    return measured_law(problem, eta, seed=seed, drift_se=drift_se)


def law_detail(law: MeasuredLaw) -> dict:
    """What a comparison records of the law behind it: :meth:`MeasuredLaw.summary`, keys prefixed
    ``law_``."""
    return {f"law_{k}": v for k, v in law.summary().items()}
