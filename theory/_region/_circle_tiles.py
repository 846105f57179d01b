"""The circle of a ``k = 2`` region leaf (:mod:`theory._region._circle`): the parameter balls of a leaf,
the sign and root tiles of the tangential field ``T`` on ``u`` in ``[-1, 1]`` (``phi = pi u``) and
their audit."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import NamedTuple

from flint import arb, fmpq

from .._certify._roots import _SPLIT, sign
from ._circle_forms import Offsets, enclose, second_order
from ._circle_taylor import K2Field
from ._proof import cut_at, split_where

#: budgets of one proof attempt: angle tiles and disk squares (a leaf that runs out is split, and its
#: halves rework only what is left)
_MAX_TILES, _MAX_SQUARES = 250, 1000
#: pieces a tile whose ends bracket a zero of ``T`` may be cut into to certify ``T'`` monotone on it
_MONOTONE_PIECES = 8
#: tiles wider than this (in ``u``, ``phi = pi u``) are split without a proof attempt
_WIDEST = fmpq(1, 16)
_QUARTER = fmpq(1, 4)


class ArcTile(NamedTuple):
    """A tile ``[lo, hi]`` of ``u``: ``kind`` ``"sign"`` (``T`` of the sign ``sign`` on it), ``"root"``
    (exactly one zero of ``T``, simple, ``T'`` of the sign ``sign``, the radial eigenvalue ``-2 lam`` of
    the sign ``radial``; ``0``: the condition ``("lam", c)`` of :mod:`theory._region._circle_symmetric`)
    or ``"fork"`` (a tile about a point of symmetry, there)."""

    lo: fmpq
    hi: fmpq
    kind: str
    sign: int
    radial: int = 0


@dataclass(frozen=True)
class _Leaf:
    """The parameter balls of one leaf: ``P`` (covering it) and ``pc`` (its centre), the offsets
    ``Theta - theta_c``, ``A - alpha_c`` (and ``o``, the offsets of the centre angle or point), and
    ``floats = ((theta_lo, theta_hi, alpha_lo, alpha_hi), beta, sigma2)``."""

    P: tuple
    pc: tuple
    dth: arb
    dal: arb
    o: Offsets
    floats: tuple

    @classmethod
    def of(cls, t0: float, t1: float, a0: float, a1: float, beta: float, sigma2: float) -> _Leaf:
        tc, ac = 0.5 * (t0 + t1), 0.5 * (a0 + a1)
        Th, A = arb(t0).union(arb(t1)), arb(a0).union(arb(a1))
        b, s = arb(beta), arb(sigma2)
        dth, dal = Th - tc, A - ac
        return cls((Th, A, b, s), (arb(tc), arb(ac), b, s), dth, dal, Offsets.of(arb(0), dth, dal),
                   ((t0, t1, a0, a1), beta, sigma2))


@dataclass
class _Circle:
    """Evaluations on the circle for one leaf, with caches of the end signs of ``T`` and of the tiles'
    enclosures."""

    f: K2Field
    leaf: _Leaf
    ends: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    slope_balls: dict = field(default_factory=dict)

    def end_sign(self, u: fmpq) -> int:
        """The certified sign of ``T`` at ``phi = pi u`` for every parameter of the leaf."""
        if u not in self.ends:
            lf = self.leaf
            phi = arb.pi() * arb(u)
            c, s = phi.cos(), phi.sin()
            zero = arb(0)
            jet, hess = self.f.tangent_jet(c, s, *lf.pc), (zero, zero, zero, *self.f.end_hess(c, s, *lf.P))
            self.ends[u] = sign(second_order(jet, hess, lf.o))
        return self.ends[u]

    def _forms(self, cache: dict, jet, hess, a: fmpq, b: fmpq) -> tuple:
        """The second-order forms (:mod:`theory._region._circle_forms`) of the functions of ``jet``,
        ``hess`` on the tile ``[a, b]`` about its centre and the leaf's, kept in ``cache``."""
        if (a, b) not in cache:
            lf, pi = self.leaf, arb.pi()
            X, c = pi * arb(a).union(arb(b)), pi * arb((a + b) / 2)
            cache[(a, b)] = enclose(jet(c.cos(), c.sin(), *lf.pc), hess(X.cos(), X.sin(), *lf.P),
                                    Offsets.of(X - c, lf.dth, lf.dal))
        return cache[(a, b)]

    def tangent(self, a: fmpq, b: fmpq) -> arb:
        """A ball containing ``T`` on the tile ``[a, b]`` for every parameter of the leaf."""
        return self._forms(self.values, self.f.tangent_jet, self.f.tangent_hess, a, b)[0]

    def slopes(self, a: fmpq, b: fmpq) -> tuple:
        """Balls containing ``(T', lam)`` on the tile ``[a, b]`` for every parameter of the leaf."""
        return self._forms(self.slope_balls, self.f.slope_jet, self.f.slope_hess, a, b)

    def decide(self, a: fmpq, b: fmpq) -> ArcTile | None:
        """The sign or root tile ``[a, b]``, or ``None``."""
        s = sign(self.tangent(a, b))
        if s:
            return ArcTile(a, b, "sign", s)
        T1, lam = self.slopes(a, b)
        ds = sign(T1)
        if not ds:
            return None
        sa, sb = self.end_sign(a), self.end_sign(b)
        if sa and sa == sb:
            return ArcTile(a, b, "sign", sa)  # T monotone on the tile, one sign at both ends
        if sa != -ds or sb != ds:
            return None
        radial = -sign(lam)
        return ArcTile(a, b, "root", ds, radial) if radial else None

    def slope_signs(self, a: fmpq, b: fmpq) -> tuple:
        """The certified signs of ``T'`` and of ``-2 lam`` on the tile ``[a, b]`` (0: undecided)."""
        T1, lam = self.slopes(a, b)
        return sign(T1), -sign(lam)

    def monotone(self, a: fmpq, b: fmpq, budget: int) -> tuple[ArcTile | None, int]:
        """``(root tile or None, evaluations)``: the root tile ``[a, b]`` when ``T`` has
        opposite certified signs at the ends of ``[a, b]`` and ``T'`` and ``lam`` one certified sign
        each on pieces (at most ``budget``, by bisection) covering it (as :meth:`cluster`)."""
        sa, sb = self.end_sign(a), self.end_sign(b)
        if not sa or sa == sb:
            return None, 0
        stack, count, signs = [(a, b)], 0, set()
        while stack and count < budget:
            x, y = stack.pop()
            count += 1
            ds, radial = self.slope_signs(x, y)
            if ds and radial:
                signs.add((ds, radial))
                if len(signs) > 1 or ds != sb:
                    return None, count
            else:
                p = x + (y - x) * _SPLIT
                stack += [(p, y), (x, p)]
        if stack:
            return None, count
        return ArcTile(a, b, "root", *signs.pop()), count

    def cluster(self, a: fmpq, b: fmpq, pieces) -> ArcTile | None:
        """The root tile ``[a, b]`` when the pieces covering it prove one simple zero of ``T`` in it
        (:func:`_tile`), else ``None``."""
        signs = {self.slope_signs(x, y) for x, y in pieces}
        if len(signs) != 1:
            return None
        ds, radial = signs.pop()
        if not ds or not radial or self.end_sign(a) != -ds or self.end_sign(b) != ds:
            return None
        return ArcTile(a, b, "root", ds, radial)


def _tile(circle: _Circle, pending, u_min: fmpq, max_tiles: int, cuts=()):
    """Bisect the intervals ``pending``: the decided tiles and the (merged) intervals left. A tile is split
    where ``T`` has a certified sign for every parameter if one of
    :data:`theory._region._proof.SPLIT_FRACTIONS` gives one: a split point that a zero passes
    through for some parameter of the leaf would leave both halves undecided at every depth.
    Undecided pieces narrower than ``u_min``, or with no certified sign of ``T`` at either end
    (inside the band a zero sweeps over the leaf, where splitting only makes more such pieces), are
    merged into clusters, and a cluster is a root tile when ``T'`` and ``lam`` have one certified
    sign on all its pieces and ``T`` opposite certified signs at its ends (a zero that moves with
    the parameters stays inside the cluster). The intervals are first cut at ``cuts``
    (:func:`theory._region._proof.cut_at`)."""
    pending = [piece for a, b in pending for piece in cut_at(a, b, cuts)]  # a cut through a zero: a cluster
    tiles, fine, rest, stack, count = [], [], [], list(reversed(pending)), 0
    while stack:
        a, b = stack.pop()
        if b - a > _WIDEST:  # the second-order form is useless there: split without trying
            stack += _halves(circle, a, b)
            continue
        count += 1
        out = circle.decide(a, b) if count <= max_tiles else None
        if out is not None:
            tiles.append(out)
        elif count > max_tiles:
            rest.append((a, b))
        elif b - a < u_min or not (circle.end_sign(a) or circle.end_sign(b)):  # inside a zero's band
            fine.append((a, b))
        elif (root := circle.monotone(a, b, _MONOTONE_PIECES))[0] is not None:
            tiles.append(root[0])
            count += root[1]
        else:
            count += root[1]
            stack += _halves(circle, a, b)
    for a, b in _merge(fine):
        tile = circle.cluster(a, b, [(x, y) for x, y in fine if a <= x and y <= b])
        if tile is None:
            rest.append((a, b))
        else:
            tiles.append(tile)
    return tiles, _merge(rest)


def _halves(circle: _Circle, a: fmpq, b: fmpq) -> list:
    """``[(p, b), (a, p)]``, ``p`` where ``T`` has a certified sign if it has one at some
    :data:`theory._region._proof.SPLIT_FRACTIONS` of ``[a, b]`` (:func:`_tile`)."""
    p = split_where(circle.end_sign, a, b)
    return [(p, b), (a, p)]


def _merge(pieces) -> list:
    out: list = []
    for a, b in sorted(pieces):
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def audit_circle(tiles) -> bool:
    """True iff the tiles cover ``u`` in ``[-1, 1]`` contiguously and their signs are cyclically
    consistent: ``T`` is ``-s`` left of a root tile of tangent sign ``s`` and ``+s`` right of it."""
    tiles = sorted(tiles, key=lambda t: t.lo)
    if not tiles or tiles[0].lo != -1 or tiles[-1].hi != 1:
        return False
    if any(t.hi != u.lo for t, u in itertools.pairwise(tiles)):
        return False
    for t, right in zip(tiles, [*tiles[1:], tiles[0]], strict=True):
        after = right.sign if right.kind == "sign" else -right.sign  # T just right of t's right end
        if t.sign != after:  # sign tile: its sign; root (or fork) tile: T is +s at its right end
            return False
    return True


def _mirror(tile: ArcTile) -> ArcTile:
    """The tile ``u -> 1/2 - u`` maps ``tile`` to (``phi -> pi/2 - phi``, ``u`` kept in ``[-1, 1]``): ``T``
    changes sign there and ``T'``, ``lam`` do not, so a sign tile's sign flips and a root tile keeps its
    signs."""
    lo, hi = _QUARTER * 2 - tile.hi, _QUARTER * 2 - tile.lo
    if lo >= 1:
        lo, hi = lo - 2, hi - 2
    return tile._replace(lo=lo, hi=hi, sign=-tile.sign if tile.kind == "sign" else tile.sign)


def _gaps(tiles) -> list:
    """The intervals of ``u`` in ``[-1, 1]`` that the (disjoint) tiles leave uncovered."""
    out, at = [], fmpq(-1)
    for t in sorted(tiles, key=lambda t: t[0]):
        if t[0] > at:
            out.append((at, t[0]))
        at = max(at, t[1])
    if at < 1:
        out.append((at, fmpq(1)))
    return out

