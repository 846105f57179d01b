"""Sizing a local cluster to the machine: CPU affinity, cgroup quotas, available memory."""

from __future__ import annotations

import os

#: memory a local worker is allowed for when sizing a cluster to the machine (a worker
#: with sympy, scipy and a block of runs loaded stays well below it)
WORKER_MEMORY = 2**30

#: where the cgroup limits of this process are read (v2 files, else v1)
CGROUP_ROOT = "/sys/fs/cgroup"


def _read(path) -> list[str] | None:
    try:
        with open(path) as fh:
            return fh.read().split()
    except (OSError, ValueError):
        return None


def cgroup_limits(root=None) -> tuple[float | None, int | None]:
    """``(cpus, free memory in bytes)`` allowed by this process's cgroup (containers,
    Slurm jobs), each ``None`` when unlimited or unknown: the CPU quota
    (``cpu.max``, or v1 ``cpu.cfs_quota_us / cpu.cfs_period_us``) and the memory limit
    less the usage (``memory.max - memory.current``, or v1 ``memory.limit_in_bytes -
    memory.usage_in_bytes``)."""
    root = CGROUP_ROOT if root is None else str(root)
    cpus = None
    v2, v1q = _read(f"{root}/cpu.max"), _read(f"{root}/cpu/cpu.cfs_quota_us")
    v1p = _read(f"{root}/cpu/cpu.cfs_period_us")
    quota, period = (v2[0], v2[1]) if v2 and len(v2) == 2 else ((v1q[0], v1p[0]) if v1q and v1p else (None, None))
    if quota is not None and period is not None and quota != "max" and int(quota) > 0 and int(period) > 0:
        cpus = int(quota) / int(period)
    memory = None
    for limit_file, usage_file in (("memory.max", "memory.current"),
                                   ("memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes")):
        limit = _read(f"{root}/{limit_file}")
        if not limit:
            continue
        if limit[0] != "max" and int(limit[0]) < 2**60:  # v1 writes "unlimited" as ~2^63
            usage = _read(f"{root}/{usage_file}")
            memory = max(0, int(limit[0]) - (int(usage[0]) if usage else 0))
        break
    return cpus, memory


def available_memory() -> int:
    """Bytes of memory available to a new allocation: ``MemAvailable`` of
    ``/proc/meminfo`` (else physical pages x page size, else 4 GiB), and no more
    than the cgroup allows (:func:`cgroup_limits`)."""
    free = None
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    free = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if free is None:
        try:
            free = int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            free = 4 * 2**30
    _, limit = cgroup_limits()
    return free if limit is None else min(free, limit)


def machine_workers() -> int:
    """Workers of a local cluster sized to this machine: one per CPU this process may
    run on (its affinity, which batch schedulers restrict, and its cgroup CPU quota,
    rounded down), and no more than one per :data:`WORKER_MEMORY` of available memory
    (:func:`available_memory`, which heeds the cgroup's memory limit)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 1
    quota, _ = cgroup_limits()
    if quota is not None:
        cpus = min(cpus, int(quota))
    return max(1, min(cpus, available_memory() // WORKER_MEMORY))
