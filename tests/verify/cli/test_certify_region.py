"""``sigrec certify`` with ranges LO:HI: JSON, text, figure and refusals; points unchanged."""

from __future__ import annotations

import json
import math

import pytest

from sigrec.theory import Model, certify, critical_alpha
from sigrec.verify.cli import main

COARSE = ["certify", "--theta", "0.5:4", "--alpha", "0.01:0.9", "--min-width", "0.0625"]


def test_json_is_the_region_certificate(capsys):
    assert main([*COARSE, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"region", "boxes", "fractions", "certified", "boxes_count", "seconds"}
    assert doc["certified"] is True and doc["boxes_count"] == len(doc["boxes"])
    assert doc["region"]["ranges"] == {"theta": [0.5, 4.0], "alpha": [0.01, 0.9]}
    assert doc["region"]["scale"] == {"theta": "linear", "alpha": "log"} and doc["region"]["min_width"] == 0.0625
    assert math.isclose(sum(doc["fractions"].values()), 1.0, rel_tol=1e-12)
    for box in doc["boxes"]:
        assert set(box) >= {"theta", "alpha", "status"} and "beta" not in box
        if box["status"] == "bistable":  # left of the closed-form boundary on the whole box
            assert critical_alpha(box["theta"][0]) > box["alpha"][1]
            assert box["poles"] == {"plus": "stable", "minus": "stable"}
        elif box["status"] == "monotone":
            ac = critical_alpha(box["theta"][1])
            assert ac is None or ac < box["alpha"][0]


def test_text_is_a_table_of_fractions(capsys):
    assert main(COARSE) == 0
    out = capsys.readouterr().out
    for word in ("monotone", "bistable", "undecided", "boxes", "certified", "alpha log"):
        assert word in out
    assert "NOT certified" not in out


def test_one_range_among_points(capsys):
    assert main(["certify", "--theta", "2", "--alpha", "0.3", "--sigma2", "0.5:2", "--min-width", "0.125",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["region"]["ranges"] == {"sigma2": [0.5, 2.0]}
    assert doc["region"]["fixed"] == {"theta": 2.0, "alpha": 0.3, "beta": 1.0}
    assert all(set(b) >= {"sigma2", "status"} and "theta" not in b for b in doc["boxes"])


def test_a_point_keeps_todays_output(capsys):
    assert main(["certify", "--theta", "2", "--alpha", "0.3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    cert = certify(Model(2.0, 0.3))
    assert {k: doc[k] for k in cert.as_dict()} == json.loads(json.dumps(cert.as_dict()))
    assert set(doc) == {"model", "poles", *cert.as_dict()}


def test_figure_is_written(tmp_path, capsys):
    png = tmp_path / "region.png"
    assert main([*COARSE, "--figure", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.with_suffix(".pdf").stat().st_size > 0
    assert str(png) in capsys.readouterr().out


def test_help_documents_the_default_min_width(capsys):
    with pytest.raises(SystemExit):
        main(["certify", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "2^-10" in out and "LO:HI" in out


@pytest.mark.parametrize("argv, name", [
    (["--theta", "4:0.5", "--alpha", "0.5"], "--theta"),
    (["--theta", "1:1", "--alpha", "0.5"], "--theta"),
    (["--theta", "1", "--alpha", "0.2:inf"], "--alpha"),
    (["--theta", "1", "--alpha", "nan:0.5"], "--alpha"),
    (["--theta", "1", "--alpha", "0.2:1.5"], "`alpha`"),
    (["--theta=-1:2", "--alpha", "0.5"], "`theta`"),
    (["--theta", "1:2", "--alpha", "0.5", "--beta=-1:2"], "`beta`"),
    (["--theta", "1:2", "--alpha", "0.5", "--sigma2", "0:2"], "`sigma2`"),
    (["--theta", "1:2:3", "--alpha", "0.5"], "--theta"),
    (["--theta", "1:x", "--alpha", "0.5"], "--theta"),
    (["--theta", "1:2", "--alpha", "1.5"], "`alpha`"),
    (["--theta", "1:2", "--alpha", "0.5", "--min-width", "1e-9"], "min-width"),
    (["--theta", "1", "--alpha", "0.5", "--min-width", "0.1"], "--min-width"),
    (["--theta", "1", "--alpha", "0.5", "--figure", "x.png"], "--figure"),
    (["--theta", "1:2", "--alpha", "0.5", "--figure", "/nonexistent-dir/x.png"], "figure"),
    (["--theta", "1:2", "--alpha", "0.5", "--figure", "x.txt"], "figure"),
    (["--theta", "1", "--alpha", "0.5", "--workers", "2"], "--workers"),
    (["--theta", "1", "--alpha", "0.5", "--prior", "gaussian(mu=1:0.5, tau=1)"], "LO < HI"),
    (["--theta", "1", "--alpha", "0.5", "--prior", "gaussian(mu=0:1, tau=0:1)"], "corner mu=0, tau=0"),
    (["--theta", "1", "--alpha", "0.5", "--prior", "rademacher(p=0.3:0.7)"], "corner p=0.3"),
    (["--theta", "1", "--alpha", "0.5", "--prior", "discrete(values=[0:1, 2], probs=[0.5, 0.5])"], "--prior"),
    (["--theta", "1", "--alpha", "0.5", "--prior", "gaussian(mu=0.5:1:2, tau=1)"], "LO:HI"),
])
def test_bad_ranges_are_one_error_line_naming_the_parameter(capsys, argv, name):
    assert main(["certify", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and lines[0].startswith("error:") and name in lines[0]
    assert "internal error" not in lines[0]


def test_the_default_region_reaches_theta_0_and_alpha_1(capsys):
    """theta = 0 may start a box (its claim is for theta > 0) and alpha = 1 end one."""
    assert main(["certify", "--theta", "0:5", "--alpha", "1e-4:1", "--min-width", "0.0625", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["certified"] and doc["region"]["ranges"] == {"theta": [0.0, 5.0], "alpha": [1e-4, 1.0]}
    ends = [b for b in doc["boxes"] if b["alpha"][1] == 1.0 and b["status"] != "undecided"]
    starts = [b for b in doc["boxes"] if b["theta"][0] == 0.0 and b["status"] != "undecided"]
    assert ends and starts and all(b["status"] == "monotone" for b in ends + starts)
    # independent route: the point certificate at alpha = 1 and near theta = 0
    assert certify(Model(4.9, 1.0)).status == "monotone" and certify(Model(1e-9, 1e-4)).status == "monotone"


def test_a_ranged_prior_is_a_side_of_the_box(capsys):
    assert main(["certify", "--theta", "2", "--alpha", "0.05", "--prior", "gaussian(mu=0.5:1, tau=0.2)",
                 "--min-width", "0.0625", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["region"]["ranges"] == {"mu": [0.5, 1.0]} and doc["region"]["prior"] == "gaussian(mu=0.5:1, tau=0.2)"
    assert doc["certified"] and all(set(b) >= {"mu", "status"} for b in doc["boxes"])
    # independent route: the point certificate at the ends of each certified box
    for box in doc["boxes"][:: max(1, len(doc["boxes"]) // 6)]:
        if box["status"] == "undecided":
            continue
        for mu in box["mu"]:
            assert certify(Model(2.0, 0.05, prior=f"gaussian({mu!r}, 0.2)")).status == box["status"], box
