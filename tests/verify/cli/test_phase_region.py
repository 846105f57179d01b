"""``sigrec phase`` draws the region certificate by default; ``--grid`` keeps the point grid."""

from __future__ import annotations

import json

import pytest

from sigrec.theory import ModelBox, certify, critical_alpha
from sigrec.verify.cli import main

COARSE = ["phase", "--min-width", "0.0625", "--json"]


def test_default_is_the_region_certificate_drawn_with_the_boundary(tmp_path, capsys):
    assert main([*COARSE, "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "region" and doc["certified"] and doc["contradictions_with_criterion"] == 0
    assert doc["region"]["ranges"] == {"theta": [0.0, 5.0], "alpha": [1e-4, 1.0]}
    cert = json.loads((tmp_path / "phase-region.json").read_text())
    counts = {s: sum(b["status"] == s for b in cert["boxes"]) for s in ("monotone", "bistable", "undecided")}
    # the figure holds one patch per box, by status, and both boundaries
    assert doc["drawn"]["patches"] == counts and counts["monotone"] and counts["bistable"]
    assert any("alpha_c" in label for label in doc["drawn"]["lines"])
    assert any("beta\\theta=1" in label for label in doc["drawn"]["lines"])
    assert (tmp_path / "phase.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # independent route: the serial certificate of the same region, and the closed form
    ref = certify(ModelBox((0.0, 5.0), (1e-4, 1.0)), min_width=0.0625)
    assert cert["boxes"] == ref.as_dict()["boxes"]
    for box in cert["boxes"]:
        if box["status"] == "bistable":
            assert critical_alpha(box["theta"][0]) > box["alpha"][1]


@pytest.mark.slow
def test_a_general_prior_draws_the_pole_criterion(tmp_path, capsys):
    assert main([*COARSE, "--prior", "gaussian(1, 0.5)", "--theta-max", "3", "--out", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["contradictions_with_criterion"] == 0 and doc["certified"]
    assert any("F'(-1)" in label for label in doc["drawn"]["lines"])
    assert any("c^*" in label for label in doc["drawn"]["lines"])
    assert 0.9 < doc["sparse_threshold_theta"] < 0.92


def test_text_output_names_the_files(tmp_path, capsys):
    assert main(["phase", "--min-width", "0.125", "--out", str(tmp_path)]) == 0
    raw = capsys.readouterr().out
    out = " ".join(raw.split())
    assert "monotone" in out and "0 boxes contradict" in out
    assert str(tmp_path / "phase.png") in "".join(raw.split())  # the console may wrap a long path


def test_grid_flag_keeps_the_point_grid(tmp_path, capsys):
    assert main(["phase", "--grid", "--n-theta", "3", "--n-alpha", "2", "--out", str(tmp_path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "mode" not in doc and (tmp_path / "phase.csv").read_text().startswith("theta,alpha")
    assert doc["grid"]["n_theta"] == 3 and doc["grid"]["theta_max"] == 4.0


@pytest.mark.parametrize("argv, name", [
    (["--theta-max", "100"], "theta-max"),
    (["--min-width", "1e-9"], "min-width"),
    (["--alpha-min", "1"], "alpha-min"),
])
def test_region_refusals_are_one_error_line(tmp_path, capsys, argv, name):
    assert main(["phase", *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and name in err[0]
    assert not (tmp_path / "o").exists()


@pytest.mark.heavy
def test_a_k2_law_draws_its_region_certificate_with_region(tmp_path, capsys):
    args = ["phase", "--prior", "onehot(k=2)", "--region", "--theta-max", "0.6", "--alpha-min", "0.01",
            "--min-width", "0.25", "--max-boxes", "40", "--json", "--out", str(tmp_path)]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "region-k2" and doc["region"]["ranges"] == {"theta": [0.0, 0.6], "alpha": [0.01, 1.0]}
    cert = json.loads((tmp_path / "phase-region-k2.json").read_text())
    counts: dict = {}
    for box in cert["boxes"]:
        counts[box["status"]] = counts.get(box["status"], 0) + 1
    assert {k: v for k, v in doc["drawn"]["patches"].items() if v} == counts
    assert (tmp_path / "phase.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # every proved leaf holds two circle equilibria there, one stable, none inside (the mixture phase)
    for box in cert["boxes"]:
        if box["status"] != "undecided":
            circ = [e for e in box["equilibria"] if e["kind"] == "circle"]
            assert len(circ) == 2 and sum(e["stable"] for e in circ) == 1 and len(box["equilibria"]) == 2


def test_region_is_refused_for_a_scalar_prior(tmp_path, capsys):
    assert main(["phase", "--region", "--out", str(tmp_path)]) == 2
    assert "k = 2" in capsys.readouterr().err


@pytest.mark.parametrize(("given", "used"), [([], 2.0 ** -7), (["--min-width", str(2.0 ** -10)], 2.0 ** -10)])
def test_a_k2_region_keeps_a_min_width_given_equal_to_the_scalar_default(tmp_path, capsys, given, used):
    # the k = 2 default (2^-7) replaced the flag's value whenever it equalled the scalar default 2^-10
    args = ["phase", "--prior", "onehot(k=2)", "--region", "--theta-max", "0.6", *given, "--max-boxes", "1",
            "--workers", "1", "--json", "--out", str(tmp_path)]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["region"]["min_width"] == used
