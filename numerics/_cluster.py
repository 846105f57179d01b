"""Cluster lifecycle: the process-wide local clusters, the scheduler address, "am I a worker".

A ``LocalCluster`` costs seconds to start, so one per worker count is started on
first use, kept for the life of the process, reused by every later command, and
closed at exit (:func:`shutdown_local`). An existing cluster is named by an address,
checked before any ``Client`` exists (:func:`resolve_scheduler`).
"""

from __future__ import annotations

import atexit
import logging
import os

#: environment variable naming a scheduler address (``tcp://host:port``)
SCHEDULER_ENV = "SIGREC_SCHEDULER"

#: process-wide local clusters and their clients, keyed by worker count
_LOCAL: dict = {}


def in_worker() -> bool:
    """True when called from inside a ``dask.distributed`` worker."""
    try:
        from distributed import get_worker
    except ImportError:  # pragma: no cover - dependency
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


def local_cluster(workers: int):
    """``(client, address)`` of the process-wide ``LocalCluster`` of ``workers``
    single-threaded workers (started on first use, then reused)."""
    if workers not in _LOCAL:
        from distributed import Client, LocalCluster

        # worker logs below CRITICAL stay quiet: a failing task reaches the driver as its
        # exception, and shutdown chatter (a heartbeat racing the scheduler's close) is
        # not the user's business
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                               silence_logs=logging.CRITICAL, host="127.0.0.1")
        client = Client(cluster, set_as_default=False)
        _LOCAL[workers] = (cluster, client)
        if len(_LOCAL) == 1:
            atexit.register(shutdown_local)
    cluster, client = _LOCAL[workers]
    return client, cluster.scheduler_address


def shutdown_local() -> None:
    """Close every process-wide local cluster (at exit, or explicitly)."""
    while _LOCAL:
        _, (cluster, client) = _LOCAL.popitem()
        try:
            client.close()
            cluster.close()
        except Exception:  # noqa: BLE001 - best effort at interpreter exit
            pass


def resolve_scheduler(scheduler=None):
    """The scheduler address to use: ``scheduler``, else ``$SIGREC_SCHEDULER``, else ``None``."""
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    if scheduler is None:
        return None
    bad = ValueError(f"`scheduler` must be an address such as tcp://127.0.0.1:8786, got {scheduler!r}")
    if not isinstance(scheduler, str):
        raise bad
    from distributed.comm.addressing import parse_address, parse_host_port

    # checked before any Client exists: a Client built on a malformed address fails
    # late and leaves a half-made object that complains at interpreter exit
    try:
        scheme, location = parse_address(scheduler)
        if scheme in ("tcp", "tls"):
            _, port = parse_host_port(location)
            if not 0 < int(port) < 65536:
                raise ValueError(port)
    except (ValueError, TypeError):
        raise bad from None
    return scheduler
