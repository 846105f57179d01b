"""``sigrec reproduce``: output contract on a tiny protocol; the flagship target (slow)."""

import json
from dataclasses import replace

import numpy as np
import pytest

import sigrec.verify.studies._reproduce as rep
from sigrec.verify.cli._main import main


@pytest.fixture
def tiny(monkeypatch):
    small = replace(rep.PROTOCOL, steps=60, runs=6, stride=10, d=5)
    monkeypatch.setattr(rep, "PROTOCOL", small)
    import sigrec.verify.cli._reproduce as cmd

    monkeypatch.setattr(cmd, "PROTOCOL", small)
    return small


def test_reproduce_json_contract(tiny, tmp_path, capsys):
    rc = main(["reproduce", "--out", str(tmp_path), "--json", "--workers", "1"])  # no local cluster to start
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    (cfg,) = doc["configs"]
    for key in ("theta", "R", "L", "d", "runs", "steps", "schedule", "mean_final_alignment", "sd_final_alignment",
                "min_final_alignment", "fraction_negative", "ode_prediction", "nuisance_mass_final",
                "nuisance_mass_predicted"):
        assert key in cfg
    assert (cfg["theta"], cfg["R"], cfg["L"], cfg["runs"], cfg["steps"], cfg["d"]) == (0.25, 500, 10_500, 6, 60, 5)
    assert 0 <= cfg["min_final_alignment"] <= cfg["mean_final_alignment"] <= 1
    assert "reduced" in doc["protocol"]["note"]
    # the measured nuisance mass is the limit prediction at the measured rho (finite-L noise only)
    assert abs(cfg["nuisance_mass_final"] - cfg["nuisance_mass_predicted"]) < 0.02
    assert (tmp_path / "reproduce.md").read_text().count("| 0.25 | 500 | 10,000 |") == 1
    for f in doc["figures"]:
        assert (tmp_path / f.split("/")[-1]).stat().st_size > 1000


def test_reproduce_is_reproducible_by_seed(tiny):
    a = rep.run_config(0.25, 500, 10_000, tiny)
    b = rep.run_config(0.25, 500, 10_000, tiny)
    assert a.mean_final_alignment == b.mean_final_alignment
    assert np.array_equal(a.curves["mean"], b.curves["mean"])


def test_bad_input(capsys):
    assert main(["reproduce", "--seed", "-1"]) == 2
    assert main(["reproduce", "--preset", "huge"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert all(line.startswith("error: ") for line in err) and len(err) == 2


def test_paper_configurations():
    cfgs = rep.configurations("paper")
    assert len(cfgs) == 16 and {c[0] for c in cfgs} == {0.25, 0.5, 1.0, 2.0}
    assert {c[2] for c in cfgs} == {1_000, 2_500, 5_000, 10_000} and {c[1] for c in cfgs} == {500}


@pytest.mark.slow
def test_flagship_reaches_the_paper_alignment():
    r = rep.run_config(0.25, 500, 10_000)
    assert r.runs == 30 and r.mean_final_alignment >= 0.99


def test_reproduce_text_renders_the_document_it_is_given():
    from sigrec.verify.render import reproduce_markdown, reproduce_summary

    doc = {"protocol": {"d": 10, "steps": 3000, "runs": 30, "eta0": 45.0, "k0": 250.0, "power": 1.0,
                        "batch": 1, "seed": 7, "note": "exact reduced simulator"}, "figures": ["/x/a-b.png"]}
    md = reproduce_markdown(doc, "| t |")
    assert md == ("# sigrec reproduce\n\nProtocol (not reported by the paper; fixed here): d = 10, 3000 steps, "
                  "30 runs, schedule eta_k = 45/(k + 250)^1, batch 1, exact reduced simulator, seed 7.\n\n| t |\n\n"
                  "![a-b](a-b.png)\n")
    assert reproduce_summary(doc, "| t |", "out") == (
        "protocol: d=10, steps=3000, runs=30, eta_k=45/(k+250)^1, exact reduced simulator", "| t |",
        "wrote out/reproduce.md, reproduce.json and 1 figures")
