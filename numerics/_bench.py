"""Throughput of the simulators against their random-number bounds (``sigrec bench``).

Benchmark configuration: ``d = 100``, ``R = 500``, ``L = 10500`` (and ``d = 1000``
for the reduced simulator), 30 runs batched. A *run-step* is one step of one run.
The random-number bound of a simulator is the run-step rate of drawing only its
normals with the same per-run generators into the same kind of buffer: ``L * d``
per run-step for the full simulator, ``3L + 2`` for the reduced one. Each figure is
the best of several timings of the simulation loop (``Simulation.wall_s``), the
configurations measured in turn, to be robust to other load on the machine.

Since both simulators are bound by drawing normals, the reduced/full ratio is
expected near ``rng_bound_reduced / rng_bound_full`` (measured; the draw counts alone
give about ``L d / (3L + 2)``). This is an expectation, not a cap: exactly,
``reduced_over_full = rng_bound_reduced_over_full * reduced_over_rng_bound /
full_over_rng_bound``, and the full simulator may sit further below its bound than
the reduced one.

The subspace simulators (``k = 2`` directions, ``H = 2`` heads, :func:`subspace_bench`) are
measured in the same configuration at ``d`` and ``d_large``: the full recursion draws ``L d``
normals per run-step, the reduced one ``(k + 2H) L`` plus ``O(H^2)`` whatever ``d``; the full
simulator at ``d_large`` runs a tenth of the runs (its token buffer is ``L d_large`` floats per run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ._diffusion._measured import MeasureOptions, measured_law
from ._parallel._executor import current_executor
from ._schedule import Schedule
from ._simulate._driver import LONG_CONTEXT, Problem, SimulationOptions, reduced_kernel, simulate, single_threaded_blas
from ._simulate._init import initial_rho, spawn_generators

#: speed targets of the simulators: (name, ratio key, threshold)
TARGETS = (
    ("reduced >= 25x full at d=100", "reduced_over_full", 25.0),
    ("reduced at d=1000 within 25% of d=100", "reduced_d1000_over_d100", 0.75),
    ("reduced >= 60% of its random-number bound", "reduced_over_rng_bound", 0.60),
)


@dataclass(frozen=True)
class BenchReport:
    """Run-steps per second, random-number bounds, ratios and target verdicts."""

    config: dict
    rates: dict
    ratios: dict
    targets: list
    wall_s: float
    long_context: dict | None = None
    paired: dict | None = None
    subspace: dict | None = None
    measured: dict | None = None

    def as_dict(self) -> dict:
        return {"config": self.config, "rates": self.rates, "ratios": self.ratios,
                "targets": self.targets, "wall_s": self.wall_s, "long_context": self.long_context,
                "paired": self.paired, "subspace": self.subspace, "measured": self.measured}


def _sim_rate(problem, steps, runs, simulator, seed) -> float:
    schedule = Schedule(eta0=0.5, k0=10.0, power=0.75)
    sim = simulate(problem, schedule, steps=steps, runs=runs, options=SimulationOptions(simulator=simulator), seed=seed)
    return steps * runs / sim.wall_s


def _rng_rate(per_run_shape, steps, runs, seed) -> float:
    gens = spawn_generators(seed, runs)
    buf = np.empty(per_run_shape)
    buf.fill(0.0)
    t0 = time.perf_counter()
    for _ in range(steps):
        for gen in gens:
            gen.standard_normal(out=buf)
    return steps * runs / (time.perf_counter() - t0)


#: token counts of the long-context measurement (the reduced simulator in chunks beyond 2^16)
LONG_LS = (10**4, 10**5, 10**6)


def long_context(*, runs: int = 4, steps: int = 3, repeats: int = 2, d: int = 100) -> dict:
    """Run-steps and token-steps per second of the reduced simulator at ``L`` in
    :data:`LONG_LS` (``alpha = 0.05``), and the peak memory a step allocates (traced by
    ``tracemalloc`` in a separate call, so the timing is untraced): what
    ``numerics.LONG_CONTEXT`` chunking buys and costs per token. ``steps`` is the step count at
    the largest ``L``; a smaller ``L`` takes proportionally more steps, so that every size is
    timed over the same number of token-steps (a short timing is moved by one preemption)."""
    import tracemalloc

    out = {}
    for L in LONG_LS:
        problem = Problem(theta=1.0, R=L // 20, L=L, d=d)
        n = max(steps, steps * LONG_LS[-1] // L)
        best = 0.0
        for rep in range(repeats):
            best = max(best, _sim_rate(problem, n, runs, "reduced", rep))
        tracemalloc.start()
        simulate(problem, Schedule.constant(0.1), steps=1, runs=runs, seed=0)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out[str(L)] = {"run_steps_per_s": best, "token_steps_per_s": best * L, "peak_bytes": peak,
                       "chunked": bool(L > LONG_CONTEXT), "steps": n}
    base = out[str(LONG_LS[0])]["token_steps_per_s"]
    for v in out.values():
        v["per_token_vs_first"] = v["token_steps_per_s"] / base
    return {"runs": runs, "steps": steps, "d": d, "alpha": 0.05, "sizes": out}


@dataclass(frozen=True)
class _FloorBlock:
    """Runs ``lo..hi-1`` of ``runs``: draw exactly the reduced kernel's random numbers, nothing else."""

    L: int
    d: int
    seed: int
    runs: int
    lo: int
    hi: int
    steps: int
    R: int = 500


def _floor_unit(b: _FloorBlock) -> tuple[float, float]:
    """``(loop seconds, call seconds)`` of drawing the reduced kernel's normals and chi-squares
    (``3L + 2`` per run-step, fixed prior, one collection) with the same per-run generators and
    calls as the kernel :func:`numerics.simulate` uses (:class:`._fused.FusedReducedKernel`): one
    ``standard_normal`` into the ``(3, L)`` buffer the runs share, then two scalar ``standard_gamma``."""
    t_call = time.perf_counter()
    gens = spawn_generators(b.seed, b.hi, b.lo)
    buf = np.zeros((3, b.L))  # one buffer, as the kernel's (hot in the core's cache)
    n_out = b.d - 2
    t0 = time.perf_counter()
    for _ in range(b.steps):
        for gen in gens:
            gen.standard_normal(out=buf)
            gen.standard_gamma(n_out / 2.0)
            gen.standard_gamma((n_out - 1) / 2.0)
    t1 = time.perf_counter()
    return t1 - t0, t1 - t_call


def _lockstep_unit(b: _FloorBlock) -> tuple[float, float]:
    """``(floor CPU seconds, simulator CPU seconds)`` of the block stepped in lockstep: each step,
    the floor's draws (:func:`_floor_unit`'s, from a copy of the runs' generators) and then one
    step of the reduced kernel (the class and start :func:`numerics.simulate` uses), each timed by
    the process's CPU clock. Both see the same load step by step, and time the process waits for
    a core counts in neither."""
    problem = Problem(theta=1.0, R=b.R, L=b.L, d=b.d)
    gens = spawn_generators(b.seed, b.hi, b.lo)
    floor_gens = spawn_generators(b.seed, b.hi, b.lo)
    kernel = reduced_kernel(b.L)(problem, gens, initial_rho(gens, b.d))
    etas = Schedule(eta0=0.5, k0=10.0, power=0.75).eta(np.arange(b.steps)).tolist()
    buf = np.zeros((3, b.L))  # one buffer, as the kernel's (hot in the core's cache)
    n_out = b.d - 2
    floor = sim = 0.0
    clock = time.process_time
    with single_threaded_blas():
        for eta in etas:
            t0 = clock()
            for gen in floor_gens:
                gen.standard_normal(out=buf)
                gen.standard_gamma(n_out / 2.0)
                gen.standard_gamma((n_out - 1) / 2.0)
            t1 = clock()
            kernel.step(eta)
            t2 = clock()
            floor, sim = floor + (t1 - t0), sim + (t2 - t1)
    return floor, sim


def _noop(x):
    return x


def paired_floor(*, runs: int = 30, steps: int = 300, workers: int = 2, R: int = 500, L: int = 10500,
                 d: int = 100, seed: int = 0, repeats: int = 3) -> dict:
    """The reduced simulator against its random-number floor, paired: the flagship run
    (``runs`` x ``steps`` at ``L``, ``workers`` processes through the executor) and the same
    random numbers drawn alone by the same per-run generators, in the same worker processes,
    split into the same blocks. ``excluded``: the step loops only (the slowest block of each);
    ``included``: the whole call (task shipping, generator spawning, kernel buffers, result
    transfer) with the cluster already running (its start is ``cluster_start_s``). Both are paired
    by round: ``repeats`` rounds, each the floor and the simulation back to back (in alternating
    order, so that a drift of the machine's speed within a round favours neither), after one round
    not counted (in which the workers load the compiled kernels, as they import modules on the
    cluster's first task), and the figure is the median over rounds of floor time / simulated time.
    On a shared machine the speed of drawing the same normals varied by 10% between rounds (1.21 to
    1.34 s for one block), so the best floor over rounds against the best simulation (``*_best``,
    also reported) pairs times from different moments. ``lockstep_cpu``: CPU seconds of the floor's draws over the
    simulator's, stepped in turn in the same workers (:func:`_lockstep_unit`), one round: the
    pairing that other load on the machine disturbs least."""
    problem = Problem(theta=1.0, R=R, L=L, d=d)
    t0 = time.perf_counter()
    ex = current_executor(workers)
    ex.map(_noop, list(range(max(1, workers))))  # start the cluster and import in the workers
    start = time.perf_counter() - t0
    blocks = np.array_split(np.arange(runs), min(max(1, ex.workers), runs)) if ex.backend != "inline" \
        else [np.arange(runs)]
    units = [_FloorBlock(L=L, d=d, seed=seed, runs=runs, lo=int(b[0]), hi=int(b[-1]) + 1, steps=steps, R=R)
             for b in blocks]

    def floor_round():
        t = time.perf_counter()
        loops = ex.map(_floor_unit, units)
        return max(f[0] for f in loops), time.perf_counter() - t

    def sim_round():
        t = time.perf_counter()
        sim = simulate(problem, Schedule(eta0=0.5, k0=10.0, power=0.75), steps=steps, runs=runs, seed=seed,
                       options=SimulationOptions(workers=workers))
        return sim.wall_s, time.perf_counter() - t

    floor_round(), sim_round()  # a round not counted: the workers load the compiled kernels (numba)
    rounds = []  # (floor loop, floor call, sim loop, sim call) per round
    for r in range(repeats):
        if r % 2 == 0:
            f, g = floor_round(), sim_round()
        else:
            g, f = sim_round(), floor_round()
        rounds.append((*f, *g))
    R_ = np.array(rounds)
    best = dict(zip(("floor_loop_s", "floor_call_s", "sim_loop_s", "sim_call_s"), R_.min(axis=0).tolist(), strict=True))
    excluded, included = R_[:, 0] / R_[:, 2], R_[:, 1] / R_[:, 3]
    lockstep = ex.map(_lockstep_unit, units)
    cpu_floor, cpu_sim = sum(f for f, _ in lockstep), sum(s for _, s in lockstep)
    return {"runs": runs, "steps": steps, "workers": workers, "L": L, "d": d, "repeats": repeats,
            "cluster_start_s": start, **best, "excluded": float(np.median(excluded)),
            "included": float(np.median(included)), "excluded_rounds": excluded.tolist(),
            "included_rounds": included.tolist(),
            "excluded_best": best["floor_loop_s"] / best["sim_loop_s"],
            "included_best": best["floor_call_s"] / best["sim_call_s"], "lockstep_cpu_floor_s": cpu_floor,
            "lockstep_cpu_sim_s": cpu_sim, "lockstep_cpu": cpu_floor / cpu_sim}


#: the subspace benchmark's law and heads
SUBSPACE_LAW, SUBSPACE_HEADS = "onehot(k=2)", 2


def _subspace_rate(problem, steps, runs, simulator, seed) -> float:
    schedule = Schedule(eta0=0.5, k0=10.0, power=0.75)
    sim = simulate(problem, schedule, steps=steps, runs=runs, options=SimulationOptions(simulator=simulator), seed=seed)
    return steps * runs / sim.wall_s


def subspace_bench(*, runs: int = 30, d: int = 100, d_large: int = 1000, R: int = 500, L: int = 10500,
                   full_steps: int = 3, reduced_steps: int = 60, repeats: int = 3) -> dict:
    """Run-steps per second of the full and the reduced subspace simulators (:data:`SUBSPACE_LAW`,
    :data:`SUBSPACE_HEADS` heads) at ``d`` and ``d_large`` (each at least ``k + 2H``), best of
    ``repeats`` interleaved rounds, and the reduced/full ratio at each dimension."""
    k, H = 2, SUBSPACE_HEADS
    d, d_large = max(d, k + 2 * H), max(d_large, k + 2 * H)
    small, large = (Problem(1.0, R, L, dim, prior=SUBSPACE_LAW).with_heads(H) for dim in (d, d_large))
    runs_large = max(1, runs // 10)
    rates = _best_interleaved({
        "full_d": lambda rep: _subspace_rate(small, full_steps, runs, "full", rep),
        "full_d_large": lambda rep: _subspace_rate(large, 1, runs_large, "full", rep),
        "reduced_d": lambda rep: _subspace_rate(small, reduced_steps, runs, "reduced", rep),
        "reduced_d_large": lambda rep: _subspace_rate(large, reduced_steps, runs, "reduced", rep),
    }, repeats)
    ratios = {"reduced_over_full_d": rates["reduced_d"] / rates["full_d"],
              "reduced_over_full_d_large": rates["reduced_d_large"] / rates["full_d_large"],
              "reduced_d_large_over_d": rates["reduced_d_large"] / rates["reduced_d"]}
    return {"law": SUBSPACE_LAW, "heads": H, "runs": runs, "runs_full_d_large": runs_large, "d": d,
            "d_large": d_large, "R": R, "L": L, "full_steps": full_steps, "reduced_steps": reduced_steps,
            "repeats": repeats, "rates": rates, "ratios": ratios}


#: the measured-law prediction's model: the finite-step example of docs/design.md section 1.1 at
#: L = 10^4 (alpha = 0.05), outside the expansion's validity, and its step
MEASURED_PROBLEM = dict(theta=0.6, beta=2.0, R=500, L=10_000, d=20)
MEASURED_ETA = 0.02
#: seconds a measured-law prediction at L <= 10^4 should take on 2 cores
MEASURED_TARGET_S = 10.0


def measured_bench(*, quick: bool = False, workers: int = 2) -> dict:
    """Seconds of one measured-law prediction (:func:`numerics.measured_law` and its plateau) on
    :data:`MEASURED_PROBLEM` at :data:`MEASURED_ETA` on ``workers`` processes: the default grid
    (chosen from the error) and drift error 0.02, or (``quick``) 5 points and drift error 0.1 (the
    pilot alone). ``draws`` counts the token collections drawn over all points."""
    problem = Problem(**MEASURED_PROBLEM)
    grid = np.linspace(-0.6, 0.9, 5) if quick else None
    drift_se = 0.1 if quick else 0.02
    t0 = time.perf_counter()
    law = measured_law(problem, MEASURED_ETA, grid=grid, drift_se=drift_se, options=MeasureOptions(workers=workers))
    plateau = law.plateau()
    seconds = time.perf_counter() - t0
    return {"problem": problem.as_dict(), "eta": MEASURED_ETA, "points": int(law.grid.size), "workers": workers,
            "drift_se": drift_se, "runs": law.runs.tolist(), "draws": int(law.runs.sum()), "status": law.status,
            "seconds": seconds, "reduction_median": float(np.median(law.reduction)), "plateau": plateau.value,
            "plateau_low": plateau.low, "plateau_high": plateau.high}


def _best_interleaved(measures: dict, repeats: int) -> dict:
    """Best rate of each measurement over ``repeats`` rounds, measured in turn.

    Interleaving makes every figure (and so every ratio) see the same background
    load, instead of one configuration catching a busy period.
    """
    best = dict.fromkeys(measures, 0.0)
    for rep in range(repeats):
        for key, measure in measures.items():
            best[key] = max(best[key], measure(rep))
    return best


def benchmark(*, quick: bool = False, runs: int = 30, d: int = 100, d_large: int = 1000,
              R: int = 500, L: int = 10500, workers: int = 2) -> BenchReport:
    """Measure both simulators and their random-number bounds.

    Parameters
    ----------
    quick : bool
        Fewer steps and repeats (a smoke run, a few seconds).
    runs, d, d_large, R, L : int
        Configuration (defaults: the benchmark configuration above).
    workers : int
        Worker processes of the paired floor measurement (:func:`paired_floor`).
    """
    t0 = time.perf_counter()
    full_steps, red_steps, full_repeats, repeats = (1, 10, 1, 1) if quick else (3, 60, 3, 6)
    problem = Problem(theta=1.0, R=R, L=L, d=d)
    large = Problem(theta=1.0, R=R, L=L, d=d_large)
    rates = _best_interleaved({
        "full_d": lambda rep: _sim_rate(problem, full_steps, runs, "full", rep),
        "rng_bound_full": lambda rep: _rng_rate((L, d), full_steps, runs, rep),
    }, full_repeats)
    rates.update(_best_interleaved({
        "reduced_d": lambda rep: _sim_rate(problem, red_steps, runs, "reduced", rep),
        "reduced_d_large": lambda rep: _sim_rate(large, red_steps, runs, "reduced", rep),
        "rng_bound_reduced": lambda rep: _rng_rate((3 * L + 2,), red_steps, runs, rep),
    }, repeats))
    ratios = {
        "reduced_over_full": rates["reduced_d"] / rates["full_d"],
        "reduced_d1000_over_d100": rates["reduced_d_large"] / rates["reduced_d"],
        "reduced_over_rng_bound": rates["reduced_d"] / rates["rng_bound_reduced"],
        "full_over_rng_bound": rates["full_d"] / rates["rng_bound_full"],
        "rng_bound_reduced_over_full": rates["rng_bound_reduced"] / rates["rng_bound_full"],
    }
    targets = [{"target": name, "value": ratios[key], "threshold": thr, "met": bool(ratios[key] >= thr)}
               for name, key, thr in TARGETS]
    config = {"runs": runs, "d": d, "d_large": d_large, "R": R, "L": L, "quick": quick,
              "full_steps": full_steps, "reduced_steps": red_steps, "repeats": repeats,
              "unit": "run-steps per second (best of repeats)"}
    longc = long_context(steps=1 if quick else 3, repeats=1 if quick else 2)
    paired = paired_floor(runs=runs, steps=60 if quick else 300, workers=workers, R=R, L=L, d=d,
                          repeats=2 if quick else 5)
    ratios["reduced_over_floor_paired_excluded"] = paired["excluded"]
    ratios["reduced_over_floor_paired_included"] = paired["included"]
    ratios["reduced_over_floor_lockstep_cpu"] = paired["lockstep_cpu"]
    for key in ("excluded", "included"):
        targets.append({"target": f"reduced >= 90% of its random-number floor, paired, {workers} workers, "
                                  f"start-up {key}",
                        "value": paired[key], "threshold": 0.9, "met": bool(paired[key] >= 0.9)})
    subspace = subspace_bench(runs=runs, d=d, d_large=d_large, R=R, L=L, full_steps=full_steps,
                              reduced_steps=red_steps // 2, repeats=full_repeats)
    measured = measured_bench(quick=quick, workers=workers)
    ratios["measured_target_over_seconds"] = MEASURED_TARGET_S / measured["seconds"]
    targets.append({"target": f"a measured-law prediction at L = 10^4 within {MEASURED_TARGET_S:.0f} s "
                              f"(target seconds / seconds)",
                    "value": ratios["measured_target_over_seconds"], "threshold": 1.0,
                    "met": bool(ratios["measured_target_over_seconds"] >= 1.0)})
    return BenchReport(config=config, rates=rates, ratios=ratios, targets=targets, wall_s=time.perf_counter() - t0,
                       long_context=longc, paired=paired, subspace=subspace, measured=measured)
