"""Laws of the k-dimensional signal ``s_i`` in the subspace model (docs/subspace.md).

Informative tokens are ``x_i = theta U s_i + z_i`` with ``U = [xi_1 ... xi_k]`` orthonormal and
``s_i`` in ``R^k`` drawn from one of these laws:

==========================================  ==================================================
spec                                        law of ``s``
==========================================  ==================================================
``onehot(k=2)``, ``onehot(k=3, probs=[..])``  ``s = e_j`` with probability ``p_j`` (equal by default)
``gaussian(k=2, tau=1/2)``                   ``N(mu, tau^2 I_k)``, ``mu = 0`` unless ``mu=[...]``
``discrete(vectors=[[1, 0], [0, 1]],``       ``s = v_j`` with probability ``p_j`` (``k`` = the
``probs=[1/2, 1/2])``                         vectors' length; ``k = 1`` is the scalar ``discrete``)
any scalar prior spec (``rademacher``, ...)  ``k = 1``, the scalar prior of :mod:`theory._laws`
==========================================  ==================================================

The law enters the limit only through its moment generating function on ``R^k``,
``M(t) = E exp(<t, s>)`` (:meth:`SignalLaw.mgf`). Specs are read without ``eval``: named
arguments only, numbers read exactly as fractions. A ``k = 1`` law is always held in
its scalar form (family ``scalar``, a :class:`Prior`): ``onehot(k=1)`` is the ``fixed`` prior and
``gaussian(k=1, tau, mu=[m])`` is ``gaussian(m, tau)``, so one law has one canonical spec.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from ._law import Prior
from ._parse import parse_prior

#: the k-dimensional families (a scalar prior is the family ``scalar``)
LAW_FAMILIES = ("onehot", "gaussian", "discrete", "scalar")
#: the largest k a law may have (the sympy derivation grows with k)
MAX_K = 8

_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,2})?(/\d+)?\s*$")
_ARG = re.compile(r"\s*([a-z]+)\s*=\s*(\[[^\]]*\]|[^,\[\]]+)\s*(,|$)")


@dataclass(frozen=True)
class SignalLaw:
    """A validated law of ``s`` in ``R^k``; build one with :func:`parse_law`.

    Attributes
    ----------
    family : str
        One of :data:`LAW_FAMILIES`.
    k : int
        Dimension of the signal subspace.
    probs : tuple of Fraction
        ``onehot``: the probabilities of the ``k`` directions.
    tau : Fraction
        ``gaussian``: the standard deviation of each coordinate.
    mu : tuple of Fraction
        ``gaussian``: the mean vector.
    prior : Prior or None
        ``scalar``: the scalar prior (``k = 1``).
    vectors : tuple of tuple of Fraction
        ``discrete``: the atoms ``v_j`` (with ``probs`` their probabilities).
    """

    family: str
    k: int
    probs: tuple = ()
    tau: Fraction = Fraction(0)
    mu: tuple = ()
    prior: Prior | None = None
    vectors: tuple = ()

    @property
    def spec(self) -> str:
        """Canonical spec (default arguments left out)."""
        if self.family == "scalar":
            return str(self.prior)
        if self.family == "discrete":
            vecs = ", ".join("[" + ", ".join(map(str, v)) + "]" for v in self.vectors)
            return f"discrete(vectors=[{vecs}], probs=[{', '.join(map(str, self.probs))}])"
        if self.family == "onehot":
            if all(p == Fraction(1, self.k) for p in self.probs):
                return f"onehot(k={self.k})"
            return f"onehot(k={self.k}, probs=[{', '.join(map(str, self.probs))}])"
        text = f"gaussian(k={self.k}, tau={self.tau}"
        return text + (f", mu=[{', '.join(map(str, self.mu))}])" if any(self.mu) else ")")

    def __str__(self) -> str:
        return self.spec

    @property
    def _scalar_prior(self) -> Prior:
        """The :attr:`prior` of a ``scalar`` law."""
        assert self.prior is not None, "a scalar law holds its prior"
        return self.prior

    def mgf(self, t) -> sp.Expr:
        """The sympy MGF ``M(t) = E exp(<t, s>)`` at the ``k`` sympy expressions ``t``."""
        t = tuple(t)
        if len(t) != self.k:
            raise ValueError(f"`t` must have k = {self.k} entries, got {len(t)}")
        if self.family == "scalar":
            return self._scalar_prior.mgf(t[0])
        if self.family == "onehot":
            return sp.Add(*(sp.Rational(p) * sp.exp(tj) for p, tj in zip(self.probs, t, strict=True)))
        if self.family == "discrete":  # M(t) = sum_j p_j exp(<t, v_j>)
            return sp.Add(*(sp.Rational(p) * sp.exp(sum(sp.Rational(x) * tj for x, tj in zip(v, t, strict=True)))
                            for p, v in zip(self.probs, self.vectors, strict=True)))
        tau = sp.Rational(self.tau)
        return sp.exp(sum(sp.Rational(m) * tj + tau**2 * tj**2 / 2 for m, tj in zip(self.mu, t, strict=True)))

    @property
    def atoms(self) -> tuple | None:
        """``((prob, vector), ...)`` as fractions for a finite law, ``None`` for a Gaussian one."""
        if self.family == "onehot":
            return tuple((p, tuple(Fraction(int(i == j)) for i in range(self.k)))
                         for j, p in enumerate(self.probs) if p)
        if self.family == "discrete":
            return tuple((p, v) for p, v in zip(self.probs, self.vectors, strict=True) if p)
        if self.family == "scalar" and self._scalar_prior.support is not None:
            return tuple((q, (v,)) for v, q in self._scalar_prior.support)
        return None

    @property
    def gaussian_moments(self) -> tuple:
        """``(mean vector, tau)`` of a Gaussian law (either family), as fractions."""
        if self.family == "gaussian":
            return self.mu, self.tau
        if self.family == "scalar" and self._scalar_prior.family == "gaussian":
            return (self._scalar_prior.mu,), self._scalar_prior.tau
        raise ValueError(f"`law` {self} is not Gaussian")


def _number(text: str, spec: str) -> Fraction:
    if not _NUMBER.match(text):
        raise ValueError(f"`law` has a value that is not a finite number: {text.strip()!r} in {spec!r}")
    num, _, den = text.strip().partition("/")
    if den and int(den) == 0:
        raise ValueError(f"`law` has a zero denominator in {spec!r}")
    return Fraction(num) / (int(den) if den else 1)


def _arguments(body: str, spec: str) -> dict:
    """Named arguments ``name=value`` or ``name=[v, ...]`` of a spec body."""
    out: dict[str, Fraction | tuple[Fraction, ...]] = {}
    pos = 0
    body = body.strip()
    while pos < len(body):
        match = _ARG.match(body, pos)
        if not match:
            raise ValueError(f"`law` arguments must be named (k=2, probs=[...]), got {spec!r}")
        name, value = match.group(1), match.group(2).strip()
        if name in out:
            raise ValueError(f"`law` argument {name} given twice in {spec!r}")
        if value.startswith("["):
            out[name] = tuple(_number(v, spec) for v in value[1:-1].split(","))
        else:
            out[name] = _number(value, spec)
        pos = match.end()
    return out


def _dimension(args: dict, spec: str) -> int:
    k = args.get("k")
    if k is None or k.denominator != 1 or not 1 <= k <= MAX_K:
        raise ValueError(f"`law` needs an integer k in [1, {MAX_K}], got {spec!r}")
    return int(k)


def parse_law(spec) -> SignalLaw:
    """The :class:`SignalLaw` of ``spec``: a spec string, a :class:`Prior` or a law (returned).

    ``onehot(k=..., probs=[...])`` and ``gaussian(k=..., tau=..., mu=[...])`` are the
    k-dimensional families; any other string is read as a scalar prior spec
    (:func:`theory.parse_prior`) and gives ``k = 1``.
    """
    if isinstance(spec, SignalLaw):
        return spec
    if isinstance(spec, Prior):
        return SignalLaw("scalar", 1, prior=spec)
    if not isinstance(spec, str) or len(spec) > 2000:
        raise ValueError(f"`law` must be a spec such as 'onehot(k=2)' or 'gaussian(k=2, tau=1)', got {spec!r}")
    discrete = re.fullmatch(r"\s*discrete\s*\((.*)\)\s*", spec, flags=re.S | re.I)
    if discrete and re.search(r"\bvectors\s*=", discrete.group(1)):
        return _discrete(discrete.group(1), spec)
    match = re.fullmatch(r"\s*(onehot|gaussian)\s*\((.*)\)\s*", spec, flags=re.S | re.I)
    if not match or (match.group(1).lower() == "gaussian" and not re.search(r"\bk\s*=", match.group(2))):
        return SignalLaw("scalar", 1, prior=parse_prior(spec))
    family, args = match.group(1).lower(), _arguments(match.group(2), spec)
    k = _dimension(args, spec)
    allowed = {"onehot": {"k", "probs"}, "gaussian": {"k", "tau", "mu"}}[family]
    if set(args) - allowed:
        raise ValueError(f"`law` {family} takes {sorted(allowed)}, got {sorted(args)} in {spec!r}")
    if family == "onehot":
        probs = args.get("probs", tuple(Fraction(1, k) for _ in range(k)))
        if not isinstance(probs, tuple) or len(probs) != k or min(probs) < 0 or sum(probs) != 1:
            raise ValueError(f"`law` probs must be k = {k} non-negative numbers summing to 1, got {spec!r}")
        if k == 1:  # one law, one form: s = 1 is the fixed prior
            return SignalLaw("scalar", 1, prior=parse_prior("fixed"))
        return SignalLaw("onehot", k, probs=probs)
    tau = args.get("tau")
    mu = args.get("mu", tuple(Fraction(0) for _ in range(k)))
    if not isinstance(tau, Fraction) or tau < 0:
        raise ValueError(f"`law` gaussian needs tau >= 0, got {spec!r}")
    if not isinstance(mu, tuple) or len(mu) != k:
        raise ValueError(f"`law` gaussian mu must have k = {k} entries, got {spec!r}")
    if k == 1:  # one law, one form: the scalar gaussian prior
        return SignalLaw("scalar", 1, prior=parse_prior(f"gaussian(mu={mu[0]}, tau={tau})"))
    return SignalLaw("gaussian", k, tau=tau, mu=mu)


_VECTORS = re.compile(r"\bvectors\s*=\s*\[((?:\s*\[[^\[\]]*\]\s*,?)*)\s*\]")
_PROBS = re.compile(r"\bprobs\s*=\s*\[([^\[\]]*)\]")


def _discrete(body: str, spec: str) -> SignalLaw:
    """``discrete(vectors=[[..], ..], probs=[..])``, read without ``eval``; ``k = 1`` gives the
    scalar ``discrete`` prior."""
    vm, pm = _VECTORS.search(body), _PROBS.search(body)
    if vm is None or pm is None:
        raise ValueError(f"`law` discrete needs vectors=[[...], ...] and probs=[...], got {spec!r}")
    rest = body[:min(vm.start(), pm.start())] + body[min(vm.end(), pm.end()):max(vm.start(), pm.start())] + \
        body[max(vm.end(), pm.end()):]
    if rest.replace(",", "").strip():
        raise ValueError(f"`law` discrete takes only vectors=[[...], ...] and probs=[...], got {spec!r}")
    vectors = tuple(tuple(_number(x, spec) for x in inner.split(","))
                    for inner in re.findall(r"\[([^\[\]]*)\]", vm.group(1)))
    probs = tuple(_number(x, spec) for x in pm.group(1).split(","))
    if not vectors:
        raise ValueError(f"`law` discrete needs at least one vector, got {spec!r}")
    k = len(vectors[0])
    if any(len(v) != k for v in vectors) or not 1 <= k <= MAX_K:
        raise ValueError(f"`law` discrete vectors must all have the same length k in [1, {MAX_K}], got {spec!r}")
    if len(probs) != len(vectors) or min(probs) < 0 or sum(probs) != 1:
        raise ValueError(f"`law` discrete probs must be {len(vectors)} non-negative numbers (one per vector) "
                         f"summing to 1, got {spec!r}")
    if k == 1:
        values = ", ".join(str(v[0]) for v in vectors)
        return SignalLaw("scalar", 1,
                         prior=parse_prior(f"discrete(values=[{values}], probs=[{', '.join(map(str, probs))}])"))
    return SignalLaw("discrete", k, probs=probs, vectors=vectors)
