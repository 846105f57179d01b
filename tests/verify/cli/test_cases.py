"""``sigrec verify`` on the user's own cases: flags, the TOML schema, --checks selection."""

import json

import pytest

from sigrec.verify.cli import main
from sigrec.verify.suite import cases_from_toml, make_case


def _run(argv, capsys):
    # in-process (--workers 1): without it each verify starts a local dask cluster, whose
    # processes' CPU seconds the test never sees; results do not depend on where units run
    # (tests/numerics/test_executor.py)
    rc = main([*argv, "--workers", "1"])
    out = capsys.readouterr()
    return rc, out


def test_theory_only_case_with_field_checks(tmp_path, capsys):
    rc, out = _run(["verify", "--theta", "2.5", "--alpha", "0", "--name", "sparse-mine", "--checks", "field.*",
                    "--out", str(tmp_path / "r"), "--json"], capsys)
    assert rc == 0
    doc = json.loads(out.out)
    ids = [(r["id"], r["details"].get("case")) for r in doc["checks"]]
    assert ids == [("field.endpoints", None), ("field.monotone", "sparse-mine"), ("field.stability", "sparse-mine"),
                   ("field.phase_boundary", "sparse-mine")]
    # beta*theta = 2.5 > 1 in the sparse regime: an interior equilibrium at -1/(beta theta)
    mono = doc["checks"][1]
    assert mono["status"] == "fails" and mono["certified"]
    assert doc["config"]["cases"][0]["alpha"] == 0.0 and doc["config"]["checks"] == ["field.*"]


def test_simulated_case_runs_instance_checks(tmp_path, capsys):
    rc, out = _run(["verify", "--theta", "0.6", "--R", "60", "--L", "400", "--d", "5",
                    "--checks", "sga.convergence,ode.lyapunov", "--out", str(tmp_path / "r"), "--json"], capsys)
    assert rc == 0, out.err
    doc = json.loads(out.out)
    assert {r["id"] for r in doc["checks"]} == {"ode.lyapunov", "sga.convergence", "sga.convergence.recovery"}
    assert all(r["details"]["case"] == "mine" for r in doc["checks"])
    assert doc["config"]["cases"][0]["R"] == 60


@pytest.mark.parametrize("argv, needle", [
    (["--theta", "1", "--R", "10"], "needs `d`, `L` too"),
    (["--theta", "1", "--alpha", "0.2", "--R", "10", "--L", "20", "--d", "3"], "not both"),
    (["--R", "10", "--L", "20", "--d", "3"], "needs --theta"),
    (["--theta", "1", "--R", "30", "--L", "20", "--d", "3"], "R <= L = 20"),
    (["--theta", "1", "--alpha", "1.5"], "alpha"),
    (["--checks", "field.*,nope"], "no check matches 'nope'"),
    (["--checks", ","], "`checks` is empty"),
    (["--cases", "/nonexistent/cases.toml"], "no such file"),
])
def test_bad_cases_one_error_line(argv, needle, tmp_path, capsys):
    rc, out = _run(["verify", *argv, "--out", str(tmp_path / "r")], capsys)
    assert rc == 2 and out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines


def test_toml_schema(tmp_path):
    f = tmp_path / "cases.toml"
    f.write_text('''
[[case]]
name = "weak"
theta = 0.25
R = 50
N = 1000
d = 10
checks = ["field.*"]

[[case]]
theta = 3.0
alpha = 0.0
prior = "fixed"
beta = 0.5
''')
    a, b = cases_from_toml(f)
    assert (a.name, a.R, a.L, a.d, a.checks) == ("weak", 50, 1050, 10, ("field.*",))
    assert a.alpha == pytest.approx(50 / 1050)
    assert (b.name, b.simulated, b.alpha, b.beta, b.checks) == ("case-2", False, 0.0, 0.5, ("*",))


@pytest.mark.parametrize("text, needle", [
    ("[[case]]\ntheta = 1\nalpha = 0.1\ncolour = 'red'\n", "unknown key(s) ['colour']"),
    ("[[case]]\nalpha = 0.1\n", "`theta` is required"),
    ("[[case]]\nname='a'\ntheta = 1\nalpha = 0.1\n[[case]]\nname='a'\ntheta = 1\nalpha = 0.2\n", "duplicate"),
    ("theta = 1\n", "unknown top-level key"),
    ("[[case]\ntheta = 1\n", "not valid TOML"),
    ("[[case]]\ntheta = 1\nR = 5\nL = 10\nN = 5\nd = 3\n", "`L` or `N`"),
    ("[[case]]\ntheta = 1\nalpha = 0.1\nchecks = 'field.*'\n", "list of check ids"),
    ("[[case]]\ntheta = 1\nalpha = 0.1\nprior = 'gauss'\n", "prior"),
])
def test_toml_refusals_name_the_case(text, needle, tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ValueError, match=None) as exc:
        cases_from_toml(f)
    assert needle in str(exc.value)
    rc, out = _run(["verify", "--cases", str(f), "--out", str(tmp_path / "r")], capsys)
    assert rc == 2 and len(out.err.strip().splitlines()) == 1 and needle in out.err


def test_cases_file_and_flags_are_exclusive(tmp_path, capsys):
    f = tmp_path / "c.toml"
    f.write_text("[[case]]\ntheta = 1\nalpha = 0.1\n")
    rc, out = _run(["verify", "--cases", str(f), "--theta", "1", "--alpha", "0.2", "--out", str(tmp_path)], capsys)
    assert rc == 2 and "not both" in out.err


def test_make_case_accepts_n_or_l():
    assert make_case("x", theta=1, R=5, N=15, d=3).L == 20
    assert make_case("x", theta=1, R=5, L=20, d=3).alpha == 0.25


def test_budget_flag_lets_the_planned_run_decide(tmp_path, capsys):
    argv = ["verify", "--theta", "1.0", "--R", "100", "--L", "600", "--d", "10", "--checks", "sga.convergence",
            "--json", "--out"]
    rc, out = _run([*argv, str(tmp_path / "a"), "--budget", "1"], capsys)
    assert rc == 0
    rec = next(r for r in json.loads(out.out)["checks"] if r["id"] == "sga.convergence.recovery")
    design = rec["details"]["schedule_design"]
    plan = design["plan"]
    assert not design["planned"] and plan["feasible"] and f"steps x {plan['runs']} runs" in design["plan_text"]
    assert 10 <= plan["runs"] <= 16  # the runs its verdict needs, at most the quick preset's 16
    assert rec["details"]["runs"] == 16  # the unplanned run uses the preset's runs
    need = plan["token_steps"]
    assert need == plan["runs"] * plan["steps"] * 600
    rc, out = _run([*argv, str(tmp_path / "b"), "--budget", str(need)], capsys)
    rec = next(r for r in json.loads(out.out)["checks"] if r["id"] == "sga.convergence.recovery")
    assert rec["details"]["schedule_design"]["planned"] and rec["status"] in ("holds", "fails")
    assert rec["details"]["runs"] == plan["runs"]
    assert rec["status"] == "holds", rec["message"]
    rc, out = _run([*argv, str(tmp_path / "c"), "--budget", "-1"], capsys)
    assert rc == 2 and "budget" in out.err
