"""Numerical guards at the command-line boundary: warnings silenced, non-finite results refused,
overlap inputs checked (:func:`check_overlaps`).

The library may pass through intermediate overflow (``inf`` steps inside an ODE
solver's error estimate, say) and still return finite results. The command line
must never print a warning, so it runs such calls with floating-point warnings
silenced and then checks that what it is about to print is finite; when it is not,
the input is refused with one ``error:`` line naming the parameters involved.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import numpy as np


@contextmanager
def quiet_numerics():
    """Silence floating-point ``RuntimeWarning`` s (numpy and Python level)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def require_finite(what: str, *arrays) -> None:
    """Refuse (``ValueError``) when any of ``arrays`` holds a non-finite value."""
    for a in arrays:
        if not np.all(np.isfinite(np.asarray(a, dtype=float))):
            raise ValueError(f"{what}: the result is not finite (overflow); use a smaller value")


def check_overlaps(name: str, r, k: int, heads: int = 1) -> np.ndarray:
    """``r`` (a flat tuple) as a ``k x heads`` array (row-major) with operator norm ``<= 1``
    (``|r| <= 1`` for one head); else ``ValueError`` naming ``name``."""
    if len(r) != k * heads:
        shape = (f"{k} entries (k = {k})" if heads == 1
                 else f"k x H = {k * heads} entries (row-major, k = {k}, H = {heads})")
        raise ValueError(f"`{name}` must have {shape}, got {len(r)}: {','.join(f'{x:g}' for x in r)}")
    M = np.array(r, dtype=float).reshape(k, heads)
    norm = float(np.linalg.norm(M, 2))
    if norm > 1 + 1e-12:
        what = "|r| <= 1" if heads == 1 else "operator norm <= 1 (U^T Q for an orthonormal frame Q)"
        raise ValueError(f"`{name}` must satisfy {what}, got {norm:.6g} for {','.join(f'{x:g}' for x in r)}")
    return M
