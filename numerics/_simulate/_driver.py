"""Driver shared by the full and the reduced simulator: validation, recording, result.

The recursion (docs/design.md section 1), for ``k = 0 .. steps - 1``::

    q_{k+1} = normalize(q_k + eta_k * P_{q_k} (1/B) sum_b grad_q ||f_{q_k}(X_{k,b})||^2)

with a fresh token collection ``X_{k,b}`` for every step and batch member. A
simulator module provides a *kernel* with ``rho`` (current alignments, shape
``(runs,)``) and ``step(eta) -> (noise_mass, objective)`` (batch averages of the
sample at ``q_k``, shape ``(runs,)``: the attention mass on nuisance tokens and
``||f_{q_k}(X)||^2``); this module validates the inputs once, builds the kernel, runs
the loop and records.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from ...core.validate import choice, counts, instance, integer, real
from ...theory import Model
from .._parallel._executor import current_executor
from .._schedule import Schedule
from ._full import FullKernel
from ._init import initial_rho, spawn_generators
from ._reduced_chunks import CHUNK

SIMULATORS = ("reduced", "full")
#: above this many tokens the reduced simulator processes them in chunks of
#: ``_reduced_chunks.CHUNK`` (memory independent of ``L``); at or below it it holds them all
#: (a few per cent faster per token at d >= 3, as fast at d = 2: docs/guide/bench.md)
LONG_CONTEXT = 2**16


def reduced_kernel(L: int):
    """The reduced simulator's kernel class for ``L`` tokens (:data:`LONG_CONTEXT`): the compiled
    kernels of :mod:`._fused` (numba, imported here on first use: 0.4 s), all tokens at once up
    to it, in chunks beyond it. The numpy kernels they derive from
    (:class:`._reduced.ReducedKernel`, :class:`._reduced_chunks.ChunkedReducedKernel`) are the
    references they are tested against."""
    from ._fused import FusedChunkedKernel, FusedReducedKernel

    return FusedChunkedKernel if L > LONG_CONTEXT else FusedReducedKernel


def kernel_floats(simulator: str, L: int, d: int) -> int:
    """Floats per run the simulator's kernel holds: ``L d`` (full), ``4 L`` (reduced, up to
    :data:`LONG_CONTEXT` tokens: one buffer of ``rows + 1 <= 4`` rows of ``L``, shared by a block's
    runs, so ``4 L`` bounds it per run) or ``2 CHUNK`` (reduced in chunks: one buffer of nine rows of
    ``CHUNK`` and one of the last, shorter chunk, shared by a block's runs; ``2 CHUNK`` per run
    bounds them from nine runs on, and a run's own state is a few floats)."""
    if simulator == "full":
        return L * d
    return 4 * L if L <= LONG_CONTEXT else 2 * CHUNK


def single_threaded_blas():
    """Context limiting BLAS to one thread (``threadpoolctl``), else a no-op.

    The batched products of the simulators are small per run (``(rows, L) @ (L,)``);
    multi-threaded OpenBLAS gains nothing there and loses up to 5x when the other
    cores are busy (threads spin-wait for each other), which made throughput depend
    on the machine's load.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional dependency
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


@dataclass(frozen=True, init=False)
class Problem:
    """A finite-size instance of the model of docs/design.md section 1: the limit
    :class:`theory.Model` (``alpha = R / L``) and what only a finite instance has.

    Parameters
    ----------
    theta : float
        Signal strength ``>= 0``.
    R : int
        Number of informative tokens, ``0 <= R <= L``.
    L : int
        Number of tokens, ``L >= 1``.
    d : int
        Dimension, ``d >= 2``.
    beta : float
        Inverse temperature ``> 0``.
    sigma2 : float
        Noise variance ``> 0``.
    prior : str or theory.Prior
        Signal prior (``"fixed"``, ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``,
        ...; see :mod:`theory._laws`), held parsed by the model.
    batch : int
        Mini-batch size ``B >= 1`` (token collections averaged per step).

    ``theta``, ``beta``, ``sigma2`` and ``prior`` are read from :attr:`model`, which
    validates them; ``R``, ``L`` are checked by :func:`core.validate.counts`.
    """

    model: Model
    R: int
    L: int
    d: int
    batch: int = 1

    def __init__(self, theta, R, L, d, beta=1.0, sigma2=1.0, prior="fixed", batch=1):
        R, L = counts(R, L)
        model = Model(theta=theta, alpha=R / L, beta=beta, sigma2=sigma2, prior=prior)
        values = dict(model=model, R=R, L=L, d=integer("d", d, 2), batch=integer("batch", batch, 1))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    theta = property(lambda self: self.model.theta, doc="signal strength (of :attr:`model`)")
    beta = property(lambda self: self.model.beta, doc="inverse temperature (of :attr:`model`)")
    sigma2 = property(lambda self: self.model.sigma2, doc="noise variance (of :attr:`model`)")
    prior = property(lambda self: self.model.prior, doc="the :class:`theory.Prior` (of :attr:`model`)")

    def as_dict(self) -> dict:
        return {"theta": self.theta, "R": self.R, "L": self.L, "d": self.d, "beta": self.beta,
                "sigma2": self.sigma2, "prior": self.prior.spec, "batch": self.batch}


@dataclass(frozen=True)
class Simulation:
    """Trajectories of ``runs`` independent runs of the stochastic recursion.

    Attributes
    ----------
    simulator : {"reduced", "full"}
    problem : Problem
    schedule : Schedule
    seed : int or None
    steps : int
    record_steps : ndarray of int, shape (n_rec,)
        Indices ``k`` at which ``rho_k`` is recorded (``0``, every ``stride``, and ``steps``).
    times : ndarray, shape (n_rec,)
        ODE times ``t_k = sum_{j<k} eta_j`` of ``record_steps``.
    rho : ndarray, shape (runs, n_rec)
        ``rho_k = <q_k, xi>``.
    sample_steps : ndarray of int, shape (n_samp,)
        Indices ``k < steps`` at which the step-``k`` sample is recorded.
    noise_mass : ndarray, shape (runs, n_samp)
        Attention mass on nuisance tokens of the step-``k`` sample (batch average).
    objective : ndarray, shape (runs, n_samp)
        ``||f_{q_k}(X_k)||^2`` (batch average).
    wall_s : float
        Seconds spent in the simulation loop.
    """

    simulator: str
    problem: Problem
    schedule: Schedule
    seed: object
    steps: int
    record_steps: np.ndarray
    times: np.ndarray
    rho: np.ndarray
    sample_steps: np.ndarray
    noise_mass: np.ndarray
    objective: np.ndarray
    wall_s: float

    @property
    def runs(self) -> int:
        return self.rho.shape[0]

    @property
    def final_rho(self) -> np.ndarray:
        """``rho_steps`` for each run, shape ``(runs,)``."""
        return self.rho[:, -1]

    @property
    def initial_rho(self) -> np.ndarray:
        return self.rho[:, 0]

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
        """Write the trajectories and the configuration to ``path`` (``.npz``)."""
        np.savez_compressed(
            path, rho=self.rho, record_steps=self.record_steps, times=self.times,
            sample_steps=self.sample_steps, noise_mass=self.noise_mass, objective=self.objective,
            simulator=self.simulator, seed=-1 if self.seed is None else self.seed,
            **{f"problem_{k}": v for k, v in self.problem.as_dict().items()},
            **{f"schedule_{k}": v for k, v in self.schedule.as_dict().items()},
        )


def record_indices(steps: int, stride: int) -> np.ndarray:
    """Recorded step indices: ``0, stride, 2 stride, ...`` and ``steps``."""
    idx = np.arange(0, steps + 1, stride)
    return idx if idx[-1] == steps else np.append(idx, steps)


class _Stops:
    """Runs stopped on leaving ``(a, b)`` (``simulate(stop_outside=(a, b))``): which are still
    alive, and the value each stopped one keeps."""

    def __init__(self, interval, kernel):
        self.a, self.b = interval
        self.kernel = kernel
        self.alive = np.ones(kernel.rho.shape, bool)
        self.kept = np.zeros(kernel.rho.shape)
        self.update()

    def update(self) -> np.ndarray:
        """The current alignments, stopped runs at their kept value; newly outside runs stop."""
        r = np.where(self.alive, self.kernel.rho, self.kept)
        out = self.alive & ((r <= self.a) | (r >= self.b))
        if out.any():
            self.kept[out] = r[out]
            self.alive &= ~out
            if hasattr(self.kernel, "retire"):  # the reduced kernels: no more draws for them
                self.kernel.retire(np.flatnonzero(out))
        return r


def _run_block(problem, simulator, seed, runs, lo, hi, rho0, etas, record, progress, stop=None):
    """Runs ``lo..hi-1`` of ``runs`` (streams ``SeedSequence(seed).spawn(runs)[lo:hi]``);
    ``stop = (a, b)``: see ``simulate(stop_outside=...)``."""
    gens = spawn_generators(seed, runs)[lo:hi]
    start = initial_rho(gens, problem.d, rho0)
    Kernel = FullKernel if simulator == "full" else reduced_kernel(problem.L)
    kernel = Kernel(problem, gens, start)
    steps = etas.size
    samples = record[record < steps]
    n = hi - lo
    rho = np.empty((n, record.size))
    nuisance = np.empty((n, samples.size))
    obj = np.empty((n, samples.size))
    stops = None if stop is None else _Stops(stop, kernel)
    rho[:, 0] = kernel.rho if stops is None else stops.update()
    rec_i = samp_i = 0
    with single_threaded_blas():
        t0 = time.perf_counter()
        for k in range(steps):
            if stops is not None and not stops.alive.any():  # every run has stopped: the rest is known
                rho[:, rec_i + 1:] = stops.kept[:, None]
                nuisance[:, samp_i:] = obj[:, samp_i:] = np.nan
                if progress is not None:
                    progress(steps)
                break
            alive = None if stops is None else stops.alive.copy()
            nm, ob = kernel.step(float(etas[k]))
            if samp_i < samples.size and samples[samp_i] == k:
                if alive is not None:  # a stopped run has no sample
                    nm, ob = np.where(alive, nm, np.nan), np.where(alive, ob, np.nan)
                nuisance[:, samp_i], obj[:, samp_i] = nm, ob
                samp_i += 1
            current = kernel.rho if stops is None else stops.update()
            if record[rec_i + 1] == k + 1:
                rec_i += 1
                rho[:, rec_i] = current
            if progress is not None:
                progress(k + 1)
        wall = time.perf_counter() - t0
    return rho, nuisance, obj, wall


@dataclass(frozen=True)
class _Block:
    """One unit of work: runs ``lo..hi-1`` of ``runs`` (picklable, pure)."""

    problem: Problem
    simulator: str
    seed: int
    runs: int
    lo: int
    hi: int
    rho0: object
    etas: np.ndarray
    record: np.ndarray
    stop: tuple | None = None


def _run_unit(b: _Block):
    return _run_block(b.problem, b.simulator, b.seed, b.runs, b.lo, b.hi, b.rho0, b.etas, b.record, None, b.stop)


def simulate(problem: Problem, schedule: Schedule, *, steps: int, runs: int, simulator: str = "reduced",
             rho0=None, seed=None, stride: int = 1, progress=None, workers: int = 1,
             stop_outside: tuple[float, float] | None = None) -> Simulation:
    """Run ``runs`` independent copies of the projected stochastic gradient ascent.

    Parameters
    ----------
    problem : Problem
    schedule : Schedule
    steps : int
        Number of steps ``>= 1``.
    runs : int
        Number of independent runs ``>= 1``.
    simulator : {"reduced", "full"}
        ``"full"``: the ``d``-dimensional recursion; ``"reduced"``: the exact
        reduced chain of docs/design.md section 2 (same law of ``rho_k``; above
        :data:`LONG_CONTEXT` tokens it processes them in chunks, memory independent of ``L``).
    rho0 : float, optional
        Fixed start in ``[-1, 1]``; default: ``q_0`` uniform on the sphere.
    seed : int, optional
        Seed of ``SeedSequence(seed).spawn(runs)``.
    stride : int
        Record every ``stride`` steps (and the last).
    progress : callable, optional
        Called as ``progress(k)`` after step ``k`` (1-based) for progress display
        (on a cluster: after each block of runs, with ``k`` the finished share of
        ``steps``).
    workers : int
        Without an enclosing :func:`sigrec.numerics.executor` block, split the runs
        into blocks simulated on the process-wide local ``dask.distributed`` cluster
        of this many workers (started once, then reused); inside such a block, on
        its executor (docs/design.md section 8). Run ``i`` still draws only from the
        ``i``-th child of ``SeedSequence(seed)``, so the result is bit-identical to
        ``workers = 1`` on any cluster (a seed is required for ``workers > 1``).
    stop_outside : (a, b), optional
        For first-exit questions: a run stops at its first recorded state with
        ``rho <= a`` or ``rho >= b`` (step 0 included). Its later recorded alignments repeat
        that value, its later nuisance and objective samples are ``nan``, and it draws
        nothing more (the reduced simulator skips it; the full one steps it and discards the
        result). Up to its exit a run's path is the one it has without ``stop_outside`` (its
        own generator), so exits and their sides are unchanged; the loop ends when every
        run has stopped.
    """
    instance("problem", problem, Problem)
    instance("schedule", schedule, Schedule)
    choice("simulator", simulator, SIMULATORS)
    steps = integer("steps", steps, 1)
    runs = integer("runs", runs, 1)
    stride = integer("stride", stride, 1)
    if rho0 is not None:
        rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    if seed is not None:
        seed = integer("seed", seed, 0)
    if stop_outside is not None:
        if not (isinstance(stop_outside, (tuple, list)) and len(stop_outside) == 2):
            raise ValueError(f"`stop_outside` must be a pair (a, b), got {stop_outside!r}")
        a, b = (real("stop_outside", v) for v in stop_outside)
        if not a < b:
            raise ValueError(f"`stop_outside` must be (a, b) with a < b, got {stop_outside!r}")
        stop_outside = (a, b)

    workers = integer("workers", workers, 1)
    record = record_indices(steps, stride)
    etas = schedule.eta(np.arange(steps))
    if seed is None and workers > 1:
        raise ValueError("`seed` is required with `workers > 1` (runs are split by SeedSequence child)")
    ex = current_executor(workers)
    if ex.backend != "inline" and runs > 1 and seed is not None:
        # Blocks of runs as independent units: run i draws only from child i of
        # SeedSequence(seed), so the split (and the cluster) never changes the result.
        blocks = np.array_split(np.arange(runs), min(ex.workers, runs))
        units = [_Block(problem, simulator, seed, runs, int(b[0]), int(b[-1]) + 1, rho0, etas, record, stop_outside)
                 for b in blocks]
        done = None if progress is None else (lambda i, n: progress(int(steps * i // n)))
        parts = ex.map(_run_unit, units, progress=done)
        rho, nuisance, obj = (np.concatenate([p_[i] for p_ in parts]) for i in range(3))
        wall = max(p_[3] for p_ in parts)
    else:
        rho, nuisance, obj, wall = _run_block(problem, simulator, seed, runs, 0, runs, rho0, etas, record, progress,
                                              stop_outside)
    samples = record[record < steps]
    times = schedule.times(steps)[record]
    return Simulation(simulator, problem, schedule, seed, steps, record, times, rho, samples, nuisance, obj, wall)
