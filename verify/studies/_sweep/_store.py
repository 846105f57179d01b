"""The sweep store: a Zarr (format 2) group with one chunk per cell, created whole before
the first cell runs; a cell is written data first, its checksum next, its ``done`` flag
last. Only the holder of the store's lock (``._lock.store_lock``) opens or writes it."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

import numpy as np

from ._layout import DIGEST, DONE, cell_digest, cell_values, store_array, template
from ._repair import StoreStatus, check_store
from ._spec import SweepSpec


def _create(path: Path, files: dict) -> None:
    """Write the template into a sibling folder and rename it into place: a store exists
    whole or not at all (leftovers of an interrupted creation are removed first)."""
    for left in path.parent.glob(f"{glob.escape(path.name)}.partial-*"):
        shutil.rmtree(left, ignore_errors=True)
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
    for key, data in files.items():
        target = partial / key
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    os.rename(partial, path)


def open_store(path, spec: SweepSpec) -> StoreStatus:
    """Create the store at ``path``, or check that it was made by ``spec``, rebuild what
    damage can be rebuilt and verify every finished cell against its checksum.

    Returns
    -------
    StoreStatus
        Which cells are finished (and verified), which were damaged (reset, to be
        recomputed) and which files were rebuilt.

    Raises
    ------
    ValueError
        ``path`` is not a sweep store, was made by another specification, or its
        specification is unreadable.
    """
    path = Path(path)
    files = template(spec)
    if path.exists() or path.is_symlink():
        return check_store(path, spec, files)
    path.parent.mkdir(parents=True, exist_ok=True)
    _create(path, files)
    return StoreStatus(np.zeros(spec.shape, dtype=bool))


def write_cell(path, index: tuple, result: dict) -> None:
    """Write one finished cell: its data chunks, then its checksum, then its ``done`` flag
    (each chunk is written to a temporary file and renamed by the Zarr local store, and a
    cell counts as finished only when its data match its checksum)."""
    import zarr

    values = cell_values(result)
    group = zarr.open_group(str(path), mode="r+", zarr_format=2, use_consolidated=False)
    for name, value in values.items():
        store_array(group, name)[index] = value
    store_array(group, DIGEST)[index] = np.uint64(cell_digest(index, values))
    store_array(group, DONE)[index] = 1


def load(store, *, dask: bool = True):
    """The store as an ``xarray.Dataset`` (``xarray.open_zarr``): dask arrays, or with
    ``dask=False`` lazily read numpy arrays (no task graph: quicker for a small store)."""
    import xarray as xr

    if dask:
        return xr.open_zarr(str(store), zarr_format=2)
    return xr.open_zarr(str(store), zarr_format=2, chunks=None)
