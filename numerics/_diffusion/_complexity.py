"""Sample complexity: first-passage quantiles of one instance and schedule (``sigrec complexity``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core.validate import instance, integer, real
from ...theory import Validity, validity
from .._schedule import Schedule
from .._simulate._driver import Problem
from ._diagnosis import refusal
from ._passage import Paths, passage
from ._route import RoutedTables, routed
from ._tables import DiffusionTables, diffusion_tables, plateau_at

#: bootstrap replicates of a measured law behind a complexity's median range
REPLICATES = 6


@dataclass(frozen=True)
class Complexity:
    """Steps to reach ``|rho| >= target`` for one instance and schedule.

    Attributes
    ----------
    schedule : Schedule
    median_steps, q10_steps, q90_steps : float
        Quantiles of the first-passage step (``inf`` if beyond the horizon).
    plain_ode_steps : float
        Crossing step of the plain limit ODE on the same time axis.
    reached : float
        Fraction of diffusion paths that reached the target within the horizon.
    plateau : float
        Stable zero of ``F_eta`` at the step size of the ``q90`` step (1 when that step is 0).
    plateau_eta : float
        That step size, ``eta`` at the ``q90`` step (the horizon's when ``q90`` is beyond it).
    plateau_note : str
        What the plateau means for this schedule (:func:`plateau_note`): where the iterates settle
        at a constant step; for a decaying one, the plateau at ``plateau_eta``, which rises towards 1
        as the step falls, and from which step on it lies above the target when it does not yet.
    runs, horizon : int
    validity : theory.Validity
        Whether the drift and variance of the diffusion lie where their expansion holds.
    status : {"ok", "refused"}
        ``"refused"`` when a quantile or the plain-ODE step is not a finite number, or the median
        passage is one the diffusion does not model (``numerics._diffusion._diagnosis``).
    reason : str
        Why, and what would give a number (empty when ``status`` is ``"ok"``).
    route : {"expansion", "measured"}
        Which law the diffusion ran on (:func:`numerics.route_tables`).
    median_range : (float, float) or None
        The measured route's Monte Carlo uncertainty: the lowest and highest median over
        :data:`REPLICATES` bootstrap replicates of the measured law, on the same paths (``None``
        for the expansion).
    """

    schedule: Schedule
    median_steps: float
    q10_steps: float
    q90_steps: float
    plain_ode_steps: float
    reached: float
    plateau: float
    runs: int
    horizon: int
    validity: Validity
    status: str
    reason: str
    route: str = "expansion"
    median_range: tuple[float, float] | None = None
    plateau_eta: float = 0.0
    plateau_note: str = ""

    def as_dict(self) -> dict:
        def num(x):
            return None if not math.isfinite(x) else x
        extra = {} if self.median_range is None else {"median_range": [num(x) for x in self.median_range]}
        return {"route": self.route, **extra, "schedule": self.schedule.as_dict(),
                "median_steps": num(self.median_steps),
                "q10_steps": num(self.q10_steps), "q90_steps": num(self.q90_steps),
                "plain_ode_steps": num(self.plain_ode_steps), "reached_fraction": self.reached,
                "plateau": self.plateau, "plateau_eta": self.plateau_eta, "plateau_note": self.plateau_note,
                "runs": self.runs, "horizon": self.horizon,
                "validity": self.validity.as_dict(), "status": self.status, "reason": self.reason}


def check_instance(problem: Problem, rho0):
    """``rho0`` as a float (``None``: uniform starts) after checking ``problem`` and ``rho0``:
    what the diffusion needs of the instance (informative tokens, a start on the sphere)."""
    instance("problem", problem, Problem)
    if rho0 is not None:
        rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    if problem.R < 1:
        raise ValueError("`R` must be >= 1 (the diffusion needs informative tokens)")
    return rho0


def complexity(problem: Problem, schedule: Schedule, rho0=None, target: float = 0.99, *, runs: int = 2000,
               horizon: int = 200_000, seed=0, route: RoutedTables | DiffusionTables | None = None) -> Complexity:
    """Median, 10% and 90% first-passage steps to ``|rho| >= target`` under the diffusion.

    ``rho0`` fixed or ``None`` (uniform starts on the sphere). Paths stop once 90% have
    passed; the horizon caps the run (quantiles beyond it are ``inf``). A result without
    finite numbers, or whose median passage the diffusion does not model, is ``refused`` with
    the reason (:attr:`Complexity.reason`); the reasons read the finite-step drift of
    tables. Bad input raises ``ValueError``. The tables are those of ``route`` (:func:`._route.routed`:
    default :func:`numerics.diffusion_tables`), and for the measured route the median's range over
    bootstrap replicates of the law.
    """
    rho0 = check_instance(problem, rho0)
    instance("schedule", schedule, Schedule)
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    runs = integer("runs", runs, 10)
    horizon = integer("horizon", horizon, 1)
    tab, route = routed(route, lambda: diffusion_tables(problem))
    fp = passage(problem, schedule, tab, target, rho0, Paths(runs, seed, horizon, stop_fraction=0.9))
    spread = None
    if route is not None and route.law is not None:
        medians = [passage(problem, schedule, t, target, rho0, Paths(runs, seed, horizon, 0.5)).median
                   for t in route.replicates(REPLICATES, seed)]
        spread = (float(min(medians)), float(max(medians)))
    eta90 = float(schedule.eta(np.array(fp.q90 if math.isfinite(fp.q90) else horizon)))
    valid = validity(problem.model, problem.d, problem.L, float(schedule.eta(np.zeros(1))[0]), problem.batch)
    why = refusal(problem, schedule, tab, rho0, target, horizon, runs, fp)
    plateau = plateau_at(tab, eta90)
    return Complexity(schedule, fp.median, fp.q10, fp.q90, fp.plain_ode_step, fp.reached, plateau,
                      runs, horizon, valid, "refused" if why else "ok", why,
                      "expansion" if route is None else route.route, spread, eta90,
                      plateau_note(tab, schedule, eta90, plateau, target))


def plateau_note(tables: DiffusionTables, schedule: Schedule, eta: float, plateau: float, target: float) -> str:
    """What the plateau ``plateau`` (the stable zero of the drift at the step ``eta``) means for
    ``schedule`` and ``target``, in one sentence.

    At a constant step the iterates settle around it (a first passage to a target above it is a
    fluctuation). A decaying step moves it up towards 1 as ``eta_k`` falls: the plateau is the one at
    the step of the 90% passage, and where it lies below the target the sentence gives the step size
    at which it reaches the target (bisection of :func:`plateau_at` in ``log eta``) and the step
    ``k`` of the schedule that has it, from which on the iterates stay above the target on average.
    """
    if schedule.kind == "constant" or schedule.power == 0:
        where = ("above" if plateau >= target else "below")
        return (f"the stable zero of the drift at the constant step eta = {eta:.4g}, around which the iterates "
                f"settle; it lies {where} the target {target:g}"
                + ("" if plateau >= target else ": a first passage there is a fluctuation above it"))
    head = (f"the stable zero of the drift at eta_k = {eta:.4g}, the step of the 90% passage; a decaying step "
            f"moves it up towards 1 as eta_k falls")
    if plateau >= target:
        return head + f", and it lies above the target {target:g} there"
    lo, hi = math.log(eta) - 50.0, math.log(eta)  # plateau_at(exp(lo)) >= target > plateau_at(exp(hi))
    if plateau_at(tables, math.exp(lo)) < target:
        return head + f"; it stays below the target {target:g} down to eta = {math.exp(lo):.3g}"
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if plateau_at(tables, math.exp(mid)) >= target else (lo, mid)
    eta_star = math.exp(lo)
    k_star = (schedule.eta0 / eta_star) ** (1.0 / schedule.power) - schedule.k0
    return (head + f"; it is below the target {target:g} there (the first passages are fluctuations above it) "
            f"and reaches it at eta = {eta_star:.3g}, from step k ~ {max(k_star, 0.0):,.0f} of this schedule on")
