"""A prior whose numeric parameters are ranges: ``gaussian(mu=0.5:1, tau=0.2)``.

:func:`parse_ranged_prior` reads a spec whose numbers may be ranges ``LO:HI`` (the same
syntax as the model's ranges on the command line), checks every corner of the parameter
box as a point prior (:func:`theory.parse_prior`: probabilities in range, ``E s >= 0``,
...; the constraints are intervals or, for the Gaussian, ``tau >= 0`` and not
``mu = tau = 0``, so the corners decide them for the whole box) and returns a
:class:`RangedPrior`. :meth:`RangedPrior.ball` gives the law on a sub-box whose
parameters are ``arb`` balls: its :meth:`BallPrior.tilted_ball` encloses the tilted law
of *every* prior in the sub-box (what :func:`theory.certify_region` needs to prove a
status for every parameter at once).

Rangeable: ``rademacher(p)``, ``bernoulli(p)``, ``gaussian(mu, tau)``; the lists of
``discrete`` are not (a range of probabilities would have to keep their sum 1).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from . import _tilted
from ._law import Prior
from ._parse import parse_prior
from ._syntax import SIGNATURES, Range, format_number, read

#: the families whose parameters may be ranges
RANGEABLE = ("rademacher", "bernoulli", "gaussian")


@dataclass(frozen=True)
class RangedPrior:
    """A prior family with some numeric parameters given as ranges.

    Attributes
    ----------
    family : str
    params : tuple
        ``(name, value)`` pairs in the family's order; a value is a fraction or, for a
        ranged parameter, a pair ``(lo, hi)`` of fractions.
    """

    family: str
    params: tuple[tuple[str, Fraction | tuple[Fraction, Fraction]], ...]

    @property
    def ranges(self) -> dict:
        """``name -> (lo, hi)`` (floats) of the ranged parameters, in the family's order."""
        return {k: (float(v[0]), float(v[1])) for k, v in self.params if isinstance(v, tuple)}

    @property
    def spec(self) -> str:
        """The canonical text: ``gaussian(mu=0.5:1, tau=0.2)``."""
        def text(v):
            return f"{format_number(v[0])}:{format_number(v[1])}" if isinstance(v, tuple) else format_number(v)

        return f"{self.family}({', '.join(f'{k}={text(v)}' for k, v in self.params)})"

    def __str__(self) -> str:
        return self.spec

    def at(self, **values: float | Fraction) -> Prior:
        """The point :class:`Prior` with the ranged parameters at ``values`` (floats or
        fractions; missing ones at their lower end)."""
        args = []
        for k, v in self.params:
            if isinstance(v, tuple):
                x = values.get(k, v[0])
                v = x if isinstance(x, Fraction) else Fraction(x)
            args.append(f"{k}={format_number(v)}")
        return parse_prior(f"{self.family}({', '.join(args)})")

    def ball(self, bounds: dict) -> BallPrior:
        """The :class:`BallPrior` of the sub-box ``bounds`` (``name -> (lo, hi)`` floats for
        every ranged parameter), each parameter an ``arb`` ball covering its interval."""
        from flint import arb

        balls = {}
        for k, v in self.params:
            if isinstance(v, tuple):
                lo, hi = bounds[k]
                balls[k] = arb(lo).union(arb(hi))
            else:
                balls[k] = _tilted._arb(v)
        fixed_mean = None
        mu = dict(self.params).get("mu")
        if self.family == "gaussian" and not isinstance(mu, tuple):
            fixed_mean = mu
        return BallPrior(self.spec, self.family, tuple(balls.items()), fixed_mean)


@dataclass(frozen=True)
class BallPrior:
    """The laws of a box of prior parameters (``arb`` balls), as the sign functions read a
    prior: ``spec``, ``family``, ``mean`` (exact when constant on the box, else ``None``)
    and :meth:`tilted_ball`."""

    spec: str
    family: str
    balls: tuple
    mean: Fraction | None = None

    def tilted_ball(self, t):
        """``log M``, ``mu1``, ``v``, ``k3`` of the tilted law at the ball ``t``, enclosing them
        for every prior of the box (:func:`theory._laws._tilted.tilted_ball`)."""
        b = dict(self.balls)
        if self.family == "gaussian":
            return _tilted.gaussian_ball(b["mu"], b["tau"] * b["tau"], t)
        p = b["p"]
        low = Fraction(-1) if self.family == "rademacher" else Fraction(0)
        return _tilted.finite_ball([(low, 1 - p), (Fraction(1), p)], t)


@dataclass(frozen=True)
class WidePrior:
    """A point :class:`Prior` of three or more atoms as a region certificate reads it: the same
    law (``spec``, ``family``, ``mean``), with :meth:`tilted_ball` enclosing the tilted law
    tightly over every point of a wide ``t`` (:func:`theory._laws._tilted.finite_range`).

    Attributes
    ----------
    prior : Prior
        The law.
    """

    prior: Prior
    # the grid law of each working precision (its kept cells are what make it fast)
    _grids: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    @cached_property
    def spec(self) -> str:
        """The prior's canonical spec."""
        return self.prior.spec

    @cached_property
    def mean(self) -> Fraction:
        """``E s``, exactly."""
        return self.prior.mean

    @property
    def family(self) -> str:
        """The prior's family."""
        return self.prior.family

    def __str__(self) -> str:
        return self.spec

    def tilted_ball(self, t):
        """``log M``, ``mu1``, ``v``, ``k3`` of the tilted law holding their values at every point
        of the ``arb`` ball ``t`` (an ``arb_series`` ``t``: :meth:`Prior.tilted_ball`)."""
        from flint import arb, ctx

        if not isinstance(t, arb):
            return self.prior.tilted_ball(t)
        grid = self._grids.get(ctx.prec)
        if grid is None:
            grid = self._grids[ctx.prec] = _tilted.grid_law(self.prior.support, ctx.prec)
        return grid.enclose(t)


def region_law(prior: Prior):
    """The law a region certificate reads for the point prior ``prior``: a :class:`WidePrior`
    for a finite law of three or more atoms (the point formulas over a wide ball are far too
    wide there), else ``prior`` itself (the two-point laws' logistic form and the Gaussian's
    polynomials hold ``t`` once and are tight already)."""
    support = prior.support
    return WidePrior(prior) if support is not None and len(support) >= 3 else prior


def parse_ranged_prior(spec) -> RangedPrior | Prior:
    """A :class:`RangedPrior` when some parameter of ``spec`` is a range ``LO:HI``, else the
    point :class:`Prior` of :func:`theory.parse_prior` (a :class:`RangedPrior` or
    :class:`Prior` is returned as it is). ``ValueError`` names the problem."""
    if isinstance(spec, RangedPrior) or not isinstance(spec, str):
        return spec if isinstance(spec, RangedPrior) else parse_prior(spec)
    family, params = read(spec, ranges=True)
    ranged = [k for k, v in params.items() if isinstance(v, Range)]
    if not ranged:
        return parse_prior(spec)
    if family not in RANGEABLE:
        raise ValueError(f"`prior` ranges LO:HI are for the parameters of {', '.join(RANGEABLE)}, "
                         f"not {family}: got {spec!r}")
    out = RangedPrior(family, tuple((k, tuple(params[k]) if k in ranged else params[k])
                                    for k in SIGNATURES[family]))
    # every corner must be a valid prior; the constraints are convex, so then every point is
    for corner in itertools.product(*(params[k] for k in ranged)):
        try:
            out.at(**dict(zip(ranged, corner, strict=True)))
        except ValueError as exc:
            where = ", ".join(f"{k}={format_number(v)}" for k, v in zip(ranged, corner, strict=True))
            raise ValueError(f"`prior` range {spec!r} holds an invalid prior at its corner {where}: "
                             f"{str(exc).removeprefix('`prior` ')}") from None
    return out
