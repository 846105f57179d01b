"""Test-suite hooks.

``SIGREC_TEST_CPU=PATH``: record the CPU seconds of every test (setup + call + teardown, so a
module fixture counts on the test that first uses it) as JSON lines appended to
``PATH.<worker>`` (one file per xdist worker). CPU seconds, unlike wall time, do not depend on
what else the machine runs: ``time.process_time()`` of this process plus the user + system time
of its waited-for child processes (``RUSAGE_CHILDREN``: the CLI subprocesses and the test dask
cluster, counted when they exit). A last line ``{"session": ...}`` holds the whole process's
CPU seconds, collection and imports included. Off by default. The processes this one never
waits for (the worker processes of a local dask cluster that ``workers=2`` or a command without
``--workers 1`` starts) are counted apart, as ``live``: the growth of the CPU seconds of the
live descendants during the test (``psutil``; a descendant that exits is counted by whichever
process waits for it).

Local dask clusters (``sigrec.numerics``'s process-wide ``LocalCluster``, kept for the life of
the process) are closed after the last test of a file: idle, a 2-worker cluster still spends
about 8% of a core on heartbeats, which over a whole run cost more than starting one per file.
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


def _live() -> dict[int, float]:
    """CPU seconds of each live descendant process (its own and its waited-for children's)."""
    import psutil

    seen = {}
    for p in psutil.Process().children(recursive=True):
        try:
            t = p.cpu_times()
            seen[p.pid] = t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return seen


if _OUT:
    _START = _cpu()

    def _write(config, record) -> None:
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        with open(f"{_OUT}.{worker}", "a") as f:
            f.write(json.dumps(record) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        own0, ch0 = _cpu()
        live0 = _live()
        w0 = time.perf_counter()
        yield
        own1, ch1 = _cpu()
        live1 = _live()
        # a descendant that exited was waited for by this process or by a live descendant,
        # whose CPU count now holds its whole lifetime: only its growth counts here
        live = sum(t - live0.get(pid, 0.0) for pid, t in live1.items()) \
            - sum(t for pid, t in live0.items() if pid not in live1)
        _write(item.config, {"test": item.nodeid, "file": item.location[0], "own": round(own1 - own0, 3),
                             "children": round(ch1 - ch0, 3), "live": round(live, 3),
                             "wall": round(time.perf_counter() - w0, 3)})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session):
        own1, ch1 = _cpu()
        _write(session.config, {"session": True, "own": round(own1 - _START[0], 3),
                                "children": round(ch1 - _START[1], 3)})


# --- one real dask cluster per test process ------------------------------------------


class _SharedCluster:
    """The :class:`tests._cluster.TestCluster` of this test process, started when a test first
    asks for it and shared by the tests that follow it, across files (starting a scheduler and
    two workers costs several CPU seconds). It is closed after the last of a run of consecutive
    tests that use it: an idle cluster still spends CPU on heartbeats, in proportion to the time
    it lives. A cluster closer than half its lifetime to being retired (``_cluster.LIFETIME_S``),
    or that lost a process, is replaced first."""

    def __init__(self, factory):
        self.factory = factory
        self.current = None
        self.born = 0.0

    def get(self):
        from ._cluster import LIFETIME_S, TestCluster

        c = self.current
        if c is not None and (time.monotonic() - self.born > LIFETIME_S / 2 or c.scheduler.poll() is not None
                              or any(p.poll() is not None for p in c.workers.values())):
            c.close()
            c = self.current = None
        if c is None:
            c = self.current = TestCluster(self.factory.mktemp("dask"), workers=2)
            self.born = time.monotonic()
        return c

    def close(self):
        if self.current is not None:
            self.current.close()
            self.current = None


_HOLDERS: list[_SharedCluster] = []


@pytest.fixture(scope="session")
def _shared_cluster(tmp_path_factory):
    holder = _SharedCluster(tmp_path_factory)
    _HOLDERS.append(holder)
    try:
        yield holder
    finally:
        holder.close()
        _HOLDERS.remove(holder)


def pytest_runtest_teardown(item, nextitem):
    """Close the shared cluster unless the next test of this process uses it too, and the local
    dask clusters after the last test of a file."""
    if nextitem is None or "cluster" not in getattr(nextitem, "fixturenames", ()):
        for holder in _HOLDERS:
            holder.close()
    if nextitem is None or nextitem.path != item.path:
        import sys

        clusters = sys.modules.get("sigrec.numerics._cluster")
        if clusters is not None and clusters._LOCAL:
            clusters.shutdown_local()


@pytest.fixture
def cluster(_shared_cluster):
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (tests/_cluster.py),
    shared by the tests of this process; a test that kills a worker restores it."""
    c = _shared_cluster.get()
    yield c
    if len(c.workers) < 2:  # a test stopped between killing a worker and restoring it
        c.close()
        _shared_cluster.current = None
