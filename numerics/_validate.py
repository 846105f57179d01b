"""Input validators shared by the numerics modules: messages name the parameter and value."""

from __future__ import annotations

import math
from numbers import Integral, Real


def real(name: str, value, *, lower: float | None = None, strict: bool = False) -> float:
    """A finite real ``value`` (``> lower`` if ``strict`` else ``>= lower``) as float."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"`{name}` must be a finite real number, got {value!r}")
    value = float(value)
    if lower is not None and (value < lower or (strict and value == lower)):
        raise ValueError(f"`{name}` must be {'>' if strict else '>='} {lower:g}, got {value!r}")
    return value


def integer(name: str, value, minimum: int) -> int:
    """An integer ``>= minimum`` (integral floats such as ``3.0`` accepted)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not (
        isinstance(value, Integral) or float(value).is_integer()
    ):
        raise ValueError(f"`{name}` must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value!r}")
    return int(value)
