"""``sigrec sweep`` (docs/design.md section 8): the store, its resumption, its refusal of
another spec, and the predicted basin measure against an independent route."""

import json

import numpy as np
import pytest
import xarray as xr
from scipy.stats import binomtest

from sigrec.numerics import executor, initial_rho, spawn_generators
from sigrec.theory import Model, certify
from sigrec.verify.cli import main
from sigrec.verify.studies import _sweep as sweep

SMALL = ["--theta", "0.5", "2", "--N", "200", "2000", "--R", "50", "--runs", "6", "--steps", "200", "--seed", "3"]


def same_store(a, b) -> None:
    """Every variable of two stores equal bit for bit (NaN = NaN)."""
    da, db = xr.open_zarr(a).load(), xr.open_zarr(b).load()
    assert set(da.data_vars) == set(db.data_vars)
    assert da.attrs["spec"] == db.attrs["spec"]
    for name in da.data_vars:
        assert np.array_equal(da[name].values, db[name].values, equal_nan=True), name


def sweep_cli(args, capsys):
    code = main(["sweep", *args, "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


@pytest.mark.parametrize("d", [2, 3, 10])
@pytest.mark.parametrize("rho_star", [-0.5417, 0.3])
def test_basin_measure_matches_the_simulators_own_starts(d, rho_star):
    """The closed form P(rho_0 < rho*) against the starts numerics draws (another route:
    Beta draws through the per-run generators), within a 4-sigma binomial band."""
    n = 4000
    r0 = initial_rho(spawn_generators(d * 1000 + int(100 * (rho_star + 1)), n), d)
    shape = (d - 1) / 2
    from scipy.special import betainc

    p = betainc(shape, shape, (1 + rho_star) / 2)
    assert abs(np.mean(r0 < rho_star) - p) <= 4 * np.sqrt(p * (1 - p) / n) + 1e-12
    if d == 3:  # uniform on [-1, 1]
        assert p == pytest.approx((1 + rho_star) / 2, abs=1e-12)


def test_minus_basin_uses_the_certified_equilibrium():
    cert = certify(Model.from_counts(2.0, 500, 10_500))
    rho_star, p = sweep._cell._minus_basin(cert, 3)
    assert rho_star == pytest.approx(-0.5417389608, abs=1e-9)
    assert p == pytest.approx((1 + rho_star) / 2, abs=1e-12)
    assert sweep._cell._minus_basin(certify(Model(0.5, 0.5)), 3) == (pytest.approx(np.nan, nan_ok=True), 0.0)
    assert sweep._cell._minus_basin(certify(Model(1.0, 0.5, prior="rademacher")), 7)[1] == pytest.approx(0.5)


def test_store_layout_resume_and_refusal(tmp_path, capsys):
    store = tmp_path / "s.zarr"
    code, out, _ = sweep_cli([*SMALL, "--store", str(store), "--out", str(tmp_path), "--workers", "1"], capsys)
    assert code == 0
    assert {k: out[k] for k in ("cells", "computed", "skipped")} == {"cells": 4, "computed": 4, "skipped": 0}
    assert out["store"] == str(store) and out["seconds"] > 0 and len(out["figures"]) == 2
    ds = xr.open_zarr(store)
    assert dict(ds.sizes) == {"theta": 2, "N": 2, "d": 1, "run": 6}
    assert ds["theta"].values.tolist() == [0.5, 2.0] and ds["N"].values.tolist() == [200, 2000]
    assert ds["final_rho"].dims == ("theta", "N", "d", "run")
    assert ds["done"].values.all()
    land = ds["landscape"].values[..., 0]
    assert [[sweep.LANDSCAPES[c] for c in row] for row in land] == [["monotone"] * 2, ["bistable"] * 2]
    assert np.isnan(ds["rho_star"].values[0]).all() and (ds["rho_star"].values[1] < 0).all()
    assert (ds["predicted_minus_fraction"].values[0] == 0).all()
    lo, mf, hi = (ds[k].values for k in ("minus_fraction_lo", "minus_fraction", "minus_fraction_hi"))
    assert (lo <= mf).all() and (mf <= hi).all()
    # minus_fraction is the share of negative final rho, read back from the per-run data
    assert np.array_equal(mf, (ds["final_rho"].values < 0).mean(axis=-1))

    # the same command again: everything skipped, nothing recomputed, the store unchanged;
    # under --json (stderr not a terminal) the resume note stays off stderr ...
    import shutil

    shutil.copytree(store, tmp_path / "before.zarr")
    code, again, err = sweep_cli([*SMALL, "--store", str(store), "--out", str(tmp_path), "--workers", "1"], capsys)
    assert code == 0 and (again["computed"], again["skipped"]) == (0, 4) and err == ""
    assert (again["damaged"], again["repaired"]) == ([], [])
    same_store(tmp_path / "before.zarr", store)
    # ... and without --json it says what it skipped
    assert main(["sweep", *SMALL, "--store", str(store), "--out", str(tmp_path), "--workers", "1"]) == 0
    assert "4 of 4 cells already finished" in capsys.readouterr().err

    # another spec: one error line, exit 2, nothing on stdout
    code = main(["sweep", *SMALL[:-2], "--seed", "4", "--store", str(store), "--out", str(tmp_path), "--json"])
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2 and cap.out == "" and len(lines) == 1 and lines[0].startswith("error:") and "seed" in lines[0]


class _Crash(Exception):
    pass


def test_an_interrupted_sweep_resumes_to_the_same_store(tmp_path):
    spec = sweep.make_spec(theta=[0.5, 2.0], N=[200, 2000], R=50, runs=6, steps=200, seed=3)
    full = tmp_path / "full.zarr"
    with executor(workers=1):
        sweep.run_sweep(spec, full)

    def crash_after_two(done, total):
        if done == 2:
            raise _Crash

    part = tmp_path / "part.zarr"
    with executor(workers=1), pytest.raises(_Crash):
        sweep.run_sweep(spec, part, progress=crash_after_two)
    assert not (tmp_path / "part.zarr.lock").exists()
    assert xr.open_zarr(part)["done"].values.sum() == 2
    with executor(workers=1):
        res = sweep.run_sweep(spec, part)
    assert (res.computed, res.skipped) == (2, 2)
    same_store(full, part)
    assert not (tmp_path / "part.zarr.lock").exists()  # released by the crash as well


def test_local_cluster_gives_the_same_store(tmp_path, capsys):
    for w in ("1", "2"):
        code, out, _ = sweep_cli([*SMALL, "--store", str(tmp_path / f"w{w}.zarr"), "--out", str(tmp_path),
                                  "--workers", w], capsys)
        assert code == 0 and out["computed"] == 4
    same_store(tmp_path / "w1.zarr", tmp_path / "w2.zarr")


def test_cell_seeds_come_from_identity_not_position():
    """Adding a grid value leaves the other cells' streams alone."""
    a = sweep.make_spec(theta=[0.5, 2.0], N=[200], R=50, runs=2, steps=5)
    b = sweep.make_spec(theta=[1.0, 2.0], N=[200], R=50, runs=2, steps=5)
    assert a.identity((1, 0, 0)) == b.identity((1, 0, 0)) and a.identity((0, 0, 0)) != b.identity((0, 0, 0))


def test_spec_records_only_the_token_count_its_grid_uses(tmp_path, capsys):
    by_n = sweep.make_spec(theta=[1.0], N=[20], R=5, runs=2, steps=5).as_dict()
    by_alpha = sweep.make_spec(theta=[1.0], alpha=[0.5], L=30, runs=2, steps=5).as_dict()
    assert by_n["R"] == 5 and "L" not in by_n
    assert by_alpha["L"] == 30 and "R" not in by_alpha
    # a store written when both were recorded is still this sweep's store ...
    import zarr

    args = ["--theta", "1", "--alpha", "0.5", "--L", "30", "--runs", "2", "--steps", "5", "--store",
            str(tmp_path / "s.zarr"), "--out", str(tmp_path), "--workers", "1"]
    assert sweep_cli(args, capsys)[0] == 0
    group = zarr.open_group(str(tmp_path / "s.zarr"), mode="r+")
    group.attrs["spec"] = json.dumps({**json.loads(group.attrs["spec"]), "R": 500}, sort_keys=True)
    code, out, _ = sweep_cli(args, capsys)
    assert code == 0 and out["skipped"] == 1 and "R" not in out["spec"]
    # ... and a used count that differs is still refused
    code, _, err = sweep_cli([a if a != "30" else "40" for a in args], capsys)
    assert code == 2 and "differs in: L" in err


@pytest.mark.parametrize("bad, word", [
    (["--theta", "1", "--N", "10", "--alpha", "0.5"], "`N`"),
    (["--N", "10"], "`theta`"),
    (["--theta", "1", "1"], "repeated"),
    (["--theta", "-1"], "`theta`"),
    (["--theta", "1", "--N", "10", "--R", "5", "--d", "1"], "`d`"),
    (["--theta", "1", "--alpha", "1e-6", "--L", "100"], "`alpha`"),
    (["--theta", "1", "--N", "10", "--runs", "0"], "`runs`"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, bad, word):
    code = main(["sweep", *bad, "--store", str(tmp_path / "x.zarr"), "--out", str(tmp_path), "--workers", "1"])
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:") and word in lines[0], cap.err
    assert not (tmp_path / "x.zarr").exists()


def test_not_a_store_is_refused(tmp_path, capsys):
    (tmp_path / "x.zarr").mkdir()
    (tmp_path / "x.zarr" / "junk").write_text("x")
    code = main(["sweep", "--theta", "1", "--N", "10", "--R", "5", "--store", str(tmp_path / "x.zarr"),
                 "--out", str(tmp_path), "--workers", "1"])
    assert code == 2 and "not a sigrec sweep store" in capsys.readouterr().err


@pytest.mark.slow
def test_bistable_cell_minus_fraction_matches_the_basin_measure(tmp_path):
    """theta = 2, R = 500, N = 10,000, d = 3 (rho_0 uniform on [-1, 1]): the simulated -xi
    fraction agrees with the ODE basin measure (1 + rho*)/2 within its binomial interval,
    and every run has settled at a pole."""
    spec = sweep.make_spec(theta=[2.0], N=[10_000], R=500, d=[3], runs=200, steps=1500, seed=11)
    with executor(workers=2):
        sweep.run_sweep(spec, tmp_path / "b.zarr")
    ds = xr.open_zarr(tmp_path / "b.zarr").load().isel(theta=0, N=0, d=0)
    assert sweep.LANDSCAPES[int(ds["landscape"])] == "bistable"
    p = float(ds["predicted_minus_fraction"])
    assert p == pytest.approx((1 + float(ds["rho_star"])) / 2, abs=1e-12)
    assert (np.abs(ds["final_rho"].values) >= 0.9).all()  # settled: the sign is decided
    assert float(ds["minus_fraction_lo"]) <= p <= float(ds["minus_fraction_hi"])
    # the same statement as a test: the binomial count is consistent with p
    minus = round(float(ds["minus_fraction"]) * 200)
    assert binomtest(minus, 200, p).pvalue > 0.01


def test_alpha_grid_with_prior_and_beta_dimensions(tmp_path, capsys):
    store = tmp_path / "a.zarr"
    code, out, _ = sweep_cli(["--theta", "2", "--alpha", "0.05", "0.5", "--L", "200", "--d", "3", "5",
                              "--prior", "fixed", "rademacher", "--beta", "1", "--runs", "2", "--steps", "5",
                              "--store", str(store), "--out", str(tmp_path), "--workers", "1"], capsys)
    assert code == 0 and out["cells"] == 8 and out["dims"] == ["theta", "alpha", "d", "beta", "prior"]
    ds = xr.open_zarr(store)
    assert ds["prior"].values.tolist() == ["fixed", "rademacher"] and ds["alpha"].values.tolist() == [0.05, 0.5]
    assert ds["alpha_effective"].sel(alpha=0.05).values.ravel()[0] == 10 / 200
    # rademacher: rho* = 0 exactly, so half of the uniform starts lie in the basin of -xi
    assert np.allclose(ds["predicted_minus_fraction"].sel(prior="rademacher").values, 0.5)
    assert np.all(ds["rho_star"].sel(prior="rademacher").values == 0)


def test_presets_build():
    quick, paper = (sweep.make_spec(**sweep.preset(p)) for p in sweep.PRESETS)
    assert quick.cells == 4 and quick.runs * quick.steps <= 24 * 800
    assert paper.dims == ("theta", "N", "d") and paper.shape == (4, 4, 2) and paper.runs == 30


# --- store integrity and the writer's lock ------------------------------------------------

TINY = dict(theta=[0.5, 2.0], N=[20, 200], R=5, runs=2, steps=5, seed=3)


def build_tiny_store(tmp_path_factory):
    """A finished store of :data:`TINY`, a 2 x 2 grid, in a fresh temporary folder."""
    path = tmp_path_factory.mktemp("tiny") / "t.zarr"
    with executor(workers=1):
        sweep.run_sweep(sweep.make_spec(**TINY), path)
    return path


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    return build_tiny_store(tmp_path_factory)


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_cell_digest_covers_position_and_every_value(tiny_store):
    ds = sweep.load(tiny_store, dask=False).load()
    idx = (1, 0, 0)
    values = {name: ds[name].values[idx] for name in sweep.VARIABLES}
    digest = sweep.cell_digest(idx, values)
    assert digest == int(ds["digest"].values[idx]) != 0  # what write_cell stored
    assert sweep.cell_digest((0, 1, 0), values) != digest
    for name, (dtype, _, _) in sweep.VARIABLES.items():
        changed = dict(values)
        v = np.array(values[name], dtype=dtype)
        if dtype[0] == "f":
            changed[name] = np.nextafter(v, np.inf) if not np.isnan(v).all() else np.zeros_like(v)
        else:
            changed[name] = v + 1
        assert sweep.cell_digest(idx, changed) != digest, name
    with pytest.raises(ValueError, match="missing"):
        sweep.write_cell(tiny_store, idx, {k: v for k, v in values.items() if k != "seed"})


def test_open_store_resets_a_cell_whose_values_do_not_match(tiny_store, tmp_path):
    import zarr

    store = _copy(tiny_store, tmp_path / "s.zarr")
    group = zarr.open_group(str(store), mode="r+", zarr_format=2, use_consolidated=False)
    group["minus_fraction"][0, 1, 0] = 0.25  # a plausible value, not the cell's
    spec = sweep.make_spec(**TINY)
    status = sweep.open_store(store, spec)
    assert status.damaged == ((0, 1, 0),) and status.repaired == ()
    assert status.done.tolist() == [[[True], [False]], [[True], [True]]]
    ds = sweep.load(store, dask=False).load()
    # the damaged cell is back to fill: neither done nor holding any value
    assert ds["done"].values[0, 1, 0] == 0 and ds["digest"].values[0, 1, 0] == 0
    assert np.isnan(ds["minus_fraction"].values[0, 1, 0]) and np.isnan(ds["final_rho"].values[0, 1, 0]).all()
    with executor(workers=1):
        res = sweep.run_sweep(spec, store)
    assert (res.computed, res.skipped, res.damaged) == (1, 3, ())
    same_store(tiny_store, store)


def test_a_store_without_checksums_has_its_cells_recomputed(tiny_store, tmp_path):
    """A store written before checksums (no ``digest`` array) cannot show that its cells
    are whole: they are recomputed, to the same bits."""
    import shutil

    store = _copy(tiny_store, tmp_path / "old.zarr")
    shutil.rmtree(store / "digest")
    (store / ".zmetadata").unlink()
    with executor(workers=1):
        res = sweep.run_sweep(sweep.make_spec(**TINY), store)
    assert (res.computed, len(res.damaged)) == (4, 4)
    assert {"digest/.zarray", "digest/.zattrs", ".zmetadata"} <= set(res.repaired)
    same_store(tiny_store, store)


def test_creation_is_atomic_and_clears_leftovers(tmp_path):
    left = tmp_path / "s.zarr.partial-999999"
    (left / "done").mkdir(parents=True)
    spec = sweep.make_spec(**TINY)
    with sweep.store_lock(tmp_path / "s.zarr"):
        status = sweep.open_store(tmp_path / "s.zarr", spec)
    assert not status.done.any() and not left.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.zarr"]


def _exited_child():
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def test_holder_alive():
    import os
    import subprocess
    import sys

    lock = sweep._lock
    me = lock.holder_record(os.getpid())
    assert lock.holder_alive(me)
    assert not lock.holder_alive(lock.holder_record(_exited_child()))
    if me["start"] is not None:  # Linux: a reused pid is told by its start time
        assert not lock.holder_alive({**me, "start": me["start"] + 1})
    if me["boot"] is not None:
        assert not lock.holder_alive({**me, "boot": "another-boot"})
    assert lock.holder_alive({**me, "pid": _exited_child(), "host": "another-host"})  # cannot tell: alive
    # a child that has exited but is not yet reaped (a zombie) holds nothing
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        record = lock.holder_record(child.pid)
        assert not lock.holder_alive(record)
    finally:
        child.wait(timeout=30)


def test_store_lock_is_exclusive_and_released(tmp_path):
    import os

    store = tmp_path / "s.zarr"
    lock = sweep._lock.lock_path(store)
    with sweep.store_lock(store) as stale:
        assert stale is None and json.loads(lock.read_text())["pid"] == os.getpid()
        with pytest.raises(ValueError, match=rf"`store` .*s\.zarr.* in use .*pid {os.getpid()}"):
            with sweep.store_lock(store):
                pass
        assert lock.exists()  # the refused writer left the holder's lock alone
    assert not lock.exists()
    # a lock that is not its own (here: replaced during the block) is left in place
    with sweep.store_lock(store):
        lock.write_text(json.dumps({"pid": 1, "host": "elsewhere"}))
    assert lock.exists()
    lock.unlink()
    # a store below a regular file: one clear refusal, not a lock said to be unreadable
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="cannot create its folder"):
        with sweep.store_lock(tmp_path / "file" / "s.zarr"):
            pass
    # a stale lock is taken over and reported
    lock.write_text(json.dumps(sweep._lock.holder_record(_exited_child())))
    with sweep.store_lock(store) as stale:
        assert stale is not None
    assert not lock.exists()
    # so is a bare dead pid (a classic pid file) or a record without its host: they are this host's
    dead = _exited_child()
    for text in (f"{dead}\n", json.dumps({"pid": dead})):
        lock.write_text(text)
        with sweep.store_lock(store) as stale:
            assert stale == dead
        assert not lock.exists()
    # a bare live pid is a live lock, and what is not a pid is still unreadable
    lock.write_text(str(os.getpid()))
    with pytest.raises(ValueError, match=f"in use .*pid {os.getpid()}"):
        with sweep.store_lock(store):
            pass
    for text in ("true", "-3", "not a pid"):
        lock.write_text(text)
        with pytest.raises(ValueError, match="unreadable"):
            with sweep.store_lock(store):
                pass
    lock.unlink()


def test_a_stale_lock_taken_over_meanwhile_is_put_back(tmp_path):
    """Two writers find the same stale lock; the first replaces it; the second must not
    remove the first's fresh lock."""
    lock = sweep._lock.lock_path(tmp_path / "s.zarr")
    fresh = json.dumps({"pid": 1, "host": "elsewhere", "token": "fresh"})
    lock.write_text(fresh)
    sweep._lock._remove_stale(lock, json.dumps({"pid": 2, "token": "stale"}))
    assert lock.read_text() == fresh and [p.name for p in tmp_path.iterdir()] == [lock.name]
    sweep._lock._remove_stale(lock, fresh)
    assert not lock.exists() and not list(tmp_path.iterdir())


def test_resume_message_names_damaged_cells():
    from sigrec.verify.cli._sweep import resume_message

    spec = sweep.make_spec(theta=[0.5, 1.0, 2.0], N=[20, 200], R=5, runs=2, steps=5)
    done = np.zeros(spec.shape, dtype=bool)
    assert resume_message("s", sweep.StoreStatus(done), spec) is None
    done[0, 0, 0] = True
    damaged = tuple(np.ndindex(spec.shape))[1:]
    line = resume_message("s", sweep.StoreStatus(done, damaged, (".zmetadata",)), spec)
    assert line.startswith("resuming s: 1 of 6 cells already finished, skipped; 5 cells marked finished failed")
    assert "theta=0.5, N=200, d=3" in line and "and 1 more" in line and line.endswith("repaired: .zmetadata")
