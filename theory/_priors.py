"""Signal priors: the law of the signal strength ``s_i`` of an informative token.

Only the law of ``s`` enters the model, through its moment generating function
``M(t) = E exp(t s)`` (docs/design.md section 1.2). A prior is written as a short
spec, parsed without ``eval``:

=====================================  ==============================================
spec                                   law of ``s``
=====================================  ==============================================
``fixed``                              ``s = 1`` (the paper's model)
``rademacher`` / ``rademacher(p)``     ``+1`` with probability ``p`` (default 1/2), else ``-1``
``bernoulli(p)``                       ``1`` with probability ``p``, else ``0`` (silent tokens)
``gaussian(mu, tau)``                  ``N(mu, tau^2)``
``discrete(values=[...], probs=[...])``  any finite law
=====================================  ==============================================

Laws with ``E s < 0`` are refused: the law of ``-s`` gives the mirror image
(``xi -> -xi``, ``rho -> -rho``), so ``E s >= 0`` loses nothing and keeps ``+xi`` the
recovered direction. Arguments may be positional or named (``gaussian(mu=1, tau=0.5)``); numbers are read
exactly as fractions (``0.3`` is ``3/10``, ``1/3`` is allowed), so a spec names one
law exactly and its canonical form (:attr:`Prior.spec`) is the key by which models,
derivations and stores identify it.

Numerically, every evaluator works with the *tilted law* of ``s``,
``P_t(s) ∝ exp(t s) P(s)``: ``log M(t)``, its mean ``mu1(t) = M'/M`` and its variance
``v(t) = M''/M - mu1^2 >= 0``. These never overflow where ``M`` itself does (log-sum-exp
for finite laws, closed forms for the Gaussian), and the same formulas run in numpy,
mpmath and python-flint ball arithmetic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp

__all__ = ["FAMILIES", "Prior", "parse_prior", "canonical_prior"]

#: the prior families, in the order the documentation lists them
FAMILIES = ("fixed", "rademacher", "bernoulli", "gaussian", "discrete")
#: the largest |value| of a prior's support or parameters (theta carries the scale)
MAX_MAGNITUDE = 1000
#: the most atoms a discrete law may have
MAX_ATOMS = 32

_SIGNATURES = {
    "fixed": (),
    "rademacher": ("p",),
    "bernoulli": ("p",),
    "gaussian": ("mu", "tau"),
    "discrete": ("values", "probs"),
}
_DEFAULTS = {"rademacher": {"p": Fraction(1, 2)}, "bernoulli": {"p": Fraction(1, 2)}}

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(/\d+)?$")


def _number(text: str, spec: str) -> Fraction:
    text = text.strip()
    if not _NUMBER.match(text):
        raise ValueError(f"`prior` has a value that is not a finite number: {text!r} in {spec!r}")
    if "/" in text:
        num, den = text.split("/")
        if int(den) == 0:
            raise ValueError(f"`prior` has a zero denominator: {text!r} in {spec!r}")
        return Fraction(num) / int(den)
    mantissa, _, exponent = text.lower().partition("e")
    if exponent and abs(int(exponent)) > 30:
        raise ValueError(f"`prior` values must have |exponent| <= 30, got {text!r} in {spec!r}")
    return Fraction(text)


def _format(value: Fraction) -> str:
    """Shortest exact decimal of ``value`` when it has one, else ``p/q``."""
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return f"{value.numerator}/{value.denominator}"
    with localcontext() as ctx:
        ctx.prec = 200
        text = format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
    return text


def _split_args(body: str, spec: str) -> list[str]:
    """Split ``body`` at top-level commas (not inside ``[...]``)."""
    parts, depth, cur = [], 0, []
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


def _value(text: str, spec: str):
    text = text.strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise ValueError(f"`prior` has a malformed list {text!r} in {spec!r}")
        inner = text[1:-1]
        items = [x for x in inner.split(",")]
        if len(items) > MAX_ATOMS or not inner.strip():
            raise ValueError(f"`prior` lists must have 1 to {MAX_ATOMS} entries, got {text!r} in {spec!r}")
        return tuple(_number(x, spec) for x in items)
    return _number(text, spec)


@dataclass(frozen=True)
class Prior:
    """A validated signal prior. Build one with :func:`parse_prior`.

    Attributes
    ----------
    family : str
        One of :data:`FAMILIES`.
    params : tuple
        ``(name, value)`` pairs; values are :class:`fractions.Fraction` or tuples of them.
    """

    family: str
    params: tuple = ()

    # ------------------------------------------------------------------ identity
    @property
    def spec(self) -> str:
        """Canonical spec: ``rademacher`` for ``p = 1/2``, atoms sorted for ``discrete``."""
        if self.family == "fixed" or (self.family == "rademacher" and self.p == Fraction(1, 2)):
            return self.family
        args = []
        for name, value in self.params:
            if isinstance(value, tuple):
                args.append(f"{name}=[{', '.join(_format(v) for v in value)}]")
            else:
                args.append(f"{name}={_format(value)}")
        return f"{self.family}({', '.join(args)})"

    def __str__(self) -> str:
        return self.spec

    def param(self, name: str):
        """The parameter ``name`` (a fraction, or a tuple of fractions for ``discrete``)."""
        return dict(self.params)[name]

    p = property(lambda self: self.param("p"), doc="probability parameter (rademacher, bernoulli)")
    mu = property(lambda self: self.param("mu"), doc="gaussian mean")
    tau = property(lambda self: self.param("tau"), doc="gaussian standard deviation")
    values = property(lambda self: self.param("values"), doc="discrete support")
    probs = property(lambda self: self.param("probs"), doc="discrete probabilities")

    # ------------------------------------------------------------------ the law
    @property
    def support(self) -> tuple | None:
        """``((value, prob), ...)`` as fractions for a finite law, ``None`` for the Gaussian."""
        if self.family == "fixed":
            return ((Fraction(1), Fraction(1)),)
        if self.family == "rademacher":
            return tuple((v, q) for v, q in ((Fraction(-1), 1 - self.p), (Fraction(1), self.p)) if q)
        if self.family == "bernoulli":
            return tuple((v, q) for v, q in ((Fraction(0), 1 - self.p), (Fraction(1), self.p)) if q)
        if self.family == "discrete":
            return tuple(zip(self.values, self.probs))
        return None

    @property
    def mean(self) -> Fraction:
        """``E s``, exactly."""
        if self.family == "gaussian":
            return self.mu
        return sum((v * q for v, q in self.support), Fraction(0))

    @property
    def second_moment(self) -> Fraction:
        """``E s^2``, exactly."""
        if self.family == "gaussian":
            return self.mu**2 + self.tau**2
        return sum((v * v * q for v, q in self.support), Fraction(0))

    @property
    def symmetric(self) -> bool:
        """True when ``s`` and ``-s`` have the same law (then ``M`` is even)."""
        if self.family == "gaussian":
            return self.mu == 0
        law = dict(self.support)
        return all(law.get(-v, 0) == q for v, q in law.items())

    def mgf(self, t):
        """The sympy moment generating function ``M(t)`` (exact rational parameters)."""
        if self.family == "gaussian":
            mu, tau = sp.Rational(self.mu), sp.Rational(self.tau)
            return sp.exp(mu * t + tau**2 * t**2 / 2)
        return sp.Add(*(sp.Rational(q) * sp.exp(sp.Rational(v) * t) for v, q in self.support))

    def exponent_bound(self, x: float) -> float:
        """An upper bound of ``|log M_s(t)|`` for ``|t| <= x`` (guard digits, overflow checks)."""
        if self.family == "gaussian":
            return abs(float(self.mu)) * x + 0.5 * float(self.tau) ** 2 * x * x
        return max(abs(float(v)) for v, _ in self.support) * x

    # ------------------------------------------------------------------ tilted law
    def tilted(self, t) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``log M(t)``, the tilted mean ``mu1(t)`` and variance ``v(t)`` (float arrays, no overflow
        beyond ``log M`` itself)."""
        t = np.asarray(t, dtype=float)
        if self.family == "gaussian":
            mu, tau2 = float(self.mu), float(self.tau) ** 2
            return mu * t + 0.5 * tau2 * t * t, mu + tau2 * t, np.full_like(t, tau2)
        values, logp = _finite_arrays(self)
        if len(values) == 1:
            v = values[0]
            return v * t, np.full_like(t, v), np.zeros_like(t)
        a = logp + values * t[..., None]
        top = np.max(a, axis=-1, keepdims=True)
        e = np.exp(a - top)
        total = np.sum(e, axis=-1, keepdims=True)
        w = e / total
        mu1 = np.sum(w * values, axis=-1)
        var = np.sum(w * (values - mu1[..., None]) ** 2, axis=-1)
        return top[..., 0] + np.log(total[..., 0]), mu1, var

    def tilted_ball(self, t):
        """``log M``, ``mu1``, ``v`` and the third central moment ``k3 = dv/dt`` of the tilted
        law at the python-flint ``arb`` ball ``t`` (rigorous enclosures; ``dmu1/dt = v``)."""
        from flint import arb

        zero = arb(0) + 0 * t
        if self.family == "gaussian":
            mu, tau2 = _arb(self.mu), _arb(self.tau) ** 2
            return mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2 + 0 * t, zero
        atoms = [(_arb(v), _arb(q)) for v, q in self.support]
        if len(atoms) == 1:
            v = atoms[0][0]
            return v * t, v + 0 * t, zero, zero
        # weights exp(v t) relative to the atom nearest the centre of t: arb has no
        # overflow, this only keeps the balls tight; central moments about the tilted
        # mean are formed atom by atom (no cancellation of raw moments)
        centre = t.mid()
        ref = max(self.support, key=lambda a: float(a[0]) * float(centre))[0]
        ref_b = _arb(ref)
        e = [q * ((v - ref_b) * t).exp() for v, q in atoms]
        total = _sum(e)
        w = [ei / total for ei in e]
        mu1 = _sum([wi * v for wi, (v, _) in zip(w, atoms)])
        var = _sum([wi * (v - mu1) ** 2 for wi, (v, _) in zip(w, atoms)])
        k3 = _sum([wi * (v - mu1) ** 3 for wi, (v, _) in zip(w, atoms)])
        return ref_b * t + total.log(), mu1, var, k3

    def tilted_mp(self, t):
        """``log M``, ``mu1``, ``v`` at the mpmath number ``t`` (working precision of the caller)."""
        import mpmath

        if self.family == "gaussian":
            mu, tau2 = mpmath.mpf(self.mu.numerator) / self.mu.denominator, (
                mpmath.mpf(self.tau.numerator) / self.tau.denominator) ** 2
            return mu * t + tau2 * t * t / 2, mu + tau2 * t, tau2
        atoms = [(mpmath.mpf(v.numerator) / v.denominator, mpmath.mpf(q.numerator) / q.denominator)
                 for v, q in self.support]
        top = max(v for v, _ in atoms)
        e = [q * mpmath.exp((v - top) * t) for v, q in atoms]
        total = mpmath.fsum(e)
        mu1 = mpmath.fsum(ei * v for ei, (v, _) in zip(e, atoms)) / total
        var = mpmath.fsum(ei * (v - mu1) ** 2 for ei, (v, _) in zip(e, atoms)) / total
        return top * t + mpmath.log(total), mu1, var

    # ------------------------------------------------------------------ sampling
    def sample(self, gen: np.random.Generator, size: int) -> np.ndarray:
        """``size`` draws of ``s`` from ``gen`` (float array)."""
        if self.family == "fixed":
            return np.ones(size)
        if self.family == "rademacher" and self.p == Fraction(1, 2):
            return 2.0 * gen.integers(0, 2, size=size) - 1.0
        if self.family == "gaussian":
            return float(self.mu) + float(self.tau) * gen.standard_normal(size)
        values, logp = _finite_arrays(self)
        cdf = np.cumsum(np.exp(logp))
        idx = np.searchsorted(cdf[:-1], gen.random(size), side="right")
        return values[idx]


def _sum(items):
    out = items[0]
    for x in items[1:]:
        out = out + x
    return out


def _arb(value: Fraction):
    from flint import arb, fmpq

    return arb(fmpq(value.numerator, value.denominator))


@lru_cache(maxsize=None)
def _finite_arrays(prior: Prior):
    values = np.array([float(v) for v, _ in prior.support])
    logp = np.log(np.array([float(q) for _, q in prior.support]))
    return values, logp


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


def _takes(names) -> str:
    return "no arguments" if not names else "arguments " + ", ".join(names)


@lru_cache(maxsize=1024)
def parse_prior(spec) -> Prior:
    """Parse and validate a prior spec (see the module doc); ``ValueError`` names the problem."""
    if isinstance(spec, Prior):
        return spec
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
    if family not in _SIGNATURES:
        raise ValueError(f"`prior` must be one of {FAMILIES} (optionally with arguments), got {spec!r}")
    names = _SIGNATURES[family]
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
        given[key] = _value(val, spec)
    params = dict(_DEFAULTS.get(family, {}))
    params.update(given)
    missing = [n for n in names if n not in params]
    if missing:
        raise ValueError(f"`prior` {family} needs {', '.join(missing)}, got {spec!r}")
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
                             f"(sum {_format(sum(probs))})")
        _check_magnitude(values, spec)
        atoms = sorted((v, q) for v, q in zip(values, probs) if q > 0)
        if all(v == 0 for v, _ in atoms):
            raise ValueError(f"`prior` discrete law puts all its mass on 0 (no signal), got {spec!r}")
        params = {"values": tuple(v for v, _ in atoms), "probs": tuple(q for _, q in atoms)}
    prior = Prior(family, tuple((n, params[n]) for n in names))
    if prior.mean < 0:
        raise ValueError(f"`prior` must have mean E s >= 0, got E s = {_format(prior.mean)} for {spec!r} "
                         f"(the law of -s gives the mirror-image model, rho -> -rho: use it instead)")
    return prior


def canonical_prior(spec) -> str:
    """The canonical spec string of ``spec`` (validated)."""
    return parse_prior(spec).spec
