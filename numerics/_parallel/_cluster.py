"""Cluster lifecycle: the process-wide local clusters, the scheduler address, "am I a worker".

A ``LocalCluster`` costs seconds to start, so one per worker count is started on
first use, kept for the life of the process, reused by every later command, and
closed at exit (:func:`shutdown_local`). An existing cluster is named by an address
``tcp://HOST:PORT``, checked before any ``Client`` exists (:func:`resolve_scheduler`),
then asked who it is within a timeout (:func:`probe_scheduler`: a service that is not a
dask scheduler would otherwise hold the ``Client`` handshake forever); the client is
opened and closed so that a half-made one never prints at exit (:func:`open_client`,
:func:`close_client`).
"""

from __future__ import annotations

import asyncio
import atexit
import ipaddress
import logging
import os
import re
import threading

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
        except Exception:
            pass


def resolve_scheduler(scheduler=None):
    """The scheduler address to use: ``scheduler``, else ``$SIGREC_SCHEDULER``, else ``None``.

    Refuses (``ValueError`` naming ``scheduler``) anything but ``tcp://HOST:PORT``
    (:func:`check_address`), before any connection is tried.
    """
    name = "`scheduler`"
    if scheduler is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
        name = f"`scheduler` (from ${SCHEDULER_ENV})"
    if scheduler is None:
        return None
    return check_address(scheduler, name)


def check_address(address, name: str = "`scheduler`") -> str:
    """``address`` if it is ``tcp://HOST:PORT``, else ``ValueError`` naming ``name``.

    HOST is an IPv4 address, a bracketed IPv6 address or a host name; PORT an integer in
    ``1 .. 65535``. Other dask schemes are refused: ``tls://`` and ``ws(s)://`` need a
    security configuration that sigrec does not take, ``inproc://`` and ``ucx://`` are
    not reachable from a command. A scheduler file is not accepted (pass the address it
    holds). Checked before any ``Client`` exists: a Client built on such an address
    fails late and leaves a half-made object that complains at interpreter exit.
    """
    what = f"{name} must be an address tcp://HOST:PORT such as tcp://127.0.0.1:8786"
    if not isinstance(address, str):
        raise ValueError(f"{what}, got {address!r}")
    scheme, sep, location = address.partition("://")
    if not sep:
        hint = (" (a scheduler file is not accepted: pass the `address` it holds)"
                if address.strip().endswith(".json") or os.sep in address else "")
        raise ValueError(f"{what}, got {address!r}{hint}")
    if scheme != "tcp":
        raise ValueError(f"{what}: only tcp:// is supported (tls:// and ws:// need a security configuration "
                         f"that sigrec does not take; inproc:// and ucx:// are not reachable), got {address!r}")
    host, port = _host_port(location)
    if host is None or not _PORT.fullmatch(port) or not 0 < int(port) < 65536:
        raise ValueError(f"{what} (HOST a name or an IP address, PORT in 1 .. 65535), got {address!r}")
    return address


#: a DNS host name: dot-separated labels of ASCII letters, digits and inner hyphens
_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")
#: dotted digits: an IPv4 address or nothing (never looked up as a name)
_DOTTED = re.compile(r"[0-9.]+")
#: a port: ASCII digits only (``str.isdigit`` also takes other scripts' digits)
_PORT = re.compile(r"[0-9]{1,5}")


def _host_port(location: str):
    """``(host, port text)`` of ``HOST:PORT`` (``host`` ``None`` when malformed)."""
    if location.startswith("["):
        inside, sep, port = location[1:].partition("]:")
        try:
            ok = sep and ipaddress.ip_address(inside).version == 6
        except ValueError:
            ok = False
        return (inside if ok else None), port
    host, _, port = location.rpartition(":")
    if len(host) > 253 or not _HOST_NAME.fullmatch(host):
        return None, port
    if _DOTTED.fullmatch(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return None, port
    return host, port


def probe_scheduler(address: str, timeout: float, name: str = "`scheduler`") -> None:
    """Refuse (``ValueError`` naming ``name``) unless a dask scheduler answers at
    ``address`` within ``timeout`` seconds.

    One dask connection (connect, handshake) and one ``identity`` request, all under
    ``timeout``: dask's own ``connect`` bounds the TCP connect but not the handshake, so a
    service that accepts the connection and does not speak the dask protocol (an HTTP
    server) would otherwise hold a ``Client`` forever. Runs in a daemon thread, so a name
    lookup that outlives the timeout cannot hold the command either.
    """
    found: dict = {}

    def ask():
        try:
            found["info"] = asyncio.run(asyncio.wait_for(_identity(address, timeout), timeout))
        except BaseException as exc:
            found["error"] = exc

    thread = threading.Thread(target=ask, name="sigrec-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + PROBE_GRACE_S)
    info, error = found.get("info"), found.get("error")
    if isinstance(info, dict) and info.get("type") == "Scheduler":
        return
    if isinstance(info, dict) and isinstance(info.get("type"), str):
        reason = f"it answers as a dask {info['type']}, not a scheduler"
    elif info is not None:
        reason = "it answers, but not as a dask scheduler"
    elif error is None or isinstance(error, (asyncio.TimeoutError, TimeoutError)):
        reason = (f"no dask scheduler answered within {timeout:g} s (nothing listening there, or a service "
                  "that does not speak the dask protocol)")
    elif type(error).__name__ == "CommClosedError":  # distributed's, an OSError
        reason = "it closed the connection without a dask handshake"
    elif isinstance(error, OSError):
        reason = f"{' '.join(str(error).split()) or type(error).__name__}"
    else:
        reason = f"it does not speak the dask protocol ({type(error).__name__})"
    raise ValueError(f"cannot reach a dask scheduler at {name} = {address!r}: {reason}")


#: seconds the probe thread is waited for beyond its own timeout
PROBE_GRACE_S = 1.0


async def _identity(address: str, timeout: float):
    from distributed.comm import connect

    comm = await connect(address, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def open_client(address: str, timeout: float, name: str = "`scheduler`"):
    """A ``distributed.Client`` on the checked ``address``; ``ValueError`` naming ``name``
    if the scheduler cannot be reached. A client whose construction raised (an
    interrupt, a scheduler gone since the probe) is closed at once: left alone, its
    ``__del__`` times out at interpreter exit and prints a traceback."""
    from distributed import Client

    client = Client.__new__(Client)
    try:
        Client.__init__(client, address, timeout=timeout, set_as_default=False)
    except BaseException as exc:
        close_client(client)
        if isinstance(exc, (OSError, TimeoutError)):
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise ValueError(f"cannot reach a dask scheduler at {name} = {address!r}: {reason}") from None
        raise
    return client


def close_client(client) -> None:
    """Close ``client`` quietly (best effort) and mark it closed, so that its
    ``__del__`` has nothing left to do at interpreter exit."""
    try:
        client.close(timeout=CLOSE_TIMEOUT_S)
    except BaseException:
        pass
    try:
        if getattr(client, "status", "closed") not in ("closed", "newly-created"):
            client.status = "closed"
    except Exception:
        pass


#: seconds a client's close may take before it is abandoned (the scheduler may be gone)
CLOSE_TIMEOUT_S = 5.0
