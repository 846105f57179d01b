"""``sigrec simulate`` and ``sigrec bench``: JSON contract, bad input, reproducibility."""

import json
import subprocess
import sys

import numpy as np
import pytest

from sigrec.numerics import Problem, benchmark
from sigrec.numerics._bench import MEASURED_PROBLEM
from sigrec.numerics._diffusion._measured import pilot_runs
from sigrec.verify.cli._main import main

BASE = ["simulate", "--theta", "1", "--R", "5", "--L", "20", "--d", "4", "--steps", "6", "--runs", "3"]


def _run_json(capsys, argv):
    assert main([*argv, "--json"]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err


@pytest.mark.parametrize("simulator", ["reduced", "full"])
def test_simulate_json_contract(capsys, simulator):
    data, err = _run_json(capsys, [*BASE, "--simulator", simulator, "--seed", "4", "--rho0", "0.2", "--batch", "2"])
    assert err == ""
    assert data["simulator"] == simulator and len(data["final_rho"]) == 3
    assert all(-1 <= r <= 1 for r in data["final_rho"])
    assert data["initial_rho"] == [0.2] * 3
    assert data["wall_s"] > 0
    assert data["model"]["alpha"] == 0.25 and data["model"]["prior"] == "fixed"
    assert data["schedule"]["power"] == 0.75 and data["schedule"]["robbins_monro"]["holds"] is True
    assert data["problem"]["batch"] == 2 and data["seed"] == 4


def test_simulate_same_seed_same_result_and_seed_reported(capsys):
    a, _ = _run_json(capsys, [*BASE, "--seed", "9", "--prior", "rademacher"])
    b, _ = _run_json(capsys, [*BASE, "--seed", "9", "--prior", "rademacher"])
    assert a["final_rho"] == b["final_rho"]
    c, _ = _run_json(capsys, BASE)
    d, _ = _run_json(capsys, [*BASE, "--seed", str(c["seed"])])
    assert c["final_rho"] == d["final_rho"]


def test_constant_schedule_is_reported(capsys):
    data, _ = _run_json(capsys, [*BASE, "--power", "0", "--eta0", "0.01"])
    assert data["schedule"]["kind"] == "constant" and data["schedule"]["robbins_monro"]["holds"] is False


def test_save_writes_trajectories(capsys, tmp_path):
    target = tmp_path / "traj"
    data, _ = _run_json(capsys, [*BASE, "--save", str(target), "--stride", "2", "--seed", "1"])
    assert data["saved"].endswith(".npz")
    with np.load(data["saved"]) as z:
        assert z["rho"].shape == (3, 4)
        np.testing.assert_array_equal(z["record_steps"], [0, 2, 4, 6])
        np.testing.assert_allclose(z["rho"][:, -1], data["final_rho"])


def test_human_output(capsys):
    assert main([*BASE, "--seed", "2"]) == 0
    out, err = capsys.readouterr()
    assert "final rho" in out and err == ""


@pytest.mark.parametrize(
    "change, needle",
    [(["--R", "30"], "`R`"), (["--d", "1"], "`d`"), (["--steps", "0"], "`steps`"),
     (["--eta0", "-0.5"], "`eta0`"), (["--rho0", "1.5"], "`rho0`"), (["--rho0", "-2"], "`rho0`"),
     (["--runs", "0"], "`runs`"), (["--batch", "0"], "`batch`"), (["--sigma2", "0"], "`sigma2`"),
     (["--simulator", "exact"], "invalid choice"), (["--steps", "two"], "invalid int"),
     (["--theta", "nan"], "finite")],
)
def test_bad_input_one_error_line_exit_2(capsys, change, needle):
    assert main(BASE + change + ["--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and needle in lines[0]
    assert "Traceback" not in err


def test_python_m_sigrec_subprocess(tmp_path):
    bad = subprocess.run([sys.executable, "-m", "sigrec", *BASE, "--R", "25"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["error: `R` must satisfy R <= L = 20, got R = 25"]
    ok = subprocess.run([sys.executable, "-m", "sigrec", *BASE, "--json", "--seed", "0"], capture_output=True,
                        text=True, cwd=tmp_path)
    assert ok.returncode == 0 and ok.stderr == ""
    assert len(json.loads(ok.stdout)["final_rho"]) == 3


def test_benchmark_report_structure_small():
    rep = benchmark(quick=True, runs=3, d=5, d_large=50, R=3, L=40, workers=1)
    assert set(rep.rates) == {"full_d", "rng_bound_full", "reduced_d", "reduced_d_large", "rng_bound_reduced"}
    assert all(v > 0 for v in rep.rates.values())
    assert rep.ratios["reduced_over_full"] == pytest.approx(rep.rates["reduced_d"] / rep.rates["full_d"])
    assert [t["threshold"] for t in rep.targets] == [25.0, 0.75, 0.60, 0.9, 0.9, 1.0]
    ms = rep.measured
    assert ms["problem"]["L"] == 10_000 and ms["points"] == 5 and ms["seconds"] > 0 and ms["workers"] == 1
    assert ms["draws"] == sum(ms["runs"]) >= 5 * pilot_runs(Problem(**MEASURED_PROBLEM))
    assert ms["reduction_median"] > 1  # the control variate was used
    assert rep.targets[-1]["value"] == pytest.approx(10.0 / ms["seconds"])
    assert np.isfinite(ms["plateau"]) and ms["plateau_low"] <= ms["plateau_high"]
    pf = rep.paired
    assert pf["workers"] == 1 and len(pf["excluded_rounds"]) == len(pf["included_rounds"]) == pf["repeats"]
    # the target is the median of the rounds' paired ratios; the best of each is reported beside it
    assert pf["excluded"] == pytest.approx(np.median(pf["excluded_rounds"]))
    assert pf["included"] == pytest.approx(np.median(pf["included_rounds"]))
    assert pf["excluded_best"] == pytest.approx(pf["floor_loop_s"] / pf["sim_loop_s"])
    assert min(pf["excluded_rounds"]) <= pf["excluded"] <= max(pf["excluded_rounds"])
    assert [t["value"] for t in rep.targets[-3:-1]] == [pf["excluded"], pf["included"]]
    lc = rep.long_context["sizes"]
    assert [int(k) for k in lc] == [10**4, 10**5, 10**6] and [v["chunked"] for v in lc.values()] == [False, True, True]
    # the chunked kernel's memory does not grow with L (tracemalloc peaks, not timings)
    assert lc["1000000"]["peak_bytes"] < 2 * lc["100000"]["peak_bytes"] + 2**20
    json.dumps(rep.as_dict())


@pytest.mark.slow
def test_bench_quick_cli(capsys):
    assert main(["bench", "--quick", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["config"]["d"] == 100 and data["config"]["L"] == 10500
    assert data["ratios"]["reduced_over_full"] > 5
