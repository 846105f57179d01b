"""Input validators shared by ``theory``, ``numerics`` and the command line.

Every validator either returns the value in its canonical type (``float``,
``int``, a float array, the option itself) or raises ``ValueError`` with a message
that names the parameter in backquotes and shows the bad value, e.g.
``"`beta` must be > 0, got 0.0"``. The command line prints these messages as
``error: <message>``, so they are part of the user interface: change them only
together with the tests that compare them.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = ["alignments", "choice", "counts", "instance", "integer", "nonnegative", "real", "representable"]


def real(name: str, value, *, lower: float | None = None, upper: float | None = None,
         strict: bool = False) -> float:
    """A finite real ``value`` as float, optionally bounded.

    ``lower`` and ``upper`` are inclusive bounds, exclusive when ``strict``; with both
    given the message reads ``must lie in [lower, upper]`` (``(lower, upper)`` when
    ``strict``), with one of them ``must be >= lower`` (``> lower``) or
    ``must be <= upper`` (``< upper``). ``bool`` is refused.
    """
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"`{name}` must be a finite real number, got {value!r}")
    value = float(value)
    below = lower is not None and (value < lower or (strict and value == lower))
    above = upper is not None and (value > upper or (strict and value == upper))
    if below or above:
        if lower is not None and upper is not None:
            left, right = ("(", ")") if strict else ("[", "]")
            raise ValueError(f"`{name}` must lie in {left}{lower:g}, {upper:g}{right}, got {value!r}")
        if below:
            raise ValueError(f"`{name}` must be {'>' if strict else '>='} {lower:g}, got {value!r}")
        raise ValueError(f"`{name}` must be {'<' if strict else '<='} {upper:g}, got {value!r}")
    return value


def integer(name: str, value, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer in ``[minimum, maximum]`` (either bound optional) as int.

    Integral floats such as ``3.0`` are accepted; ``bool`` is refused. The message
    shows the value as it was given.
    """
    if isinstance(value, bool) or not isinstance(value, Real) or not (
        isinstance(value, Integral) or float(value).is_integer()
    ):
        raise ValueError(f"`{name}` must be an integer, got {value!r}")
    # exact (value is integral), so the bounds compare as on value itself
    number = int(value)  # type: ignore[call-overload]  # typeshed's numbers.Real declares no __int__
    below = minimum is not None and number < minimum
    above = maximum is not None and number > maximum
    if below or above:
        if minimum is not None and maximum is not None:
            raise ValueError(f"`{name}` must lie in [{minimum}, {maximum}], got {value!r}")
        if below:
            raise ValueError(f"`{name}` must be >= {minimum}, got {value!r}")
        raise ValueError(f"`{name}` must be <= {maximum}, got {value!r}")
    return number


def counts(R, L) -> tuple[int, int]:
    """Token counts ``(R, L)`` as ints: ``R >= 0`` informative tokens among ``L >= 1``,
    ``R <= L`` (the one check of every finite instance: models, problems, cases)."""
    R = integer("R", R, 0)
    L = integer("L", L, 1)
    if R > L:
        raise ValueError(f"`R` must satisfy R <= L = {L}, got R = {R}")
    return R, L


def alignments(name: str, value) -> np.ndarray:
    """``value`` as a float array of alignments in ``[-1, 1]`` (refused otherwise,
    naming the parameter)."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > 1):
        raise ValueError(f"`{name}` must lie in [-1, 1], got {value!r}")
    return arr


def nonnegative(name: str, value) -> np.ndarray:
    """``value`` as a float array of finite numbers ``>= 0`` (times, horizons, step sizes)."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"`{name}` must be finite and >= 0, got {value!r}")
    return arr


def choice(name: str, value, options: tuple):
    """``value`` if it is one of ``options`` (a tuple, shown in the message)."""
    if value not in options:
        raise ValueError(f"`{name}` must be one of {options}, got {value!r}")
    return value


def instance(name: str, value, cls: type, label: str | None = None):
    """``value`` if it is an instance of ``cls``; ``label`` names the type in the
    message (default ``cls.__name__``, e.g. ``"theory.Model"``)."""
    if not isinstance(value, cls):
        raise ValueError(f"`{name}` must be a {label or cls.__name__}, got {type(value).__name__}")
    return value


def representable(what: str, values, rho, params: dict, hint: str = "") -> np.ndarray:
    """``values`` as a float array when every entry is finite; otherwise ``ValueError``
    saying that ``what`` overflows float64 at the first such alignment of ``rho``
    (broadcast against ``values``) and naming the parameters ``params``
    (``{name: value}``) that set its size, e.g. ``"`theta`, `beta` or `sigma2` is too
    large for float64: the objective overflows at rho=0; got theta=1.0, beta=1.0,
    sigma2=1e+308"``. ``hint`` is appended in parentheses."""
    arr = np.asarray(values, dtype=float)
    finite = np.isfinite(arr)
    if np.all(finite):
        return arr
    r = np.broadcast_to(np.asarray(rho, dtype=float), arr.shape).reshape(-1)
    where = float(r[np.argmin(finite.reshape(-1))])
    names = [f"`{n}`" for n in params]
    named = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    got = ", ".join(f"{n}={v!r}" for n, v in params.items())
    raise ValueError(f"{named} is too large for float64: the {what} overflows "
                     f"at rho={where:g}; got {got}" + (f" ({hint})" if hint else ""))
