"""Property-based damage of a finished sweep store, then ``sigrec sweep`` on it again.

A generated case damages one to three files of a copy of a finished 2 x 2 store: a data
chunk, a ``done`` or ``digest`` chunk, a coordinate, any metadata file (``.zarray``,
``.zattrs``, ``.zgroup``, ``.zmetadata``) or a stray format-3 ``zarr.json``; each by
deletion, truncation, random bytes or a zero-length file. Rerunning the same command must
end in one of three ways:

* exit 0 with a store equal bit for bit to the undamaged one, every cell done (damaged
  cells recomputed, damaged metadata rebuilt), and a further run that finds nothing to do;
* exit 2 with one ``error:`` line naming the store, only when both copies of its
  specification (``.zattrs`` and ``.zmetadata``) were damaged;
* never a cell marked done that holds NaN where the undamaged store has a number, never a
  traceback, a warning or another exit code.

The quick profile runs in the default test run; ``-m slow`` runs the long one.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigrec.verify.studies import _sweep as sweep

from .test_store_damage import TINY_SPEC, assert_refused, read_store, same_store, sweep_cli

HOW = ("delete", "truncate", "random", "empty")
#: files that hold the specification; only when both are damaged may a store be refused
SPECIFICATION = {".zattrs", ".zmetadata"}


@pytest.fixture(scope="module")
def targets(reference):
    """Every file of the finished store, and the stray format-3 files a reader might take."""
    files = sorted(str(p.relative_to(reference)) for p in reference.rglob("*") if p.is_file())
    return [*files, "zarr.json", "done/zarr.json"]


@st.composite
def damage(draw, targets):
    """``[(file, how, payload)]``: one to three distinct files and what happens to each."""
    files = draw(st.lists(st.sampled_from(targets), min_size=1, max_size=3, unique=True))
    return [(f, draw(st.sampled_from(HOW)), draw(st.binary(min_size=0, max_size=64)), draw(st.floats(0, 1)))
            for f in files]


def apply(store: Path, cases) -> set:
    """Damage ``store``; the files whose content changed."""
    changed = set()
    for name, how, payload, where in cases:
        path = store / name
        before = path.read_bytes() if path.exists() else None
        if how == "delete":
            path.unlink(missing_ok=True)
        elif how == "truncate":
            if before is not None:
                path.write_bytes(before[: int(where * len(before))])
        elif how == "random":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(payload)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")
        after = path.read_bytes() if path.exists() else None
        if after != before:
            changed.add(name)
    return changed


def assert_store_contract(reference: Path, store: Path, changed: set) -> None:
    code, out, lines = sweep_cli(store)
    if code == 2:
        assert_refused(code, lines, repr(str(store)))
        assert SPECIFICATION <= changed, (changed, lines)
        return
    assert code == 0, lines
    # no cell marked done holds NaN where the undamaged store has a number ...
    (_, got), (_, ref) = read_store(store), read_store(reference)
    done = got["done"].astype(bool)
    for name in sweep.VARIABLES:
        if got[name].dtype.kind == "f":
            lost = (np.isnan(got[name]) & ~np.isnan(ref[name])).reshape((*done.shape, -1)).any(axis=-1)
            assert not (lost & done).any(), name
    # ... and in fact every cell is done and equal, bit for bit, to the undamaged run's
    same_store(reference, store)
    assert out["computed"] + out["skipped"] == 4 and out["computed"] == len(out["damaged"])
    # the repair holds: opening it again finds nothing to do
    status = sweep.open_store(store, sweep.make_spec(**TINY_SPEC))
    assert status.done.all() and (status.damaged, status.repaired) == ((), ()), status


def _run_case(reference, cases):
    root = Path(tempfile.mkdtemp(prefix="sigrec-fuzz-store-"))
    try:
        store = root / "s.zarr"
        shutil.copytree(reference, store)
        assert_store_contract(reference, store, apply(store, cases))
    finally:
        shutil.rmtree(root, ignore_errors=True)


#: cell -> its result, filled by the first recomputation of each cell in this module
_RESULTS: dict = {}


@pytest.fixture(autouse=True)
def quick_cells(monkeypatch):
    """No figures, and each cell computed once per module: ``compute_cell`` and
    ``corrected_prediction`` are pure, and that a recomputed cell has the undamaged run's
    bits is the regression tests' business (``test_store_damage.py``); here what is
    under test is which cells the store sends back to be computed and what it keeps."""
    import copy

    import sigrec.verify.cli._sweep as command

    driver = sweep._driver

    def remembered(fn):
        def call(*args):
            key = (fn.__name__, repr(args))
            if key not in _RESULTS:
                _RESULTS[key] = fn(*args)
            return copy.deepcopy(_RESULTS[key])

        return call

    monkeypatch.setattr(command, "plot_sweep", lambda data, out: [])
    monkeypatch.setattr(driver, "compute_cell", remembered(driver.compute_cell))
    monkeypatch.setattr(driver, "corrected_prediction", remembered(driver.corrected_prediction))


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.data())
def test_store_damage_fuzz_quick(reference, targets, data):
    _run_case(reference, data.draw(damage(targets)))


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_store_damage_fuzz_long(reference, targets, data):
    _run_case(reference, data.draw(damage(targets)))


def test_the_targets_cover_every_kind_of_file(targets):
    kinds = {name.rsplit("/", 1)[-1] if "/" in name and name.rsplit("/", 1)[-1].startswith(".") else
             ("chunk" if "/" in name else name) for name in targets}
    assert {".zarray", ".zattrs", ".zgroup", ".zmetadata", "chunk", "zarr.json"} <= kinds
    assert {"final_rho/0.0.0.0", "done/0.0.0", "digest/0.0.0", "theta/0"} <= set(targets)
