"""A real ``dask.distributed`` cluster on 127.0.0.1 for the scale-out tests
(docs/design.md section 8): one ``dask scheduler`` and ``dask worker`` processes,
started with the test's Python, with a bounded lifetime, torn down by process id."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HOST = "127.0.0.1"
#: no process of the test cluster outlives this many seconds (an orphan's bound; a test
#: process renews its cluster at half this age, so a test on a loaded machine may take up
#: to 15 minutes: at 600 s the workers retired in the middle of a cluster test under a load
#: average of 18 on 2 cores, and the test waited for them forever)
LIFETIME_S = 1800


class TestCluster:
    """``dask scheduler`` + ``dask worker`` processes on 127.0.0.1 only."""

    __test__ = False  # not a pytest test class

    def __init__(self, tmp: Path, workers: int = 2):
        self.tmp = Path(tmp)
        self.file = self.tmp / "scheduler.json"
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        env.pop("SIGREC_SCHEDULER", None)
        self.env = env
        self.scheduler = self._spawn("scheduler", "--host", HOST, "--port", "0", "--no-dashboard",
                                     "--dashboard-address", f"{HOST}:0",
                                     "--scheduler-file", str(self.file), "--idle-timeout", f"{LIFETIME_S}s")
        self.workers: dict[str, subprocess.Popen] = {}
        self._started = 0
        deadline = time.monotonic() + 60
        while not self.file.exists():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                self.close()
                raise RuntimeError("the test dask scheduler did not start")
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written in one go, but be safe
        self.address = json.loads(self.file.read_text())["address"]
        assert self.address.startswith(f"tcp://{HOST}:"), self.address
        for _ in range(workers):
            self.add_worker()
        self.wait_for_workers(workers)

    def _spawn(self, *args):
        log = open(self.tmp / f"{args[0]}-{time.monotonic_ns()}.log", "w")
        return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log, stderr=subprocess.STDOUT,
                                env=self.env, stdin=subprocess.DEVNULL)

    def add_worker(self) -> str:
        name = f"w{self._started}"  # never reuse a name: the scheduler refuses duplicates
        self._started += 1
        self.workers[name] = self._spawn("worker", "--scheduler-file", str(self.file), "--host", HOST,
                                         "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name,
                                         "--dashboard-address", f"{HOST}:0",
                                         "--lifetime", f"{LIFETIME_S}s")
        return name

    def client(self):
        from distributed import Client

        return Client(self.address, timeout=30, set_as_default=False)

    def wait_for_workers(self, n: int, timeout: float = 90.0) -> None:
        with self.client() as c:
            c.wait_for_workers(n, timeout=timeout)

    def kill(self, name: str) -> None:
        """Kill one worker process outright (SIGKILL: no graceful hand-over)."""
        proc = self.workers.pop(name)
        proc.kill()
        proc.wait(timeout=30)

    def close(self) -> None:
        for proc in [*self.workers.values(), self.scheduler]:
            if proc.poll() is None:
                proc.terminate()
        for proc in [*self.workers.values(), self.scheduler]:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self.workers.clear()
