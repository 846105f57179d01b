"""Parameter sweeps with a resumable Zarr store (docs/design.md section 8).

One concept per module: :mod:`._spec` (what a sweep computes, its presets),
:mod:`._cell` (one grid cell, pure), :mod:`._layout` (what the store holds, a cell's
checksum), :mod:`._store` (creating, writing, reading it), :mod:`._repair` (checking an
existing store), :mod:`._lock` (one writer), :mod:`._driver` (the loop over unfinished
cells) and :mod:`._figure` (the numbers the figures draw).

A sweep is a grid over ``theta``, ``N`` (at fixed ``R``) or ``alpha`` (at fixed ``L``),
``d``, ``beta``, ``sigma2`` and ``prior``. Each grid cell is one independent unit on the
executor of the enclosing command (a fan-out unit, whose blocks of runs spread over the
cluster, when there are fewer cells than workers): it simulates ``runs`` runs of the exact reduced
chain (docs/design.md section 2) from uniform starts on the sphere and compares them
with the limit theory of that cell's model. Its random stream is
``SeedSequence(seed, spawn_key=cell identity)`` (:func:`sigrec.verify.checks.derive_seed`,
the identity built from the cell's parameter values), so neither the cluster nor the
order in which cells finish changes a number.

**Store.** A Zarr (format 2) group that ``xarray.open_zarr`` reads as a Dataset with one
dimension per swept parameter (coordinates named after the flags) and a ``run``
dimension. It is created in full (NaN) before the first cell runs, with one chunk per
cell, and the specification in its attributes. A cell is written by the driver only:
its data chunks first, then its checksum (``digest``), then its ``done`` flag; chunks are
written to a temporary file and renamed. A rerun checks the store (:mod:`._repair`):
damaged metadata is rebuilt from the specification, and a cell counts as finished only
when its values match its checksum (else it is reset and recomputed); a store made by
another specification, or whose specification is unreadable, is refused. One process
writes at a time (:mod:`._lock`: ``<store>.lock``, a stale one taken over).

**The predicted -xi fraction.** For ``q_0`` uniform on ``S^{d-1}``,
``(1 + rho_0)/2 ~ Beta((d-1)/2, (d-1)/2)`` (numerics ``_init``). When ``-xi`` attracts,
its ODE basin is ``[-1, rho*)`` with ``rho*`` the smallest interior equilibrium
(certified bracket midpoint), so the basin measure of uniform starts is the regularized
incomplete beta function ``I_{(1 + rho*)/2}((d-1)/2, (d-1)/2)``; it is 0 when the
landscape is monotone.
"""

from ._cell import CONFIDENCE, LANDSCAPES, QUANTILES, RECOVERED, compute_cell, corrected_prediction
from ._driver import SweepResult, run_sweep
from ._figure import SETTLED, SweepFigure, figure_data
from ._layout import STORE_FORMAT, VARIABLES, cell_digest
from ._lock import store_lock
from ._repair import StoreStatus
from ._spec import PARAMETERS, PRESETS, SweepSpec, make_spec, preset, spec_from
from ._store import load, open_store, write_cell
from ._subspace import (
                    SPECIALISED,
                    SubspaceSweep,
                    SubspaceSweepSpec,
                    compute_subspace_cell,
                    run_subspace_sweep,
                    specialisation_index,
)

__all__ = ["CONFIDENCE", "LANDSCAPES", "PARAMETERS", "PRESETS", "QUANTILES", "RECOVERED", "SETTLED",
           "SPECIALISED", "STORE_FORMAT", "SubspaceSweep", "SubspaceSweepSpec", "VARIABLES", "StoreStatus",
           "SweepFigure", "SweepResult", "SweepSpec", "cell_digest", "compute_cell", "corrected_prediction",
           "figure_data", "load", "make_spec", "open_store", "preset", "compute_subspace_cell", "run_subspace_sweep",
           "run_sweep", "spec_from", "specialisation_index", "store_lock", "write_cell"]
