"""One driver over every simulator kernel: validation, starts, recording, blocks of runs.

The recursion, for ``t = 0 .. steps - 1`` (docs/design.md section 1; ``H`` heads:
docs/subspace-simulation.md)::

    Q_{t+1} = retract(Q_t + eta_t Xi_t),   Xi_t = G_t - Q_t sym(Q_t^T G_t),
    G_t = (1/B) sum_b grad_Q sum_h ||f_{q_h}(X_{t,b})||^2,

with a fresh token collection ``X_{t,b}`` for every step and batch member; for one query
(``H = 1``) it is ``q_{t+1} = normalize(q_t + eta_t P_{q_t} g_t)``. The engines and their
kernels (:data:`KERNELS`), chosen from the model (:attr:`theory.Model.engine`) unless
``engine`` names one:

* ``"scalar"`` (one query on one signal direction): the full ``d``-dimensional recursion
  (:mod:`._full`) or the exact reduced alignment chain (docs/design.md section 2: compiled,
  :mod:`._fused`, in chunks beyond :data:`LONG_CONTEXT` tokens);
* ``"subspace"`` (any ``k`` and ``H``, ``k = H = 1`` included): the full recursion on the
  Stiefel manifold (:mod:`._subspace_full`) or its exact reduced chain (:mod:`._subspace_reduced`).

Kernel contract: a kernel holds the state of a block of runs, each drawing only from its own
generator, and provides ``overlaps`` (``M = U^T Q``, shape ``(runs, k, H)``), ``out_gram``
(``P^T P``, ``(runs, H, H)``) and ``step(eta) -> (noise_mass (runs, H), objective (runs,))``
(batch averages of the sample at ``Q_t``); the scalar ones also ``rho`` and ``retire`` (runs
that stopped, :attr:`SimulationOptions.stop_outside`). This module validates the inputs once,
builds the starts and the kernels, runs the loop (in blocks of runs on the executor,
bit-identical for any split) and records a :class:`Simulation`. Each block reports the run-steps it
drew and its CPU seconds, which the caller counts (:func:`numerics.count_token_steps`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np

from ...core.validate import choice, instance, integer, real
from ...theory import engine_for
from .._cost import add_token_steps
from .._parallel._executor import current_executor
from .._schedule import Schedule
from ._full import FullKernel
from ._init import initial_rho, spawn_generators
from ._problem import Problem
from ._reduced_chunks import CHUNK
from ._result import Simulation, record_indices
from ._stiefel import fixed_frames, retract, symmetrize, uniform_frames
from ._subspace_full import SubspaceFullKernel
from ._subspace_reduced import SubspaceReducedKernel

__all__ = ["KERNELS", "LONG_CONTEXT", "SIMULATORS", "Problem", "Simulation", "SimulationOptions", "kernel_floats",
           "record_indices", "fixed_start", "reduced_kernel", "simulate", "single_threaded_blas"]

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


class _ScalarKernel:
    """The contract's view of a scalar kernel (state ``rho``, shape ``(runs,)``): ``M = [[rho]]``,
    ``P^T P = [[1 - rho^2]]``, one head. It reshapes and computes nothing else, so the chain
    and its draws are the scalar kernel's own."""

    def __init__(self, kernel):
        self.kernel = kernel

    @property
    def rho(self) -> np.ndarray:
        return self.kernel.rho

    @property
    def overlaps(self) -> np.ndarray:
        return self.kernel.rho[:, None, None]

    @property
    def out_gram(self) -> np.ndarray:
        rho = self.kernel.rho
        return (1.0 - rho * rho)[:, None, None]

    def step(self, eta: float):
        nm, ob = self.kernel.step(eta)
        return nm[:, None], ob

    @property
    def retires(self) -> bool:
        """Whether a retired run draws nothing more (the reduced kernels; the full one steps it)."""
        return hasattr(self.kernel, "retire")

    def retire(self, runs) -> None:
        if self.retires:
            self.kernel.retire(runs)


def _scalar_kernel(problem: Problem, simulator: str, generators, start):
    """``start``: a fixed ``rho0`` or ``None`` (the uniform-sphere law, drawn first in each stream)."""
    rho = initial_rho(generators, problem.d, start)
    Kernel = FullKernel if simulator == "full" else reduced_kernel(problem.L)
    return _ScalarKernel(Kernel(problem, generators, rho))


def _subspace_kernel(problem: Problem, simulator: str, generators, start):
    """``start``: fixed overlaps ``M_0`` (``k x H``) or ``None`` (``Q_0`` uniform on the Stiefel
    manifold: the same draws in both simulators, so they share their starts)."""
    runs, k, H = len(generators), problem.k, problem.heads
    if start is None:
        G, M, P = uniform_frames(generators, problem.d, k, H)
    else:
        G = None
        M = np.broadcast_to(start, (runs, k, H)).copy()
        P = np.broadcast_to(symmetrize(np.eye(H) - start.T @ start), (runs, H, H)).copy()
    if simulator == "full":
        Q0 = fixed_frames(generators, problem.d, start) if G is None else retract(G)
        return SubspaceFullKernel(problem, generators, Q0)
    return SubspaceReducedKernel(problem, generators, M, P)


#: the kernel builders of each engine: ``(problem, simulator, generators, start) -> kernel``
KERNELS = {"scalar": _scalar_kernel, "subspace": _subspace_kernel}


class _Stops:
    """Runs stopped on leaving ``(a, b)`` (:attr:`SimulationOptions.stop_outside`, scalar kernels):
    which are still alive, and the value each stopped one keeps."""

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
            self.kernel.retire(np.flatnonzero(out))
        return r


@dataclass(frozen=True)
class _Block:
    """One unit of work: runs ``lo..hi-1`` of ``runs`` (streams ``SeedSequence(seed).spawn(runs)[lo:hi]``;
    picklable, pure)."""

    problem: Problem
    engine: str
    simulator: str
    seed: int | None
    runs: int
    lo: int
    hi: int
    start: object
    etas: np.ndarray
    record: np.ndarray
    stop: tuple | None = None


@dataclass(frozen=True)
class _Recorded:
    """What a block of runs returns: the recorded ``overlaps`` and ``out_gram``, the samples'
    ``noise_mass`` and ``objective`` (the arrays of :class:`Simulation`), the loop's ``wall``
    seconds, the run-steps ``drawn`` (a run the kernel retired draws no more) and the ``cpu``
    seconds of its thread (:mod:`.._cost`)."""

    overlaps: np.ndarray
    out_gram: np.ndarray
    noise_mass: np.ndarray
    objective: np.ndarray
    wall: float
    drawn: int
    cpu: float


def _run_block(b: _Block, progress=None) -> _Recorded:
    """The runs of ``b`` (``b.stop = (a, b)``: see :attr:`SimulationOptions.stop_outside`)."""
    cpu0 = time.thread_time()
    gens = spawn_generators(b.seed, b.hi, b.lo)
    kernel = KERNELS[b.engine](b.problem, b.simulator, gens, b.start)
    record, steps = b.record, b.etas.size
    samples = record[record < steps]
    n, k, H = b.hi - b.lo, b.problem.k, b.problem.heads
    over = np.empty((n, record.size, k, H))
    gram = np.empty((n, record.size, H, H))
    nuisance = np.empty((n, samples.size, H))
    obj = np.empty((n, samples.size))
    stops = None if b.stop is None else _Stops(b.stop, kernel)
    retiring = stops is not None and kernel.retires
    drawn = 0

    def store(i: int, rho) -> None:
        if rho is None:
            over[:, i], gram[:, i] = kernel.overlaps, kernel.out_gram
        else:  # stopped runs keep their exit value
            over[:, i, 0, 0], gram[:, i, 0, 0] = rho, 1.0 - rho * rho

    store(0, None if stops is None else stops.update())
    rec_i = samp_i = 0
    with single_threaded_blas():
        t0 = time.perf_counter()
        for t in range(steps):
            if stops is not None and not stops.alive.any():  # every run has stopped: the rest is known
                for i in range(rec_i + 1, record.size):
                    store(i, stops.kept)
                nuisance[:, samp_i:] = obj[:, samp_i:] = np.nan
                if progress is not None:
                    progress(steps)
                break
            alive = None if stops is None else stops.alive.copy()
            drawn += int(alive.sum()) if retiring and alive is not None else n
            nm, ob = kernel.step(float(b.etas[t]))
            if samp_i < samples.size and samples[samp_i] == t:
                if alive is not None:  # a stopped run has no sample
                    nm, ob = np.where(alive[:, None], nm, np.nan), np.where(alive, ob, np.nan)
                nuisance[:, samp_i], obj[:, samp_i] = nm, ob
                samp_i += 1
            current = None if stops is None else stops.update()
            if record[rec_i + 1] == t + 1:
                rec_i += 1
                store(rec_i, current)
            if progress is not None:
                progress(t + 1)
        wall = time.perf_counter() - t0
    return _Recorded(over, gram, nuisance, obj, wall, drawn, time.thread_time() - cpu0)


def _run_unit(b: _Block) -> _Recorded:
    return _run_block(b)


def fixed_start(problem: Problem, engine: str, rho0, M0):
    """The fixed start of ``engine`` from ``rho0`` or ``M0`` (one of them; ``None`` for the
    uniform law): a float for the scalar engine, a ``k x H`` array for the subspace one."""
    if rho0 is not None and M0 is not None:
        raise ValueError("give the fixed start as `rho0` (one query on one direction) or `M0` (U^T Q_0), not both")
    k, H = problem.k, problem.heads
    if rho0 is not None:
        rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
        if (k, H) != (1, 1):
            raise ValueError(f"`rho0` is the start of one query on one signal direction; with k = {k}, H = {H} "
                             f"give the start overlaps `M0` (a k x H matrix)")
        return rho0 if engine == "scalar" else np.array([[rho0]])
    if M0 is None:
        return None
    try:
        M = np.array(M0, dtype=float).reshape(k, H) if np.size(M0) == k * H else None
    except (TypeError, ValueError):
        M = None
    if M is None or not np.all(np.isfinite(M)):
        raise ValueError(f"`M0` must be {k * H} finite numbers (a k x H = {k} x {H} matrix), got {M0!r}")
    norm = float(np.linalg.norm(M, 2))
    if norm > 1.0 + 1e-12:
        raise ValueError(f"`M0` must have operator norm <= 1 (U^T Q for an orthonormal Q), got {norm:.6g}")
    return real("M0", M[0, 0], lower=-1.0, upper=1.0) if engine == "scalar" else M


def _stop_interval(stop_outside):
    if stop_outside is None:
        return None
    if not (isinstance(stop_outside, (tuple, list)) and len(stop_outside) == 2):
        raise ValueError(f"`stop_outside` must be a pair (a, b), got {stop_outside!r}")
    a, b = (real("stop_outside", v) for v in stop_outside)
    if not a < b:
        raise ValueError(f"`stop_outside` must be (a, b) with a < b, got {stop_outside!r}")
    return (a, b)


@dataclass(frozen=True)
class SimulationOptions:
    """How :func:`simulate` runs, beyond the instance, the schedule, the start ``rho0``, the seed and
    the recording (the defaults: the exact reduced chain of the model's own engine, in this process).

    Attributes
    ----------
    simulator : {"reduced", "full"}
        ``"full"``: the ``d``-dimensional recursion; ``"reduced"``: the exact reduced chain
        (same law of the state; cost independent of ``d``; the subspace one needs
        ``d >= k + 2 H``).
    M0 : array_like (k, H), optional
        Fixed start overlaps ``U^T Q_0`` (operator norm ``<= 1``) of any model. Default (neither
        it nor ``rho0`` given): ``q_0`` uniform on the sphere, ``Q_0`` uniform on the Stiefel manifold.
    workers : int
        Without an enclosing :func:`sigrec.numerics.executor` block, split the runs into blocks
        simulated on the process-wide local ``dask.distributed`` cluster of this many workers
        (started once, then reused); inside such a block, on its executor (docs/design.md
        section 8). Run ``i`` still draws only from the ``i``-th child of
        ``SeedSequence(seed)``, so the result is bit-identical to ``workers = 1`` on any
        cluster (a seed is required for ``workers > 1``).
    stop_outside : (a, b), optional
        For first-exit questions of one query on one direction: a run stops at its first
        recorded state with ``rho <= a`` or ``rho >= b`` (step 0 included). Its later recorded
        alignments repeat that value, its later samples are ``nan``, and it draws nothing more
        (the reduced simulator skips it; the full one steps it and discards the result). Up to
        its exit a run's path is the one it has without ``stop_outside`` (its own generator).
    engine : {"auto", "scalar", "subspace"}
        The kernels (module docstring); ``"auto"`` is the model's own
        (:attr:`theory.Model.engine`): scalar for ``k = H = 1``, else subspace.
    progress : callable, optional
        Called as ``progress(k)`` after step ``k`` (1-based) for progress display
        (on a cluster: after each block of runs, with ``k`` the finished share of ``steps``).
    """

    simulator: str = "reduced"
    M0: object = None
    workers: int = 1
    stop_outside: tuple[float, float] | None = None
    engine: str = "auto"
    progress: Callable[[int], object] | None = None


def simulate(problem: Problem, schedule: Schedule, *, steps: int, runs: int, rho0=None, seed=None, stride: int = 1,
             options: SimulationOptions | None = None) -> Simulation:
    """Run ``runs`` independent copies of the projected stochastic gradient ascent.

    Parameters
    ----------
    problem : Problem
    schedule : Schedule
    steps : int
        Number of steps ``>= 1``.
    runs : int
        Number of independent runs ``>= 1``.
    rho0 : float, optional
        Fixed start ``rho_0`` in ``[-1, 1]`` of one query on one signal direction (any model:
        ``options.M0``).
    seed : int, optional
        Seed of ``SeedSequence(seed).spawn(runs)``: run ``i`` draws only from child ``i``.
    stride : int
        Record every ``stride`` steps (and the last).
    options : SimulationOptions, optional
        The simulator, a start ``M0``, workers, stopping, the engine and a progress callback.
    """
    opts = SimulationOptions() if options is None else instance("options", options, SimulationOptions)
    simulator, M0, workers, stop_outside, engine, progress = (
        opts.simulator, opts.M0, opts.workers, opts.stop_outside, opts.engine, opts.progress)
    instance("problem", problem, Problem)
    instance("schedule", schedule, Schedule)
    choice("simulator", simulator, SIMULATORS)
    engine = engine_for(problem.model, engine, "simulate")
    steps = integer("steps", steps, 1)
    runs = integer("runs", runs, 1)
    stride = integer("stride", stride, 1)
    start = fixed_start(problem, engine, rho0, M0)
    if seed is not None:
        seed = integer("seed", seed, 0)
    stop = _stop_interval(stop_outside)
    if engine == "subspace":
        if stop is not None:
            raise ValueError("`stop_outside` stops runs of one query on one signal direction (the scalar engine)")
        if simulator == "reduced" and problem.d < problem.k + 2 * problem.heads:
            raise ValueError(f"`d` must be >= k + 2 heads = {problem.k + 2 * problem.heads} for the reduced "
                             f"simulator, got {problem.d} (use simulator='full')")
    workers = integer("workers", workers, 1)
    if seed is None and workers > 1:
        raise ValueError("`seed` is required with `workers > 1` (runs are split by SeedSequence child)")
    record = record_indices(steps, stride)
    etas = schedule.eta(np.arange(steps))

    def block(lo: int, hi: int) -> _Block:
        return _Block(problem, engine, simulator, seed, runs, lo, hi, start, etas, record, stop)

    ex = current_executor(workers)
    inline = ex.backend == "inline" or runs == 1 or seed is None
    if inline:  # in this thread: its CPU time is the caller's own
        parts = [_run_block(block(0, runs), progress)]
    else:
        # Blocks of runs as independent units: run i draws only from child i of
        # SeedSequence(seed), so the split (and the cluster) never changes the result.
        bounds = np.array_split(np.arange(runs), min(ex.workers, runs))
        units = [block(int(b[0]), int(b[-1]) + 1) for b in bounds]
        done = None if progress is None else (lambda i, n: progress(int(steps * i // n)))
        parts = ex.map(_run_unit, units, progress=done)
    over, gram, nuisance, obj = (np.concatenate([getattr(p_, f) for p_ in parts])
                                 for f in ("overlaps", "out_gram", "noise_mass", "objective"))
    wall, drawn = max(p_.wall for p_ in parts), sum(p_.drawn for p_ in parts)
    elsewhere = 0.0 if inline else sum(p_.cpu for p_ in parts)
    add_token_steps("simulate", drawn * problem.L * problem.batch, simulations=1, cpu_elsewhere=elsewhere)
    samples = record[record < steps]
    times = schedule.times(steps)[record]
    return Simulation(simulator, engine, problem, schedule, seed, steps, record, times, over, gram, samples,
                      nuisance, obj, wall)
