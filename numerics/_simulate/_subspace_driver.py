"""Driver of the subspace simulators (k signal directions, ``H`` heads): validation, recording, result.

The recursion (docs/subspace-simulation.md), for ``t = 0 .. steps - 1``::

    Q_{t+1} = retract(Q_t + eta_t Xi_t),   Xi_t = G_t - Q_t sym(Q_t^T G_t),
    G_t = (1/B) sum_b grad_Q sum_h ||f_{q_h}(X_{t,b})||^2,   retract(A) = A (A^T A)^{-1/2},

with a fresh token collection for every step and batch member. A kernel
(:class:`numerics._simulate._subspace_full.SubspaceFullKernel`,
:class:`numerics._simulate._subspace_reduced.SubspaceReducedKernel`) provides ``overlaps``
(``M = U^T Q``, shape ``(runs, k, H)``), ``out_gram`` (``P^T P``, ``(runs, H, H)``) and
``step(eta) -> (noise_mass (runs, H), objective (runs,))``; this module validates the inputs
once, builds the starts and the kernel, runs the loop and records, as
:mod:`numerics._simulate._driver` does for the scalar chain.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...core.validate import choice, counts, instance, integer
from ...theory import SubspaceModel
from .._schedule import Schedule
from ._driver import SIMULATORS, record_indices, single_threaded_blas
from ._init import spawn_generators
from ._stiefel import fixed_frames, principal_angles, retract, symmetrize, uniform_frames
from ._subspace_full import SubspaceFullKernel
from ._subspace_reduced import SubspaceReducedKernel


@dataclass(frozen=True, init=False)
class SubspaceProblem:
    """A finite instance of the subspace model: the limit :class:`theory.SubspaceModel`
    (``alpha = R / L``) and what only a finite instance has (``R``, ``L``, ``d``, ``batch``).

    Parameters
    ----------
    law : str or theory.SubspaceLaw
        Law of ``s`` in ``R^k`` (``"onehot(k=2)"``, ``"gaussian(k=2, tau=1)"``, any scalar prior).
    theta : float
        Signal strength ``>= 0``.
    R : int
        Informative tokens, ``1 <= R <= L`` (the subspace model has no sparse limit).
    L : int
        Tokens, ``L >= 1``.
    d : int
        Dimension, ``d >= k + 1``.
    beta, sigma2 : float
        Inverse temperature ``> 0``, noise variance ``> 0``.
    batch : int
        Mini-batch size ``B >= 1``.
    """

    model: SubspaceModel
    R: int
    L: int
    d: int
    batch: int = 1

    def __init__(self, law, theta, R, L, d, beta=1.0, sigma2=1.0, batch=1):
        R, L = counts(R, L)
        R = integer("R", R, 1)
        model = SubspaceModel(law, theta=theta, alpha=R / L, beta=beta, sigma2=sigma2)
        values = dict(model=model, R=R, L=L, d=integer("d", d, model.k + 1), batch=integer("batch", batch, 1))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_model(cls, model: SubspaceModel, L: int, d: int, batch: int = 1) -> SubspaceProblem:
        """The instance of ``model`` with ``L`` tokens, ``R = alpha L`` of them informative
        (``alpha L`` must be an integer up to rounding)."""
        instance("model", model, SubspaceModel, "theory.SubspaceModel")
        L = integer("L", L, 1)
        R = round(model.alpha * L)
        if abs(R - model.alpha * L) > 1e-9 * L:
            raise ValueError(f"`L` must make alpha L an integer (alpha = {model.alpha}), got L = {L}")
        return cls(model.law, model.theta, R, L, d, model.beta, model.sigma2, batch)

    law = property(lambda self: self.model.law, doc="the :class:`theory.SubspaceLaw` (of :attr:`model`)")
    k = property(lambda self: self.model.k, doc="dimension of the signal subspace")
    theta = property(lambda self: self.model.theta, doc="signal strength (of :attr:`model`)")
    beta = property(lambda self: self.model.beta, doc="inverse temperature (of :attr:`model`)")
    sigma2 = property(lambda self: self.model.sigma2, doc="noise variance (of :attr:`model`)")

    def as_dict(self) -> dict:
        return {"law": self.law.spec, "theta": self.theta, "R": self.R, "L": self.L, "d": self.d,
                "beta": self.beta, "sigma2": self.sigma2, "batch": self.batch}


@dataclass(frozen=True)
class SubspaceSimulation:
    """The recorded states and samples of the ``H``-head recursion, one row per independent run.

    Attributes
    ----------
    simulator : {"reduced", "full"}
        Which kernel produced them.
    problem : SubspaceProblem
    schedule : Schedule
    heads : int
    seed : int or None
    steps : int
    record_steps : ndarray of int, shape (n_rec,)
        Recorded step indices (``0``, every ``stride``, and ``steps``).
    times : ndarray, shape (n_rec,)
        ODE times ``sum_{j<t} eta_j``.
    overlaps : ndarray, shape (runs, n_rec, k, H)
        ``M_t = U^T Q_t``.
    out_gram : ndarray, shape (runs, n_rec, H, H)
        ``P_t^T P_t`` with ``P_t = (I - U U^T) Q_t`` (``= I - M_t^T M_t``).
    sample_steps : ndarray of int, shape (n_samp,)
    noise_mass : ndarray, shape (runs, n_samp, H)
        Attention mass of each head on nuisance tokens (batch average).
    objective : ndarray, shape (runs, n_samp)
        ``sum_h ||f_{q_h}(X)||^2`` (batch average).
    wall_s : float
        Seconds spent in the simulation loop.
    """

    simulator: str
    problem: SubspaceProblem
    schedule: Schedule
    heads: int
    seed: object
    steps: int
    record_steps: np.ndarray
    times: np.ndarray
    overlaps: np.ndarray
    out_gram: np.ndarray
    sample_steps: np.ndarray
    noise_mass: np.ndarray
    objective: np.ndarray
    wall_s: float

    def principal_angles(self) -> np.ndarray:
        """Principal angles between ``span(Q_t)`` and ``span(U)``, ascending, shape
        ``(runs, n_rec, min(k, H))`` (from :attr:`out_gram`, accurate near 0)."""
        return principal_angles(self.out_gram, self.problem.k)

    @property
    def final_overlaps(self) -> np.ndarray:
        """``M_steps``, shape ``(runs, k, H)``."""
        return self.overlaps[:, -1]

    runs = property(lambda self: self.overlaps.shape[0], doc="number of runs")


def _starts(generators, problem, heads, M0):
    """``(Q_0 or None, M_0, P_0^T P_0)``: uniform frames, or the fixed overlaps ``M0``."""
    runs, d, k = len(generators), problem.d, problem.k
    if M0 is None:
        G, M, P = uniform_frames(generators, d, k, heads)
        return G, M, P
    M = np.broadcast_to(M0, (runs, k, heads)).copy()
    P = np.broadcast_to(symmetrize(np.eye(heads) - M0.T @ M0), (runs, heads, heads)).copy()
    return None, M, P


def _overlaps(name: str, value, k: int, H: int) -> np.ndarray:
    """``M0`` as a (k, H) float array of operator norm <= 1."""
    try:
        M = np.array(value, dtype=float).reshape(k, H) if np.size(value) == k * H else None
    except (TypeError, ValueError):
        M = None
    if M is None or not np.all(np.isfinite(M)):
        raise ValueError(f"`{name}` must be {k * H} finite numbers (a k x H = {k} x {H} matrix), got {value!r}")
    norm = float(np.linalg.norm(M, 2))
    if norm > 1.0 + 1e-12:
        raise ValueError(f"`{name}` must have operator norm <= 1 (U^T Q for an orthonormal Q), got {norm:.6g}")
    return M


def simulate_subspace(problem: SubspaceProblem, schedule: Schedule, *, heads: int = 1, steps: int, runs: int,
                      simulator: str = "reduced", M0=None, seed=None, stride: int = 1) -> SubspaceSimulation:
    """Run ``runs`` independent copies of Riemannian SGA for ``heads`` queries on the Stiefel manifold.

    Parameters
    ----------
    problem : SubspaceProblem
    schedule : Schedule
    heads : int
        Number of heads ``H >= 1`` (``problem.d >= k + H``; the reduced simulator needs
        ``d >= k + 2 H``).
    steps, runs : int
        ``>= 1``.
    simulator : {"reduced", "full"}
        ``"full"``: the ``d``-dimensional recursion (:mod:`numerics._simulate._subspace_full`);
        ``"reduced"``: the exact reduced chain of :mod:`numerics._simulate._subspace_reduced` (same law
        of ``M_t``, cost independent of ``d``).
    M0 : array_like (k, H), optional
        Fixed start overlaps ``U^T Q_0`` (operator norm ``<= 1``); default: ``Q_0`` uniform on
        the Stiefel manifold (the same draws in both simulators, so they share their starts).
    seed : int, optional
        Seed of ``SeedSequence(seed).spawn(runs)`` (run ``i`` draws only from child ``i``).
    stride : int
        Record every ``stride`` steps (and the last).
    """
    instance("problem", problem, SubspaceProblem)
    instance("schedule", schedule, Schedule)
    choice("simulator", simulator, SIMULATORS)
    k = problem.k
    heads = integer("heads", heads, 1, problem.d - k)
    if simulator == "reduced" and problem.d < k + 2 * heads:
        raise ValueError(f"`d` must be >= k + 2 heads = {k + 2 * heads} for the reduced simulator, got "
                         f"{problem.d} (use simulator='full')")
    steps, runs, stride = integer("steps", steps, 1), integer("runs", runs, 1), integer("stride", stride, 1)
    if M0 is not None:
        M0 = _overlaps("M0", M0, k, heads)
    if seed is not None:
        seed = integer("seed", seed, 0)
    record = record_indices(steps, stride)
    etas = schedule.eta(np.arange(steps))
    gens = spawn_generators(seed, runs)
    G, M, P = _starts(gens, problem, heads, M0)
    if simulator == "full":
        Q0 = fixed_frames(gens, problem.d, M0) if G is None else retract(G)
        kernel = SubspaceFullKernel(problem, gens, Q0)
    else:
        kernel = SubspaceReducedKernel(problem, gens, M, P)
    samples = record[record < steps]
    over = np.empty((runs, record.size, k, heads))
    grams = np.empty((runs, record.size, heads, heads))
    nuisance = np.empty((runs, samples.size, heads))
    obj = np.empty((runs, samples.size))
    sampled = {int(t): i for i, t in enumerate(samples)}  # step -> column of the samples
    recorded = {int(t): i for i, t in enumerate(record)}  # step -> column of the states
    over[:, 0], grams[:, 0] = kernel.overlaps, kernel.out_gram
    with single_threaded_blas():
        t0 = time.perf_counter()
        for t, eta in enumerate(etas.tolist()):
            nm, ob = kernel.step(eta)
            if t in sampled:
                nuisance[:, sampled[t]], obj[:, sampled[t]] = nm, ob
            if t + 1 in recorded:
                over[:, recorded[t + 1]], grams[:, recorded[t + 1]] = kernel.overlaps, kernel.out_gram
        wall = time.perf_counter() - t0
    times = schedule.times(steps)[record]
    return SubspaceSimulation(simulator, problem, schedule, heads, seed, steps, record, times, over, grams,
                              samples, nuisance, obj, wall)

