"""Hostile command-line and library input: exit 0 with finite numbers, or one `error:` line
(exit 2) naming the parameter; never a traceback, a nan, or a warning on stderr."""

from __future__ import annotations

import json
import math

import mpmath
import pytest

from sigrec.theory import Model, evaluate, evaluate_mp
from sigrec.verify.cli import COMMANDS, build_parser, main

SIM = ["simulate", "--theta", "1", "--R", "5", "--L", "20", "--d", "4", "--steps", "3", "--runs", "2", "--seed", "1"]


def _refused(capsys, argv, *names):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    for name in names:
        assert name in lines[0], lines[0]
    return lines[0]


def _json(capsys, argv):
    code = main(argv + ["--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def _all_finite(obj):
    if isinstance(obj, dict):
        return all(_all_finite(v) for v in obj.values())
    if isinstance(obj, list):
        return all(_all_finite(v) for v in obj)
    return obj is not None and (not isinstance(obj, float) or math.isfinite(obj))


# 1. parsing ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["-1e-3", "-.5", "-1.", "-1E-2", "-0"])
def test_negative_numbers_parse_as_values(capsys, text):
    data = _json(capsys, ["field", "--theta", "1", "--alpha", "0.5", "--rho", text, "0.25"])
    assert [p["rho"] for p in data["points"]] == [float(text), 0.25]


def test_negative_scientific_out_of_range_names_rho(capsys):
    _refused(capsys, ["field", "--theta", "1", "--alpha", "0.5", "--rho", "-1e3"], "rho")


@pytest.mark.parametrize("text", ["-inf", "inf", "nan", "-nan", "-Infinity", "1e400"])
def test_non_finite_theta_is_named(capsys, text):
    line = _refused(capsys, ["field", "--theta", text, "--alpha", "0.5", "--rho", "0"], "--theta")
    assert "finite" in line


def test_negative_int_option_parses(capsys):
    _refused(capsys, SIM[:-1] + ["-3"], "seed")


def test_help_still_works(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["field", "-h"])
    assert exc.value.code == 0
    assert "--rho" in capsys.readouterr().out


def test_every_command_accepts_json():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in COMMANDS:
        assert "--json" in sub.choices[name]._option_string_actions, name


def test_notes_json_check(capsys, tmp_path, monkeypatch):
    from sigrec.verify.cli import _notes

    def fake_generate(out):
        out.mkdir(parents=True, exist_ok=True)
        for name in ("appendix.tex", "appendix.md"):
            (out / name).write_text("same\n")

    monkeypatch.setattr(_notes, "_generate", fake_generate)
    out = tmp_path / "notes"
    assert main(["notes", "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and json.loads(captured.out)["files"]
    data = _json(capsys, ["notes", "--out", str(out), "--check"])
    assert data["in_sync"] is True and data["diffs"] == []
    (out / "appendix.md").write_text("different\n")
    assert main(["notes", "--out", str(out), "--check", "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["in_sync"] is False


def test_notes_json_check_without_appendix(capsys, tmp_path):
    _refused(capsys, ["notes", "--check", "--json", "--out", str(tmp_path / "none")], "appendix")


# 2. library overflow --------------------------------------------------------------------

def test_evaluate_mp_alpha_one_negative_rho():
    model = Model(50, 1.0, 20.0, 1e-8, "fixed")
    vals = evaluate_mp(model, -1)
    assert all(mpmath.isfinite(v) for v in vals.values())
    assert vals["field"] == 0 and vals["noise_mass"] == 0
    mid = evaluate_mp(model, -0.3)
    assert float(mid["slope"]) == pytest.approx(float(evaluate(model, -0.3).slope))


def test_evaluate_mp_huge_theta_is_finite():
    vals = evaluate_mp(Model(1e155, 0.3, 1, 1, "fixed"), -0.5, dps=20)
    assert all(mpmath.isfinite(v) for v in vals.values())


def test_evaluate_refuses_unrepresentable_theta():
    with pytest.raises(ValueError, match="`theta`"):
        evaluate(Model(1e155, 0.3, 1, 1, "fixed"), 0.5)


def test_field_huge_theta_cli(capsys):
    _refused(capsys, ["field", "--theta", "1e155", "--alpha", "0.3", "--rho", "0.5"], "theta")


def test_field_sparse_overflow_refused_not_nan(capsys):
    _refused(capsys, ["field", "--theta", "800", "--alpha", "0", "--rho", "1", "--json"], "theta")


def test_field_exactly_zero_at_the_poles():
    for prior in ("fixed", "rademacher"):
        for model in (Model(300, 0, 1, 1, prior), Model(3, 0.4, 1, 1, prior)):
            vals = evaluate(model, [-1.0, 1.0])
            assert list(vals.field) == [0.0, 0.0]


def test_field_sparse_finite_points_cli(capsys):
    data = _json(capsys, ["field", "--theta", "300", "--alpha", "0", "--rho", "1", "-1", "0.5"])
    assert _all_finite(data)
    assert [p["field"] for p in data["points"][:2]] == [0.0, 0.0]


@pytest.mark.parametrize("theta", [1.0, 700.0, 1e4])
def test_rademacher_tiny_alpha_finite(capsys, theta):
    vals = evaluate(Model(theta, 1e-300, 1, 1, "rademacher"), [-1, -0.5, 0, 0.5, 1])
    for k in ("objective", "slope", "field", "noise_mass"):
        assert all(math.isfinite(x) for x in getattr(vals, k))
    data = _json(capsys, ["field", "--theta", str(theta), "--alpha", "1e-300", "--prior", "rademacher",
                          "--rho", "-1", "0.5", "1"])
    assert _all_finite(data)


def test_rademacher_nuisance_mass_matches_mp():
    model = Model(1000, 1e-300, 1, 1, "rademacher")
    got = float(evaluate(model, -1.0).noise_mass)
    assert got == pytest.approx(float(evaluate_mp(model, -1, dps=30)["noise_mass"]), rel=1e-12)


# 3. outputs -----------------------------------------------------------------------------

def test_simulate_empty_save(capsys):
    _refused(capsys, SIM + ["--save", ""], "--save")


def test_simulate_save_under_file(capsys, tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    _refused(capsys, SIM + ["--save", str(f / "y.npz")], "--save")


def test_simulate_save_unwritable(capsys):
    _refused(capsys, SIM + ["--save", "/proc/x/y.npz"], "--save")


def test_simulate_save_creates_parent(capsys, tmp_path):
    data = _json(capsys, SIM + ["--save", str(tmp_path / "a" / "b" / "traj")])
    assert data["saved"].endswith("traj.npz") and (tmp_path / "a" / "b" / "traj.npz").exists()


@pytest.mark.parametrize("command", ["notes", "phase", "reproduce", "verify"])
def test_out_under_file_or_unwritable(capsys, tmp_path, command):
    f = tmp_path / "plain"
    f.write_text("x")
    _refused(capsys, [command, "--out", str(f / "sub")], "--out")
    _refused(capsys, [command, "--out", "/proc/x"], "--out")
    _refused(capsys, [command, "--out", ""], "--out")
