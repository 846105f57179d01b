"""``sigrec certify --time-to RHO1 --rho0 RHO0``: JSON, text and one-line refusals."""

from __future__ import annotations

import json
import math

import pytest

from sigrec.theory import Model, certified_time
from sigrec.verify.cli import main

WEAK = ["certify", "--theta", "0.25", "--R", "500", "--L", "10500"]


def _refused(capsys, argv, *needles):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_json_adds_the_time_enclosure(capsys):
    assert main([*WEAK, "--time-to", "0.99", "--rho0", "0", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    t = doc["time"]
    assert (t["rho0"], t["rho1"]) == (0.0, 0.99) and t["lo"] < t["hi"]
    api = certified_time(Model.from_counts(0.25, 500, 10_500), 0.0, 0.99)
    assert math.isclose(t["lo"], api.lo, rel_tol=1e-12) and math.isclose(t["hi"], api.hi, rel_tol=1e-12)
    assert 79.99 < t["lo"] and t["hi"] < 80.0 and t["relative_width"] <= 1e-6
    assert t["basin"]["limit"] == {"kind": "pole", "lo": 1.0, "hi": 1.0, "point": 1.0, "stability": "stable"}
    assert doc["status"] == "monotone"


def test_without_the_flags_the_output_is_unchanged(capsys):
    assert main([*WEAK, "--json"]) == 0
    assert "time" not in json.loads(capsys.readouterr().out)


def test_text_prints_one_time_line(capsys):
    assert main([*WEAK, "--time-to", "0.99", "--rho0", "0", "--time-rtol", "1e-4"]) == 0
    out = capsys.readouterr().out
    assert "T in [79.99" in " ".join(out.split()) and "the flow tends to rho = 1" in " ".join(out.split())


@pytest.mark.parametrize("argv, needles", [
    (["--theta", "3", "--alpha", "0.01", "--time-to", "-0.5", "--rho0", "0"],
     ["`--time-to` (rho1)", "unstable equilibrium", "lies between them"]),
    (["--theta", "3", "--alpha", "0.01", "--time-to", "0.5"], ["--rho0"]),
    (["--theta", "3", "--alpha", "0.01", "--rho0", "0.5"], ["--time-to"]),
    (["--theta", "0.5:3", "--alpha", "0.01", "--time-to", "0.5", "--rho0", "0"], ["point model"]),
    (["--theta", "3", "--alpha", "0.01", "--time-to", "1", "--rho0", "0"], ["`--time-to` (rho1)", "(-1, 1)"]),
    (["--theta", "3", "--alpha", "0.01", "--time-to", "0.5", "--rho0", "-1"], ["`--rho0`", "(-1, 1)"]),
    (["--theta", "3", "--alpha", "0.01", "--time-to", "0.5", "--rho0", "0", "--time-rtol", "0"], ["`--time-rtol`"]),
    (["--theta", "3", "--alpha", "0.01", "--time-to", "0.5", "--rho0", "nan"], ["--rho0"]),
    (["--theta", "0", "--alpha", "0.01", "--time-to", "0.5", "--rho0", "0"], ["theta = 0"]),
])
def test_bad_input_is_one_line(capsys, argv, needles):
    _refused(capsys, ["certify", *argv], *needles)
