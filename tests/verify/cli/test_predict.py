"""``sigrec predict``: JSON shape and bad input."""

from __future__ import annotations

import json

import pytest

from sigrec.verify.cli._main import main


def test_predict_json_shape(capsys):
    code = main(["predict", "--theta", "1.0", "--R", "150", "--L", "1000", "--d", "30", "--steps", "100",
                 "--rho0", "0.1", "--eta0", "0.1", "--power", "0", "--stride", "30", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["step"] == [0, 30, 60, 90, 100]
    assert len(out["rho_plain"]) == len(out["rho_corrected"]) == 5
    assert out["rho_plain"][0] == pytest.approx(0.1) and out["rho_corrected"][0] == pytest.approx(0.1)
    assert out["rho_corrected"][-1] < out["rho_plain"][-1]
    assert out["schedule"]["kind"] == "constant" and out["model"]["alpha"] == pytest.approx(0.15)


@pytest.mark.parametrize("argv", [
    ["--theta", "1", "--R", "500", "--L", "100", "--d", "3", "--steps", "10", "--rho0", "0.1"],
    ["--theta", "1", "--R", "5", "--L", "100", "--d", "3", "--steps", "10", "--rho0", "2"],
    ["--theta", "1", "--R", "5", "--L", "100", "--d", "3", "--steps", "0", "--rho0", "0.1"],
    ["--theta", "1", "--R", "5", "--L", "100", "--d", "3", "--steps", "10", "--rho0", "nan"],
])
def test_predict_bad_input_is_one_error_line(argv, capsys):
    assert main(["predict", *argv, "--json"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")


#: a cheap instance outside the expansion's validity (beta 1.8 at L = 300): auto measures
SMALL = ["--theta", "0.9", "--R", "45", "--L", "300", "--d", "6", "--beta", "1.8", "--sigma2", "0.9",
         "--prior", "rademacher", "--steps", "200", "--rho0", "0.4", "--eta0", "0.05", "--power", "0",
         "--stride", "100", "--band-runs", "400", "--drift-se", "0.1", "--workers", "1"]


def test_predict_routes_say_which_law_ran_and_agree_with_the_library(capsys):
    from sigrec.numerics import Problem, Schedule, band, route_tables

    assert main(["predict", *SMALL, "--json"]) == 0
    auto = json.loads(capsys.readouterr().out)
    assert auto["route"]["route"] == "measured" and auto["route"]["method"] == "auto"
    assert auto["route"]["reason"].startswith("auto: the expansion is outside")
    lo, hi = auto["band"]["median_range"]
    assert lo <= hi and auto["route"]["measured"]["draws"] >= 500
    # the command prints what the library returns: the same route and band from the same calls
    p = Problem(theta=0.9, R=45, L=300, d=6, beta=1.8, sigma2=0.9, prior="rademacher")
    sch = Schedule.constant(0.05)
    routed = route_tables(p, sch, 200, method="auto", drift_se=0.1, seed=0)
    bd = band(p, sch, 200, 0.4, stride=100, runs=400, seed=0, route=routed)
    assert auto["rho_median"] == bd.q50.tolist() and list(bd.median_range) == [lo, hi]
    assert main(["predict", *SMALL, "--method", "expansion", "--json"]) == 0
    exp = json.loads(capsys.readouterr().out)
    assert exp["route"]["route"] == "expansion" and "measured" not in exp["route"]
    assert "median_range" not in exp["band"] and exp["rho_median"] != auto["rho_median"]
    assert main(["predict", *SMALL, "--method", "measured"]) == 0
    text = capsys.readouterr().out
    assert "route: measured (asked for)" in text and "bootstrap replicates of the law" in text


@pytest.mark.parametrize("extra, word", [(["--method", "exact"], "--method"), (["--drift-se", "0"], "drift_se"),
                                         (["--drift-se", "-1"], "drift")])
def test_predict_bad_route_options_are_one_error_line(extra, word, capsys):
    assert main(["predict", *SMALL, *extra, "--json"]) == 2
    cap = capsys.readouterr()
    lines = cap.err.strip().splitlines()
    assert cap.out == "" and len(lines) == 1 and lines[0].startswith("error:") and word in lines[0], lines
