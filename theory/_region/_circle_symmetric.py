"""The symmetric one-hot law of ``k = 2`` (``onehot(k=2)``, probabilities ``1/2, 1/2``): a leaf of
:func:`theory.certify_region_k2` proved across the phase boundaries, which all pass through the two
points of symmetry of the circle.

**Two facts of this law.** Write ``u_i = e^{b r_i}`` (``b = beta theta``), ``D = alpha (u_1 + u_2) / 2
+ 1 - alpha``, ``n_i = u_i / (2 D)``. The reduced objective ``J = theta alpha |n|^2 + 2 c <r, n>``
(:mod:`theory._region._circle`) has the gradient

    ``g_i = 2 n_i E_i``,  ``E_i = theta alpha b (n_i - alpha |n|^2) + c (1 + b r_i - alpha b <r, n>)``,

so ``g = 0`` iff ``E_1 = E_2 = 0``, and ``E_1 - E_2 = b (theta alpha (n_1 - n_2) + c (r_1 - r_2))``
where ``n_1 - n_2`` has the sign of ``r_1 - r_2``: for ``theta > 0`` **every zero of g lies on the
diagonal** ``r_1 = r_2`` (at ``theta = 0``, ``g = (c, c)``: none). The zeros in the open disk are the
zeros of ``G(t) = (g_1 + g_2)(t / sqrt 2, t / sqrt 2)`` for ``t`` in ``(-1, 1)``, and the Hessian there
has the eigenvectors ``(1, 1)`` and ``(1, -1)``: its inertia is that of ``(G_s, A)`` (``A`` the second
derivative of ``J`` along ``(1, -1)``). The swap ``r_1 <-> r_2`` leaves ``J`` unchanged, so on the
circle ``T(pi/2 - phi) = -T(phi)``: ``T`` is **odd about** ``c = pi/4`` **and** ``c = -3 pi/4``, where it
vanishes for every parameter, and ``T'`` and ``lam`` are even there. At the ends of the diagonal
(``t = +-1``, the points ``c``) ``g = lam(c) r``, so ``G(1) = sqrt 2 lam(pi/4)`` and
``G(-1) = -sqrt 2 lam(-3 pi/4)``.

**Tiles about c.** A tile ``[c - h, c + h]`` with ``T`` of certified opposite signs at its ends is

* a *root* tile when ``T'`` has one sign on it: its one zero is ``c``, with the radial sign of
  ``-lam(c)``, which is either certified on the leaf or left as a **condition** ``("lam", c)``;
* a *fork* tile when ``T'''`` has one sign ``s`` on it, ``T(c + h)`` has the sign ``s`` and ``lam`` one
  sign: ``T'`` is even and convex (``s > 0``) or concave about ``c``, so when ``s T'(c) > 0`` the tile
  holds one zero (``c``, tangent sign ``s``), and when ``s T'(c) < 0`` three: ``c`` (tangent sign
  ``-s``) and one in each open half (tangent sign ``s``). The sign of ``T'(c)`` is the **condition**
  ``("Tp", c)``.

The diagonal is tiled in ``t`` (:func:`diagonal`): a piece with ``G`` of one certified sign has no
zero; one with ``G_s`` of one sign and ``G`` of opposite certified signs at its ends holds one zero,
with the inertia of the signs of ``G_s`` and ``A``; a piece ending at a pole whose ``G`` has no
certified sign holds one zero exactly when ``lam(c)`` has a given sign (the same condition
``("lam", c)``).

**Resolving the conditions.** The structure of a leaf is then a function of the signs of at most a
few scalar functions of ``(theta, alpha)``: ``T'(c)`` and ``lam(c)`` at the exact angle ``c``, whose
zero sets are the phase boundaries (the mixture's loss of stability at ``pi/4`` where ``T'(pi/4) = 0``;
a zero of ``g`` entering the disk at ``-3 pi/4`` where ``lam(-3 pi/4) = 0``; the fork at ``-3 pi/4``).
:func:`resolve` splits the leaf into sub-boxes on which each condition has a certified sign (two
second-order forms per sub-box, no new proof), across the boundary first, down to a width
:data:`FINE_BITS` powers of two below the walk's ``min_width``: the undecided band along a boundary is
that narrow (two halves both left undecided are joined again into one box, which claims nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from flint import arb, fmpq

from .._certify._roots import sign
from ._certify import _split_point
from ._circle_disk import Square
from ._circle_forms import Offsets, enclose
from ._circle_taylor import K2Field
from ._circle_tiles import ArcTile, _Leaf
from ._proof import bisect, cut_at

#: the widest piece (in ``u``) on which the signs of ``T'''`` and ``lam`` are read for a fork tile
_FORK_PIECE = fmpq(1, 64)
#: the points of symmetry of the circle, in ``u`` (``phi = pi u``)
CENTRES = (fmpq(1, 4), fmpq(-3, 4))
#: half-widths (in ``u``) tried for the tile about a point of symmetry, in order
_HALF = tuple(fmpq(*h) for h in ((1, 32), (1, 64), (1, 16), (1, 128), (3, 32), (1, 8), (3, 16), (1, 256), (1, 512)))
#: the diagonal's pole ``t = +-1`` -> the point of symmetry of the circle it meets
_POLE = {1: fmpq(1, 4), -1: fmpq(-3, 4)}
#: budget of diagonal pieces of one leaf
_MAX_PIECES = 200
#: the sub-boxes of a leaf with conditions are split down to ``min_width / 2^FINE_BITS``
FINE_BITS = 4
#: a sub-box is split across its longer side when that is this many times the other (relative widths)
_ASPECT = 16


class Piece(NamedTuple):
    """A piece ``[lo, hi]`` of the diagonal ``t``: ``kind`` ``"none"`` (no zero of ``g``), ``"one"``
    (exactly one, ``H`` of the ``inertia``) or ``"pole"`` (one, of that ``inertia``, exactly when the
    condition ``key`` has the sign ``present``)."""

    lo: fmpq
    hi: fmpq
    kind: str
    key: tuple | None = None
    present: int = 0
    inertia: tuple | None = None


def _point_slopes(f: K2Field, leaf: _Leaf, u: fmpq) -> tuple:
    """``(jet, balls)``: the jet of ``(T', lam)`` at ``phi = pi u`` and the centre of ``leaf`` (as
    :attr:`K2Field.slope_jet` returns it), and balls containing ``(T', lam)`` at that exact angle for
    every parameter of ``leaf``."""
    phi = arb.pi() * arb(u)
    cs, sn = phi.cos(), phi.sin()
    jet = f.slope_jet(cs, sn, *leaf.pc)
    return jet, enclose(jet, f.slope_hess(cs, sn, *leaf.P), Offsets.of(arb(0), leaf.dth, leaf.dal))


def symmetric_tile(circle, c: fmpq, first: fmpq | None = None) -> ArcTile | None:
    """A root tile (radial sign ``0``: the condition ``("lam", c)``) or a fork tile about the point of
    symmetry ``c`` (module doc), or ``None``. ``circle``: the :class:`theory._region._circle_tiles._Circle`
    of the leaf; ``first``: the half-width to try first (then those of :data:`_HALF`)."""
    f, leaf = circle.f, circle.leaf
    for h in _HALF if first is None else (first, *(h for h in _HALF if h != first)):
        a, b = c - h, c + h
        right = circle.end_sign(b)
        if not right or circle.end_sign(a) != -right:
            continue
        T1, lam = circle.slopes(a, b)
        if sign(T1) == right:
            return ArcTile(a, b, "root", right, -sign(_point_slopes(f, leaf, c)[1][1]))
        if f.fork_jet is None or sign_on(lambda x, y: _third(f, leaf, x, y), a, b, _FORK_PIECE) != right:
            continue
        radial = -(sign(lam) or sign_on(lambda x, y: circle.slopes(x, y)[1], a, b, _FORK_PIECE))
        if radial:
            return ArcTile(a, b, "fork", right, radial)
    return None


def sign_on(value, a: fmpq, b: fmpq, width: fmpq, splits: int = 2) -> int:
    """The one certified sign of ``value(x, y)`` (a ball) on all the pieces of ``[a, b]`` at most ``width``
    wide, each split in two at most ``splits`` times when it has none; ``0`` when there is none."""
    n = max(1, math.ceil(float((b - a) / width)))  # any count is sound; this one makes pieces <= width
    stack, signs = [(a + (b - a) * fmpq(k, n), a + (b - a) * fmpq(k + 1, n), splits) for k in range(n)], set()
    while stack:
        x, y, left = stack.pop()
        s = sign(value(x, y))
        if s:
            signs.add(s)
            if len(signs) > 1:
                return 0
        elif left:
            m = (x + y) / 2
            stack += [(x, m, left - 1), (m, y, left - 1)]
        else:
            return 0
    return signs.pop()


def _third(f: K2Field, leaf: _Leaf, x: fmpq, y: fmpq) -> arb:
    """A ball containing ``T'''`` on ``[x, y]`` for every parameter of the leaf: the value at the centre
    plus the gradient over the box times the offsets, intersected with the plain value."""
    pi, jet = arb.pi(), f.fork_jet
    assert jet is not None, "the symmetric law's field carries the jet of the third derivative (k2_field)"
    X, c = pi * arb(x).union(arb(y)), pi * arb((x + y) / 2)
    at = jet(c.cos(), c.sin(), *leaf.pc)[0]
    box = jet(X.cos(), X.sin(), *leaf.P)
    return box[0].intersection(at + box[1] * (X - c) + box[2] * leaf.dth + box[3] * leaf.dal)


def conditions(tiles, pieces) -> tuple:
    """The condition keys ``(kind, c)`` the circle tiles and diagonal pieces of a proof leave open."""
    keys = {("Tp", (t.lo + t.hi) / 2) for t in tiles if t.kind == "fork"}
    keys |= {("lam", (t.lo + t.hi) / 2) for t in tiles if t.kind == "root" and t.radial == 0}
    keys |= {p.key for p in pieces if p.kind == "pole"}
    return tuple(sorted(keys, key=lambda k: (k[0], float(k[1]))))


def expand(tiles, signs: dict) -> list:
    """The circle tiles with every condition replaced by its outcome under ``signs`` (key -> +-1):
    plain ``"sign"`` and ``"root"`` tiles, a fork's three zeros as three root tiles (``(c, c)`` the
    exact point)."""
    out = []
    for t in tiles:
        c = (t.lo + t.hi) / 2
        if t.kind == "root" and t.radial == 0:
            out.append(t._replace(radial=-signs[("lam", c)]))
        elif t.kind == "fork":
            a, b, _, s, radial = t
            if s * signs[("Tp", c)] > 0:
                out.append(ArcTile(a, b, "root", s, radial))
            else:
                out += [ArcTile(a, c, "root", s, radial), ArcTile(c, c, "root", -s, radial),
                        ArcTile(c, b, "root", s, radial)]
        else:
            out.append(t)
    return out


def interior(pieces, signs: dict) -> list:
    """The interior zeros the diagonal pieces prove under ``signs``: squares of one zero, the floats
    ``(x_lo, x_hi, y_lo, y_hi)`` (outward rounded) of the piece of the diagonal."""
    out = []
    for p in pieces:
        if p.kind == "one" or (p.kind == "pole" and signs[p.key] == p.present):
            root2 = arb(2).sqrt()
            lo, hi = float((arb(p.lo) / root2).lower()), float((arb(p.hi) / root2).upper())
            lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
            out.append(Square((lo, hi, lo, hi), "one", p.inertia))
    return out


# ----------------------------------------------------------------------------------
# the diagonal


@dataclass
class _Diagonal:
    """``G``, ``G_s``, ``A`` over pieces ``[a, b]`` of ``t`` (``r = (t, t) / sqrt 2``) for one leaf
    (:attr:`K2Field.diag_jet`, :attr:`K2Field.diag_hess`; ``G`` alone, where most pieces are decided, by
    :attr:`K2Field.diag_g_jet` and :attr:`K2Field.diag_g_hess`), with a cache of the end values."""

    f: K2Field
    leaf: _Leaf
    ends: dict

    @classmethod
    def of(cls, f: K2Field, leaf: _Leaf) -> _Diagonal:
        assert None not in (f.diag_jet, f.diag_hess, f.diag_g_jet, f.diag_g_hess), "the symmetric law's field"
        return cls(f, leaf, {})

    def _on(self, a: fmpq, b: fmpq, jet, hess) -> tuple:
        """The second-order forms of the functions of ``jet``, ``hess`` on the piece ``[a, b]`` (a point
        when ``a == b``)."""
        root2, lf = arb(2).sqrt(), self.leaf
        S, sc = arb(a).union(arb(b)) / root2, arb((a + b) / 2) / root2
        return enclose(jet(sc, sc, *lf.pc), hess(S, S, *lf.P), Offsets.of(S - sc, lf.dth, lf.dal))

    def end_sign(self, t: fmpq) -> int:
        """The certified sign of ``G`` at ``t`` for every parameter of the leaf (``0``: none)."""
        if t not in self.ends:
            self.ends[t] = sign(self._on(t, t, self.f.diag_g_jet, self.f.diag_g_hess)[0])
        return self.ends[t]

    def decide(self, a: fmpq, b: fmpq) -> Piece | None:
        """The :class:`Piece` ``[a, b]`` decided, or ``None``."""
        if sign(self._on(a, b, self.f.diag_g_jet, self.f.diag_g_hess)[0]):
            return Piece(a, b, "none")
        _, Gs, A = self._on(a, b, self.f.diag_jet, self.f.diag_hess)  # balls containing (G, G_s, A)
        ts = sign(Gs)
        if not ts:
            return None
        ga, gb = self.end_sign(a), self.end_sign(b)
        if ga == ts or gb == -ts:  # G monotone (sign ts) and of one sign from that end on: no zero
            return Piece(a, b, "none")
        if not sign(A):
            return None
        if ga and gb:
            return Piece(a, b, "one", inertia=_inertia(ts, sign(A)))  # (ga, gb) == (-ts, ts)
        if a == -1 and not ga and gb == ts:
            pole = -1
        elif b == 1 and not gb and ga == -ts:
            pole = 1
        else:
            return None
        # G(-1) = -sqrt 2 lam(-3 pi/4), G(1) = sqrt 2 lam(pi/4); a zero iff G(-1) = -ts, resp. G(1) = ts
        return Piece(a, b, "pole", ("lam", _POLE[pole]), ts, _inertia(ts, sign(A)))


def _inertia(*signs) -> tuple:
    return (sum(s < 0 for s in signs), sum(s > 0 for s in signs))


def diagonal(f: K2Field, leaf: _Leaf, u_min: fmpq, cuts=()) -> tuple | None:
    """The pieces of ``t`` in ``[-1, 1]`` that prove the zeros of ``g`` in the open disk on the leaf (module
    doc), or ``None`` when a piece narrower than ``u_min`` or the budget is left undecided. The first
    pieces are ``[-1, 1]`` cut at ``cuts`` (:func:`theory._region._proof.cut_at`)."""
    d = _Diagonal.of(f, leaf)
    # split where G has a certified sign: a fixed grid may sit on a zero's path
    out = bisect(cut_at(fmpq(-1), fmpq(1), cuts, d.end_sign)[::-1], d.decide, d.end_sign, u_min, _MAX_PIECES)
    return None if out is None else tuple(out)


# ----------------------------------------------------------------------------------
# the conditions over sub-boxes


def condition_signs(f: K2Field, leaf: _Leaf, keys) -> tuple:
    """``(signs, jets)``: the certified sign of each condition ``(kind, c)`` on ``leaf`` (``0``: none),
    ``T'(c)`` for ``"Tp"``, ``lam(c)`` for ``"lam"``; and the jet of ``(T', lam)`` at each ``c`` and the
    centre of the leaf (:func:`_point_slopes`)."""
    at: dict = {}
    out = {}
    for kind, c in keys:
        if c not in at:
            at[c] = _point_slopes(f, leaf, c)
        out[(kind, c)] = sign(at[c][1][0 if kind == "Tp" else 1])
    return out, {c: jet for c, (jet, _) in at.items()}


def resolve(f: K2Field, keys, bounds, make_leaf, widths, min_width: float, log_alpha: bool):
    """``[(bounds, signs or None)]``: sub-boxes of the leaf ``bounds`` on which every condition of ``keys``
    has a certified sign (``signs``: key -> +-1), and those on which some has not (``None``): sub-boxes
    narrower than ``min_width / 2^FINE_BITS``, two halves of a split both left so joined again (no claim
    is lost: an undecided box claims nothing), in depth-first order (low halves first).
    ``make_leaf(bounds)``: the :class:`theory._region._circle_tiles._Leaf` of a sub-box; ``widths(bounds)``: its
    relative widths. A sub-box is split across the boundary (the side along which the undecided
    condition changes most at its centre), unless that side is much narrower than the other."""
    fine = min_width / 2 ** FINE_BITS

    def walk(b) -> list:
        signs, jets = condition_signs(f, make_leaf(b), keys)
        if all(signs.values()):
            return [(b, signs)]
        w = widths(b)
        if max(w) <= fine:
            return [(b, None)]
        key = next(k for k, s in signs.items() if not s)
        i = _across(jets[key[1]], key[0], b, w, fine)
        name, lo, hi = b[i]
        p = _split_point(lo, hi, log_alpha and name == "alpha")
        low, high = (walk((*b[:i], (name, *part), *b[i + 1:])) for part in ((lo, p), (p, hi)))
        if len(low) == len(high) == 1 and low[0][1] is None and high[0][1] is None:
            return [(b, None)]
        return low + high

    return walk(bounds)


def _across(jet, kind: str, bounds, w, fine: float) -> int:
    """The side (0: theta, 1: alpha) of the sub-box to split for the condition of ``kind`` whose jet
    at the centre is ``jet`` (:func:`condition_signs`): the one along which it changes most there,
    unless that side is already at ``fine`` or :data:`_ASPECT` times narrower than the other."""
    longer = 0 if w[0] >= w[1] else 1
    if w[longer] > _ASPECT * w[1 - longer] or w[1 - longer] <= fine:
        return longer
    F_theta, F_alpha = jet[2:4] if kind == "Tp" else jet[6:8]
    (_, t0, t1), (_, a0, a1) = bounds
    return 0 if abs(float(F_theta.mid())) * (t1 - t0) >= abs(float(F_alpha.mid())) * (a1 - a0) else 1
