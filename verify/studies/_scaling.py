"""How the executor scales (docs/design.md section 8): sweep throughput at 1 and more
workers, and the per-task scheduling overhead against the work of one cell."""

from __future__ import annotations

import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ...numerics import executor
from ..checks import PAPER, Preset
from ._sweep import compute_cell, corrected_prediction, make_spec, run_sweep
from ._sweep._cell import _Cell


def _noop(x):
    return x


@dataclass(frozen=True)
class ScalingReport:
    """Measured throughput and overhead.

    Attributes
    ----------
    cells : int
        Cells of the measured sweep.
    cells_per_minute : dict
        Worker count (as a string) -> cells per minute of :func:`run_sweep`, warm
        (cluster started, workers' imports done, the driver's one-time derivation done).
    speedup : float
        Cells per minute at the largest worker count against the smallest (1 by default).
    work_per_cell_s : float
        Median in-process time of one cell's task.
    task_overhead_ms : float
        Wall time per no-op task when many are mapped on the largest local cluster
        (scheduling throughput).
    round_trip_ms : float
        Wall time of mapping one no-op task (latency).
    overhead_fraction : float
        ``task_overhead_ms / 1000 / work_per_cell_s``.
    config : dict
        What was measured: the sweep's ``"grid"``, ``"R"``, ``"runs"`` and ``"steps"`` per cell, the
        ``"workers"`` counts and the number of no-op tasks ``"noop_tasks"``.
    """

    cells: int
    cells_per_minute: dict
    speedup: float
    work_per_cell_s: float
    task_overhead_ms: float
    round_trip_ms: float
    overhead_fraction: float
    config: dict

    def as_dict(self) -> dict:
        return asdict(self)


def measure_scaling(workers=(1, 2), preset: Preset = PAPER, noop_tasks: int = 200) -> ScalingReport:
    """Time a fixed 8-cell sweep at each worker count (``preset.scaling_steps`` steps and
    ``preset.scaling_runs`` runs per cell), and no-op tasks on the cluster."""
    steps, runs = preset.scaling_steps, preset.scaling_runs
    spec = make_spec(theta=[0.5, 1.0, 1.5, 2.0], N=[500, 2000], R=50, runs=runs, steps=steps, seed=1)
    warm = make_spec(theta=[2.0], N=[10], R=5, runs=1, steps=2, seed=1)
    corrected_prediction(spec, (0, 0, 0), [0.3])  # the driver's one-time symbolic derivation
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        for w in workers:
            with executor(workers=w) as ex:
                ex.map(compute_cell, [_Cell((0, 0, 0), warm)] * w)  # start, import, lambdify
                t = time.perf_counter()
                res = run_sweep(spec, Path(tmp) / f"w{w}.zarr")
                rates[str(w)] = 60 * res.computed / (time.perf_counter() - t)
    work = []
    for index in ((3, 1, 0), (0, 0, 0), (2, 1, 0)):
        t = time.perf_counter()
        compute_cell(_Cell(index, spec))
        work.append(time.perf_counter() - t)
    with executor(workers=max(workers)) as ex:
        ex.map(_noop, range(10))
        t = time.perf_counter()
        ex.map(_noop, range(noop_tasks))
        per_task = (time.perf_counter() - t) / noop_tasks
        t = time.perf_counter()
        for i in range(10):
            ex.map(_noop, [i])
        trip = (time.perf_counter() - t) / 10
    work_s = float(np.median(work))
    return ScalingReport(
        cells=spec.cells, cells_per_minute=rates, speedup=rates[str(max(workers))] / rates[str(min(workers))],
        work_per_cell_s=work_s, task_overhead_ms=1e3 * per_task, round_trip_ms=1e3 * trip,
        overhead_fraction=per_task / work_s,
        config={"grid": spec.as_dict()["grid"], "R": spec.R, "runs": runs, "steps": steps, "workers": list(workers),
                "noop_tasks": noop_tasks},
    )
