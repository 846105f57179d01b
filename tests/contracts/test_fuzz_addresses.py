"""Fuzzing of issue 22's items 4 and 5 (docs/design.md section 4), modelled on ``test_fuzz``.

* ``--scheduler`` strings: schemes, hosts, ports, junk, and scheduler files with any
  content. None names a dask scheduler, so every one must be refused with one ``error:``
  line naming ``scheduler``; a malformed one before any connection (the probe is replaced
  by a tripwire), a well-formed one (127.0.0.1 only: a closed port or a server here that is
  not a dask scheduler) within ``_limits.SCHEDULER_TIMEOUT_S``, shortened for the run.
* ``complexity`` targets and horizons near their edges (``target`` next to 0 and 1, one-step
  horizons, no signal, starts at 0 and at the poles): exit 0 with finite numbers, or one
  ``error:`` line naming a parameter.

The quick profiles run in the default test run; ``-m slow`` runs the long ones.
"""

from __future__ import annotations

import json
import socket
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sigrec.numerics._parallel._executor as executor_module
from sigrec.verify.cli import _limits

from . import test_fuzz as fuzz
from .test_addresses import _junk, _silent, tcp_server
from .test_fuzz import assert_contract, run_cli

HOST = "127.0.0.1"
SIMULATE = ["simulate", "--theta", "1", "--R", "3", "--L", "10", "--d", "3", "--steps", "2", "--workers", "1"]
#: the scheduler timeout during the fuzz (seconds; the documented one is 10)
FUZZ_TIMEOUT_S = 0.5

SCHEMES = ["tcp", "TCP", "tls", "ws", "wss", "inproc", "ucx", "http", "https", "file", "", "tcp:", "tcp:/",
           "tcp:///", "tcp ", "\x00", "é"]
BAD_HOSTS = ["", " ", "bad_host", "-lead", "trail-", "a..b", ".", "[::1", "::1", "[zz]", "[127.0.0.1]", "1.2.3",
             "256.1.1.1", "999.0.0.1", "h/x", "u@h", "h%2f", "h\x00", "ĥost", "a" * 64, ("a." * 127) + "a",
             "127.0.0.1/8"]
BAD_PORTS = ["", "0", "65536", "99999", "-1", "+1", "80a", "0x50", "1e3", "٣", "²", " 80", "80 ", "80/x", "80?q",
             "8786:1", "\x00"]
JUNK = ["", " ", "junk", "127.0.0.1:8786", "localhost", "tcp", "://", "tcp://", "--json", "-", "nan", "\x00",
        "é", "tcp://127.0.0.1:8786 tcp://127.0.0.1:8787"]
#: contents of a "scheduler file" passed as --scheduler: none is accepted (docs/design.md section 4)
FILE_CONTENTS = ['{"address": "tcp://127.0.0.1:8786"}', '{"address": "inproc://x"}', '{"address": 5}', "{}", "[]",
                 "not json", "", '{"address": "tcp://127.0.0.1:0"}', "\x00\xff", '{"address": "' + "a" * 5000 + '"}']


def _tripwire(*args, **kwargs):
    raise AssertionError(f"a malformed address reached the probe: {args!r}")


@st.composite
def malformed(draw):
    """A ``--scheduler`` string the address rule refuses without connecting."""
    kind = draw(st.sampled_from(["scheme", "host", "port", "junk", "text"]))
    if kind == "scheme":
        scheme = draw(st.sampled_from([s for s in SCHEMES if s != "tcp"]))
        return f"{scheme}://{HOST}:{draw(st.integers(1, 65535))}"
    if kind == "host":
        return f"tcp://{draw(st.sampled_from(BAD_HOSTS))}:{draw(st.integers(1, 65535))}"
    if kind == "port":
        return f"tcp://{HOST}:{draw(st.sampled_from(BAD_PORTS))}"
    if kind == "junk":
        return draw(st.sampled_from(JUNK))
    # any text without "tcp://" at its start cannot be tcp://HOST:PORT
    return draw(st.text(max_size=30).filter(lambda t: not t.startswith("tcp://")))


def _refused_naming_scheduler(argv):
    assert_contract(argv)
    code, _, err, _ = run_cli(argv)
    assert code == 2 and "`scheduler`" in err, (argv, err)
    return err


def _check_malformed(address):
    # `--scheduler=VALUE`: a value such as `--json` reaches the check instead of argparse
    with mock.patch.object(executor_module, "probe_scheduler", _tripwire):
        err = _refused_naming_scheduler([*SIMULATE, f"--scheduler={address}"])
    assert "must be an address tcp://HOST:PORT" in err, err


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(malformed())
def test_malformed_addresses_quick(address):
    _check_malformed(address)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(malformed())
def test_malformed_addresses_long(address):
    _check_malformed(address)


@pytest.fixture(scope="module")
def services():
    """Well-formed addresses on 127.0.0.1 where no dask scheduler answers."""
    with tcp_server(_silent) as silent, tcp_server(_junk) as junk:
        with socket.socket() as s:
            s.bind((HOST, 0))
            closed = f"tcp://{HOST}:{s.getsockname()[1]}"
        yield [silent, junk, closed]


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.integers(0, 2), st.booleans())
def test_well_formed_addresses_without_a_scheduler_quick(services, which, padded_port):
    address = services[which]
    if padded_port:  # leading zeros are still the same port
        host, port = address.rsplit(":", 1)
        address = f"{host}:{int(port):05d}"
    with mock.patch.object(_limits, "SCHEDULER_TIMEOUT_S", FUZZ_TIMEOUT_S):
        err = _refused_naming_scheduler([*SIMULATE, "--scheduler", address])
    assert "cannot reach a dask scheduler" in err, err


def _check_file(tmp_path_factory, content):
    f = tmp_path_factory.mktemp("sched") / "scheduler.json"
    f.write_text(content, errors="surrogateescape")
    with mock.patch.object(executor_module, "probe_scheduler", _tripwire):
        err = _refused_naming_scheduler([*SIMULATE, f"--scheduler={f}"])
    assert "scheduler file is not accepted" in err, err


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.one_of(st.sampled_from(FILE_CONTENTS), st.text(max_size=200)))
def test_scheduler_files_are_refused_quick(tmp_path_factory, content):
    _check_file(tmp_path_factory, content)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.sampled_from(FILE_CONTENTS), st.text(max_size=200)))
def test_scheduler_files_are_refused_long(tmp_path_factory, content):
    _check_file(tmp_path_factory, content)


# --- complexity near its edges -----------------------------------------------------------

#: seconds one complexity case may take (its guard against a hang)
COMPLEXITY_CASE_TIMEOUT = 180
TARGETS = ["1e-12", "1e-3", "0.5", "0.9", "0.99", "0.999", "0.999999", "0.9999999999", "0.9999999999999999"]
HORIZONS = ["1", "2", "3", "10", "50", "400"]


@st.composite
def complexity_argv(draw):
    # few distinct instances (each costs a tabulation of its drift, then is cached); the edges
    # are in the target, the horizon, the schedule and the start
    argv = ["complexity", "--theta", draw(st.sampled_from(["0", "0.5", "2"])), "--R", "20", "--L", "300",
            "--d", "3", "--runs", draw(st.sampled_from(["10", "20"])),
            "--target", draw(st.one_of(st.sampled_from(TARGETS),
                                       st.floats(1e-6, 1 - 1e-9).map(lambda x: f"{x:.17g}"))),
            "--horizon", draw(st.sampled_from(HORIZONS)),
            "--power", draw(st.sampled_from(["0", "0.75", "1", "2"])),
            "--eta0", draw(st.sampled_from(["0.5", "1e-3", "10"])),
            "--prior", draw(st.sampled_from(["fixed", "rademacher"])), "--json"]
    rho0 = draw(st.sampled_from([None, "0", "1", "-1", "0.5", "-0.99", "1e-300"]))
    if rho0 is not None:
        argv += ["--rho0", rho0]
    return argv


def _check_complexity(argv):
    # the hang guard of test_fuzz, widened: an instance's first tabulation of its drift (a
    # sympy derivation) took more than its 30 s on a loaded machine
    with mock.patch.object(fuzz, "CASE_TIMEOUT", COMPLEXITY_CASE_TIMEOUT):
        assert_contract(argv)  # finite numbers (null only in NULLABLE) or one error line, never internal
        code, out, err, _ = run_cli(argv)
    if code == 0:
        doc = json.loads(out)
        assert doc["q10_steps"] <= doc["median_steps"] <= doc["q90_steps"] <= int(argv[argv.index("--horizon") + 1])
    else:
        assert "`" in err, err  # names a parameter


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(complexity_argv())
def test_complexity_edges_quick(argv):
    _check_complexity(argv)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(complexity_argv())
def test_complexity_edges_long(argv):
    _check_complexity(argv)
