"""Reading and printing prior specs: numbers as exact fractions, arguments, the canonical text.

The grammar is ``family`` or ``family(arg, ...)`` with positional or named arguments,
numbers such as ``0.3``, ``1/3`` or ``2e-3`` and lists ``[...]`` (see :mod:`theory._laws`).
:func:`read` checks only the form of a spec; :func:`theory._laws.parse_prior` then
checks the law.
"""

from __future__ import annotations

import re
from decimal import Decimal, Inexact, localcontext
from fractions import Fraction

#: the prior families, in the order the documentation lists them
FAMILIES = ("fixed", "rademacher", "bernoulli", "gaussian", "discrete")
#: the most atoms a discrete law may have
MAX_ATOMS = 32
#: the argument names of each family, in positional order
SIGNATURES = {
    "fixed": (),
    "rademacher": ("p",),
    "bernoulli": ("p",),
    "gaussian": ("mu", "tau"),
    "discrete": ("values", "probs"),
}
_DEFAULTS = {"rademacher": {"p": Fraction(1, 2)}, "bernoulli": {"p": Fraction(1, 2)}}

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?$")


#: the largest |exponent| a number may be written with (``2e-3``): checked before any arithmetic
MAX_EXPONENT = 30
#: a nonzero number, after its fraction (``1e30/7``), lies within 10**-MAX_DECADES .. 10**MAX_DECADES
MAX_DECADES = 60


def _number(text: str, spec: str) -> Fraction:
    """The exact value of one number; its size is bounded before and after the fraction, so a
    huge exponent can never reach exact arithmetic (``1e99999999/3`` is refused at once)."""
    text = text.strip()
    if not _NUMBER.match(text):
        raise ValueError(f"`prior` has a value that is not a finite number: {text!r} in {spec!r}")
    num, _, den = text.partition("/")
    _, _, exponent = num.lower().partition("e")
    if exponent and abs(int(exponent)) > MAX_EXPONENT:
        raise ValueError(f"`prior` values must have |exponent| <= {MAX_EXPONENT}, got {text!r} in {spec!r}")
    value = Fraction(num)
    if den:
        if int(den) == 0:
            raise ValueError(f"`prior` has a zero denominator: {text!r} in {spec!r}")
        value /= int(den)
    bound = 10**MAX_DECADES
    if value and not Fraction(1, bound) <= abs(value) <= bound:
        raise ValueError(f"`prior` values must be 0 or have magnitude within 1e-{MAX_DECADES}..1e{MAX_DECADES} "
                         f"(exponent too large), got {text!r} in {spec!r}")
    return value


def format_number(value: Fraction) -> str:
    """Shortest exact decimal of ``value`` when it has one, else ``p/q``."""
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    with localcontext() as ctx:  # enough digits for the exact decimal (den = 2**a 5**b), inexact trapped
        ctx.prec = len(str(abs(value.numerator))) + 4 * len(str(value.denominator)) + 10
        ctx.traps[Inexact] = True
        text = format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
    return text


def _split_args(body: str, spec: str) -> list[str]:
    """Split ``body`` at top-level commas (not inside ``[...]``)."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in body:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise ValueError(f"`prior` has an unbalanced ']' in {spec!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise ValueError(f"`prior` has an unbalanced '[' in {spec!r}")
    parts.append("".join(cur))
    if len(parts) == 1 and not parts[0].strip():
        return []
    return parts


def _value(text: str, spec: str, ranges: bool = False):
    text = text.strip()
    if ranges and ":" in text and not text.startswith("["):
        parts = text.split(":")
        if len(parts) != 2:
            raise ValueError(f"`prior` range must be LO:HI, got {text!r} in {spec!r}")
        lo, hi = (_number(x, spec) for x in parts)
        if not lo < hi:
            raise ValueError(f"`prior` range LO:HI needs LO < HI (one value fixes the parameter), got {text!r} "
                             f"in {spec!r}")
        return Range(lo, hi)
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError(f"`prior` has a malformed list {text!r} in {spec!r}")
        inner = text[1:-1]
        items = [x for x in inner.split(",")]
        if len(items) > MAX_ATOMS or not inner.strip():
            raise ValueError(f"`prior` lists must have 1 to {MAX_ATOMS} entries, got {text!r} in {spec!r}")
        return tuple(_number(x, spec) for x in items)
    return _number(text, spec)


def _takes(names) -> str:
    return "no arguments" if not names else "arguments " + ", ".join(names)


class Range(tuple):
    """A parameter given as a range ``LO:HI`` (a pair of fractions, ``lo < hi``)."""

    __slots__ = ()

    def __new__(cls, lo: Fraction, hi: Fraction):
        return super().__new__(cls, (lo, hi))


def read(spec, ranges: bool = False) -> tuple[str, dict]:
    """The family and the arguments (defaults filled in) of the spec string ``spec``.

    Checks the form only (``ValueError`` names the problem): a known family, known
    argument names, none twice or missing, numbers and lists well formed. With
    ``ranges``, a number may be a range ``LO:HI`` (returned as a :class:`Range`).
    """
    if not isinstance(spec, str):
        raise ValueError(f"`prior` must be a prior spec such as 'fixed' or 'gaussian(mu=1, tau=0.5)', got {spec!r}")
    text = spec.strip()
    if len(text) > 2000:
        raise ValueError(f"`prior` spec is too long ({len(text)} characters; at most 2000)")
    match = re.fullmatch(r"([A-Za-z_]+)\s*(?:\((.*)\))?", text, flags=re.S)
    if not match:
        raise ValueError(f"`prior` must look like family or family(arg, ...) with family one of {FAMILIES}, "
                         f"got {spec!r}")
    family, body = match.group(1).lower(), match.group(2)
    if family not in SIGNATURES:
        raise ValueError(f"`prior` must be one of {FAMILIES} (optionally with arguments), got {spec!r}")
    names = SIGNATURES[family]
    given: dict = {}
    for i, part in enumerate(_split_args(body or "", spec)):
        if "=" in part:
            key, _, val = part.partition("=")
            key = key.strip().lower()
            if key not in names:
                raise ValueError(f"`prior` {family} takes {_takes(names)}, got {key!r} in {spec!r}")
        else:
            if given and any("=" in p for p in _split_args(body, spec)[:i]):
                raise ValueError(f"`prior` has a positional argument after a named one in {spec!r}")
            if i >= len(names):
                raise ValueError(f"`prior` {family} takes {_takes(names)}, got more in {spec!r}")
            key, val = names[i], part
        if key in given:
            raise ValueError(f"`prior` argument {key} given twice in {spec!r}")
        given[key] = _value(val, spec, ranges)
    params = dict(_DEFAULTS.get(family, {}))
    params.update(given)
    missing = [n for n in names if n not in params]
    if missing:
        raise ValueError(f"`prior` {family} needs {', '.join(missing)}, got {spec!r}")
    return family, params
