"""Test-suite hooks.

``SIGREC_TEST_CPU=PATH``: record the CPU seconds of every test (setup + call + teardown, so a
module fixture counts on the test that first uses it) as JSON lines appended to
``PATH.<worker>`` (one file per xdist worker). CPU seconds, unlike wall time, do not depend on
what else the machine runs: ``time.process_time()`` of this process plus the user + system time
of its waited-for child processes (``RUSAGE_CHILDREN``: the CLI subprocesses and the test dask
cluster, counted when they exit). A last line ``{"session": ...}`` holds the whole process's
CPU seconds, collection and imports included. Off by default.
"""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

_OUT = os.environ.get("SIGREC_TEST_CPU")


def _cpu() -> tuple[float, float]:
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), ch.ru_utime + ch.ru_stime


if _OUT:
    _START = _cpu()

    def _write(config, record) -> None:
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        with open(f"{_OUT}.{worker}", "a") as f:
            f.write(json.dumps(record) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        own0, ch0 = _cpu()
        w0 = time.perf_counter()
        yield
        own1, ch1 = _cpu()
        _write(item.config, {"test": item.nodeid, "file": item.location[0], "own": round(own1 - own0, 3),
                             "children": round(ch1 - ch0, 3), "wall": round(time.perf_counter() - w0, 3)})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session):
        own1, ch1 = _cpu()
        _write(session.config, {"session": True, "own": round(own1 - _START[0], 3),
                                "children": round(ch1 - _START[1], 3)})
