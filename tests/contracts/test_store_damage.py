"""Sweep stores you can trust: one regression per reported defect,
through ``sigrec sweep`` (``main``), each on a copy of one finished 2 x 2 store.

* a deleted or truncated data chunk left its cell marked done, NaN-filled (or filled
  with whatever the truncated bytes decoded to), with exit 0: the cell is now
  recomputed, to the undamaged run's bits;
* damaged ``done`` bytes gave ``KeyError`` or a blosc error: ``done`` is rebuilt from the
  cells' checksums;
* two sweeps on one store at once: one died with ``FileExistsError``; the second writer
  is now refused with one ``error:`` line naming the store and the holder's pid, and a
  lock left by a process that has exited is taken over.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

from sigrec.numerics import executor
from sigrec.verify.studies import _sweep as sweep

from ..verify.studies.test_sweep import TINY as TINY_SPEC
from .test_fuzz import run_cli

#: :data:`TINY_SPEC` (a 2 x 2 grid of cells of a fraction of a second each, once the
#: first has run) as flags
TINY = ["--theta", "0.5", "2", "--N", "20", "200", "--R", "5", "--runs", "2", "--steps", "5", "--seed", "3"]


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """The figures (a second and a half of matplotlib per call) are not what is tested;
    the store is still read for them (``figure_data``)."""
    import sigrec.verify.cli._sweep as command

    monkeypatch.setattr(command, "plot_sweep", lambda data, out: [])


def read_store(path) -> tuple[str, dict]:
    """``(spec, {array: values})`` of a store, read with zarr (no consolidated metadata)."""
    import zarr

    group = zarr.open_group(str(path), mode="r", zarr_format=2, use_consolidated=False)
    return group.attrs["spec"], {name: np.asarray(group[name][...]) for name in group.array_keys()}


def same_store(a, b) -> None:
    """Every array of two stores (variables, coordinates, checksums) equal bit for bit
    (NaN = NaN), every cell done, and xarray reads the second."""
    (spec_a, da), (spec_b, db) = read_store(a), read_store(b)
    assert spec_a == spec_b and set(da) == set(db), set(da) ^ set(db)
    for name in da:
        nan = da[name].dtype.kind == "f"
        assert da[name].dtype == db[name].dtype and np.array_equal(da[name], db[name], equal_nan=nan), name
    assert db["done"].all()
    assert set(sweep.load(b).data_vars) == set(sweep.VARIABLES) | {"done", "digest"}


def sweep_cli(store, *extra):
    """``(code, JSON or None, stderr lines)`` of ``sigrec sweep TINY --store store --json``."""
    code, out, err, caught = run_cli(["sweep", *TINY, "--store", str(store), "--out", str(store.parent),
                                      "--workers", "1", "--json", *extra])
    assert not caught and "Traceback" not in err, err
    return code, (json.loads(out) if code == 0 else None), err.splitlines()


def assert_refused(code, lines, *words):
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), lines
    assert "internal error" not in lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])


@pytest.fixture
def copy(reference, tmp_path):
    path = tmp_path / "s.zarr"
    shutil.copytree(reference, path)
    return path


@pytest.mark.parametrize("chunk", ["final_rho/0.1.0.0", "mean_final_abs/1.0.0"])
def test_a_deleted_data_chunk_is_recomputed(reference, copy, chunk):
    # was: the cell stayed marked done, its values NaN, exit 0
    (copy / chunk).unlink()
    code, out, _ = sweep_cli(copy)
    cell = {"0.1": "theta=0.5, N=200, d=3", "1.0": "theta=2.0, N=20, d=3"}[chunk.split("/")[1][:3]]
    assert code == 0 and (out["computed"], out["skipped"], out["damaged"]) == (1, 3, [cell])
    same_store(reference, copy)


@pytest.mark.parametrize("cut", [0, 1, 16, -1])
def test_a_truncated_data_chunk_is_recomputed(reference, copy, cut):
    # half of this chunk decoded without an error, into NaN and a denormal
    chunk = copy / "final_rho" / "1.1.0.0"
    data = chunk.read_bytes()
    chunk.write_bytes(data[:cut] if cut >= 0 else data[: len(data) // 2])
    code, out, _ = sweep_cli(copy)
    assert code == 0 and (out["computed"], out["damaged"]) == (1, ["theta=2.0, N=200, d=3"])
    same_store(reference, copy)


@pytest.mark.parametrize("damage", [b"", b"\xff" * 17, b"\x02\x01\x21\x01" + b"\x00" * 13, None])
def test_damaged_done_bytes_are_rebuilt_from_the_checksums(reference, copy, damage):
    # was: KeyError or a blosc internal error
    for chunk in ("0.0.0", "1.1.0"):
        if damage is None:
            (copy / "done" / chunk).unlink()
        else:
            (copy / "done" / chunk).write_bytes(damage)
    code, out, _ = sweep_cli(copy)
    assert code == 0 and (out["computed"], out["skipped"], out["damaged"]) == (0, 4, [])
    assert out["repaired"] == ["done (from the checksums)"]
    same_store(reference, copy)


@pytest.mark.parametrize("name", ["done/.zarray", "done/.zattrs", "final_rho/.zarray", ".zgroup", ".zmetadata",
                                  ".zattrs", "theta/0"])
def test_damaged_metadata_is_rebuilt(reference, copy, name):
    (copy / name).write_bytes(b'{"shape": [')
    code, out, _ = sweep_cli(copy)
    assert code == 0 and (out["computed"], out["skipped"]) == (0, 4)
    assert name.replace("theta/0", "theta (coordinate)") in out["repaired"]
    same_store(reference, copy)
    # the repair holds: a third run finds nothing to do
    code, out, _ = sweep_cli(copy)
    assert code == 0 and (out["computed"], out["damaged"], out["repaired"]) == (0, [], [])


def test_an_unreadable_specification_is_refused_naming_the_store(copy):
    # both copies of the specification gone: nothing says which sweep the cells belong to
    (copy / ".zattrs").write_bytes(b"\x00garbage")
    (copy / ".zmetadata").unlink()
    code, _, lines = sweep_cli(copy)
    assert_refused(code, lines, repr(str(copy)), "specification")


def _child():
    """A live process that is not a sweep (a child of this test; ended by it)."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def test_a_lock_held_by_a_live_process_refuses_the_second_writer(tmp_path):
    store = tmp_path / "s.zarr"
    child = _child()
    try:
        sweep._lock.lock_path(store).write_text(json.dumps(sweep._lock.holder_record(child.pid)))
        code, _, lines = sweep_cli(store)
        assert_refused(code, lines, repr(str(store)), f"pid {child.pid}", "in use")
        assert not store.exists()  # nothing written
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def test_a_stale_lock_of_an_exited_process_is_taken_over(reference, tmp_path):
    store = tmp_path / "s.zarr"
    child = _child()
    child.stdin.close()
    child.wait(timeout=30)
    lock = sweep._lock.lock_path(store)
    lock.write_text(json.dumps(sweep._lock.holder_record(child.pid)))
    code, out, _ = sweep_cli(store)
    assert code == 0 and out["computed"] == 4
    assert out["repaired"] == [f"stale lock of pid {child.pid} (exited), taken over"]
    assert not lock.exists()  # released
    same_store(reference, store)


def test_two_sweeps_at_once_on_a_fresh_store(reference, tmp_path):
    # was: one of them died with FileExistsError; now the second is refused, the first ends
    store = tmp_path / "s.zarr"
    inside, release = threading.Event(), threading.Event()
    failed = []

    def first():
        def hold(done, total):
            inside.set()
            release.wait(60)

        try:
            with executor(workers=1):
                sweep.run_sweep(sweep.make_spec(**TINY_SPEC), store, progress=hold)
        except BaseException as exc:
            failed.append(exc)
            inside.set()

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert inside.wait(60) and not failed, failed
        code, _, lines = sweep_cli(store)
        assert_refused(code, lines, repr(str(store)), f"pid {os.getpid()}")
    finally:
        release.set()
        thread.join(60)
    assert not failed, failed
    same_store(reference, store)
