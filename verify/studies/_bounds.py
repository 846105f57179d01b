"""Quantities of the appendix that are rounding residues, kept as the bound they satisfy.

Some numbers the appendix reports are zero up to the working precision: the relative
difference of a symbolic value and a high-precision quadrature, the distance of a settled
float ODE from an invariant set. Their digits say which kernels (numpy's SIMD loops,
OpenBLAS's per-CPU routines) and which precision computed them, not anything about the
mathematics, so two CPUs print different digits and ``sigrec notes --check`` fails on one of
them. The data builder keeps such a quantity as a :class:`Bound`: a power of ten that it has
checked the quantity is below (:func:`below` raises when it is not), so the printed
inequality is true on every machine that builds the data, and the bound is chosen with a
margin of orders of magnitude over what any IEEE double CPU computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Bound:
    """``what < 10**exponent``, checked by :func:`below` when the data was built."""

    exponent: int
    what: str

    @property
    def value(self) -> float:
        return 10.0**self.exponent


def below(value: float, exponent: int, what: str) -> Bound:
    """``Bound(exponent, what)`` after checking ``|value| < 10**exponent``; a value that is not
    (or is not finite) raises, so that the appendix never states a false bound."""
    value = float(value)
    if not (math.isfinite(value) and abs(value) < 10.0**exponent):
        raise AssertionError(f"{what} is {value:.3g}, not below the bound 1e{exponent} the appendix states")
    return Bound(int(exponent), what)
