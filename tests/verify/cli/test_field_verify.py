import json
import subprocess
import sys

import pytest

from sigrec.verify.cli._main import main


def test_field_json(capsys):
    rc = main(["field", "--theta", "0.25", "--alpha", "0.05", "--rho", "-1", "0.5", "1", "--json"])
    out = capsys.readouterr()
    assert rc == 0 and out.err == ""
    doc = json.loads(out.out)
    assert doc["model"]["theta"] == 0.25 and doc["model"]["prior"] == "fixed"
    assert [p["rho"] for p in doc["points"]] == [-1.0, 0.5, 1.0]
    for p in doc["points"]:
        assert set(p) == {"rho", "objective", "slope", "field", "noise_mass"}
    assert doc["points"][0]["field"] == 0 and doc["points"][1]["field"] > 0


def test_field_table(capsys):
    assert main(["field", "--theta", "1", "--alpha", "0", "--rho", "0.1"]) == 0
    assert "sparse" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["field", "--theta", "-1", "--alpha", "0.5", "--rho", "0"],
        ["field", "--theta", "1", "--alpha", "1.5", "--rho", "0"],
        ["field", "--theta", "1", "--alpha", "0.5", "--rho", "1.0001"],
        ["field", "--theta", "1", "--alpha", "0.5", "--beta", "0", "--rho", "0"],
        ["field", "--theta", "1", "--alpha", "0.5", "--sigma2", "-1", "--rho", "0"],
        ["field", "--theta", "1", "--alpha", "0.5", "--prior", "gauss", "--rho", "0"],
        ["field", "--theta", "inf", "--alpha", "0.5", "--rho", "0"],
        ["field", "--theta", "x", "--alpha", "0.5", "--rho", "0"],
        ["field", "--theta", "1", "--alpha", "0.5"],
        ["nonsense"],
        [],
    ],
)
def test_bad_input_one_error_line_exit_2(argv, capsys):
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 2
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")


def test_module_entry_point_no_traceback(tmp_path):
    # run outside the repository so that only the installed ``sigrec`` package is importable
    p = subprocess.run([sys.executable, "-m", "sigrec", "field", "--theta", "1", "--alpha", "2", "--rho", "0"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.startswith("error: ")
    p = subprocess.run([sys.executable, "-m", "sigrec", "field", "--theta", "1", "--alpha", "0.2", "--rho", "0",
                        "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0 and json.loads(p.stdout)["points"][0]["rho"] == 0.0


def _verify_writes_report(tmp_path, capsys, *checks):
    # in-process: a local dask cluster (the default) would add its start and the CPU seconds
    # of its processes (33 CPU s against 5.5 here); the default executor is the terminal test's
    rc = main(["verify", "--out", str(tmp_path / "rep"), "--json", "--workers", "1", *checks])
    out = capsys.readouterr()
    doc = json.loads(out.out)
    assert rc == 0
    ids = {c["id"] for c in doc["checks"]}
    assert {"derivation.quadrature", "field.endpoints"} <= ids
    assert doc["summary"]["ok"] is True
    assert doc["environment"]["packages"]["numpy"]
    on_disk = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert on_disk["checks"] == doc["checks"]
    assert "derivation.quadrature" in (tmp_path / "rep" / "report.md").read_text()
    return ids


def test_verify_writes_report(tmp_path, capsys):
    """The report's contract on the built-in cases, with the checks that simulate nothing (each
    check is run in the default test run by its own tests: tests/verify/checks, and
    tests/verify/suite/test_random_models.py on random models)."""
    ids = _verify_writes_report(tmp_path, capsys, "--checks", "derivation.quadrature,field.*")
    assert {i.split(".")[0] for i in ids} == {"derivation", "field"}


@pytest.mark.slow
def test_verify_writes_report_with_every_check(tmp_path, capsys):
    """Every check on every built-in case at the quick preset: nothing fails (about 90 s)."""
    ids = _verify_writes_report(tmp_path, capsys)
    assert {"sga.convergence", "sga.tracking", "finite_size.rate"} <= ids


def test_verify_out_must_be_a_folder(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["verify", "--out", str(f)]) == 2


def test_verify_terminal_ends_with_the_claim_verdicts(tmp_path, capsys):
    rc = main(["verify", "--checks", "field.*", "--out", str(tmp_path / "rep")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "the paper's claims" in out and "2. The landscape is smooth" in out
    # the claims come after the checks table, before the closing summary line
    assert out.index("field.monotone") < out.index("the paper's claims") < out.index("consistency checks passed")
