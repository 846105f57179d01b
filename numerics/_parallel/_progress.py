"""Progress relay: units on dask workers report to a handler in the driver (dask events).

A unit calls :func:`report` with the run id it was given; the message travels as a
dask event on :data:`REPORT_TOPIC` and the driver's handler of that run
(:meth:`numerics.Executor.events`, through :func:`relay`) is called with it. One topic
per client, runs told apart by id.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager

from ._cluster import in_worker

#: the dask event topic units report on; messages carry their run's id
REPORT_TOPIC = "sigrec-progress"
#: run id -> handler of the runs of this process (see :meth:`Executor.events`)
_RELAYS: dict = {}
#: ids of the clients subscribed to :data:`REPORT_TOPIC`
_SUBSCRIBED: set = set()


def _relay(event) -> None:
    msg = event[1]
    handler = _RELAYS.get(msg.get("run")) if isinstance(msg, dict) else None
    if handler is not None:
        handler(msg["message"])


def report(run, message) -> None:
    """Relay ``message`` (msgpack-serialisable: numbers, strings, lists, dicts) from a
    unit running on a worker to the driver's :meth:`Executor.events` handler of
    ``run``. Does nothing when ``run`` is ``None`` or outside a worker."""
    if run is None or not in_worker():
        return
    from distributed import get_worker

    get_worker().log_event(REPORT_TOPIC, {"run": run, "message": message})


@contextmanager
def relay(client, handler):
    """A run id whose :func:`report` messages call ``handler(message)`` in the driver (from
    the client's event thread) until the block ends; ``None`` without a client (in-process:
    there is nothing to relay)."""
    if client is None:
        yield None
        return
    if client.id not in _SUBSCRIBED:
        # one topic per client, runs told apart by id: a topic is never dropped by the
        # scheduler, and unsubscribing would leave the handler in the client
        client.subscribe_topic(REPORT_TOPIC, _relay)
        _SUBSCRIBED.add(client.id)
    run = uuid.uuid4().hex
    _RELAYS[run] = handler
    try:
        yield run
    finally:
        _RELAYS.pop(run, None)
