"""The boundary parser: a prior spec (or a :class:`Prior`) to a validated :class:`Prior`.

:func:`theory._laws._syntax.read` checks the form of the spec; this module checks the
law (probabilities in range, magnitudes, a normalised discrete law, ``E s >= 0``) and
puts discrete atoms in canonical order.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from ._law import Prior
from ._syntax import SIGNATURES, format_number, read

#: the largest |value| of a prior's support or parameters (theta carries the scale)
MAX_MAGNITUDE = 1000


def _prob(name: str, value, spec: str, *, allow_zero: bool = True) -> Fraction:
    if isinstance(value, tuple) or value < 0 or value > 1 or (not allow_zero and value == 0):
        interval = "[0, 1]" if allow_zero else "(0, 1]"
        raise ValueError(f"`prior` parameter {name} must lie in {interval}, got {spec!r}")
    return value


def _check_magnitude(values, spec: str):
    for v in values:
        if abs(v) > MAX_MAGNITUDE:
            raise ValueError(f"`prior` values must have magnitude <= {MAX_MAGNITUDE} (theta carries the scale of "
                             f"the signal), got {spec!r}")


@lru_cache(maxsize=1024)
def parse_prior(spec) -> Prior:
    """Parse and validate a prior spec (see :mod:`theory._laws`); ``ValueError`` names the
    problem. A :class:`Prior` is returned as it is."""
    if isinstance(spec, Prior):
        return spec
    family, params = read(spec)
    if family in ("rademacher", "bernoulli"):
        _prob("p", params["p"], spec, allow_zero=family == "rademacher")
    elif family == "gaussian":
        mu, tau = params["mu"], params["tau"]
        if isinstance(mu, tuple) or isinstance(tau, tuple):
            raise ValueError(f"`prior` gaussian takes numbers mu and tau, got {spec!r}")
        if tau < 0:
            raise ValueError(f"`prior` parameter tau must be >= 0, got {spec!r}")
        if mu == 0 and tau == 0:
            raise ValueError(f"`prior` gaussian(mu=0, tau=0) carries no signal (s = 0); got {spec!r}")
        _check_magnitude((mu, tau), spec)
    elif family == "discrete":
        values, probs = params["values"], params["probs"]
        if not isinstance(values, tuple) or not isinstance(probs, tuple) or len(values) != len(probs):
            raise ValueError(f"`prior` discrete needs lists values=[...] and probs=[...] of equal length, "
                             f"got {spec!r}")
        if len(set(values)) != len(values):
            raise ValueError(f"`prior` discrete values must be distinct, got {spec!r}")
        if any(q < 0 for q in probs) or sum(probs) != 1:
            raise ValueError(f"`prior` discrete probs must be >= 0 and sum to exactly 1, got {spec!r} "
                             f"(sum {format_number(sum(probs, Fraction(0)))})")
        _check_magnitude(values, spec)
        atoms = sorted((v, q) for v, q in zip(values, probs, strict=True) if q > 0)
        if all(v == 0 for v, _ in atoms):
            raise ValueError(f"`prior` discrete law puts all its mass on 0 (no signal), got {spec!r}")
        params = {"values": tuple(v for v, _ in atoms), "probs": tuple(q for _, q in atoms)}
    prior = Prior(family, tuple((n, params[n]) for n in SIGNATURES[family]))
    if prior.mean < 0:
        raise ValueError(f"`prior` must have mean E s >= 0, got E s = {format_number(prior.mean)} for {spec!r} "
                         f"(the law of -s gives the mirror-image model, rho -> -rho: use it instead)")
    return prior


def canonical_prior(spec) -> str:
    """The canonical spec string of ``spec`` (validated): the boundary form of records and stores."""
    return parse_prior(spec).spec
