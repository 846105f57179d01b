"""What a report records about the machine and the software that produced it."""

from __future__ import annotations

import datetime
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ...numerics import describe

_PACKAGES = ("sigrec", "numpy", "scipy", "sympy", "mpmath", "python-flint", "numba", "matplotlib", "rich")


def git_commit() -> str | None:
    """Commit of the source tree the package runs from, if it is a git checkout."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                           capture_output=True, text=True, timeout=5).stdout.strip()
    return out.stdout.strip() + ("+dirty" if dirty else "")


def package_versions(names) -> dict[str, str | None]:
    """The installed version of each distribution in ``names`` (``None``: not installed)."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def environment(executor: dict | None = None) -> dict:
    """Versions, platform, git commit, and where the units ran (``executor``, default
    :func:`sigrec.numerics.describe` of the active executor: results do not depend on
    it, timings do)."""
    versions = package_versions(_PACKAGES)
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "packages": versions,
        "git_commit": git_commit(),
        "executor": describe() if executor is None else executor,
    }
