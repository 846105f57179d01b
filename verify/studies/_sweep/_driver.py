"""The sweep driver: every unfinished cell on the current executor, each written to
the store as soon as it finishes (what makes a sweep resumable)."""

from __future__ import annotations

import time
from contextlib import closing
from dataclasses import dataclass, field, replace
from itertools import product

from ....numerics import current_executor
from ._cell import _Cell, compute_cell, corrected_prediction
from ._lock import store_lock
from ._spec import SweepSpec
from ._store import open_store, write_cell


@dataclass(frozen=True)
class SweepResult:
    """Outcome of :func:`run_sweep`.

    Attributes
    ----------
    spec : SweepSpec
        What was swept.
    cells : int
        Cells of the grid (``spec.cells``).
    computed : int
        Cells computed by this call.
    skipped : int
        Cells already finished in the store and verified (not recomputed).
    store : str
        The path of the Zarr store.
    seconds : float
        Seconds of wall time of this call.
    figures : tuple of str
        Paths of figures drawn from the sweep; :func:`run_sweep` leaves it empty (``sigrec sweep``
        lists the figures it draws in its own output).
    damaged : tuple of str
        Cells (:meth:`SweepSpec.label`) marked finished whose data failed their
        checksum: recomputed by this call.
    repaired : tuple of str
        Store files rebuilt before resuming.
    """

    spec: SweepSpec
    cells: int
    computed: int
    skipped: int
    store: str
    seconds: float
    figures: tuple = field(default=())
    damaged: tuple = ()
    repaired: tuple = ()

    def as_dict(self) -> dict:
        return {"cells": self.cells, "computed": self.computed, "skipped": self.skipped, "store": self.store,
                "seconds": self.seconds, "dims": list(self.spec.dims), "spec": self.spec.as_dict(),
                "figures": list(self.figures), "damaged": list(self.damaged), "repaired": list(self.repaired),
                "cells_per_minute": 60 * self.computed / self.seconds if self.seconds > 0 else None}


def run_sweep(spec: SweepSpec, store, *, progress=None, on_resume=None) -> SweepResult:
    """Compute every unfinished cell of ``spec`` on the current executor, writing each
    to ``store`` as soon as it finishes.

    Parameters
    ----------
    spec : SweepSpec
    store : path
        Zarr store; created if absent, else checked and resumed (refused if made by
        another spec or its spec is unreadable; cells whose data fail their checksum are
        recomputed). Held under its lock file for the whole call: a second writer is
        refused.
    progress : callable, optional
        ``progress(done, total)`` over the cells to compute.
    on_resume : callable, optional
        ``on_resume(status)`` with the :class:`StoreStatus` the store was opened with,
        before computing.
    """
    t0 = time.perf_counter()
    with store_lock(store) as stale:
        status = open_store(store, spec)
        if stale is not None:
            status = replace(status, repaired=(*status.repaired, f"stale lock of pid {stale} (exited), taken over"))
        todo = [idx for idx in product(*(range(n) for n in spec.shape)) if not status.done[idx]]
        if on_resume is not None:
            on_resume(status)
        if progress is not None:
            progress(0, len(todo))
        _compute(spec, store, todo, progress)
    return SweepResult(spec, spec.cells, len(todo), spec.cells - len(todo), str(store), time.perf_counter() - t0,
                       damaged=tuple(spec.label(idx) for idx in status.damaged), repaired=status.repaired)


def _compute(spec: SweepSpec, store, todo: list, progress) -> None:
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
