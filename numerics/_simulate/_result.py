"""The recorded trajectories of one simulation: :class:`Simulation`, for every engine.

The state of ``H`` heads on a k-dimensional signal is the overlap matrix ``M = U^T Q``
(``k x H``) with the Gram ``P^T P`` of its out-of-span part ``P = (I - U U^T) Q``; one query on
one signal direction is ``k = H = 1``, ``M = [[rho]]`` and ``P^T P = [[1 - rho^2]]``, and the
scalar accessors (:attr:`Simulation.rho`, :attr:`~Simulation.final_rho`, ...) read that case.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._schedule import Schedule
from ._problem import Problem
from ._stiefel import principal_angles


def record_indices(steps: int, stride: int) -> np.ndarray:
    """Recorded step indices: ``0, stride, 2 stride, ...`` and ``steps``."""
    idx = np.arange(0, steps + 1, stride)
    return idx if idx[-1] == steps else np.append(idx, steps)


@dataclass(frozen=True)
class Simulation:
    """Trajectories of ``runs`` independent runs of the stochastic recursion.

    Attributes
    ----------
    simulator : {"reduced", "full"}
    engine : {"scalar", "subspace"}
        Which kernels ran (docs/design.md section 2; docs/subspace-simulation.md).
    problem : Problem
    schedule : Schedule
    seed : int or None
    steps : int
    record_steps : ndarray of int, shape (n_rec,)
        Indices ``k`` at which the state is recorded (``0``, every ``stride``, and ``steps``).
    times : ndarray, shape (n_rec,)
        ODE times ``t_k = sum_{j<k} eta_j`` of ``record_steps``.
    overlaps : ndarray, shape (runs, n_rec, k, H)
        ``M_k = U^T Q_k`` (``k = H = 1``: ``rho_k = <q_k, xi>``).
    out_gram : ndarray, shape (runs, n_rec, H, H)
        ``P_k^T P_k`` with ``P_k = (I - U U^T) Q_k`` (``= I - M_k^T M_k``; the subspace kernels
        track it to keep it accurate near 0).
    sample_steps : ndarray of int, shape (n_samp,)
        Indices ``k < steps`` at which the step-``k`` sample is recorded.
    noise_mass : ndarray, shape (runs, n_samp, H)
        Attention mass of each head on nuisance tokens of the step-``k`` sample (batch average).
    objective : ndarray, shape (runs, n_samp)
        ``sum_h ||f_{q_h}(X_k)||^2`` (batch average).
    wall_s : float
        Seconds spent in the simulation loop.
    """

    simulator: str
    engine: str
    problem: Problem
    schedule: Schedule
    seed: int | None
    steps: int
    record_steps: np.ndarray
    times: np.ndarray
    overlaps: np.ndarray
    out_gram: np.ndarray
    sample_steps: np.ndarray
    noise_mass: np.ndarray
    objective: np.ndarray
    wall_s: float

    @property
    def runs(self) -> int:
        return self.overlaps.shape[0]

    @property
    def heads(self) -> int:
        return self.overlaps.shape[3]

    @property
    def final_overlaps(self) -> np.ndarray:
        """``M_steps``, shape ``(runs, k, H)``."""
        return self.overlaps[:, -1]

    def principal_angles(self) -> np.ndarray:
        """Principal angles between ``span(Q_k)`` and ``span(U)``, ascending, shape
        ``(runs, n_rec, min(k, H))`` (from :attr:`out_gram`, accurate near 0)."""
        return principal_angles(self.out_gram, self.problem.k)

    # ------------------------------------------------------------ one query, one direction
    @property
    def rho(self) -> np.ndarray:
        """``rho_k = <q_k, xi>``, shape ``(runs, n_rec)``: the state of one query on one signal
        direction (``k = H = 1``; ``ValueError`` otherwise, where the state is :attr:`overlaps`)."""
        if self.overlaps.shape[2:] != (1, 1):
            k, H = self.overlaps.shape[2:]
            raise ValueError(f"`rho` is the alignment of one query on one signal direction; this simulation "
                             f"has k = {k}, H = {H}: read `overlaps` (U^T Q)")
        return self.overlaps[:, :, 0, 0]

    @property
    def final_rho(self) -> np.ndarray:
        """``rho_steps`` for each run, shape ``(runs,)``."""
        return self.rho[:, -1]

    @property
    def initial_rho(self) -> np.ndarray:
        return self.rho[:, 0]

    def fraction_aligned(self, threshold: float) -> float:
        """The fraction of runs that end aligned, ``|rho_steps| >= threshold``."""
        return float(np.mean(np.abs(self.final_rho) >= threshold))

    def rho_at(self, steps) -> np.ndarray:
        """``rho_k`` at recorded step indices ``k`` (:attr:`record_steps`).

        ``steps`` is one index (result shape ``(runs,)``) or an array of indices
        (shape ``(runs,) + steps.shape``). ``ValueError`` names the indices that were
        not recorded (only ``0``, every ``stride`` steps and the last are).
        """
        k = np.asarray(steps)
        if k.dtype.kind not in "iuf":
            raise ValueError(f"`steps` must be step indices, got {steps!r}")
        idx = np.searchsorted(self.record_steps, k)
        found = self.record_steps[np.minimum(idx, self.record_steps.size - 1)] == k
        if not np.all(found):
            missing = np.unique(k[~found]).tolist()
            raise ValueError(f"`steps` must be recorded step indices (0, every `stride` steps and {self.steps}), "
                             f"got unrecorded {missing}")
        return self.rho[:, idx]

    @property
    def sampled_rho(self) -> np.ndarray:
        """``rho_k`` at the :attr:`sample_steps`, shape ``(runs, n_samp)``: the alignment
        at which each recorded sample (``noise_mass``, ``objective``) was drawn."""
        return self.rho_at(self.sample_steps)

    def save(self, path) -> None:
        """Write the trajectories and the configuration to ``path`` (``.npz``): ``overlaps``,
        ``out_gram``, the samples, and ``rho`` for one query on one direction, else the principal
        angles."""
        scalar = {"rho": self.rho} if self.overlaps.shape[2:] == (1, 1) else {
            "principal_angles": self.principal_angles()}
        np.savez_compressed(
            path, **scalar,  # type: ignore[arg-type]  # mypy matches **scalar against allow_pickle: bool too
            overlaps=self.overlaps, out_gram=self.out_gram, record_steps=self.record_steps,
            times=self.times, sample_steps=self.sample_steps, noise_mass=self.noise_mass,
            objective=self.objective, simulator=self.simulator, engine=self.engine,
            seed=-1 if self.seed is None else self.seed,
            **{f"problem_{k}": v for k, v in self.problem.as_dict().items()},
            **{f"schedule_{k}": v for k, v in self.schedule.as_dict().items()},
        )
