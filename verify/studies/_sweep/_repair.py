"""Checking an existing sweep store before it is resumed: metadata rebuilt from the
specification where damaged, every finished cell verified against its checksum.

What can be rebuilt is: the group and array metadata (``.zgroup``, ``.zarray``,
``.zattrs``: they follow from the specification), the root attributes from their
consolidated copy and back, the coordinates, and ``done`` and ``digest`` (a cell is
finished iff its values match its checksum). A cell whose chunks are missing, unreadable
or do not match its checksum is reset to fill and recomputed. What cannot be rebuilt is
the specification itself when both of its copies are unreadable: the store is refused.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._layout import (
    CONSOLIDATED,
    DIGEST,
    DONE,
    METADATA,
    STORE_FORMAT,
    VARIABLES,
    arrays,
    cell_digest,
    coordinates,
    store_array,
)
from ._spec import SweepSpec, _relevant

#: ``.zarray`` fields that must equal the template's for the data to be this store's
_ARRAY_FIELDS = ("shape", "chunks", "dtype", "zarr_format", "order", "dimension_separator")


@dataclass(frozen=True)
class StoreStatus:
    """What :func:`open_store` found.

    Attributes
    ----------
    done : ndarray of bool, shape ``spec.shape``
        Cells finished and verified against their checksum.
    damaged : tuple of tuple
        Indices of cells marked finished (or checksummed) whose data were missing,
        unreadable or did not match: reset, to be recomputed.
    repaired : tuple of str
        Files rebuilt, relative to the store.
    """

    done: np.ndarray
    damaged: tuple = ()
    repaired: tuple = ()


def _json(path: Path):
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and a rename, as the Zarr local store does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _is_ours(attrs) -> bool:
    try:
        return attrs.get("format") == STORE_FORMAT and isinstance(json.loads(attrs["spec"])["grid"], dict)
    except (AttributeError, KeyError, TypeError, ValueError):
        return False


def _root_attributes(path: Path, repaired: list) -> dict:
    """The root attributes, rebuilt from the consolidated copy when unreadable."""
    attrs = _json(path / ".zattrs")
    if _is_ours(attrs):
        return attrs
    consolidated = _json(path / CONSOLIDATED)
    copy = consolidated.get("metadata", {}).get(".zattrs") if isinstance(consolidated, dict) else None
    if isinstance(copy, dict) and _is_ours(copy):
        _write(path / ".zattrs", json.dumps(copy, indent=2).encode())
        repaired.append(".zattrs")
        return copy
    if not isinstance(attrs, dict) and (path / DONE).is_dir():
        raise ValueError(f"`store` {str(path)!r} is a damaged sweep store: its specification (.zattrs and its copy "
                         f"in {CONSOLIDATED}) is unreadable, so no cell can be trusted; move it away or use another "
                         "--store")
    raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store")


def _metadata_ok(key: str, disk, expected) -> bool:
    if not isinstance(disk, dict):
        return False
    if key.endswith(".zarray"):
        return set(disk) == set(expected) and all(disk[k] == expected[k] for k in _ARRAY_FIELDS if k in expected)
    if key.endswith(".zgroup"):
        return disk == expected
    if key == ".zattrs":
        return _is_ours(disk)
    return disk.get("_ARRAY_DIMENSIONS") == expected.get("_ARRAY_DIMENSIONS")


def _opens(path: Path, name: str) -> bool:
    import zarr

    try:
        zarr.open_array(str(path / name), mode="r", zarr_format=2)
        return True
    except Exception:
        return False


def _rewrite_array(path: Path, name: str, files: dict) -> None:
    """Replace the folder of array ``name`` by the template's (metadata and chunks)."""
    shutil.rmtree(path / name, ignore_errors=True)
    for key, data in files.items():
        if key.split("/")[0] == name and "/" in key:
            _write(path / key, data)


def _repair_metadata(path: Path, spec: SweepSpec, files: dict, repaired: list) -> None:
    """Rebuild unreadable metadata, stray format-3 files and damaged coordinates."""
    import zarr

    for key, data in files.items():
        name = key.rsplit("/", 1)[-1]
        if name not in METADATA or key == ".zattrs":
            continue
        if not _metadata_ok(key, _json(path / key), json.loads(data)):
            _write(path / key, data)
            repaired.append(key)
    for name in ["", *arrays(files)]:
        stray = path / name / "zarr.json"
        if stray.exists():  # a format-3 file in a format-2 store: readers would pick it first
            stray.unlink()
            repaired.append(f"{name}/zarr.json".lstrip("/"))
    for name in arrays(files):
        key = f"{name}/.zarray"
        if _json(path / key) != json.loads(files[key]) and not _opens(path, name):
            # well-formed but unusable (a codec, a fill value)
            for meta in (".zarray", ".zattrs"):
                _write(path / name / meta, files[f"{name}/{meta}"])
            repaired.append(f"{name}/.zarray")
    values = {name: np.asarray(vals) for name, vals in spec.grid}
    values["run"] = np.arange(spec.runs)
    for name in coordinates(files):
        try:
            ok = np.array_equal(zarr.open_array(str(path / name), mode="r", zarr_format=2)[...], values[name])
        except Exception:
            ok = False
        if not ok:
            _rewrite_array(path, name, files)
            repaired.append(f"{name} (coordinate)")


def _consolidate(path: Path, files: dict, repaired: list) -> None:
    """Rewrite ``.zmetadata`` when it differs from the metadata files it copies."""
    keys = [key for key in files if key.rsplit("/", 1)[-1] in METADATA]
    expected = {"metadata": {key: _json(path / key) for key in keys}, "zarr_consolidated_format": 1}
    if _json(path / CONSOLIDATED) != expected:
        _write(path / CONSOLIDATED, json.dumps(expected, indent=4).encode())
        repaired.append(CONSOLIDATED)


def _read(array, shape: tuple):
    """``(values, bad)``: the whole array, and per cell whether its chunk was unreadable
    (read cell by cell once the whole read fails)."""
    bad = np.zeros(shape, dtype=bool)
    try:
        return np.asarray(array[...]), bad
    except Exception:
        pass
    values = np.zeros(array.shape, dtype=array.dtype)
    for idx in np.ndindex(shape):
        try:
            values[idx] = array[idx]
        except Exception:
            bad[idx] = True
    return values, bad


def _verify_cells(path: Path, spec: SweepSpec, repaired: list) -> tuple[np.ndarray, list]:
    """``(verified, damaged)``; resets the damaged cells and sets ``done`` to ``verified``."""
    import zarr

    group = zarr.open_group(str(path), mode="r+", zarr_format=2, use_consolidated=False)
    shape = spec.shape
    data = {name: _read(store_array(group, name), shape) for name in VARIABLES}
    digest, digest_bad = _read(store_array(group, DIGEST), shape)
    done, done_bad = _read(store_array(group, DONE), shape)
    verified = np.zeros(shape, dtype=bool)
    damaged = []
    rebuilt = False
    for idx in np.ndindex(shape):
        readable = not digest_bad[idx] and not any(bad[idx] for _, bad in data.values())
        if readable and digest[idx] != 0:
            verified[idx] = cell_digest(idx, {name: values[idx] for name, (values, _) in data.items()}) == digest[idx]
        claimed = done_bad[idx] or done[idx] != 0 or digest_bad[idx] or digest[idx] != 0
        if verified[idx]:
            if done_bad[idx] or done[idx] != 1:
                store_array(group, DONE)[idx] = 1  # the flag follows from the checksum
                rebuilt = True
            continue
        if claimed:
            damaged.append(idx)
        if claimed or not readable:
            for name, (dtype, _, _) in VARIABLES.items():
                store_array(group, name)[idx] = 0 if dtype[0] in "iu" else np.nan
            store_array(group, DIGEST)[idx] = 0
            store_array(group, DONE)[idx] = 0
    if rebuilt:
        repaired.append(f"{DONE} (from the checksums)")
    return verified, damaged


def check_store(path, spec: SweepSpec, files: dict) -> StoreStatus:
    """Check the existing store at ``path`` against ``spec`` (its template ``files``),
    rebuild what can be rebuilt and verify every cell.

    Raises
    ------
    ValueError
        Not a sweep store, made by another specification, or its specification is
        unreadable.
    """
    path = Path(path)
    repaired: list = []
    if not path.is_dir():
        raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store")
    attrs = _root_attributes(path, repaired)
    theirs = _relevant(json.loads(attrs["spec"]))
    ours = json.loads(json.dumps(spec.as_dict(), sort_keys=True))
    if theirs != ours:
        differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
        raise ValueError(f"`store` {str(path)!r} was made by a different sweep (differs in: "
                         f"{', '.join(differ)}); use another --store or the same flags")
    _repair_metadata(path, spec, files, repaired)
    _consolidate(path, files, repaired)
    verified, damaged = _verify_cells(path, spec, repaired)
    return StoreStatus(verified, tuple(damaged), tuple(repaired))
