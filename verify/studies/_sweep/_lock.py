"""One writer per sweep store: a lock file next to the store, created with
``O_CREAT | O_EXCL`` and holding the writer's pid, host, boot and process start time.

A lock whose process is gone (on this host: no such pid, a zombie, another process
under a reused pid, or a reboot since) is stale and taken over; any other lock refuses
the second writer with one message naming the store and the holder. A lock file that
holds a bare pid (a classic pid file, ``999999``), or a record without a host, is read
as a lock of this host: its pid is checked like any other.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

#: reads of a lock file found empty (its writer between ``open`` and ``write``)
_EMPTY_READS = 5
_EMPTY_WAIT_S = 0.02


def lock_path(store) -> Path:
    """``<store>.lock``, next to the store (the store itself may not exist yet)."""
    path = Path(os.path.abspath(store))
    if not path.name:
        raise ValueError(f"`store` {str(store)!r} is not a path to a store folder")
    return path.with_name(path.name + ".lock")


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _boot_id() -> str | None:
    text = _read_text("/proc/sys/kernel/random/boot_id")
    return text.strip() if text else None


def _process(pid: int) -> tuple[str, int] | None:
    """``(state, start time in clock ticks since boot)`` of ``pid`` from ``/proc``, or
    ``None`` where ``/proc`` cannot tell."""
    text = _read_text(f"/proc/{pid}/stat")
    if not text or ")" not in text:
        return None
    fields = text.rsplit(")", 1)[1].split()
    try:
        return fields[0], int(fields[19])
    except (IndexError, ValueError):
        return None


def holder_record(pid: int) -> dict:
    """What a lock file records of process ``pid`` of this host: its pid, the host, the
    boot and the process start time (``None`` where ``/proc`` cannot tell)."""
    proc = _process(pid)
    return {"pid": pid, "host": socket.gethostname(), "boot": _boot_id(), "start": proc[1] if proc else None}


def holder_alive(holder: dict) -> bool:
    """Whether the process that wrote ``holder`` may still run; a lock from another host
    is always taken as alive (its pid means nothing here)."""
    if holder.get("host", socket.gethostname()) != socket.gethostname():
        return True
    boot = _boot_id()
    if holder.get("boot") and boot and holder["boot"] != boot:
        return False
    pid = holder["pid"]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    now = _process(pid)
    if now is None:
        return True
    state, start = now
    return state != "Z" and (holder.get("start") is None or start == holder["start"])


def _parse(text: str | None) -> dict | None:
    if text is None:
        return None
    try:
        holder = json.loads(text)
    except ValueError:
        return None
    if isinstance(holder, int) and not isinstance(holder, bool):
        holder = {"pid": holder}  # a bare pid: a pid file of this host
    if not isinstance(holder, dict) or not isinstance(holder.get("pid"), int) or holder["pid"] <= 0:
        return None
    return holder


def _read_holder(lock: Path) -> tuple[str | None, dict | None]:
    """``(raw text, parsed holder)`` of a lock file; ``(None, None)`` once it is gone."""
    for _ in range(_EMPTY_READS):
        text = _read_text(str(lock))
        if text is None:
            return None, None
        if text:
            return text, _parse(text)
        time.sleep(_EMPTY_WAIT_S)  # created but not yet written by its owner
    return text, None


def _remove_stale(lock: Path, stale: str) -> None:
    """Remove ``lock`` if it still holds ``stale``: it is moved aside first, and a lock
    that a concurrent writer took over meanwhile is put back."""
    aside = lock.with_name(f"{lock.name}.stale-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(lock, aside)
    except FileNotFoundError:
        return
    if _read_text(str(aside)) != stale:
        try:
            os.link(aside, lock)
        except FileExistsError:
            pass
    aside.unlink(missing_ok=True)


def _refusal(store, lock: Path, holder: dict | None) -> ValueError:
    if holder is None:
        return ValueError(f"`store` {str(store)!r} is locked by an unreadable lock file {str(lock)!r}; delete it if "
                          "no sweep is writing to the store")
    return ValueError(f"`store` {str(store)!r} is in use by another sweep (pid {holder['pid']} on host "
                      f"{holder.get('host')}, lock file {str(lock)!r}); wait for it to finish, or delete the lock "
                      "file if that process is not a sweep")


@contextmanager
def store_lock(store):
    """Hold the writer's lock of ``store`` for the duration of the block.

    Yields
    ------
    int or None
        The pid of a stale lock's holder that was taken over, else ``None``.

    Raises
    ------
    ValueError
        Another live process holds it, or its lock file cannot be read or created.
    """
    lock = lock_path(store)
    # the token tells this lock from a later one of the same process
    text = json.dumps({**holder_record(os.getpid()), "token": uuid.uuid4().hex}, sort_keys=True)
    stale = None
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"`store` {str(store)!r}: cannot create its folder {str(lock.parent)!r}: "
                         f"{exc.strerror or exc}") from None
    for _ in range(3):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            raw, holder = _read_holder(lock)
            if raw is None:
                continue  # released meanwhile
            if holder is None or holder_alive(holder):
                raise _refusal(store, lock, holder) from None
            _remove_stale(lock, raw)
            stale = holder["pid"]
            continue
        except OSError as exc:
            raise ValueError(f"`store` {str(store)!r}: cannot create its lock file {str(lock)!r}: "
                             f"{exc.strerror or exc}") from None
        try:
            os.write(fd, text.encode())
        except OSError as exc:
            lock.unlink(missing_ok=True)
            raise ValueError(f"`store` {str(store)!r}: cannot write its lock file {str(lock)!r}: "
                             f"{exc.strerror or exc}") from None
        finally:
            os.close(fd)
        break
    else:
        raise _refusal(store, lock, _read_holder(lock)[1])
    try:
        yield stale
    finally:
        if _read_text(str(lock)) == text:
            lock.unlink(missing_ok=True)
