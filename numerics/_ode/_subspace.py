"""The limit ODE of the subspace model along a step schedule, and where it ends (docs/subspace.md).

``dM/dt = Gamma - M sym(M^T Gamma)`` (:func:`theory.heads_flow`; one head: ``dr/dt = g - <r, g> r``)
integrated from ``M0`` through the recursion's times ``t_k = sum_{j<k} eta_j`` (segment by
segment with :func:`theory.integrate_heads`), then on to ``t_limit`` or until the speed
``|dM/dt|`` falls to round-off: the equilibrium the limit ODE converges to. Numerical
(scipy LSODA, ``rtol = 1e-10``). :func:`predict_subspace` adds what that end is: for one head the
equilibrium there certified with its stability (:func:`theory.certify_equilibrium`), for several
heads classified numerically (:func:`theory.heads_equilibrium`; no interval certificate for heads
yet). The finite-step (diffusion) corrections of the scalar prediction are derived for one query
on one signal direction only and are not part of this path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...theory import HeadsEquilibrium, Model, SubspaceBox, certify_equilibrium, heads_equilibrium, integrate_heads
from .._schedule import Schedule
from .._simulate._problem import Problem

#: a flow whose speed ``|dM/dt|`` at the end is at most this has settled at an equilibrium
SETTLED_SPEED = 1e-9
#: what the subspace prediction leaves out
NOTE = ("limit ODE only: the finite-step (diffusion) corrections and the band are derived only for k = 1 with "
        "one head (a scalar prior)")


@dataclass(frozen=True)
class SubspacePath:
    """``times`` (n,), ``M`` (n, k, H) on them, and the long-time end: ``M_limit`` (k, H) at time
    ``t_limit`` (or earlier, when the speed fell below ``1e-13``), its ``speed``.

    Attributes
    ----------
    times : ndarray, shape (n,)
        ODE times, increasing from 0 (the recursion's ``t_k``).
    M : ndarray, shape (n, k, H)
        The limit ODE's overlaps ``M(t) = U^T Q(t)`` at :attr:`times` (``M[0]`` is the start ``M0``).
    M_limit : ndarray, shape (k, H)
        The long-time end: ``M`` after integrating on from ``times[-1]`` for a further ``t_limit``, or
        earlier where the speed fell below ``1e-13``.
    t_limit : float
        The ODE time requested for that last integration (not where it stopped).
    speed : float
        ``|dM/dt|`` (Frobenius norm) at :attr:`M_limit`; at most :data:`SETTLED_SPEED` when the flow
        has settled at an equilibrium.
    """

    times: np.ndarray
    M: np.ndarray
    M_limit: np.ndarray
    t_limit: float
    speed: float


def subspace_path(model: Model, M0, times, t_limit: float = 1e5) -> SubspacePath:
    """Integrate the reduced flow from ``M0`` (``k x H``, operator norm ``<= 1``) through the
    increasing ``times`` (starting at 0), then to ``t_limit`` (module doc)."""
    times = np.asarray(times, dtype=float)
    if times.ndim != 1 or times.size < 1 or times[0] != 0 or np.any(np.diff(times) < 0):
        raise ValueError("`times` must be an increasing sequence starting at 0")
    M = np.array(M0, dtype=float)
    out = [M]
    for dt in np.diff(times):
        if dt > 0:
            M = integrate_heads(model, M, t_max=float(dt)).M
        out.append(M)
    end = integrate_heads(model, M, t_max=float(t_limit))
    return SubspacePath(times, np.array(out), end.M, float(t_limit), end.speed)


@dataclass(frozen=True)
class SubspacePrediction:
    """The limit ODE of the overlaps along a schedule and the equilibrium it settles at.

    Attributes
    ----------
    problem : Problem
    schedule : Schedule
    M0 : ndarray (k, H)
        The start ``U^T Q_0``.
    step, time : ndarray (n,)
        Iterations ``0, S, 2S, ..., K`` and their ODE times ``t_k``.
    path : SubspacePath
        ``M`` on those times and the long-time end.
    settled : bool
        The speed at the end is at most :data:`SETTLED_SPEED`.
    equilibrium : SubspaceBox or HeadsEquilibrium or None
        The equilibrium at the end: certified (one head, a Krawczyk box) or numerical (several
        heads); ``None`` when the flow has not settled or the end could not be certified.
    reason : str
        Why there is no equilibrium (empty when there is one, or when the flow has not settled).
    note : str
        What the prediction leaves out (:data:`NOTE`).
    """

    problem: Problem
    schedule: Schedule
    M0: np.ndarray
    step: np.ndarray
    time: np.ndarray
    path: SubspacePath
    settled: bool
    equilibrium: SubspaceBox | HeadsEquilibrium | None
    reason: str = ""
    note: str = NOTE

    def distance(self) -> float:
        """Distance from the end of the flow to the middle of the certified box (one head;
        ``nan`` without a box)."""
        box = self.equilibrium
        if not isinstance(box, SubspaceBox) or not box.box:
            return float("nan")
        mid = np.array([(lo + hi) / 2 for lo, hi in box.bounds()])
        return float(np.linalg.norm(mid - self.path.M_limit[:, 0]))


def predict_subspace(problem: Problem, schedule: Schedule, steps: int, M0, stride: int = 1) -> SubspacePrediction:
    """The limit ODE of the overlaps from ``M0`` at iterations ``0, S, ..., steps`` and its end
    (module doc). ``M0`` is validated by the caller (:func:`numerics.predict`)."""
    model = problem.model
    M0 = np.array(M0, dtype=float).reshape(model.k, model.heads)
    step = np.unique(np.append(np.arange(0, steps, stride), steps))
    time = schedule.times(steps)[step]
    path = subspace_path(model, M0, time)
    settled = path.speed <= SETTLED_SPEED
    equilibrium: SubspaceBox | HeadsEquilibrium | None = None
    reason = ""
    if settled and model.heads == 1:
        try:
            equilibrium = certify_equilibrium(model, path.M_limit[:, 0], prec=128)
        except ValueError as exc:  # theta = 0 (every r an equilibrium), or the end is no equilibrium
            reason = str(exc)
    elif settled:
        equilibrium = heads_equilibrium(model, path.M_limit)
    return SubspacePrediction(problem, schedule, M0, step, time, path, settled, equilibrium, reason)
