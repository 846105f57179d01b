"""What a sweep store holds: its variables, its template (every metadata file and the
coordinates, as bytes) and the checksum of one cell."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ._cell import CONFIDENCE, LANDSCAPES, QUANTILES, RECOVERED
from ._spec import SweepSpec

if TYPE_CHECKING:  # annotations only: zarr is imported where a store is read or written
    from zarr import Array, Group
    from zarr.abc.buffer import Buffer

STORE_FORMAT = "sigrec-sweep-1"


#: variable -> (dtype, per run?, description)
VARIABLES = {
    "landscape": ("i1", False, "certified landscape: " + ", ".join(f"{i} = {s}" for i, s in enumerate(LANDSCAPES))),
    "certified": ("i1", False, "1 iff interval arithmetic decided the whole landscape"),
    "rho_star": ("f8", False, "smallest interior equilibrium (certified bracket midpoint); NaN where none"),
    "predicted_minus_fraction": ("f8", False, "ODE basin measure of -xi for q_0 uniform on the sphere "
                                 "(regularized incomplete beta)"),
    "ode_minus_fraction": ("f8", False, "fraction of the simulated starts in the ODE basin of -xi"),
    "minus_fraction": ("f8", False, "simulated fraction of runs ending with rho < 0"),
    "minus_fraction_lo": ("f8", False, f"Clopper-Pearson {CONFIDENCE:.0%} interval, lower end"),
    "minus_fraction_hi": ("f8", False, f"Clopper-Pearson {CONFIDENCE:.0%} interval, upper end"),
    "initial_rho": ("f8", True, "rho_0 per run"),
    "final_rho": ("f8", True, "rho_K per run"),
    "mean_final_abs": ("f8", False, "mean |rho_K| over runs"),
    **{f"final_abs_q{int(q * 100):02d}": ("f8", False, f"{q:g} quantile of |rho_K|") for q in QUANTILES},
    "recovered_fraction": ("f8", False, f"fraction of runs with |rho_K| >= {RECOVERED}"),
    "median_step_to_099": ("f8", False, f"median over runs of the first recorded step with |rho| >= {RECOVERED} "
                           "(NaN when fewer than half reach it)"),
    "nuisance_measured": ("f8", False, "attention mass on nuisance tokens at the last step, mean over runs"),
    "nuisance_limit": ("f8", False, "limit nuisance mass at the final rho of each run, mean over runs"),
    "ode_plain": ("f8", False, "mean |rho(t_K)| of the plain ODE from each run's start"),
    "ode_plain_median_start": ("f8", False, "plain ODE |rho(t_K)| from the median |rho_0| (numerics.predict)"),
    "ode_corrected_median_start": ("f8", False, "drag-corrected ODE |rho_K| from the median |rho_0| "
                                   "(numerics.predict)"),
    "alpha_effective": ("f8", False, "R / L of the simulated instance"),
    "seed": ("u8", False, "the cell's SeedSequence seed (from its identity)"),
}
#: bookkeeping arrays, one chunk per cell: the checksum is written after the data, the
#: flag last; both are rebuilt from the data when damaged (``._repair``)
DIGEST = "digest"
DONE = "done"
#: metadata files of a format-2 store (``.zmetadata`` is their consolidated copy)
METADATA = (".zarray", ".zattrs", ".zgroup")
CONSOLIDATED = ".zmetadata"


def dtype_of(name: str) -> np.dtype:
    """The stored dtype of a variable, little-endian (as written and as digested)."""
    return np.dtype(VARIABLES[name][0]).newbyteorder("<")


def cell_values(result: dict) -> dict:
    """``result`` (variable -> value) as arrays of the stored dtypes, in :data:`VARIABLES`
    order: exactly what :func:`cell_digest` covers and the store holds."""
    if set(result) != set(VARIABLES):
        raise ValueError(f"`result` must hold exactly the sweep variables; missing "
                         f"{sorted(set(VARIABLES) - set(result))}, unknown {sorted(set(result) - set(VARIABLES))}")
    return {name: np.array(result[name], dtype=dtype_of(name), order="C") for name in VARIABLES}


def cell_digest(index: tuple, values: dict) -> int:
    """64-bit BLAKE2b of a cell's position and values (:func:`cell_values`); never 0, which
    marks a cell without one."""
    h = hashlib.blake2b(digest_size=8)
    h.update(repr(tuple(int(i) for i in index)).encode())
    for name in VARIABLES:
        v = np.array(values[name], dtype=dtype_of(name), order="C")
        h.update(f"{name}:{v.shape}".encode() + b"\0" + v.tobytes())
    return int.from_bytes(h.digest(), "little") or 1


def store_array(group: Group, name: str) -> Array:
    """The array ``name`` of a store's root ``group``: every member of a sweep store is an
    array, and a group in its place is not this store's layout (``ValueError``)."""
    import zarr

    node = group[name]
    if not isinstance(node, zarr.Array):
        raise ValueError(f"`{name}` of the sweep store is a group, not an array")
    return node


def _dataset(spec: SweepSpec):
    import xarray as xr

    dims = spec.dims
    coords = {name: np.array(values) for name, values in spec.grid}
    coords["run"] = np.arange(spec.runs)
    data = {}
    for name, (dtype, per_run, desc) in VARIABLES.items():
        shape = spec.shape + ((spec.runs,) if per_run else ())
        fill = 0 if dtype[0] in "iu" else np.nan
        data[name] = (dims + (("run",) if per_run else ()), np.full(shape, fill, dtype=dtype), {"description": desc})
    data[DIGEST] = (dims, np.zeros(spec.shape, dtype="u8"),
                    {"description": "64-bit BLAKE2b of the cell's values as written (0: none); a finished cell "
                     "whose values do not match it is recomputed"})
    data[DONE] = (dims, np.zeros(spec.shape, dtype="i1"), {"description": "1 iff the cell is finished"})
    ds = xr.Dataset(data, coords=coords)
    ds["landscape"].attrs.update(flag_values=list(range(len(LANDSCAPES))), flag_meanings=" ".join(LANDSCAPES))
    ds.attrs.update(format=STORE_FORMAT, spec=json.dumps(spec.as_dict(), sort_keys=True))
    encoding = {name: {"chunks": (1,) * len(dims) + ((spec.runs,) if VARIABLES[name][1] else ())}
                for name in VARIABLES}
    encoding[DIGEST] = encoding[DONE] = {"chunks": (1,) * len(dims)}
    return ds, encoding


def template(spec: SweepSpec) -> dict:
    """The files of an empty store of ``spec``: relative path -> bytes (metadata, its
    consolidated copy, and the coordinates' chunks; no data chunk, all being fill)."""
    return dict(_template(spec))


@lru_cache(maxsize=8)
def _template(spec: SweepSpec) -> dict:
    from zarr.storage import MemoryStore

    ds, encoding = _dataset(spec)
    files: dict[str, Buffer] = {}
    ds.to_zarr(MemoryStore(files), encoding=encoding, consolidated=True, zarr_format=2)
    return {key: buf.to_bytes() for key, buf in files.items()}


def arrays(files: dict) -> list[str]:
    """The arrays of a template, by name."""
    return sorted(key.split("/")[0] for key in files if key.endswith("/.zarray"))


def coordinates(files: dict) -> list[str]:
    """The coordinate arrays of a template (the only ones with chunks in it)."""
    return sorted({key.split("/")[0] for key in files if "/" in key and not key.rsplit("/", 1)[1].startswith(".")})
