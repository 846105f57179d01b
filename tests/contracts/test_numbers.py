"""Numbers or a refusal (docs/design.md section 4): under ``--json`` every documented
number is finite, and ``null`` only where it is documented (``NULLABLE`` of the fuzz
test, plus the search's candidates that did not reach the target within their step cap);
otherwise the command exits 2 with one line. And SIGTERM ends a command like Ctrl-C: one
line, its own exit code, no temporary folder left.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

import pytest

from sigrec.verify.cli._atomic import TMP_PREFIX
from sigrec.verify.cli._main import TERMINATED

from .test_fuzz import NULLABLE, assert_contract, run_cli

#: inside these subtrees of ``complexity --optimize`` a ``*_steps`` quantile of a candidate
#: (the given schedule, a grid point, the winner) is null when it did not reach the target
#: within its step cap (docs/design.md section 4); the reported schedule's never is
SEARCH_SUBTREES = ("given", "search")

_MODEL = ["--theta", "2", "--alpha", "0.3"]
_PROBLEM = ["--theta", "2", "--R", "20", "--L", "300", "--d", "3"]


def nulls(obj, path=()):
    """``[(path, value)]`` of every null or non-finite number in ``obj``."""
    if isinstance(obj, dict):
        return [n for k, v in obj.items() for n in nulls(v, (*path, k))]
    if isinstance(obj, list):
        return [n for v in obj for n in nulls(v, (*path, "[]"))]
    if obj is None or (isinstance(obj, float) and not math.isfinite(obj)):
        return [(path, obj)]
    return []


def allowed(path) -> bool:
    return path[-1] in NULLABLE or (path[0] in SEARCH_SUBTREES and path[-1].endswith("_steps"))


@pytest.mark.parametrize("argv", [
    ["field", *_MODEL, "--rho", "-1", "0", "1", "1e-320"],
    ["field", "--theta", "0", "--alpha", "0", "--rho", "0.5"],
    ["certify", *_MODEL],
    ["certify", "--theta", "0", "--alpha", "1"],
    ["simulate", *_PROBLEM, "--steps", "5", "--runs", "3"],
    ["simulate", *_PROBLEM, "--steps", "1", "--runs", "1", "--rho0", "1"],
    ["predict", *_PROBLEM, "--steps", "5", "--rho0", "0", "--band-runs", "10"],
    ["predict", *_PROBLEM, "--steps", "5", "--rho0", "1", "--band-runs", "10", "--prior", "rademacher"],
    ["complexity", *_PROBLEM, "--runs", "50", "--horizon", "1"],
    ["complexity", *_PROBLEM, "--runs", "50", "--target", "0.999999", "--horizon", "3000"],
    ["complexity", *_PROBLEM, "--runs", "50", "--theta", "0", "--horizon", "3000"],
    ["complexity", *_PROBLEM, "--runs", "50", "--prior", "rademacher", "--rho0", "0", "--horizon", "3000"],
    ["complexity", *_PROBLEM, "--runs", "50", "--rho0", "0.99", "--target", "0.5"],
    ["complexity", *_PROBLEM, "--runs", "50", "--target", "1e-9", "--horizon", "1"],
], ids=lambda a: " ".join(a[:1] + a[-4:]))
def test_json_numbers_are_finite_or_the_command_refuses(argv):
    argv = [*argv, "--json"]
    assert_contract(argv)  # exit 0 with finite JSON (null only in NULLABLE) or one error line
    code, out, err, _ = run_cli(argv)
    if code == 0:
        assert [p for p, _ in nulls(json.loads(out)) if not allowed(p)] == []
    else:
        assert code == 2 and ("`target`" in err or "`horizon`" in err), err


def test_the_null_checker_can_fail():
    assert [p for p, _ in nulls({"a": [1.0, None], "b": {"c": math.nan}, "d": 1})] == [("a", "[]"), ("b", "c")]
    assert not allowed(("median_steps",)) and allowed(("given", "q90_steps")) and allowed(("rho0",))
    assert not allowed(("search", "step_limit"))


def test_optimized_complexity_has_numbers_where_the_reported_schedule_is(capsys):
    argv = ["complexity", "--theta", "0.5", "--R", "100", "--L", "900", "--d", "5", "--eta0", "10", "--k0", "100",
            "--power", "1", "--rho0", "0.1", "--runs", "100", "--optimize", "--json"]
    # the hang guard of test_fuzz, widened as in test_fuzz_addresses: this search takes about
    # 10 CPU s, which overran the 30 s of wall time at a load average of 7 on 2 cores
    from . import test_fuzz as fuzz

    with mock.patch.object(fuzz, "CASE_TIMEOUT", 180):
        code, out, err, _ = run_cli(argv)
    assert code == 0, err
    doc = json.loads(out)
    assert [p for p, _ in nulls(doc) if not allowed(p)] == []
    for key in ("median_steps", "q10_steps", "q90_steps", "plain_ode_steps", "token_collections_median",
                "token_collections_q90", "plateau", "reached_fraction"):
        assert isinstance(doc[key], float) and math.isfinite(doc[key]), key


# --- SIGTERM ---------------------------------------------------------------------------


def test_sigterm_is_one_line_its_exit_code_and_no_temporary_folder(tmp_path):
    # verify writes into a temporary sibling of --out from its start, and runs for a minute:
    # terminate it once that folder exists
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-m", "sigrec", "verify", "--workers", "1", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120  # a hang guard, not a timed assertion
        while not list(tmp_path.glob(f"{TMP_PREFIX}*")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        time.sleep(0.5)  # inside the command's work
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == TERMINATED == 143, stderr
    assert stderr.splitlines() == ["error: terminated"], stderr
    assert stdout == ""
    assert list(tmp_path.iterdir()) == [], list(tmp_path.iterdir())  # no temporary folder, no half report


#: a command interrupted while a library builds an object (numba compiling in llvmlite: SIGTERM
#: arrived there in a clean clone's cold JIT cache) leaves it half made; its ``__del__`` fails
#: when the interpreter shuts down, which Python reports as "Exception ignored in ..." and a traceback
_HALF_MADE = """
import sys, types
from sigrec.verify.cli import _main

class HalfMade:
    def __del__(self):
        raise AttributeError("no attribute '_as_parameter_'")

def run(args):
    half = HalfMade()
    half.cycle = half  # collected by the garbage collector when the interpreter shuts down
    raise {exc}()

_main.build_parser = lambda: types.SimpleNamespace(parse_args=lambda argv: types.SimpleNamespace(run=run))
_main.resolve_sizes = lambda args: None
_main.console_main()
"""


@pytest.mark.parametrize(("exc", "code", "line"), [("_main.Terminated", 143, "error: terminated"),
                                                   ("KeyboardInterrupt", 130, "error: interrupted")])
def test_an_interrupted_command_prints_one_line_even_when_a_finalizer_fails(exc, code, line):
    proc = subprocess.run([sys.executable, "-c", _HALF_MADE.format(exc=exc)], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.splitlines() == [line], proc.stderr


def test_main_inside_another_program_leaves_its_unraisable_hook_alone(monkeypatch):
    import types

    from sigrec.verify.cli import _main

    def run(args):
        raise _main.Terminated()

    monkeypatch.setattr(_main, "build_parser", lambda: types.SimpleNamespace(
        parse_args=lambda argv: types.SimpleNamespace(run=run)))
    monkeypatch.setattr(_main, "resolve_sizes", lambda args: None)
    hook = sys.unraisablehook
    assert _main.main([]) == TERMINATED
    assert sys.unraisablehook is hook


def test_sigterm_while_renaming_is_deferred():
    # the atomic renames block SIGTERM as well as SIGINT (their handler raises mid-rename otherwise)
    from sigrec.verify.cli._atomic import _no_sigint

    with _no_sigint():
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    assert signal.SIGTERM in blocked and signal.SIGINT in blocked
    assert signal.SIGTERM not in signal.pthread_sigmask(signal.SIG_BLOCK, set())


def test_main_restores_the_sigterm_handler():
    from sigrec.verify.cli import main

    before = signal.getsignal(signal.SIGTERM)
    assert main(["field", *_MODEL, "--rho", "0.5", "--json"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_sigterm_in_process_is_one_line(capsys, monkeypatch):
    # main itself: SIGTERM arriving inside a command becomes `error: terminated` and 143
    import os

    from sigrec.verify.cli import _field, main

    def terminated(args):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(30)  # the handler raises here, at once
        raise AssertionError("SIGTERM did not interrupt the command")

    monkeypatch.setattr(_field, "run", terminated)  # register() reads it when main builds the parser
    code = main(["field", *_MODEL, "--rho", "0.5"])
    cap = capsys.readouterr()
    assert code == 143 and cap.err.splitlines() == ["error: terminated"] and cap.out == ""


def test_tmp_prefix_is_what_atomic_uses(tmp_path):
    from sigrec.verify.cli._atomic import atomic_folder

    with atomic_folder(tmp_path / "x") as tmp:
        assert Path(tmp).name.startswith(TMP_PREFIX)
