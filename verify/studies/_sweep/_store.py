"""The sweep store: a Zarr (format 2) group with one chunk per cell, created in full
before the first cell runs; a cell is written data first, ``done`` flag last."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ._cell import CONFIDENCE, LANDSCAPES, QUANTILES, RECOVERED
from ._spec import SweepSpec, _relevant

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


def _template(spec: SweepSpec):
    import xarray as xr

    dims = spec.dims
    coords = {name: np.array(values) for name, values in spec.grid}
    coords["run"] = np.arange(spec.runs)
    data = {}
    for name, (dtype, per_run, desc) in VARIABLES.items():
        shape = spec.shape + ((spec.runs,) if per_run else ())
        fill = 0 if dtype[0] in "iu" else np.nan
        data[name] = (dims + (("run",) if per_run else ()), np.full(shape, fill, dtype=dtype), {"description": desc})
    data["done"] = (dims, np.zeros(spec.shape, dtype="i1"), {"description": "1 iff the cell is finished"})
    ds = xr.Dataset(data, coords=coords)
    ds["landscape"].attrs.update(flag_values=list(range(len(LANDSCAPES))), flag_meanings=" ".join(LANDSCAPES))
    ds.attrs.update(format=STORE_FORMAT, spec=json.dumps(spec.as_dict(), sort_keys=True))
    encoding = {name: {"chunks": (1,) * len(dims) + ((spec.runs,) if VARIABLES[name][1] else ())}
                for name in VARIABLES}
    encoding["done"] = {"chunks": (1,) * len(dims)}
    return ds, encoding


def open_store(path, spec: SweepSpec) -> np.ndarray:
    """Create the store at ``path`` or check that it was made by ``spec``.

    Returns
    -------
    ndarray of bool, shape ``spec.shape``
        Which cells are finished.
    """
    import zarr

    path = Path(path)
    if path.exists():
        try:
            group = zarr.open_group(str(path), mode="r")
            attrs = dict(group.attrs)
        except Exception:  # noqa: BLE001 - any unreadable folder is refused the same way
            raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store") from None
        if attrs.get("format") != STORE_FORMAT:
            raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store")
        theirs = _relevant(json.loads(attrs["spec"]))
        ours = json.loads(json.dumps(spec.as_dict(), sort_keys=True))
        if theirs != ours:
            differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            raise ValueError(f"`store` {str(path)!r} was made by a different sweep (differs in: "
                             f"{', '.join(differ)}); use another --store or the same flags")
        return np.asarray(group["done"][...]).astype(bool)
    ds, encoding = _template(spec)
    ds.to_zarr(str(path), mode="w-", encoding=encoding, consolidated=True, zarr_format=2)
    return np.zeros(spec.shape, dtype=bool)


def write_cell(path, index: tuple, result: dict) -> None:
    """Write one finished cell: its data chunks, then its ``done`` flag (each chunk is
    written to a temporary file and renamed by the Zarr local store)."""
    import zarr

    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    for name, value in result.items():
        group[name][index] = value
    group["done"][index] = 1


def load(store):
    """The store as an ``xarray.Dataset`` (``xarray.open_zarr``)."""
    import xarray as xr

    return xr.open_zarr(str(store))
