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
