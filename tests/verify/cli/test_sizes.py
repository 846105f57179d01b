"""One set of size flags for every command that takes a model: ``--R`` with ``--L`` or ``--N``
(``L = R + N``), or ``--alpha`` where a fraction is enough; the same numbers either way."""

from __future__ import annotations

import json

import pytest

from sigrec.verify.cli import main


def _json(argv, capsys):
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command, extra", [
    ("field", ["--rho", "-0.5", "0.5"]),
    ("certify", []),
])
def test_a_fraction_command_takes_counts(command, extra, capsys):
    by_n = _json([command, "--theta", "2", "--R", "200", "--N", "3000", *extra], capsys)
    by_l = _json([command, "--theta", "2", "--R", "200", "--L", "3200", *extra], capsys)
    by_alpha = _json([command, "--theta", "2", "--alpha", repr(200 / 3200), *extra], capsys)
    assert by_n == by_l == by_alpha


@pytest.mark.parametrize("command, extra", [
    ("simulate", ["--steps", "3", "--runs", "2", "--seed", "4"]),
    ("predict", ["--steps", "3", "--rho0", "0.3"]),
    ("complexity", ["--runs", "50", "--rho0", "0.3", "--target", "0.9", "--horizon", "2000"]),
])
def test_an_instance_command_takes_N_for_L(command, extra, capsys):
    base = [command, "--theta", "1.5", "--R", "30", "--d", "4", *extra]
    by_n = _json([*base, "--N", "270"], capsys)
    by_l = _json([*base, "--L", "300"], capsys)
    by_n.pop("seconds", None), by_l.pop("seconds", None)
    for doc in (by_n, by_l):
        for key in ("wall_s", "elapsed_s", "run_steps_per_s"):  # timings
            doc.pop(key, None)
    assert by_n == by_l


def test_verify_takes_N(capsys):
    """A case of one's own by --N: the report's case has L = R + N (theory checks only: fast)."""
    import tempfile

    with tempfile.TemporaryDirectory() as out:
        doc = _json(["verify", "--theta", "1", "--R", "30", "--N", "270", "--d", "4", "--checks", "field.*",
                     "--out", out, "--workers", "1"], capsys)  # in-process: no local cluster to start
    (case,) = doc["config"]["cases"]
    assert (case["R"], case["L"]) == (30, 300)


def test_critical_and_sweep_take_N(capsys):
    doc = _json(["critical", "--theta", "2", "--N", "3000"], capsys)
    assert doc["smallest_R"]["N"] == 3000
    with pytest.raises(SystemExit):  # argparse's --help exits 0 after printing
        main(["sweep", "--help"])
    assert "--N N [N ...]" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["certify", "--theta", "2"], "`alpha`, or `R` with `L` or `N`"),
    (["certify", "--theta", "2", "--alpha", "0.1", "--R", "3", "--N", "5"], "not both"),
    (["field", "--theta", "2", "--R", "3", "--L", "9", "--N", "6", "--rho", "0"], "one of `L` and `N`"),
    (["simulate", "--theta", "1", "--R", "30", "--d", "4", "--steps", "2"], "`R` with `L` or `N`"),
    (["predict", "--theta", "1", "--R", "30", "--L", "20", "--d", "4", "--steps", "2", "--rho0", "0.1"], "R <= L = 20"),
])
def test_sizes_given_wrongly_are_one_error_line(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error:") and words in err, err
