"""The :class:`Prior`: one validated law of ``s``, its identity, exact moments and MGF.

The tilted-law evaluators (:mod:`._tilted`) and the sampler (:mod:`._sample`) are
reached through its methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from . import _sample, _tilted
from ._syntax import format_number


@dataclass(frozen=True)
class Prior:
    """A validated signal prior. Build one with :func:`theory._laws.parse_prior`.

    ``str(prior)`` is its canonical spec (:attr:`spec`), the form every record prints.

    Attributes
    ----------
    family : str
        One of :data:`theory._laws.FAMILIES`.
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
                args.append(f"{name}=[{', '.join(format_number(v) for v in value)}]")
            else:
                args.append(f"{name}={format_number(value)}")
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
            return tuple(zip(self.values, self.probs, strict=True))
        return None

    def _atoms(self) -> tuple:
        """:attr:`support` of a finite law (every family but the Gaussian)."""
        support = self.support
        assert support is not None, f"{self.family} has no finite support"
        return support

    @property
    def mean(self) -> Fraction:
        """``E s``, exactly."""
        if self.family == "gaussian":
            return self.mu
        return sum((v * q for v, q in self._atoms()), Fraction(0))

    @property
    def second_moment(self) -> Fraction:
        """``E s^2``, exactly."""
        if self.family == "gaussian":
            return self.mu**2 + self.tau**2
        return sum((v * v * q for v, q in self._atoms()), Fraction(0))

    def mgf(self, t):
        """The sympy moment generating function ``M(t)`` (exact rational parameters)."""
        if self.family == "gaussian":
            mu, tau = sp.Rational(self.mu), sp.Rational(self.tau)
            return sp.exp(mu * t + tau**2 * t**2 / 2)
        return sp.Add(*(sp.Rational(q) * sp.exp(sp.Rational(v) * t) for v, q in self._atoms()))

    def exponent_bound(self, x: float) -> float:
        """An upper bound of ``|log M_s(t)|`` for ``|t| <= x`` (guard digits, overflow checks)."""
        if self.family == "gaussian":
            return abs(float(self.mu)) * x + 0.5 * float(self.tau) ** 2 * x * x
        return max(abs(float(v)) for v, _ in self._atoms()) * x

    # ------------------------------------------------------------------ tilted law, sampling
    def tilted(self, t):
        """``log M(t)``, the tilted mean ``mu1(t)`` and variance ``v(t)`` (float arrays, no overflow
        beyond ``log M`` itself); see :func:`theory._laws._tilted.tilted`."""
        return _tilted.tilted(self, t)

    def tilted_ball(self, t):
        """``log M``, ``mu1``, ``v`` and the third central moment ``k3 = dv/dt`` of the tilted
        law at the python-flint ``arb`` ball ``t``; see :func:`theory._laws._tilted.tilted_ball`."""
        return _tilted.tilted_ball(self, t)

    def tilted_mp(self, t):
        """``log M``, ``mu1``, ``v`` at the mpmath number ``t`` (working precision of the caller)."""
        return _tilted.tilted_mp(self, t)

    def sample(self, gen, size: int):
        """``size`` draws of ``s`` from ``gen`` (float array); see :func:`theory._laws._sample.sample`."""
        return _sample.sample(self, gen, size)
