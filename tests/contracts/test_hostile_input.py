"""Hostile command-line and library input: exit 0 with finite numbers, or one `error:` line
(exit 2) naming the parameter; never a traceback, a nan, or a warning on stderr."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

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
    code = main([*argv, "--json"])
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
    _refused(capsys, [*SIM[:-1], "-3"], "seed")


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

    def fake_generate(out, evidence):
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
    _refused(capsys, [*SIM, "--save", ""], "--save")


def test_simulate_save_under_file(capsys, tmp_path):
    f = tmp_path / "plain"
    f.write_text("x")
    _refused(capsys, [*SIM, "--save", str(f / "y.npz")], "--save")


def test_simulate_save_unwritable(capsys):
    _refused(capsys, [*SIM, "--save", "/proc/x/y.npz"], "--save")


def test_simulate_save_creates_parent(capsys, tmp_path):
    data = _json(capsys, [*SIM, "--save", str(tmp_path / "a" / "b" / "traj")])
    assert data["saved"].endswith("traj.npz") and (tmp_path / "a" / "b" / "traj.npz").exists()


@pytest.mark.parametrize("command", ["notes", "phase", "reproduce", "verify"])
def test_out_under_file_or_unwritable(capsys, tmp_path, command):
    f = tmp_path / "plain"
    f.write_text("x")
    _refused(capsys, [command, "--out", str(f / "sub")], "--out")
    _refused(capsys, [command, "--out", "/proc/x"], "--out")
    _refused(capsys, [command, "--out", ""], "--out")


# 4. resource limits, checked before any work --------------------------------------------

from sigrec.theory import certify  # noqa: E402
from sigrec.verify.cli import _limits  # noqa: E402

PRED = ["predict", "--theta", "1", "--R", "5", "--L", "20", "--d", "4", "--steps", "3", "--rho0", "0.1"]


@pytest.mark.parametrize("change, names", [
    (["--L", "1000000000000"], ("--L", "10000000")),
    (["--runs", "1000000000000"], ("--runs", "100000")),
    (["--batch", "1e12"], ("--batch", "10000")),
    (["--batch", "2.5"], ("--batch", "integer")),
    (["--steps", "1e12"], ("--steps", "10000000")),
    (["--steps", "inf"], ("--steps", "integer")),
    (["--d", "1e12"], ("--d", "100000")),
    (["--power", "1e6"], ("--power", "10")),
    (["--k0", "1e-320"], ("--k0",)),
    (["--seed", "1e30"], ("--seed",)),
    (["--workers", "100000"], ("--workers", "256")),
    (["--runs", "100000", "--L", "10000000"], ("memory", "GiB")),
    (["--simulator", "full", "--runs", "100000", "--L", "10000", "--d", "10000"], ("memory", "GiB")),
    (["--steps", "10000000", "--runs", "100000", "--L", "100", "--stride", "10000000"], ("random draws", "1e+12")),
])
def test_simulate_resource_limits(capsys, change, names):
    _refused(capsys, SIM + change, *names)


def test_integer_scientific_notation_accepted(capsys):
    data = _json(capsys, [*SIM, "--steps", "3e0", "--runs", "2E0"])
    assert data["steps"] == 3 and data["runs"] == 2


@pytest.mark.parametrize("change, names", [
    (["--d", "1e12"], ("--d",)), (["--power", "1e6"], ("--power",)),
    (["--steps", "10000000"], ("steps", "stride", "1000000")),
])
def test_predict_resource_limits(capsys, change, names):
    _refused(capsys, PRED + change, *names)


@pytest.mark.parametrize("change, names", [
    (["--n-theta", "1e12"], ("--n-theta", "512")), (["--n-alpha", "1000000000000"], ("--n-alpha",)),
    (["--n-theta", "512", "--n-alpha", "512"], ("n-theta", "n-alpha", "65536")),
    (["--alpha-min", "1e-320"], ("--alpha-min", "1e-12")), (["--theta-max", "1e308"], ("--theta-max",)),
])
def test_phase_resource_limits(capsys, tmp_path, change, names):
    _refused(capsys, ["phase", "--out", str(tmp_path / "p"), *change], *names)
    assert not (tmp_path / "p").exists()


def test_certify_precision_limit(capsys):
    _refused(capsys, ["certify", "--theta", "1", "--alpha", "0.5", "--prec", "1000000000000"], "--prec", "4096")
    with pytest.raises(ValueError, match="`prec` must be <= 4096"):
        certify(Model(1.0, 0.5), prec=10**12)
    with pytest.raises(ValueError, match="`prec`"):
        certify(Model(1.0, 0.5), prec=128.5)


def test_verify_and_reproduce_sizes_refused(capsys):
    _refused(capsys, ["verify", "--theta", "1", "--R", "1", "--L", "1e12", "--d", "3"], "--L")
    _refused(capsys, ["reproduce", "--workers", "1e9"], "--workers")


def test_memory_estimate_uses_available_memory(monkeypatch):
    monkeypatch.setattr(_limits, "available_memory", lambda: 2**20)
    with pytest.raises(ValueError, match="memory"):
        _limits.check_simulation(simulator="reduced", runs=1000, steps=10, stride=1, L=1000, d=2, batch=1)
    _limits.check_simulation(simulator="reduced", runs=1, steps=10, stride=1, L=10, d=2, batch=1)
    assert _limits.available_memory.__call__() == 2**20


def test_limits_documented_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "limits" in out and "--steps" in out and "MemAvailable" in out


# 5. atomic outputs ------------------------------------------------------------------------

import sigrec.verify.cli._notes as _notes_cli  # noqa: E402
import sigrec.verify.cli._phase as _phase_cli  # noqa: E402
import sigrec.verify.cli._reproduce as _reproduce_cli  # noqa: E402
import sigrec.verify.cli._verify as _verify_cli  # noqa: E402
from sigrec.numerics import Simulation  # noqa: E402


def _interrupted(capsys, argv):
    code = main(argv)
    _, err = capsys.readouterr()
    assert code == 130, (code, err)
    assert err.splitlines() == ["error: interrupted"], err
    assert "Traceback" not in err


def _previous(out):
    out.mkdir()
    (out / "figures").mkdir()
    (out / "figures" / "old.png").write_text("old figure")
    for name in ("report.json", "phase.csv", "reproduce.json", "appendix.tex", "keep.txt"):
        (out / name).write_text(f"old {name}")
    return _snapshot(out)


def _snapshot(out):
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*")) if p.is_file()}


def _no_strays(parent):
    strays = [p.name for p in parent.rglob(".sigrec-tmp*")]
    assert not strays, strays


def _figure_then_interrupt(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "new.png").write_text("half")
    raise KeyboardInterrupt


def _patch_heavy(monkeypatch, command):
    if command == "verify":
        monkeypatch.setattr(_verify_cli, "run_suite", lambda config, progress, figure_dir, **_:
                            _figure_then_interrupt(figure_dir))
        return ["verify", "--theta", "1", "--alpha", "0.5"]
    if command == "phase":
        monkeypatch.setattr(_phase_cli, "plot", lambda pd, path: _figure_then_interrupt(Path(path).parent))
        return ["phase", "--n-theta", "2", "--n-alpha", "2"]
    if command == "reproduce":
        monkeypatch.setattr(_reproduce_cli, "run_configs", lambda configs, *a, **k: [None] * len(configs))
        monkeypatch.setattr(_reproduce_cli, "plot", lambda results, out, *_: _figure_then_interrupt(out))
        return ["reproduce"]
    monkeypatch.setattr(_notes_cli, "_generate", lambda out, evidence: _figure_then_interrupt(out))
    return ["notes"]


@pytest.mark.parametrize("previous", [False, True])
@pytest.mark.parametrize("command", ["verify", "phase", "reproduce", "notes"])
def test_interrupt_leaves_previous_output_or_nothing(capsys, tmp_path, monkeypatch, command, previous):
    out = tmp_path / "out"
    before = _previous(out) if previous else None
    argv = _patch_heavy(monkeypatch, command)
    _interrupted(capsys, [*argv, "--out", str(out)])
    if previous:
        assert _snapshot(out) == before
    else:
        assert not out.exists()
    _no_strays(tmp_path)


def test_phase_replaces_only_its_own_files(capsys, tmp_path):
    out = tmp_path / "out"
    _previous(out)
    data = _json(capsys, ["phase", "--n-theta", "2", "--n-alpha", "2", "--out", str(out)])
    assert data["csv"] == str(out / "phase.csv") and data["figure"] == str(out / "phase.png")
    assert (out / "phase.csv").read_text().startswith("theta,alpha")
    assert (out / "keep.txt").read_text() == "old keep.txt" and (out / "figures" / "old.png").exists()
    mask = os.umask(0o022)
    os.umask(mask)
    assert (out / "phase.csv").stat().st_mode & 0o777 == 0o666 & ~mask
    _no_strays(tmp_path)


def test_simulate_save_interrupted_leaves_previous_file(capsys, tmp_path, monkeypatch):
    target = tmp_path / "traj.npz"
    target.write_bytes(b"previous")

    def half(self, path):
        Path(path).write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(Simulation, "save", half)
    _interrupted(capsys, [*SIM, "--save", str(target)])
    assert target.read_bytes() == b"previous"
    _no_strays(tmp_path)


def test_simulate_save_fresh_file_is_complete(capsys, tmp_path):
    import numpy as np

    data = _json(capsys, [*SIM, "--save", str(tmp_path / "t")])
    assert data["saved"] == str(tmp_path / "t.npz")
    assert np.load(tmp_path / "t.npz")["rho"].shape[0] == 2
    _no_strays(tmp_path)


def test_verify_report_paths_are_final(tmp_path, monkeypatch):
    import sigrec.verify.render._report as rep_mod

    tmp, final = tmp_path / ".sigrec-tmp-x", tmp_path / "final"
    monkeypatch.setattr(rep_mod, "report_dict", lambda r: {"figures": [str(tmp / "figures" / "a.png")]})
    monkeypatch.setattr(rep_mod, "markdown", lambda rep: "md")
    rep = rep_mod.write_report(None, tmp, final=final)
    assert rep["out"] == str(final) and rep["figures"] == [str(final / "figures" / "a.png")]
    assert json.loads((tmp / "report.json").read_text())["out"] == str(final)


# 6. fuzzer findings ---------------------------------------------------------------------

@pytest.mark.parametrize("extra", [
    ["--eta0", "1e308", "--power", "0", "--rho0", "0"],                  # overflow in the corrected drift
    ["--eta0", "10", "--power", "0", "--batch", "2", "--rho0", "1"],     # inf/inf in the solver's error norm
])
def test_predict_intermediate_overflow_is_silent(capsys, extra):
    argv = ["predict", "--theta", "0", "--R", "1", "--L", "3", "--d", "2", "--steps", "1", *extra]
    import warnings as _w

    with _w.catch_warnings():
        _w.simplefilter("error")
        data = _json(capsys, argv)
    assert _all_finite(data)


def test_predict_integration_failure_is_one_line_naming_the_flags(capsys, monkeypatch):
    import sigrec.numerics._ode._corrected as corrected

    monkeypatch.setattr(corrected, "MAX_EVALUATIONS", 100)
    _refused(capsys, [*PRED, "--json"], "`eta0`", "`power`", "more than 100 drift evaluations")


class _Hang(BaseException):
    """A hang guard (``main`` turns every ``Exception`` into an ``error:`` line)."""


def _json_within(capsys, argv, seconds=60):
    """:func:`_json`, failing instead of hanging after ``seconds`` (a hang guard)."""
    import signal

    def alarm(signum, frame):
        raise _Hang

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return _json(capsys, argv)
    except _Hang:
        pytest.fail(f"no answer within {seconds} s: {argv!r}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("extra", [
    # found by the fuzzer: at an equilibrium at rho = 0 the spline's rounding broke Radau's
    # Newton test and it crawled at steps of 1e-167 (numerics/_ode/_corrected.py, LSODA first)
    ["--eta0", "0.5", "--k0", "1e12", "--power", "0.75"],
    ["--eta0", "0.5", "--power", "0", "--steps", "5"],
])
def test_predict_stiff_equilibrium_at_zero(capsys, extra):
    argv = ["predict", "--theta", "50", "--sigma2", "10", "--prior", "rademacher", "--R", "1", "--L", "4", "--d", "4",
            "--steps", "1", "--rho0", "0", *extra]
    data = _json_within(capsys, argv)
    assert _all_finite(data)
    assert max(abs(x) for x in data["rho_corrected"]) < 1e-12  # F_eta is odd here: the zero is rho = 0


def test_predict_repeated_times_share_a_value(capsys):
    # found by the fuzzer: eta_0 = 0.5 / 1e-120 swamps the later steps, t_1 == t_2 == t_3 in
    # float64, and solve_ivp refused the t_eval ("Values in `t_eval` are not properly sorted")
    argv = ["predict", "--theta", "1", "--R", "1", "--L", "3", "--d", "2", "--steps", "3", "--eta0", "0.5",
            "--k0", "1e-12", "--power", "10", "--rho0", "0.3"]
    data = _json_within(capsys, argv)
    assert _all_finite(data)
    assert data["time"][1] == data["time"][3]
    for key in ("rho_plain", "rho_corrected"):
        assert data[key][1] == data[key][2] == data[key][3], key


def test_predict_overflowing_time_axis_names_the_schedule(capsys):
    # found by the fuzzer: t_k = inf leaked "`t_eval` must be finite and >= 0, got array([0., inf, ...])"
    argv = ["predict", "--theta", "1", "--R", "1", "--L", "4", "--d", "2", "--steps", "6", "--eta0", "1e308",
            "--k0", "1e-12", "--power", "1", "--rho0", "0.5", "--json"]
    line = _refused(capsys, argv, "`eta0`", "`k0`", "`power`", "overflows")
    assert "t_eval" not in line


def test_integrate_accepts_repeated_times():
    from sigrec.numerics import integrate

    traj = integrate(Model(1.0, 0.5), 0.3, [0.0, 1.0, 1.0, 2.0])
    assert traj.success and traj.rho[1] == traj.rho[2] and traj.rho[0] < traj.rho[1] < traj.rho[3]


def test_require_finite_refuses_overflow():
    from sigrec.verify.studies._guard import require_finite

    with pytest.raises(ValueError, match="`eta0`"):
        require_finite("`eta0`", [1.0, float("inf")])


@pytest.mark.parametrize("sigma2", ["1e308", "1e20"])
def test_predict_huge_sigma2_refused_naming_it(capsys, sigma2):
    # found by the fuzzer: OverflowError (Python-float sigma2**2 in the lambdified E|P g|^2)
    argv = ["predict", "--theta", "0", "--sigma2", sigma2, "--R", "1", "--L", "3", "--d", "2", "--steps", "1",
            "--power", "0", "--rho0", "0", "--json"]
    _refused(capsys, argv, "`sigma2`", f"sigma2={float(sigma2)!r}", "too large for float64")


def test_effective_overflow_is_a_value_error_naming_the_scales():
    from sigrec.theory import alignment_variance, effective_drift, gradient_second_moment

    model = Model(0.0, 1 / 3, 1.0, 1e308, "fixed")
    for call in (lambda: gradient_second_moment(model, [0.0, 0.5], 2, 3),
                 lambda: effective_drift(model, [0.0, 0.5], 0.5, 2, 3),
                 lambda: alignment_variance(model, [0.0, 0.5], 3, d=2)):
        with pytest.raises(ValueError, match="`theta`, `beta` or `sigma2` is too large for float64"):
            call()


@pytest.mark.parametrize("theta", ["1e308", "700"])
def test_certify_pole_exponent_beyond_float64_is_printed_not_null(capsys, theta):
    # found by the fuzzer: F'(+1) = -exp(~2 beta theta) became -inf, printed as "exponent": null;
    # the value is now given as text at any magnitude and the float only when it is representable
    data = _json(capsys, ["certify", "--theta", theta, "--alpha", "0", "--prec", "53"])
    assert _all_finite(data)
    plus = data["poles"]["plus"]
    assert plus["stability"] == "stable" and "exponent" not in plus
    assert plus["exponent_text"].startswith("-") and "e+" in plus["exponent_text"]


def test_certify_underflowed_pole_exponent_keeps_its_sign(capsys):
    # F'(-1) underflows to -0.0 at theta = 800: still a stable pole, not a neutral one
    data = _json(capsys, ["certify", "--theta", "800", "--alpha", "0.5", "--prec", "53"])
    assert _all_finite(data)
    minus = data["poles"]["minus"]
    assert minus["stability"] == "stable" and "exponent" not in minus and "e-" in minus["exponent_text"]
    assert data["poles"]["plus"]["stability"] == "stable"


def test_field_overflow_names_sigma2_not_only_theta(capsys):
    line = _refused(capsys, ["field", "--theta", "1", "--alpha", "0.5", "--sigma2", "1e308", "--rho", "0"], "`sigma2`")
    assert "sigma2=1e+308" in line


@pytest.mark.parametrize("argv", [["phase", "--beta", "1e308"], ["phase", "--beta", "1e308", "--prior", "rademacher"],
                                  ["phase", "--sigma2", "1e-320"]])
def test_phase_extreme_beta_refused_up_front(capsys, tmp_path, argv):
    # found by the fuzzer: OverflowError traceback in the closed-form boundary / a run of minutes
    _refused(capsys, [*argv, "--out", str(tmp_path / "p")], argv[1])


# 7. unexpected exceptions: one line, never a traceback ----------------------------------

def _boom(exc):
    def run(args):
        raise exc
    return run


@pytest.mark.parametrize("exc", [ZeroDivisionError("float division by zero"), OverflowError("(34, 'Result too large')"),
                                 FloatingPointError("overflow encountered"), RecursionError("maximum recursion depth"),
                                 MemoryError(), RuntimeError("solver\nfailed\n  badly")])
def test_unexpected_exception_is_one_error_line(capsys, monkeypatch, exc):
    from sigrec.verify.cli import _predict

    monkeypatch.setattr(_predict, "run", _boom(exc))
    code = main([*PRED, "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (code, out, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: internal error in predict: {type(exc).__name__}: "), lines[0]
    assert lines[0].endswith("(please report this with the command line)"), lines[0]
    assert " ".join(str(exc).split()) in lines[0]
    assert "Traceback" not in err


def test_unexpected_exception_while_parsing_names_the_command(capsys, monkeypatch):
    import sigrec.verify.cli._args as args_mod

    def broken(text):
        raise ZeroDivisionError("in a type check")

    monkeypatch.setattr(args_mod, "count", lambda name: broken)  # the parser is built on every call
    code = main(PRED)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.splitlines() == ["error: internal error in predict: ZeroDivisionError: in a type check "
                                "(please report this with the command line)"], err


def test_interrupt_still_exits_130(capsys, monkeypatch):
    from sigrec.verify.cli import _predict

    monkeypatch.setattr(_predict, "run", _boom(KeyboardInterrupt()))
    _interrupted(capsys, PRED)
