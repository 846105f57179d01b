"""Finite differences shared by ``theory``, ``numerics`` and the checks.

Derivatives of the *symbolic* objects are taken by sympy; this is for the float
evaluators (a drift, a field) where a numerical slope is enough, e.g. the slope of
the effective drift at its plateau or ``F'`` in the Euler modified-equation term.
"""

from __future__ import annotations

import numpy as np

from ..core.validate import real


def central_difference(f, x, h, lo=None, hi=None):
    """``(f(b) - f(a)) / (b - a)`` with ``a = x - h``, ``b = x + h`` clipped to ``[lo, hi]``.

    Near a bound of the domain (e.g. ``rho = 1``) the stencil is clipped and the
    quotient becomes one-sided over the points actually used. ``x`` may be a scalar
    (``f`` gets floats, a float is returned) or an array (``f`` gets arrays of the
    same shape and must be vectorised). ``h > 0``; ``lo`` and ``hi`` are optional.
    """
    h = real("h", h, lower=0.0, strict=True)
    if lo is not None and hi is not None and not lo < hi:
        raise ValueError(f"`lo` must be < `hi`, got lo = {lo!r}, hi = {hi!r}")
    if np.ndim(x) == 0:
        x = float(x)
        a, b = x - h, x + h
        if lo is not None:
            a, b = max(a, lo), max(b, lo)
        if hi is not None:
            a, b = min(a, hi), min(b, hi)
        return float((f(b) - f(a)) / (b - a))
    x = np.asarray(x, dtype=float)
    a, b = x - h, x + h
    if lo is not None or hi is not None:
        a, b = np.clip(a, lo, hi), np.clip(b, lo, hi)
    return (f(b) - f(a)) / (b - a)
