"""The sweep driver: every unfinished cell on the current executor, each written to
the store as soon as it finishes (what makes a sweep resumable)."""

from __future__ import annotations

import time
from contextlib import closing
from dataclasses import dataclass, field
from itertools import product

from ....numerics import current_executor
from ._cell import _Cell, compute_cell, corrected_prediction
from ._spec import SweepSpec
from ._store import open_store, write_cell


@dataclass(frozen=True)
class SweepResult:
    """Outcome of :func:`run_sweep`.

    Attributes
    ----------
    cells : int
    computed : int
        Cells computed by this call.
    skipped : int
        Cells already finished in the store (not recomputed).
    store : str
    seconds : float
    """

    spec: SweepSpec
    cells: int
    computed: int
    skipped: int
    store: str
    seconds: float
    figures: tuple = field(default=())

    def as_dict(self) -> dict:
        return {"cells": self.cells, "computed": self.computed, "skipped": self.skipped, "store": self.store,
                "seconds": self.seconds, "dims": list(self.spec.dims), "spec": self.spec.as_dict(),
                "figures": list(self.figures),
                "cells_per_minute": 60 * self.computed / self.seconds if self.seconds > 0 else None}


def run_sweep(spec: SweepSpec, store, *, progress=None, on_skip=None) -> SweepResult:
    """Compute every unfinished cell of ``spec`` on the current executor, writing each
    to ``store`` as soon as it finishes.

    Parameters
    ----------
    spec : SweepSpec
    store : path
        Zarr store; created if absent, else resumed (refused if made by another spec).
    progress : callable, optional
        ``progress(done, total)`` over the cells to compute.
    on_skip : callable, optional
        ``on_skip(n)`` with the number of finished cells skipped, before computing.
    """
    t0 = time.perf_counter()
    done = open_store(store, spec)
    todo = [idx for idx in product(*(range(n) for n in spec.shape)) if not done[idx]]
    skipped = spec.cells - len(todo)
    if on_skip is not None:
        on_skip(skipped)
    if progress is not None:
        progress(0, len(todo))
    units = [_Cell(idx, spec) for idx in todo]
    ex = current_executor()
    # fewer cells than workers: each cell sends its blocks of runs back to the cluster
    # (a fan-out unit) so no worker idles; otherwise a cell is the unit, which keeps
    # cells finishing one by one (what a resumed sweep relies on) and threads few
    fan_out = ex.backend != "inline" and len(units) < ex.workers
    # closing: an interrupted sweep releases its queued tasks on the cluster at once
    with closing(ex.as_completed(compute_cell, units, fan_out=fan_out)) as finished:
        for n, (i, result) in enumerate(finished, 1):
            result.update(corrected_prediction(spec, todo[i], result["initial_rho"]))
            write_cell(store, todo[i], result)
            if progress is not None:
                progress(n, len(todo))
    return SweepResult(spec, spec.cells, len(todo), skipped, str(store), time.perf_counter() - t0)
