"""The one executor (docs/design.md section 8): unit order, in-process fallback, and a
real ``dask scheduler`` + two ``dask worker`` processes on 127.0.0.1 that give the same
bits as a local cluster, even when a worker is killed mid-task."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, executor, simulate
from sigrec.verify.cli import main


def _square_after(x):
    time.sleep(0.05 * (3 - x) if x < 3 else 0)  # later units finish first on a cluster
    return x * x



def kill_a_busy_worker(cluster, proc, *, wait: float, unit: str, prefix: str = ""):
    """Kill a worker of ``cluster`` while it runs a task of ``proc`` (a CLI subprocess) whose
    key starts with ``prefix``, then let ``proc`` finish: the lost task must be rescheduled
    on the survivor. Restores the worker afterwards; returns ``proc``'s ``(stdout, stderr)``."""
    try:
        victim = None
        with cluster.client() as c:
            deadline = time.monotonic() + wait
            while victim is None and time.monotonic() < deadline and proc.poll() is None:
                # two scheduler queries: a worker joining or leaving between them is in one only
                known = c.scheduler_info()["workers"]
                busy = {known[a]["name"] for a, tasks in c.processing().items()
                        if a in known and any(str(t).startswith(prefix) for t in tasks)}
                victim = next((n for n in sorted(cluster.workers, reverse=True) if n in busy), None)
                time.sleep(0.05)
        assert victim is not None, f"no worker ever ran a {unit}"
        cluster.kill(victim)  # mid-task: the task is lost and rescheduled on the survivor
        return proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
        cluster.add_worker()

def test_inline_map_keeps_unit_order_and_reports_progress():
    seen = []
    with executor(workers=1) as ex:
        assert ex.backend == "inline" and ex.workers == 1
        assert ex.map(_square_after, range(5), progress=lambda d, n: seen.append((d, n))) == [0, 1, 4, 9, 16]
    assert seen == [(i, 5) for i in range(1, 6)]


def test_default_cluster_is_sized_by_affinity_and_memory(monkeypatch):
    import sigrec.numerics._parallel._machine as machine

    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(machine, "available_memory", lambda: 64 * 2**30)
    assert machine.machine_workers() == 4  # the CPUs this process may use
    monkeypatch.setattr(machine, "available_memory", lambda: int(2.5 * 2**30))
    assert machine.machine_workers() == 2  # one worker per GiB of available memory
    monkeypatch.setattr(machine, "available_memory", lambda: 2**20)
    assert machine.machine_workers() == 1


def test_cgroup_limits_are_read_from_v2_and_v1_files(tmp_path, monkeypatch):
    import sigrec.numerics._parallel._machine as machine

    assert machine.cgroup_limits(tmp_path) == (None, None)  # no files: unknown
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    (tmp_path / "memory.max").write_text(f"{3 * 2**30}\n")
    (tmp_path / "memory.current").write_text(f"{2**30}\n")
    assert machine.cgroup_limits(tmp_path) == (1.5, 2 * 2**30)
    monkeypatch.setattr(machine, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(machine.os, "sched_getaffinity", lambda pid: set(range(64)))
    assert machine.available_memory() <= 2 * 2**30
    assert machine.machine_workers() == 1  # 1.5 CPUs of quota (and 2 GiB free) on a 64-CPU host
    (tmp_path / "memory.max").write_text("max\n")
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert machine.cgroup_limits(tmp_path) == (None, None)
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "memory").mkdir()
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    (v1 / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    assert machine.cgroup_limits(v1) == (None, None)  # v1's "unlimited"
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("400000\n")
    (v1 / "memory" / "memory.limit_in_bytes").write_text(f"{8 * 2**30}\n")
    (v1 / "memory" / "memory.usage_in_bytes").write_text(f"{2**30}\n")
    assert machine.cgroup_limits(v1) == (4.0, 7 * 2**30)


def test_unreachable_scheduler_is_a_value_error():
    with pytest.raises(ValueError, match="`scheduler`"):
        with executor(scheduler="tcp://127.0.0.1:9", timeout=1):
            pass


@pytest.mark.parametrize("address", ["foo", "tcp://127.0.0.1:notaport", "tcp://127.0.0.1:0"])
def test_malformed_scheduler_address_is_one_error_line(address, capsys, monkeypatch):
    args = ["simulate", "--theta", "1", "--R", "3", "--L", "10", "--d", "3", "--steps", "2"]
    for argv in ([*args, "--scheduler", address], args):
        monkeypatch.setenv("SIGREC_SCHEDULER", address)
        t = time.monotonic()
        assert main(argv) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:") and "`scheduler`" in err[0]
        assert time.monotonic() - t < 5  # refused up front, not after a connection timeout


def test_cli_refuses_bad_workers(capsys):
    code = main(["simulate", "--theta", "1", "--R", "3", "--L", "10", "--d", "3", "--steps", "2", "--workers", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error:") and "`workers`" in err[0]


_PROBLEM = Problem(theta=2.0, R=20, L=300, d=3, batch=2)
_SCHEDULE = Schedule(eta0=0.5, k0=10, power=0.75)


def test_scheduler_and_inline_agree_bit_for_bit(cluster):
    # a local cluster (workers=2) against in-process is tests/numerics/test_parallel.py's
    ref = simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=7, stride=4)
    with executor(scheduler=cluster.address) as ex:
        assert ex.backend == "scheduler" and ex.workers == 2
        on_cluster = simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=7, stride=4)
        assert ex.map(_square_after, range(5)) == [0, 1, 4, 9, 16]
    assert np.array_equal(on_cluster.rho, ref.rho)
    assert np.array_equal(on_cluster.noise_mass, ref.noise_mass) and np.array_equal(on_cluster.objective, ref.objective)


def test_a_different_seed_changes_the_bits(cluster):
    """The comparison above can fail: another seed gives other numbers on the cluster."""
    ref = simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=7, stride=4)
    with executor(scheduler=cluster.address):
        other = simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=8, stride=4)
    assert not np.array_equal(other.rho, ref.rho)


def test_environment_variable_selects_the_scheduler(cluster, monkeypatch, capsys):
    args = ["simulate", "--theta", "2", "--R", "20", "--L", "300", "--d", "3", "--steps", "20", "--runs", "4",
            "--seed", "5", "--json"]
    assert main([*args, "--workers", "1"]) == 0
    ref = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("SIGREC_SCHEDULER", cluster.address)
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_rho"] == ref["final_rho"] and out["initial_rho"] == ref["initial_rho"]


def test_killing_a_worker_mid_task_changes_nothing(cluster):
    problem = Problem(theta=2.0, R=100, L=2000, d=3)
    args = ["--theta", "2", "--R", "100", "--L", "2000", "--d", "3", "--steps", "4000", "--runs", "4",
            "--seed", "13", "--stride", "1000", "--json"]
    proc = subprocess.Popen([sys.executable, "-m", "sigrec", "simulate", *args, "--scheduler", cluster.address],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = kill_a_busy_worker(cluster, proc, wait=60, unit="block")
    assert proc.returncode == 0, err
    got = json.loads(out)
    ref = simulate(problem, Schedule(), steps=4000, runs=4, seed=13, stride=1000)
    assert got["final_rho"] == ref.final_rho.tolist()
    assert got["initial_rho"] == ref.initial_rho.tolist()
    cluster.wait_for_workers(2)


# --- large units that fan out (a case of verify, a configuration of reproduce) -----


def _unit_simulation(seed):
    from sigrec.numerics import current_executor

    ex = current_executor()
    sim = simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=seed, stride=4)
    return ex.backend, ex.workers, sim.rho


def test_fan_out_units_send_their_blocks_back_to_the_cluster(cluster):
    ref = [simulate(_PROBLEM, _SCHEDULE, steps=30, runs=5, seed=s, stride=4).rho for s in range(3)]
    with executor(scheduler=cluster.address) as ex:
        fanned = ex.map(_unit_simulation, range(3), fan_out=True)
        plain = ex.map(_unit_simulation, range(3))
    # inside a fan-out unit the unit's own map goes to the cluster's two workers; in an
    # ordinary unit it runs in-process; the bits are the same either way
    assert [f[:2] for f in fanned] == [("nested", 2)] * 3 and [p[:2] for p in plain] == [("inline", 1)] * 3
    for f, p, r in zip(fanned, plain, ref, strict=True):
        assert np.array_equal(f[2], r) and np.array_equal(p[2], r)


def _count_and_fail(path):
    with open(path, "a") as fh:
        fh.write("x")
    raise RuntimeError("boom")


def test_a_failing_fan_out_unit_is_not_run_again(cluster, tmp_path):
    """A small unit that raises is retried; a whole case is not run four times over."""
    from sigrec.numerics._parallel._executor import TASK_RETRIES

    with executor(scheduler=cluster.address) as ex:
        with pytest.raises(RuntimeError, match="boom"):
            ex.map(_count_and_fail, [str(tmp_path / "large")], fan_out=True)
        with pytest.raises(RuntimeError, match="boom"):
            ex.map(_count_and_fail, [str(tmp_path / "small")])
    assert (tmp_path / "large").read_text() == "x"
    assert (tmp_path / "small").read_text() == "x" * (1 + TASK_RETRIES)


def _slow_unit(job):
    """A fan-out unit of ``n`` nested maps of 0.2 s that records each one it finishes."""
    from sigrec.numerics import current_executor

    path, n = job
    ex = current_executor()
    for _ in range(n):
        ex.map(time.sleep, [0.2])
        with open(path, "a") as fh:
            fh.write("x")
    return path


def test_fan_out_units_stop_when_their_driver_stops(cluster, tmp_path):
    """Releasing a running task cannot stop its thread; the stop event does: units in
    flight raise at their next map, and units not yet started never start."""
    from contextlib import closing

    jobs = [(str(tmp_path / "u0"), 1)] + [(str(tmp_path / f"u{i}"), 10) for i in range(1, 6)]
    with executor(scheduler=cluster.address) as ex:
        with pytest.raises(RuntimeError), closing(ex.as_completed(_slow_unit, jobs, fan_out=True)) as finished:
            for i, _ in finished:
                assert i == 0
                raise RuntimeError("the driver stops early")  # after the short unit
        time.sleep(3)  # ten nested maps of 0.2 s would have finished by now
    made = [len(open(p).read()) if os.path.exists(p) else 0 for p, _ in jobs]
    # four units in flight at first (two per worker); the fifth was submitted as the first
    # finished and the sixth never; those still running stopped at their next map
    assert made[0] == 1 and made[5] == 0 and max(made[1:]) < 10, made


def test_reproduce_configurations_on_the_cluster_equal_in_process(cluster):
    from dataclasses import replace

    from sigrec.verify.studies import _reproduce as rep

    tiny = replace(rep.PROTOCOL, steps=40, runs=4, stride=10, d=4)
    configs = [(2.0, 20, 200), (0.5, 20, 100)]
    with executor(workers=1):
        ref = rep.run_configs(configs, tiny)
    seen = []
    with executor(scheduler=cluster.address):
        got = rep.run_configs(configs, tiny, progress=lambda d, n: seen.append((d, n)))
    assert seen == [(1, 2), (2, 2)]
    for a, b in zip(ref, got, strict=True):
        assert (a.theta, a.L) == (b.theta, b.L)
        assert np.array_equal(a.curves["mean"], b.curves["mean"]) and a.mean_final_alignment == b.mean_final_alignment
        assert a.basin_agreement == b.basin_agreement and a.ode_corrected_prediction == b.ode_corrected_prediction
    assert ref[0].mean_final_alignment != ref[1].mean_final_alignment  # the comparison can fail


_CASES = """
[[case]]
name = "small"
theta = 0.6
R = 60
L = 400
d = 5

[[case]]
name = "sparse"
theta = 2.5
alpha = 0
"""


def test_verify_cases_on_the_cluster_equal_in_process(cluster, tmp_path, capsys):
    """Each case (with its checks) is one unit on the cluster; records and figures are
    those of the in-process run, and the figures come back to the client's folder."""
    cases = tmp_path / "cases.toml"
    cases.write_text(_CASES)
    args = ["verify", "--cases", str(cases), "--checks", "field.endpoints,field.monotone,sga.convergence", "--json"]
    docs = {}
    for name, where in (("inline", ["--workers", "1"]), ("cluster", ["--scheduler", cluster.address])):
        assert main([*args, "--out", str(tmp_path / name), *where]) == 0
        docs[name] = json.loads(capsys.readouterr().out)
    # the report says where its units ran (timings depend on it, results do not)
    assert docs["inline"]["environment"]["executor"] == {"backend": "inline", "workers": 1, "scheduler": None}
    assert docs["cluster"]["environment"]["executor"] == {"backend": "scheduler", "workers": 2,
                                                          "scheduler": cluster.address}
    key = ("id", "kind", "status", "value", "threshold", "certified", "message")
    rows = {n: [(tuple(r[k] for k in key), r["details"].get("case")) for r in d["checks"]] for n, d in docs.items()}
    assert rows["inline"] == rows["cluster"]
    assert [r[0][0] for r in rows["inline"]] == ["field.endpoints", "field.monotone", "sga.convergence.recovery",
                                                "sga.convergence", "field.monotone"]
    figures = {n: [f.replace(str(tmp_path / n), "") for f in d["figures"]] for n, d in docs.items()}
    assert figures["inline"] == figures["cluster"] and figures["inline"]
    for f in figures["inline"]:
        assert (tmp_path / "cluster" / f.lstrip("/")).read_bytes() == (tmp_path / "inline" / f.lstrip("/")).read_bytes()


def test_verify_progress_is_relayed_from_the_workers(cluster):
    """On a cluster the bar still moves check by check: a unit reports each check it
    starts through dask events; counts never go back and end at the total."""
    from dataclasses import replace

    from sigrec.verify.suite import SuiteConfig, make_case, run_suite

    cases = (make_case("a", theta=2.5, alpha=0), make_case("b", theta=0.5, alpha=0.3))
    config = replace(SuiteConfig.preset_config("quick"), cases=cases, checks=("field.*",))
    seen = []
    with executor(scheduler=cluster.address):
        result = run_suite(config, progress=lambda label, done, total: seen.append((label, done, total)))
    total = len(result.records)
    assert seen[-1] == ("done", total, total) and all(t == total for _, _, t in seen)
    dones = [d for _, d, _ in seen]
    assert dones == sorted(dones)
    # labels that only the workers' reports produce (a check starting on a case)
    assert any(label.startswith("field.") and label.endswith((": a", ": b")) for label, _, _ in seen), seen


def test_verify_with_nothing_to_run_on_a_cluster(cluster):
    """A selection whose every check is left out of every case (here: the diffusion checks under the
    expansion route, on a case outside its validity) is an empty plan: no unit, no records, the
    reasons listed; on a cluster it raised IndexError from the progress bookkeeping."""
    from dataclasses import replace

    from sigrec.verify.suite import SuiteConfig, make_case, run_suite

    case = make_case("out", theta=0.6, R=200, L=4000, d=20, beta=2.0)
    config = replace(SuiteConfig.preset_config("quick"), cases=(case,), checks=("sga.fluctuations", "sga.splitting"),
                     method="expansion")
    with executor(scheduler=cluster.address):
        result = run_suite(config)
    assert result.records == ()
    assert {na["check"] for na in result.summary["not_applicable"]} == {"sga.fluctuations", "sga.splitting"}


@pytest.mark.slow
def test_killing_a_worker_mid_verify_changes_nothing(cluster, tmp_path, capsys):
    """A fan-out unit (a whole case) lost with its worker is run again on the survivor,
    and so are the blocks of runs it had sent out: the records are the undisturbed ones."""
    args = ["verify", "--theta", "0.6", "--R", "60", "--L", "400", "--d", "5", "--checks", "sga.convergence",
            "--json"]
    assert main([*args, "--out", str(tmp_path / "ref"), "--workers", "1"]) == 0
    ref = json.loads(capsys.readouterr().out)["checks"]
    proc = subprocess.Popen([sys.executable, "-m", "sigrec", *args, "--out", str(tmp_path / "k"),
                             "--scheduler", cluster.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    # the worker that runs the case itself (not one of its blocks of runs)
    out, err = kill_a_busy_worker(cluster, proc, wait=120, unit="case", prefix="fan_out-")
    assert proc.returncode == 0, err
    got = json.loads(out)["checks"]
    key = ("id", "status", "value", "threshold", "message")
    assert [[r[k] for k in key] for r in got] == [[r[k] for k in key] for r in ref]
    cluster.wait_for_workers(2)


# --- sweeps on the real cluster (docs/design.md section 8) -------------------------
# The default run keeps one worker-kill test (test_killing_a_worker_mid_task_changes_nothing:
# a block of runs lost with its worker is run again on the survivor, same bits). Killing a
# worker mid-verify (a fan-out unit) or mid-sweep (a cell), and killing the sweep itself then
# resuming on the cluster, are -m slow (25-80 CPU s each, counting the cluster's processes);
# an interrupted sweep resuming in-process is tests/verify/studies/test_sweep.py's.

from ..verify.studies.test_sweep import SMALL, same_store  # noqa: E402

#: cells of about a second each, so that a worker can be killed mid-cell
SLOWER = ["--theta", "0.5", "2", "--N", "200", "2000", "--R", "50", "--runs", "6", "--steps", "1500", "--seed", "5"]


@pytest.fixture(scope="module")
def slower_reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref")
    assert main(["sweep", *SLOWER, "--store", str(out / "ref.zarr"), "--out", str(out), "--workers", "1",
                 "--json"]) == 0
    return out / "ref.zarr"


def _sweep_process(args, store, out, address):
    return subprocess.Popen([sys.executable, "-m", "sigrec", "sweep", *args, "--store", str(store), "--out",
                             str(out), "--scheduler", address, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sweep_on_the_cluster_equals_in_process(cluster, tmp_path, capsys):
    # in-process, not a local cluster of two: tests/verify/studies/test_sweep.py already shows
    # that a local cluster gives the in-process store (and a local cluster costs a start)
    assert main(["sweep", *SMALL, "--store", str(tmp_path / "c.zarr"), "--out", str(tmp_path),
                 "--scheduler", cluster.address, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["computed"] == 4 and out["executor"]["backend"] == "scheduler" and out["executor"]["workers"] == 2
    assert main(["sweep", *SMALL, "--store", str(tmp_path / "w.zarr"), "--out", str(tmp_path),
                 "--workers", "1", "--json"]) == 0
    capsys.readouterr()
    same_store(tmp_path / "c.zarr", tmp_path / "w.zarr")


def test_a_single_cell_sweep_fans_out_and_equals_in_process(cluster, tmp_path, capsys, monkeypatch):
    from sigrec.numerics import Executor

    asked = []
    original = Executor.as_completed

    def spy(self, fn, units, *, fan_out=False):
        asked.append((fn.__name__, len(list(units)), self.workers, fan_out))
        return original(self, fn, units, fan_out=fan_out)

    monkeypatch.setattr(Executor, "as_completed", spy)
    one = ["--theta", "2", "--N", "300", "--R", "20", "--runs", "6", "--steps", "100", "--seed", "4"]
    assert main(["sweep", *one, "--store", str(tmp_path / "c.zarr"), "--out", str(tmp_path),
                 "--scheduler", cluster.address, "--json"]) == 0
    assert main(["sweep", *one, "--store", str(tmp_path / "i.zarr"), "--out", str(tmp_path),
                 "--workers", "1", "--json"]) == 0
    capsys.readouterr()
    # one cell, two workers: the cell was sent as a fan-out unit; in-process it was not
    assert asked == [("compute_cell", 1, 2, True), ("compute_cell", 1, 1, False)]
    same_store(tmp_path / "c.zarr", tmp_path / "i.zarr")


@pytest.mark.slow
def test_killing_a_worker_mid_sweep_changes_nothing(cluster, slower_reference, tmp_path):
    proc = _sweep_process(SLOWER, tmp_path / "k.zarr", tmp_path, cluster.address)
    out, err = kill_a_busy_worker(cluster, proc, wait=120, unit="cell")
    assert proc.returncode == 0, err
    assert json.loads(out)["computed"] == 4  # every cell written exactly once
    same_store(slower_reference, tmp_path / "k.zarr")
    cluster.wait_for_workers(2)


@pytest.mark.slow
def test_killing_the_sweep_and_rerunning_resumes(cluster, slower_reference, tmp_path, capsys):
    import zarr

    store = tmp_path / "r.zarr"
    proc = _sweep_process(SLOWER, store, tmp_path, cluster.address)
    try:
        deadline = time.monotonic() + 180
        finished = 0
        while finished == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            if (store / "done" / ".zarray").exists():
                finished = int(np.asarray(zarr.open_array(str(store / "done"), mode="r")[...]).sum())
        assert proc.poll() is None and 0 < finished < 4, "the sweep was not caught mid-way"
    finally:
        proc.kill()  # SIGKILL: no clean-up of any kind
        proc.wait(timeout=30)
    assert main(["sweep", *SLOWER, "--store", str(store), "--out", str(tmp_path), "--scheduler", cluster.address,
                 "--json"]) == 0
    cap = capsys.readouterr()
    res = json.loads(cap.out)
    assert res["skipped"] >= finished and res["computed"] == 4 - res["skipped"] and res["computed"] > 0
    # the resume note goes to stderr only for a terminal or without --json (docs/design.md section 4)
    assert "already finished" not in cap.err and res["damaged"] == []
    same_store(slower_reference, store)


def test_phase_columns_on_two_workers_equal_in_process(tmp_path, capsys):
    """``sigrec phase`` certifies its theta columns as executor units; same CSV either way."""
    for w in ("1", "2"):
        assert main(["phase", "--n-theta", "3", "--n-alpha", "2", "--out", str(tmp_path / w), "--workers", w,
                     "--json"]) == 0
    capsys.readouterr()
    assert (tmp_path / "1" / "phase.csv").read_text() == (tmp_path / "2" / "phase.csv").read_text()


def test_bench_executor_needs_two_workers(capsys):
    assert main(["bench", "--executor", "--workers", "1"]) == 2
    assert capsys.readouterr().err.strip().startswith("error: `workers`")


@pytest.mark.slow
def test_bench_executor_reports_throughput_and_overhead(capsys):
    assert main(["bench", "--executor", "--quick", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert set(rep["cells_per_minute"]) == {"1", "2"} and all(v > 0 for v in rep["cells_per_minute"].values())
    assert rep["cells"] == 8 and 0 < rep["task_overhead_ms"] and rep["work_per_cell_s"] > 0
    assert rep["overhead_fraction"] == pytest.approx(rep["task_overhead_ms"] / 1e3 / rep["work_per_cell_s"])
