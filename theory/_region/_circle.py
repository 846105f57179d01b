"""Region certificates of a ``k = 2`` signal law (one query): the structure of every equilibrium,
proved for every parameter of each leaf of a ``(theta, alpha)`` box.

At one parameter, :func:`theory._certify._circle.certify_circle` isolates the zeros of the
tangential field ``T(phi) = <t, g(r)>`` on the unit circle and :func:`theory._certify._circle.certify_disk`
the zeros of ``g`` in the open disk. :func:`certify_region_k2` proves the same on a whole leaf
``[theta_lo, theta_hi] x [alpha_lo, alpha_hi]`` (``beta``, ``sigma2`` fixed): the parameters are
``arb`` balls covering the leaf.

**The reduced field.** With ``j = c^2 + theta^2 |m|^2 + 2 c theta <r, m>`` (``c = beta sigma2``,
``m = alpha n(r)``, :mod:`theory._derivation._subspace`), every function here is that of
``(j - c^2) / (theta alpha) = theta alpha |n|^2 + 2 c <r, n>``: the field divided by
``theta alpha > 0``, with the same zeros, tangent and radial signs and inertia. It does not vanish
at ``theta = 0`` (for a law with a nonzero mean it is ``2 c E[s]`` there) and is smooth down to
``alpha = 0``, so a leaf touching ``theta = 0`` can be proved (its claim is for ``theta > 0``).

**Centred forms.** The plain ball field of a wide parameter ball overestimates badly (the
dependency problem; a one-percent ball gives an enclosure of ``T`` wider than ``T``), so every
enclosure here is a mean-value form in the angle *and* the parameters:
``F(X, P) in F(c, p_c) + F_phi(X, P) (X - c) + F_theta(X, P) (Theta - theta_c) + F_alpha(X, P) (A - alpha_c)``
for ``F`` in ``T``, ``T' = dT/dphi``, ``lam = <r, g>`` on the circle and ``g`` in the disk, with
the derivatives derived symbolically (sympy, from :func:`theory._derivation._subspace._derive`)
and evaluated in balls: the overestimation is of second order in the widths.

**What a leaf proves.** The angle is ``phi = pi u`` with rational ``u`` in ``[-1, 1]`` (the
tiles close the circle exactly). The circle is tiled into *sign tiles* (``T`` of one certified
sign on the tile for every parameter) and *root tiles* (``T'`` of one certified sign on the tile,
``T`` of opposite certified signs at its ends, and the radial eigenvalue ``-2 lam`` of one
certified sign): each root tile holds exactly one zero of ``T`` for every parameter, a simple one
with that tangent sign, so the number of circle equilibria and their stabilities (stable iff
``T' < 0`` and ``lam > 0``) are constant on the leaf. The tiling is audited (contiguous, cyclically
consistent signs). The open disk is covered by squares on which a component of ``g`` excludes 0
(no zero) or the Krawczyk operator, with the parameter balls, misses the square (no zero) or maps
it into its interior (exactly one zero for every parameter, the square inside the open disk, the
inertia of ``H`` certified); any other square left at the smallest width leaves the leaf undecided.
The leaf's status is a label of the structure: ``mixture`` (2 on the circle, the stable one in the
first quadrant, none inside), ``specialised`` (4 on the circle, 2 stable, none inside), else
``"n on circle (s stable), m inside (q stable)"``.

**Inheritance.** A tile or square decided for a leaf is decided for every sub-box of it, so a
leaf that fails hands its decided tiles and squares to its two halves, which only rework the
undecided pieces (merged).

The walk is that of :func:`theory._region._certify.certify_region`: split the side with the
largest width relative to its range (``alpha`` in log scale when its range spans a decade), down
to ``min_width``, then ``undecided``; ``box=``/``depth=`` cut it into subtrees as there (each
pending box carries what its parent proved, so a subtree walked elsewhere is walked as here:
:func:`numerics.certify_region_k2_tasks`). Before a proof attempt, the float signatures of the
circle equilibria at the leaf's corners and centre (:mod:`theory._region._circle_floats`) are
compared: when they differ no proof can succeed, and the leaf is split across the side whose ends
differ without trying. A root tile is also proved on a tile wider than the fine width when ``T``
has opposite certified signs at its ends and ``T'``, ``lam`` one certified sign on a few pieces
covering it. Each attempt has a budget (:data:`_MAX_TILES`, :data:`_MAX_SQUARES`).

**Cost (not yet for wide regions).** Measured on 2 cores shared with other work: a small box
(``theta`` 0.7-1, ``alpha`` 0.1-0.15, ``min_width = 2^-3``) certifies in about 4 s (26% undecided;
15 s and 27% before the signatures, the wide root tiles and the budgets); ``theta`` 0.1-3 by
``alpha`` 0.01-1 leaves 87% undecided after 500 leaves in 12 s (88% in 50 s before). The wide region
stays out of reach: at ``min_width = 2^-5`` it left 69% undecided in 340 s, and only one attempt in
ten succeeded even on leaves 1/64 of the ranges wide. What limits it is the enclosure, not the walk:
the ball derivatives ``T_theta(X, P)``, ``T'_theta(X, P)`` of the centred forms overestimate their
range about tenfold on such leaves (the expressions are long sums with cancellations, and
``cos``/``sin`` of the angle enter as independent balls), so leaves must be far smaller than the
phase bands. Four phases meet (2 equilibria on the circle; 4; 4 and an interior saddle; 6 and 1),
each boundary an undecided band.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import sympy as sp
from flint import arb, arb_mat, fmpq

from ...core.validate import integer, real
from .._certify._circle import _min_square
from .._certify._roots import precision, sign
from .._certify._scalar import MAX_PREC
from .._certify._subspace_balls import _NAMESPACE, _ArbPrinter, inertia
from .._derivation._subspace import PARAM_SYMBOLS, _derive
from .._model import Model
from ._certify import _DOMAIN, _parse, _split_point, _sub_box, area_fractions, relative_width
from ._circle_floats import SignatureCache

#: default relative width below which a leaf is not split further
MIN_WIDTH = 2.0 ** -8
#: ``F'`` sign -> label
_LABEL = {-1: "stable", 1: "unstable"}
#: where tiles and squares are split (not dyadic: an exact zero such as ``u = 1/4`` never lands on an end)
_SPLIT = fmpq(29, 59)


# ----------------------------------------------------------------------------------
# the field and its derivatives, in balls


@dataclass(frozen=True)
class K2Field:
    """The ball functions a leaf reads, each ``f(r1, r2, theta, alpha, beta, sigma2) -> tuple``, of the
    reduced field (module doc):

    ``circle_values`` -> ``(T, T', lam)``; ``circle_slopes`` -> ``(T', T_theta, T_alpha, T'',
    T'_theta, T'_alpha, lam_phi, lam_theta, lam_alpha)``; ``circle_params`` -> ``(T_theta, T_alpha)``
    (``r`` on the unit circle); ``disk_values``
    -> ``(g1, g2)``; ``disk_slopes`` -> ``(H11, H12, H22, g1_theta, g1_alpha, g2_theta, g2_alpha)``;
    ``floats`` -> ``(T, T', lam)`` in numpy floats (where the walk tries proofs,
    :mod:`theory._region._circle_floats`; ``None``: everywhere).
    A test hook replaces them (:func:`certify_region_k2` ``field=``)."""

    circle_values: Callable[..., Any]
    circle_slopes: Callable[..., Any]
    circle_params: Callable[..., Any]
    disk_values: Callable[..., Any]
    disk_slopes: Callable[..., Any]
    floats: Callable[..., Any] | None = None


@cache
def k2_field(law) -> K2Field:
    """The :class:`K2Field` of a ``k = 2`` law, derived symbolically and lambdified to balls: the
    gradient of ``(j - c^2) / (theta alpha)`` (module doc)."""
    d = _derive(law)
    r1, r2 = d.r
    th, al = PARAM_SYMBOLS[0], PARAM_SYMBOLS[1]
    c, m = d.pooled
    n = [mi / al for mi in m]  # m is alpha times a function smooth down to alpha = 0
    reduced = th * al * (n[0] ** 2 + n[1] ** 2) + 2 * c * (r1 * n[0] + r2 * n[1])
    g1, g2 = sp.diff(reduced, r1), sp.diff(reduced, r2)
    h = [[sp.diff(g1, r1), sp.diff(g1, r2)], [sp.diff(g2, r1), sp.diff(g2, r2)]]
    lam = r1 * g1 + r2 * g2
    T = -r2 * g1 + r1 * g2
    T1 = r2 * r2 * h[0][0] - 2 * r1 * r2 * h[0][1] + r1 * r1 * h[1][1] - lam  # dT/dphi on the circle

    def dphi(F):  # the derivative along the circle: dr/dphi = t = (-r2, r1)
        return -r2 * sp.diff(F, r1) + r1 * sp.diff(F, r2)

    def fn(exprs):
        return sp.lambdify((r1, r2, *PARAM_SYMBOLS), tuple(exprs), modules=[_NAMESPACE],
                           printer=_ArbPrinter(), cse=True)

    return K2Field(
        circle_values=fn((T, T1, lam)),
        circle_slopes=fn((T1, sp.diff(T, th), sp.diff(T, al), dphi(T1), sp.diff(T1, th), sp.diff(T1, al),
                          dphi(lam), sp.diff(lam, th), sp.diff(lam, al))),
        circle_params=fn((sp.diff(T, th), sp.diff(T, al))),
        disk_values=fn((g1, g2)),
        disk_slopes=fn((h[0][0], h[0][1], h[1][1], sp.diff(g1, th), sp.diff(g1, al), sp.diff(g2, th),
                        sp.diff(g2, al))),
        floats=sp.lambdify((r1, r2, *PARAM_SYMBOLS), (T, T1, lam), "numpy", cse=True))


@dataclass(frozen=True)
class _Leaf:
    """The parameter balls of one leaf: ``P`` (covering it) and ``pc`` (its centre), and the
    offsets ``Theta - theta_c``, ``A - alpha_c``."""

    P: tuple
    pc: tuple
    dth: arb
    dal: arb

    @classmethod
    def of(cls, t0: float, t1: float, a0: float, a1: float, beta: float, sigma2: float) -> _Leaf:
        tc, ac = 0.5 * (t0 + t1), 0.5 * (a0 + a1)
        Th, A = arb(t0).union(arb(t1)), arb(a0).union(arb(a1))
        b, s = arb(beta), arb(sigma2)
        return cls((Th, A, b, s), (arb(tc), arb(ac), b, s), Th - tc, A - ac)


# ----------------------------------------------------------------------------------
# the circle


@dataclass
class _Circle:
    """Evaluations on the circle for one leaf, with a cache of the end values of ``T``."""

    f: K2Field
    leaf: _Leaf
    ends: dict = field(default_factory=dict)

    def end_sign(self, u: fmpq) -> int:
        """The certified sign of ``T`` at ``phi = pi u`` for every parameter of the leaf."""
        if u not in self.ends:
            phi = arb.pi() * arb(u)
            c, s = phi.cos(), phi.sin()
            T = self.f.circle_values(c, s, *self.leaf.pc)[0]
            T_th, T_al = self.f.circle_params(c, s, *self.leaf.P)
            self.ends[u] = sign(T + T_th * self.leaf.dth + T_al * self.leaf.dal)
        return self.ends[u]

    def decide(self, a: fmpq, b: fmpq):
        """``("sign", s)``, ``("root", tangent sign, radial sign)`` or ``None`` on the tile ``[a, b]``."""
        lf = self.leaf
        m = (a + b) / 2
        pi = arb.pi()
        X, c = pi * arb(a).union(arb(b)), pi * arb(m)
        T, T1, lam = self.f.circle_values(c.cos(), c.sin(), *lf.pc)
        sl = self.f.circle_slopes(X.cos(), X.sin(), *lf.P)
        dX = X - c
        s = sign(T + sl[0] * dX + sl[1] * lf.dth + sl[2] * lf.dal)
        if s:
            return ("sign", s)
        ds = sign(T1 + sl[3] * dX + sl[4] * lf.dth + sl[5] * lf.dal)
        if not ds:
            return None
        sa, sb = self.end_sign(a), self.end_sign(b)
        if sa and sa == sb:
            return ("sign", sa)  # T monotone on the tile, one sign at both ends
        if sa != -ds or sb != ds:
            return None
        radial = -sign(lam + sl[6] * dX + sl[7] * lf.dth + sl[8] * lf.dal)
        return ("root", ds, radial) if radial else None

    def slope_signs(self, a: fmpq, b: fmpq) -> tuple:
        """The certified signs of ``T'`` and of ``-2 lam`` on the tile ``[a, b]`` (0: undecided)."""
        lf = self.leaf
        pi = arb.pi()
        X, c = pi * arb(a).union(arb(b)), pi * arb((a + b) / 2)
        _, T1, lam = self.f.circle_values(c.cos(), c.sin(), *lf.pc)
        sl = self.f.circle_slopes(X.cos(), X.sin(), *lf.P)
        dX = X - c
        return (sign(T1 + sl[3] * dX + sl[4] * lf.dth + sl[5] * lf.dal),
                -sign(lam + sl[6] * dX + sl[7] * lf.dth + sl[8] * lf.dal))

    def monotone(self, a: fmpq, b: fmpq, budget: int):
        """``(("root", tangent sign, radial sign) or None, evaluations)``: a root tile when ``T`` has
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
        return ("root", *signs.pop()), count

    def cluster(self, a: fmpq, b: fmpq, pieces):
        """``("root", tangent sign, radial sign)`` when the pieces covering ``[a, b]`` prove one simple
        zero of ``T`` in it (:func:`_tile`), else ``None``."""
        signs = {self.slope_signs(x, y) for x, y in pieces}
        if len(signs) != 1:
            return None
        ds, radial = signs.pop()
        if not ds or not radial or self.end_sign(a) != -ds or self.end_sign(b) != ds:
            return None
        return ("root", ds, radial)


#: budgets of one proof attempt: angle tiles and disk squares (a leaf that runs out is split, and its
#: halves rework only what is left)
_MAX_TILES, _MAX_SQUARES = 80, 800
#: pieces a tile whose ends bracket a zero of ``T`` may be cut into to certify ``T'`` monotone on it
_MONOTONE_PIECES = 8
#: where a tile is split, in order of preference (the first where ``T`` has a certified sign)
_FRACTIONS = (_SPLIT, fmpq(1, 3), fmpq(2, 3), fmpq(1, 5), fmpq(4, 5))


def _tile(circle: _Circle, pending, u_min: fmpq, max_tiles: int):
    """Bisect the intervals ``pending``: the decided tiles and the (merged) intervals left. A tile
    is split where ``T`` has a certified sign for every parameter if one of :data:`_FRACTIONS` gives
    one: a split point that a zero passes through for some parameter of the leaf would leave both
    halves undecided at every depth. Undecided pieces narrower than ``u_min`` are merged into
    clusters, and a cluster is a root tile when ``T'`` and ``lam`` have one certified sign on all
    its pieces and ``T`` opposite certified signs at its ends (a zero that moves with the
    parameters stays inside the cluster)."""
    tiles, fine, rest, stack, count = [], [], [], list(reversed(pending)), 0
    while stack:
        a, b = stack.pop()
        count += 1
        out = circle.decide(a, b) if count <= max_tiles else None
        if out is not None:
            tiles.append((a, b, *out))
        elif count > max_tiles:
            rest.append((a, b))
        elif b - a < u_min:
            fine.append((a, b))
        elif (root := circle.monotone(a, b, _MONOTONE_PIECES))[0] is not None:
            tiles.append((a, b, *root[0]))
            count += root[1]
        else:
            count += root[1]
            p = next((a + (b - a) * q for q in _FRACTIONS if circle.end_sign(a + (b - a) * q)),
                     a + (b - a) * _SPLIT)
            stack += [(p, b), (a, p)]
    for a, b in _merge(fine):
        root = circle.cluster(a, b, [(x, y) for x, y in fine if a <= x and y <= b])
        if root is None:
            rest.append((a, b))
        else:
            tiles.append((a, b, *root))
    return tiles, _merge(rest)


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
    tiles = sorted(tiles, key=lambda t: t[0])
    if not tiles or tiles[0][0] != -1 or tiles[-1][1] != 1:
        return False
    if any(t[1] != u[0] for t, u in itertools.pairwise(tiles)):
        return False
    n = len(tiles)
    for i, t in enumerate(tiles):
        right = tiles[(i + 1) % n]
        after = right[3] if right[2] == "sign" else -right[3]  # T just right of tile i's right end
        before = t[3]  # sign tile: its sign; root tile: T is +s at its right end
        if before != after:
            return False
    return True


# ----------------------------------------------------------------------------------
# the disk


def _disk_decide(f: K2Field, leaf: _Leaf, box):
    """``("none",)``, ``("one", inertia)`` or ``None`` on the square ``box = (a, b, c, d)``."""
    a, b, c, d = box
    if _min_square(a, b) + _min_square(c, d) >= 1:
        return ("none",)  # outside the open disk
    X = [arb(a).union(arb(b)), arb(c).union(arb(d))]
    m = [arb((a + b) / 2), arb((c + d) / 2)]
    gc = f.disk_values(*m, *leaf.pc)
    h11, h12, h22, g1t, g1a, g2t, g2a = f.disk_slopes(*X, *leaf.P)
    dX = [X[0] - m[0], X[1] - m[1]]
    # g at the centre for every parameter (the slopes over X hold at the centre too)
    gP = [gc[0] + g1t * leaf.dth + g1a * leaf.dal, gc[1] + g2t * leaf.dth + g2a * leaf.dal]
    H = [[h11, h12], [h12, h22]]
    if any(sign(gP[i] + H[i][0] * dX[0] + H[i][1] * dX[1]) for i in range(2)):
        return ("none",)
    try:
        Y = np.linalg.inv(np.array([[float(x.mid()) for x in row] for row in H]))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(Y)):
        return None
    Ya = arb_mat(Y.tolist())
    step = (arb_mat([[1, 0], [0, 1]]) - Ya * arb_mat(H)) * arb_mat([[dX[0]], [dX[1]]])
    YF = Ya * arb_mat([[gP[0]], [gP[1]]])
    K = [m[i] - YF[i, 0] + step[i, 0] for i in range(2)]
    if any(not K[i].overlaps(X[i]) for i in range(2)):
        return ("none",)
    if all(X[i].contains_interior(K[i]) for i in range(2)) and X[0] * X[0] + X[1] * X[1] < 1:
        signs = inertia(H)
        return None if signs is None else ("one", signs)
    return None


def _cover(decide, pending, w_min: fmpq, max_boxes: int):
    """Bisect the squares ``pending``: the decided squares and those left."""
    done, left, stack, count = [], [], list(pending), 0
    while stack:
        box = stack.pop()
        count += 1
        out = decide(box) if count <= max_boxes else None
        if out is not None:
            done.append((box, *out))
            continue
        a, b, c, d = box
        if max(b - a, d - c) < w_min or count > max_boxes:
            left.append(box)
        elif b - a >= d - c:
            p = a + (b - a) * _SPLIT
            stack += [(a, p, c, d), (p, b, c, d)]
        else:
            p = c + (d - c) * _SPLIT
            stack += [(a, b, c, p), (a, b, p, d)]
    return done, left


# ----------------------------------------------------------------------------------
# one leaf


@dataclass(frozen=True)
class K2Equilibrium:
    """One equilibrium proved on a leaf, for every parameter in it.

    Attributes
    ----------
    where : tuple of float
        On the circle: ``(phi_lo, phi_hi)`` in radians, the angle bracket (outward rounded) that holds
        exactly one zero of ``T`` for every parameter; inside: ``(x_lo, x_hi, y_lo, y_hi)``, the square
        that holds exactly one zero of ``g``.
    kind : {"circle", "interior"}
    tangent_sign : int
        Circle: the certified sign of ``T'`` on the bracket; inside: ``0``.
    radial_sign : int
        Circle: the certified sign of the radial eigenvalue ``-2 lam``; inside: ``0``.
    inertia : tuple or None
        Inside: ``(n_negative, n_positive)`` of ``H`` on the square (the inertia of the flow's
        Jacobian there); circle: ``None``.
    stable : bool
        Every eigenvalue of the flow's Jacobian negative, for every parameter of the leaf.
    """

    where: tuple
    kind: str
    tangent_sign: int = 0
    radial_sign: int = 0
    inertia: tuple | None = None
    stable: bool = False

    def as_dict(self) -> dict:
        out: dict[str, object] = {"kind": self.kind, "where": list(self.where), "stable": self.stable}
        if self.kind == "circle":
            out.update(tangent=_LABEL[self.tangent_sign], radial=_LABEL[self.radial_sign])
        else:
            out["inertia"] = list(self.inertia or ())
        return out


def _state0() -> tuple:
    """Nothing decided: the whole circle ``u in [-1, 1]`` and the square ``[-1, 1]^2`` pending."""
    one = fmpq(1)
    return (), ((-one, one),), (), ((-one, one, -one, one),)


def _prove(f: K2Field, leaf: _Leaf, state: tuple, width: float):
    """``(equilibria, state)``: the proved equilibria (``None`` when the leaf is not proved) and what
    is decided so far (for the halves of a leaf that fails)."""
    tiles, pending, squares, left = state
    u_min = fmpq(*max(2.0 ** -24, width / 32).as_integer_ratio())
    circle = _Circle(f, leaf)
    new, pending = _tile(circle, pending, u_min, max_tiles=_MAX_TILES)
    tiles = (*tiles, *new)
    if pending:  # the disk only once the circle is proved (a wider leaf is harder)
        return None, (tiles, tuple(pending), squares, left)
    if not audit_circle(tiles):
        raise AssertionError("a complete tiling of the circle failed its audit")  # a bug, not a leaf's fate
    w_min = fmpq(*max(2.0 ** -12, width / 32).as_integer_ratio())
    done, left = _cover(lambda box: _disk_decide(f, leaf, box), left, w_min, max_boxes=_MAX_SQUARES)
    squares = (*squares, *done)
    state = (tiles, (), squares, tuple(left))
    if left:
        return None, state
    return _equilibria(tiles, squares), state


def _equilibria(tiles, squares) -> tuple:
    out = []
    pi = arb.pi()
    for a, b, kind, *rest in sorted(tiles, key=lambda t: t[0]):
        if kind == "root":
            ds, radial = rest
            lo, hi = (pi * arb(a)).lower(), (pi * arb(b)).upper()
            where = (math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf))
            out.append(K2Equilibrium(where, "circle", ds, radial, None, ds < 0 and radial < 0))
    for box, kind, *rest in squares:
        if kind == "one":
            out.append(K2Equilibrium(tuple(float(x) for x in box), "interior", inertia=rest[0],
                                     stable=rest[0] == (2, 0)))
    return tuple(out)


def status_of(equilibria) -> str:
    """The label of a proved structure (module doc)."""
    circ = [e for e in equilibria if e.kind == "circle"]
    inside = [e for e in equilibria if e.kind == "interior"]
    stable = [e for e in circ if e.stable]
    if not inside and len(circ) == 2 and len(stable) == 1 and 0 < stable[0].where[0] < stable[0].where[1] < math.pi / 2:
        return "mixture"
    if not inside and len(circ) == 4 and len(stable) == 2:
        return "specialised"
    return (f"{len(circ)} on circle ({len(stable)} stable), {len(inside)} inside "
            f"({sum(e.stable for e in inside)} stable)")


# ----------------------------------------------------------------------------------
# the walk


@dataclass(frozen=True)
class K2RegionBox:
    """One leaf of :func:`certify_region_k2`.

    Attributes
    ----------
    bounds : tuple of (str, float, float)
        ``("theta", lo, hi)`` and ``("alpha", lo, hi)``: the closed leaf.
    status : str
        The label of the proved structure (:func:`status_of`: ``"mixture"``, ``"specialised"`` or
        ``"n on circle (s stable), m inside (q stable)"``), or ``"undecided"``.
    equilibria : tuple of K2Equilibrium
        Every equilibrium, proved for every parameter of the leaf: the circle ones in angle order,
        then the interior ones; empty when undecided.
    tiles : int
        Number of angle tiles of the proof (sign and root tiles covering the circle).
    squares : int
        Number of squares of the proof covering the disk.
    """

    bounds: tuple
    status: str
    equilibria: tuple = ()
    tiles: int = 0
    squares: int = 0

    @property
    def circle_count(self) -> tuple:
        """``(number, stable)`` of the circle equilibria."""
        circ = [e for e in self.equilibria if e.kind == "circle"]
        return len(circ), sum(e.stable for e in circ)

    def as_dict(self) -> dict:
        out: dict[str, object] = {name: [lo, hi] for name, lo, hi in self.bounds}
        out["status"] = self.status
        if self.status != "undecided":
            out["equilibria"] = [e.as_dict() for e in self.equilibria]
        return out


@dataclass(frozen=True)
class K2RegionCertificate:
    """Outcome of :func:`certify_region_k2`.

    Attributes
    ----------
    region : dict
        ``ranges`` (``theta``, ``alpha`` -> ``[lo, hi]``), ``fixed`` (``beta``, ``sigma2``), ``prior``,
        ``scale`` (``theta`` linear; ``alpha`` ``"log"`` or ``"linear"``), ``min_width``, ``prec``.
    boxes : tuple of K2RegionBox
        The leaves; they tile the box (the sub-box ``box=``, if given).
    fractions : dict
        Area fraction of each status (``theta`` linear times ``alpha`` in its scale: ``log10`` when
        ``region["scale"]["alpha"] == "log"``), relative to the whole region; ``"undecided"`` always
        present.
    seconds : float
        Wall time of the walk.
    pending : tuple
        With ``depth``: ``(index, bounds, inherited)`` of the boxes left unexamined at that depth, in
        order: the leaves of the subtree of each belong at ``index`` in :attr:`boxes`, and
        ``certify_region_k2(..., box=bounds, inherited=inherited)`` walks it as the whole walk would
        (``inherited``: what its parent had proved, opaque). Empty otherwise.
    """

    region: dict
    boxes: tuple
    fractions: dict
    seconds: float
    pending: tuple = ()

    @classmethod
    def from_boxes(cls, region: dict, boxes, seconds: float, pending=()) -> K2RegionCertificate:
        """The certificate of the leaves ``boxes`` of ``region`` (a :attr:`region` dict), its
        fractions recomputed here."""
        boxes = tuple(boxes)
        return cls(region, boxes, area_fractions(region, boxes), seconds, tuple(pending))

    def as_dict(self) -> dict:
        out = {"region": self.region, "boxes": [b.as_dict() for b in self.boxes],
               "fractions": dict(self.fractions), "boxes_count": len(self.boxes), "seconds": self.seconds}
        if self.pending:
            out["pending"] = [[i, [list(b) for b in bounds]] for i, bounds, _ in self.pending]
        return out


def certify_region_k2(theta, alpha, beta=1.0, sigma2=1.0, prior="onehot(k=2)", *, min_width: float = MIN_WIDTH,
                      prec: int = 128, max_boxes: int = 200_000, field: K2Field | None = None, box=None,
                      depth=None, inherited=None) -> K2RegionCertificate:
    """Prove the structure of the equilibria of a ``k = 2`` law on every leaf of an adaptive split of
    a ``(theta, alpha)`` box (module doc).

    Parameters
    ----------
    theta, alpha : (float, float)
        The ranges, ``0 <= theta_lo < theta_hi``, ``0 < alpha_lo < alpha_hi <= 1``.
    beta, sigma2 : float
        Fixed.
    prior : str
        A ``k = 2`` signal law (``"onehot(k=2)"``, ...).
    min_width : float
        A leaf whose sides are both narrower than ``min_width`` times their range (alpha in its
        scale) is not split further; ``undecided`` if not proved.
    prec : int
        Working precision in bits.
    max_boxes : int
        Budget of leaves examined (by this call); those left when it runs out are undecided.
    field : K2Field, optional
        Replaces the derived ball functions (:func:`k2_field`); a test hook.
    box : tuple, optional
        Walk only this sub-box (bounds as :attr:`K2RegionBox.bounds`) of the region, exactly as the
        whole walk would when ``inherited`` is the one :attr:`K2RegionCertificate.pending` gave with it.
    depth : int, optional
        Leave the boxes ``depth`` splits below the start unexamined: :attr:`K2RegionCertificate.pending`.
    inherited : tuple, optional
        With ``box``: what its parent had proved (from :attr:`K2RegionCertificate.pending`).

    Returns
    -------
    K2RegionCertificate
    """
    start = time.perf_counter()
    region, law = _region(theta, alpha, beta, sigma2, prior, min_width, prec)
    max_boxes = integer("max_boxes", max_boxes, 1)
    depth = None if depth is None else integer("depth", depth, 0)
    top = tuple((k, *region["ranges"][k]) for k in ("theta", "alpha"))
    root = top if box is None else _sub_box(box, top)
    state = _state0() if inherited is None else _check_inherited(inherited)
    with precision(region["prec"]):
        leaves, pending = _walk(field or k2_field(law), region, (root, state), depth, max_boxes)
    return K2RegionCertificate.from_boxes(region, leaves, time.perf_counter() - start, pending)


def _region(theta, alpha, beta, sigma2, prior, min_width, prec) -> tuple:
    """The validated region dict (:attr:`K2RegionCertificate.region`) and the law."""
    ranges: dict[str, tuple[float, float]] = {}
    for name, value in (("theta", theta), ("alpha", alpha)):
        parsed = _parse(name, value, _DOMAIN[name])
        if not isinstance(parsed, tuple):
            raise ValueError("`theta` and `alpha` must both be ranges (lo, hi)")
        ranges[name] = parsed
    min_width = real("min_width", min_width, lower=0.0, upper=1.0, strict=True)
    prec = integer("prec", prec, 53, MAX_PREC)
    probe = Model(ranges["theta"][1], ranges["alpha"][0], beta, sigma2, prior=prior)
    if probe.k != 2 or probe.heads != 1:
        raise ValueError(f"`prior` must be a k = 2 signal law with one head, got {prior!r}")
    lo, hi = ranges["alpha"]
    scale = {"theta": "linear", "alpha": "log" if hi / lo >= 10 else "linear"}
    region = {"ranges": {k: list(v) for k, v in ranges.items()}, "fixed": {"beta": probe.beta, "sigma2": probe.sigma2},
              "prior": str(probe.law), "scale": scale, "min_width": min_width, "prec": prec}
    return region, probe.law


def _check_inherited(inherited) -> tuple:
    """``inherited`` checked to have the shape of a leaf's state (:func:`_prove`)."""
    if not (isinstance(inherited, tuple) and len(inherited) == 4 and all(isinstance(x, tuple) for x in inherited)):
        raise ValueError("`inherited` must be the state a pending box came with (K2RegionCertificate.pending), "
                         f"got {type(inherited).__name__}")
    return inherited


def _walk(f: K2Field, region: dict, start: tuple, depth, max_boxes: int) -> tuple:
    """The leaves of the subtree of ``start = (bounds, state)`` in depth-first order (low halves
    first), each box handing what it decided to its halves, and the ``(index, bounds, state)`` of the
    boxes left at ``depth``. A box whose corners differ in float signature
    (:class:`theory._region._circle_floats.SignatureCache`) is split without a proof attempt."""
    beta, sigma2 = region["fixed"]["beta"], region["fixed"]["sigma2"]
    floats = SignatureCache(f.floats, beta, sigma2)
    leaves: list[K2RegionBox] = []
    pending: list[tuple] = []
    stack, examined = [(*start, 0)], 0
    while stack:
        bounds, state, level = stack.pop()
        if depth is not None and level >= depth:
            pending.append((len(leaves), bounds, state))
            continue
        examined += 1
        if examined > max_boxes:
            leaves.extend(K2RegionBox(b, "undecided") for b in [bounds, *(b for b, _, _ in stack)])
            break
        widths = [relative_width(region, *b) for b in bounds]
        axis = floats.split_axis(bounds)
        if axis is None:
            (_, t0, t1), (_, a0, a1) = bounds
            equilibria, state = _prove(f, _Leaf.of(t0, t1, a0, a1, beta, sigma2), state, max(widths))
            if equilibria is not None:
                leaves.append(K2RegionBox(bounds, status_of(equilibria), equilibria, len(state[0]), len(state[2])))
                continue
        i = axis if axis is not None and axis >= 0 and widths[axis] > region["min_width"] else \
            max(range(2), key=widths.__getitem__)
        if widths[i] <= region["min_width"]:
            leaves.append(K2RegionBox(bounds, "undecided"))
            continue
        name, lo, hi = bounds[i]
        p = _split_point(lo, hi, region["scale"][name] == "log")
        for part in ((p, hi), (lo, p)):
            stack.append(((*bounds[:i], (name, *part), *bounds[i + 1:]), state, level + 1))
    return leaves, pending
