"""One parameter box of :func:`theory.certify_region`: tile ``[-1, 1]`` in ``rho`` with the
parameters as ``arb`` balls and audit the tiling (see :mod:`theory._region._certify`)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from flint import arb, fmpq

from .._certify._roots import _SPLIT, decide, sign

#: ``F'`` sign -> label (as :func:`theory.pole_signs` and the CLI use them; the k = 2 walk's too)
_LABEL = {-1: "stable", 1: "unstable"}


@dataclass(frozen=True)
class BallModel:
    """A model whose parameters are ``arb`` balls (what the sign functions read); ``prior``
    is a point :class:`theory.Prior` or the :class:`theory._laws.BallPrior` of a box."""

    prior: object
    theta: object
    alpha: object
    beta: object
    sigma2: object
    sparse: bool


class RhoTile(NamedTuple):
    """A tile ``[lo, hi]`` of ``rho`` (exact rationals while proving, floats in a proof): ``kind``
    ``"sign"`` (``g`` of the sign ``sign`` on it) or ``"root"`` (one simple root, ``g'`` of the sign
    ``sign``)."""

    lo: Any
    hi: Any
    kind: str
    sign: int


class Bracket(NamedTuple):
    """The one interior equilibrium of a bistable box: in ``(lo, hi)`` for every parameter (``lo == hi``
    when ``exact``), of that ``stability``."""

    lo: float
    hi: float
    stability: str
    exact: bool


class Proved(NamedTuple):
    """What :func:`prove_box` proved on a box (the fields of :class:`theory._region._certify.RegionBox`
    after ``bounds``)."""

    status: str
    equilibrium: Bracket | None
    poles: tuple
    tiles: tuple


def _tiles(g, dg, rho_min: fmpq, max_tiles: int):
    """Tiles (:class:`RhoTile`) covering ``[-1, 1]`` left to right, or ``None`` when
    a tile narrower than ``rho_min`` (or the budget) is reached undecided."""

    def tile(a: fmpq, b: fmpq) -> RhoTile | None:
        kind, s = decide(g, dg, a, b)
        return None if kind is None else RhoTile(a, b, kind, s)

    return bisect([(fmpq(-1), fmpq(1))], tile, lambda p: sign(g(arb(p))), rho_min, max_tiles)


#: where an interval of exact rationals is split, in order of preference (not dyadic: an exact zero such
#: as ``u = 1/4`` never lands on an end)
SPLIT_FRACTIONS = (_SPLIT, fmpq(1, 3), fmpq(2, 3), fmpq(1, 5), fmpq(4, 5))


def split_where(end_sign, a: fmpq, b: fmpq) -> fmpq:
    """The first point of ``[a, b]`` at one of :data:`SPLIT_FRACTIONS` where ``end_sign`` (a certified
    sign, ``0`` for none) is nonzero, else the first: a split point that a zero passes through for some
    parameter would leave both halves undecided at every depth."""
    return next((a + (b - a) * q for q in SPLIT_FRACTIONS if end_sign(a + (b - a) * q)),
                a + (b - a) * SPLIT_FRACTIONS[0])


#: hint points are rounded to this odd denominator (bounded size; never a multiple of ``1/4``)
_HINT_DENOMINATOR = 3 ** 13


def cut_at(a: fmpq, b: fmpq, points, end_sign=None) -> list:
    """``[a, b]`` cut at those of the ``points`` strictly inside it (rounded to multiples of ``1 / 3^13``)
    where ``end_sign`` (if given) is nonzero (a cut through a zero leaves both sides undecided), as a
    list of intervals from ``a`` up."""
    rounded = {fmpq(round(float(p) * _HINT_DENOMINATOR), _HINT_DENOMINATOR) for p in points}
    ends = [a, *sorted(q for q in rounded if a < q < b and (end_sign is None or end_sign(q))), b]
    return list(itertools.pairwise(ends))


def bisect(stack: list, decide_piece, end_sign, width: fmpq, budget: int) -> list | None:
    """The pieces ``decide_piece(a, b)`` (``None``: undecided) of the intervals ``stack`` (the last one
    first), left to right, each undecided one split at :func:`split_where` of ``end_sign``; ``None`` when
    an undecided piece is narrower than ``width`` or more than ``budget`` pieces are tried."""
    out, count = [], 0
    while stack:
        a, b = stack.pop()
        count += 1
        got = decide_piece(a, b) if count <= budget else None
        if got is not None:
            out.append(got)
            continue
        if count > budget or b - a < width:
            return None
        p = split_where(end_sign, a, b)
        stack += [(p, b), (a, p)]
    return out


def audit(tiles, root_at_zero: bool) -> str | None:
    """The status a tiling proves, or ``None``: the tiles must cover ``[-1, 1]`` without
    gaps; no root tile and ``g > 0`` -> ``"monotone"``; exactly one root tile between tiles
    of opposite sign (consistent with ``g'``) -> ``"bistable"``; for a mean-zero prior
    (``root_at_zero``) no root tile and one sign of ``k`` -> ``"bistable"`` (``rho = 0``)."""
    if not tiles or tiles[0].lo != -1 or tiles[-1].hi != 1:
        return None
    if any(t.hi != u.lo for t, u in itertools.pairwise(tiles)):
        return None
    roots = [i for i, t in enumerate(tiles) if t.kind == "root"]
    signs = {t.sign for t in tiles if t.kind == "sign"}
    if root_at_zero:
        return "bistable" if not roots and len(signs) == 1 else None
    if not roots:
        return "monotone" if signs == {1} else None
    if len(roots) != 1:
        return None
    i, slope = roots[0], tiles[roots[0]].sign
    left = {t.sign for t in tiles[:i]}
    right = {t.sign for t in tiles[i + 1:]}
    # g rises through the root iff g' > 0 there: the sign left of it is -slope, right +slope
    if left - {-slope} or right - {slope}:
        return None
    return "bistable"


def prove_box(bm: BallModel, sign_functions, rho_min: fmpq, max_tiles: int) -> Proved | None:
    """What is proved on the box, or ``None``."""
    g, dg, _, root_at_zero = sign_functions(bm)
    s_plus, s_minus = sign(g(arb(1))), sign(g(arb(-1)))
    if not s_plus or not s_minus:  # a pole on (or near) the boundary: nothing to prove
        return None
    tiles = _tiles(g, dg, rho_min, max_tiles)
    status = audit(tiles, root_at_zero) if tiles is not None else None
    if status is None:
        return None
    # F'(+1) = -2 j'(1); F'(-1) = 2 j'(-1); j' = P g (P > 0), or P rho k (mean-zero prior)
    poles = (_LABEL[-s_plus], _LABEL[-s_minus if root_at_zero else s_minus])
    equilibrium = None
    if status == "bistable":
        if root_at_zero:
            equilibrium = Bracket(0.0, 0.0, _LABEL[s_plus], True)  # F'(0) = c k(0), k of one sign
        else:
            i = next(i for i, t in enumerate(tiles) if t.kind == "root")
            a, b, _, slope = tiles[i]
            # [A, a] and [b, B] keep g' of one sign and their end signs: no zero there
            A, B = a, b
            a, b = _narrow(g, A, B, -slope)
            tiles[i:i + 1] = [t for t in (RhoTile(A, a, "sign", -slope), RhoTile(a, b, "root", slope),
                                          RhoTile(b, B, "sign", slope)) if t.lo < t.hi]
            # outward rounding of the rational ends keeps the root inside [lo, hi]
            lo, hi = _floor(a), _ceil(b)
            equilibrium = Bracket(lo, hi, _LABEL[slope], False)
    return Proved(status, equilibrium, poles, tuple(RhoTile(float(a), float(b), k, s) for a, b, k, s in tiles))


def _narrow(g, a: fmpq, b: fmpq, left: int, steps: int = 60):
    """Shrink a root tile ``[a, b]`` (``g(a)`` of sign ``left``, ``g(b)`` opposite, for every
    parameter) by bisection while ``g`` at a split point has a certified sign."""
    for _ in range(steps):
        points = (a + (b - a) * frac for frac in (fmpq(1, 2), *SPLIT_FRACTIONS[1:]))
        found = next(((p, s) for p in points if (s := sign(g(arb(p))))), None)
        if found is None:
            return a, b
        a, b = (found[0], b) if found[1] == left else (a, found[0])
    return a, b


def _floor(q: fmpq) -> float:
    x = float(q)
    return x if fmpq(*x.as_integer_ratio()) <= q else math.nextafter(x, -math.inf)


def _ceil(q: fmpq) -> float:
    x = float(q)
    return x if fmpq(*x.as_integer_ratio()) >= q else math.nextafter(x, math.inf)
