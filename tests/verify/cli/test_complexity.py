"""``sigrec complexity`` and the band of ``sigrec predict``: JSON shape, ordering, bad input."""

from __future__ import annotations

import json

import pytest

from sigrec.verify.cli._main import main

_SMALL = ["--theta", "0.5", "--R", "100", "--L", "900", "--d", "5", "--eta0", "10", "--k0", "100", "--power", "1"]


def test_complexity_json_keys_and_ordering(capsys):
    assert main(["complexity", *_SMALL, "--rho0", "0.1", "--runs", "500", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("median_steps", "q90_steps", "q10_steps", "plain_ode_steps", "schedule", "plateau",
                "token_collections_median"):
        assert key in out
    assert out["q10_steps"] <= out["median_steps"] <= out["q90_steps"]
    assert 0 < out["plain_ode_steps"] < out["q90_steps"]
    assert out["plateau"] > 0.99 and out["schedule"] == {"kind": "polynomial", "eta0": 10.0, "k0": 100.0,
                                                          "power": 1.0}


def test_complexity_optimize_beats_or_matches_the_given_schedule(capsys):
    assert main(["complexity", *_SMALL, "--rho0", "0.1", "--runs", "400", "--optimize", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["q90_steps"] <= out["given"]["q90_steps"] * 1.05
    assert out["plateau"] > 0.99
    assert out["search"]["candidates"] > 10
    # given and optimized on the same paths (those of complexity without --optimize): never worse
    assert out["q90_steps"] <= out["given"]["q90_steps"]
    search = out["search"]
    assert search["candidates"] == len(search["table"]) and "Nelder-Mead" in search["method"]
    assert search["start_q90_steps"] == out["given"]["q90_steps"] and search["final_runs"] == 400
    assert search["improved"] == (out["schedule"] != out["given"]["schedule"])
    assert search["winner_q90_steps"] == search["winner"]["q90_steps"]
    assert main(["complexity", *_SMALL, "--rho0", "0.1", "--runs", "400", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert {k: plain[k] for k in ("schedule", "q90_steps", "median_steps")} == \
        {k: out["given"][k] for k in ("schedule", "q90_steps", "median_steps")}


def test_complexity_optimize_prints_given_and_optimized_on_the_same_paths(capsys):
    assert main(["complexity", *_SMALL, "--rho0", "0.1", "--runs", "400", "--optimize"]) == 0
    text = capsys.readouterr().out
    assert "     given " in text and " optimized " in text
    assert "candidates on" in text and "on the same 400 paths" in text


def test_predict_prints_the_band(capsys):
    code = main(["predict", *_SMALL, "--steps", "400", "--rho0", "0.1", "--stride", "100", "--band-runs", "300",
                 "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    for lo, me, hi in zip(out["rho_q10"], out["rho_median"], out["rho_q90"]):
        assert lo <= me <= hi
    assert out["rho_q90"][2] - out["rho_q10"][2] > 0
    assert out["rho_q10"][0] == out["rho_q90"][0] == pytest.approx(0.1)


@pytest.mark.parametrize("extra", [
    ["--target", "1.5"],
    ["--target", "0"],
    ["--rho0", "2"],
    ["--runs", "3"],
    ["--R", "0"],
    ["--d", "1"],
    ["--target", "nan"],
])
def test_complexity_bad_input_is_one_error_line(extra, capsys):
    assert main(["complexity", *_SMALL, *extra, "--json"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
