"""Numerical guards at the command-line boundary: warnings silenced, non-finite results refused.

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
