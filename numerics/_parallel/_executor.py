"""The one executor: independent units of work on ``dask.distributed`` (docs/design.md section 8).

Every heavy computation (blocks of runs in :func:`simulate`, sweep cells, phase-diagram
columns, reproduction configurations) is a list of independent *units*, and
:meth:`Executor.map` runs ``fn(unit)`` for each and returns the results **in unit
order**. Where a unit runs never changes its result: each unit draws only from
``SeedSequence(seed, spawn_key=its identity)`` (or, for a block of runs, from the
children ``SeedSequence(seed).spawn(runs)[i]`` of its own runs), never from the order
in which the scheduler happens to run it.

Three backends, one interface:

* ``workers = 1`` and no scheduler: in-process, sequential, no cluster started (fast
  for tests and small jobs);
* ``workers = N > 1``: a ``dask.distributed.LocalCluster`` of ``N`` worker processes
  (started on the first unit, not before),
  one thread each, BLAS single-threaded (the nanny sets ``OMP_NUM_THREADS=1`` and
  friends, and every block also runs under ``threadpoolctl``). Starting one costs
  seconds, so one cluster per worker count is kept for the life of the process and
  reused by every later call;
* ``scheduler = ADDRESS`` (or the ``SIGREC_SCHEDULER`` environment variable): an
  existing cluster, e.g. ``dask scheduler`` + ``dask worker`` processes or a
  dask-jobqueue cluster on Slurm/PBS.

Tasks are submitted with ``retries``; a worker that dies mid-task has its tasks
rescheduled by the dask scheduler on the surviving workers, so a lost worker neither
loses nor duplicates a unit (and, units being pure, changes no result).

Inside a dask worker, nested maps run in-process (a unit never starts a cluster),
except in a unit submitted with ``fan_out=True`` (a whole case of ``verify``, a
configuration of ``reproduce``): its own maps go back to the cluster through
``distributed.worker_client``, whose thread leaves the worker's thread pool while it
waits and rejoins it afterwards, so a large unit spreads its blocks of runs over every
worker. At most two fan-out units per worker are in flight (one computing while the
other waits for its blocks: ``verify`` quick took 47.7 s with one per worker, 38.2 s
with two, on 2 cores); units sharing a worker process interleave at their maps
(never computing at the same instant), so a unit must not hold process-global state
(an mpmath precision, an open pyplot figure) across a map. A fan-out unit is not
retried when it raises, and stops at its next map when the command that submitted it
stops (:meth:`Executor.raise_if_stopped`).

This module holds the :class:`Executor` and the :func:`executor` context; the local
clusters and the scheduler address are in ``_cluster``, the progress relay
(:func:`numerics.report`, :meth:`Executor.events`) in ``_progress``, and the sizing of
a local cluster to the machine (:func:`numerics.machine_workers`) in ``_machine``.
"""

from __future__ import annotations

import contextvars
import itertools
import uuid
from collections.abc import Callable
from contextlib import closing, contextmanager
from dataclasses import dataclass

from ...core.validate import integer, real
from ._cluster import close_client, in_worker, local_cluster, open_client, probe_scheduler, resolve_scheduler
from ._machine import machine_workers
from ._progress import relay

#: retries per task on top of the scheduler's own rescheduling after a lost worker
TASK_RETRIES = 3

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("sigrec_executor", default=None)


@dataclass
class Executor:
    """Runs ``fn`` over independent units and returns the results in unit order.

    Attributes
    ----------
    backend : {"inline", "local", "scheduler", "nested"}
        In-process, a process-wide ``LocalCluster``, an existing cluster, or (inside a
        ``fan_out`` unit on a worker) the cluster that runs the unit.
    client : distributed.Client or None
        ``None`` for ``"inline"``.
    address : str or None
        Scheduler address (``None`` for ``"inline"``).
    local_workers : int
        ``"local"`` only: number of worker processes of the process-wide local cluster, started on
        first use (``0`` otherwise).
    stop : str or None
        ``"nested"`` only: the name of the ``distributed.Event`` set when the driver that submitted
        the unit has stopped (:meth:`raise_if_stopped`); ``None`` otherwise.
    """

    backend: str
    client: object = None
    address: str | None = None
    #: size of the process-wide local cluster, started on first use (``"local"`` only)
    local_workers: int = 0
    #: ``"nested"`` only: the event that tells the unit its driver has stopped
    stop: str | None = None

    def _connect(self):
        if self.client is None and self.backend == "local":
            self.client, self.address = local_cluster(self.local_workers)
        return self.client

    @property
    def workers(self) -> int:
        """Number of workers (1 in-process; the cluster's current count otherwise)."""
        if self.backend == "inline":
            return 1
        if self.backend == "nested":
            from distributed import get_client

            client = get_client()  # the worker's own client; does not leave the thread pool
        else:
            client = self._connect()
        return max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))

    def map(self, fn, units, *, progress=None, fan_out: bool = False) -> list:
        """``[fn(u) for u in units]``, computed on this executor.

        Parameters
        ----------
        fn : callable
            A module-level (picklable) function of one unit; it must be pure: its
            result may depend on the unit only.
        units : sequence
            Picklable units of work.
        progress : callable, optional
            Called as ``progress(done, total)`` each time a unit finishes.
        fan_out : bool
            Units are large (a case, a configuration): their own maps (e.g. the blocks
            of runs of a :func:`simulate`) are sent back to the cluster instead of
            running inside the unit. No effect in-process.

        Returns
        -------
        list
            The results, in the order of ``units`` whatever the order of completion.
        """
        units = list(units)
        total = len(units)
        if self.backend == "inline":
            out = []
            for i, u in enumerate(units):
                out.append(fn(u))
                if progress is not None:
                    progress(i + 1, total)
            return out
        results = [None] * total
        # closing: an exception here (Ctrl-C in a progress callback) stops the units at once,
        # not whenever the generator happens to be collected
        with closing(self.as_completed(fn, units, fan_out=fan_out)) as finished:
            for done, (i, value) in enumerate(finished, 1):
                results[i] = value
                if progress is not None:
                    progress(done, total)
        return results

    def as_completed(self, fn, units, *, fan_out: bool = False):
        """Yield ``(index, fn(units[index]))`` as units finish (any order).

        For callers that persist each result as soon as it exists (a resumable
        sweep); the results themselves still depend on the unit only. ``fan_out`` as
        in :meth:`map`. Use it under ``contextlib.closing``: stopping early (an
        exception, Ctrl-C) then releases the queued units and stops the running ones
        at once.
        """
        units = list(units)
        if self.backend == "inline":
            for i, u in enumerate(units):
                yield i, fn(u)
            return
        if self.backend == "nested":
            from distributed import worker_client

            self.raise_if_stopped()
            # leaves the worker's thread pool while waiting (another unit may use the
            # slot), rejoins it before computing again; the unit's own blocks go ahead
            # of anything else queued (priority), so a started unit finishes first
            with worker_client() as client:
                yield from _completed(client, fn, units, TASK_RETRIES, priority=1)
            return
        client = self._connect()
        if not fan_out:
            yield from _completed(client, fn, units, TASK_RETRIES)
            return
        # Large units: at most two per worker in flight (a waiting unit leaves its slot,
        # and the scheduler would otherwise start every unit at once, interleaved in a
        # few worker processes, memory growing with them); no retries (an exception in a
        # whole case is its code's, not the cluster's; a lost worker is rescheduled
        # regardless); and a stop event that running units check, set when this driver
        # stops early (Ctrl-C, a failed unit), since releasing a running task's future
        # cannot stop its thread.
        stop = f"sigrec-stop-{uuid.uuid4().hex}"
        yield from _completed(client, _FanOut(fn, stop), units, 0, limit=2 * self.workers, stop=stop)

    def raise_if_stopped(self) -> None:
        """Inside a fan-out unit: raise :class:`Stopped` if the driver that submitted it
        has stopped. Elsewhere nothing to check."""
        if self.backend == "nested" and self.stop is not None:
            from distributed import Event

            if Event(self.stop).is_set():
                raise Stopped("the sigrec command that submitted this unit has stopped")

    def events(self, handler):
        """A run id on which units may :func:`numerics.report`; each of their messages calls
        ``handler(message)`` in the driver (from the client's event thread) until the
        block ends. Yields ``None`` in-process (there is nothing to relay). A context
        manager (:func:`numerics._parallel._progress.relay`)."""
        return relay(None if self.backend in ("inline", "nested") else self._connect(), handler)


class Stopped(RuntimeError):
    """A fan-out unit found that the command that submitted it has stopped."""


def _completed(client, fn, units, retries: int, *, limit: int | None = None, priority: int = 0,
               stop: str | None = None):
    """``(index, result)`` of ``fn`` over ``units`` on ``client``, as they finish.

    At most ``limit`` tasks in flight (all at once by default), the next submitted as
    one finishes. When the caller stops before the end (an exception, or closing the
    generator), the event ``stop`` is set and every unfinished future released.
    """
    from distributed import as_completed

    todo = iter(enumerate(units))
    index: dict = {}
    live: set = set()

    def submit(n):
        batch = list(itertools.islice(todo, n))
        if not batch:
            return []
        # one client.map: the whole batch goes to the scheduler in one message
        out = client.map(fn, [u for _, u in batch], pure=False, retries=retries, priority=priority)
        index.update({f.key: i for (i, _), f in zip(batch, out, strict=True)})
        live.update(out)
        return out

    complete = False
    try:
        first = submit(len(units) if limit is None else max(1, limit))
        with client.as_current():
            finished = as_completed(first)
        for fut in finished:
            # raises the task's own exception if it failed after its retries
            value = fut.result()
            live.discard(fut)
            fut.release()
            if limit is not None:
                for f in submit(1):
                    finished.add(f)
            yield index[fut.key], value
        complete = True
    finally:
        if stop is not None and not complete:
            from distributed import Event

            try:
                Event(stop, client=client).set()
            except Exception:
                pass
        for f in live:
            f.release()


_INLINE = Executor("inline")


@dataclass(frozen=True)
class _FanOut:
    """``fn`` run as a fan-out unit: inside it, :func:`current_executor` is the cluster
    (whose maps check the event ``stop`` first)."""

    fn: Callable
    stop: str | None = None

    @property
    def __name__(self) -> str:  # the task key's prefix on the dashboard
        return "fan_out-" + getattr(self.fn, "__name__", "unit")

    def __call__(self, unit):
        token = _ACTIVE.set(Executor("nested", stop=self.stop))
        try:
            return self.fn(unit)
        finally:
            _ACTIVE.reset(token)


@contextmanager
def executor(workers=None, scheduler=None, *, timeout: float = 10.0):
    """The executor for one command; active (see :func:`current_executor`) inside the block.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the local cluster; default :func:`machine_workers`. ``1`` runs
        in-process without a cluster. Ignored when a scheduler is given.
    scheduler : str, optional
        Address ``tcp://HOST:PORT`` of an existing ``dask.distributed`` scheduler; default
        ``$SIGREC_SCHEDULER``. Anything else is a ``ValueError`` at once.
    timeout : float
        Seconds to wait for the scheduler's answer (connect, handshake, identity)
        before ``ValueError``.

    Yields
    ------
    Executor
    """
    address = resolve_scheduler(scheduler)
    if address is not None:
        timeout = real("timeout", timeout, lower=0.0, strict=True)
        # a service that is not a dask scheduler is refused within `timeout` (the
        # handshake of a Client has no timeout of its own)
        probe_scheduler(address, timeout)
        client = open_client(address, timeout)
        ex = Executor("scheduler", client, address)
    else:
        n = machine_workers() if workers is None else integer("workers", workers, 1)
        ex = _INLINE if n == 1 else Executor("local", local_workers=n)
        client = None
    token = _ACTIVE.set(ex)
    try:
        yield ex
    finally:
        _ACTIVE.reset(token)
        if client is not None:
            close_client(client)


def describe(ex: Executor | None = None) -> dict | None:
    """Where units ran, for a result's record: ``{"backend", "workers", "scheduler"}`` of
    ``ex`` (default: the executor of the enclosing :func:`executor` block; ``None``
    outside one). A local cluster not yet started counts the workers it would start."""
    ex = _ACTIVE.get() if ex is None else ex
    if ex is None:
        return None
    # a local cluster nothing used (every unit read from a store) is not started to be counted
    workers = ex.local_workers if ex.backend == "local" and ex.client is None else ex.workers
    return {"backend": ex.backend, "workers": workers,
            "scheduler": ex.address if ex.backend == "scheduler" else None}


def current_executor(workers: int = 1) -> Executor:
    """The executor a library call should use.

    Inside a dask worker: the cluster again within a ``fan_out`` unit, else
    in-process. Elsewhere: the executor of the enclosing :func:`executor` block; else
    the process-wide local cluster of ``workers`` workers (in-process for
    ``workers = 1``).
    """
    if in_worker():
        active = _ACTIVE.get()
        return active if active is not None and active.backend == "nested" else _INLINE
    active = _ACTIVE.get()
    if active is not None:
        return active
    return _INLINE if workers <= 1 else Executor("local", local_workers=workers)
