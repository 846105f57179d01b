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
enclosure of ``T``, ``T' = dT/dphi`` and ``lam = <r, g>`` on the circle is a second-order (Taylor)
form in the angle *and* the parameters (:mod:`theory._region._circle_taylor`):
``F(X, P) in F(c, p_c) + grad F(c, p_c) . Delta + 1/2 Delta^T Hess F(X, P) Delta`` with
``Delta = (X - c, Theta - theta_c, A - alpha_c)``: the gradient is read at the centre (tight balls),
and only the Hessian over the whole box, so the wide balls enter at second order. In the disk,
``g`` at a square's centre is the same form in the parameters, and the Hessian ``H`` of the field
over the square is the plain ball function intersected with its mean-value form. The derivatives
(up to the fifth of the reduced field) are forward derivatives of a straight-line program
(:class:`theory._region._circle_taylor.Program`: about 2 s per process, where sympy's ``diff`` of the whole
expressions took 10 s and more), printed for balls whose integer powers are taken from the
endpoints (:func:`theory._region._circle_taylor.power`: ``(2 +/- 0.54)^-6`` was ``nan``).

**What a leaf proves.** The angle is ``phi = pi u`` with rational ``u`` in ``[-1, 1]`` (the
tiles close the circle exactly). The circle is tiled into *sign tiles* (``T`` of one certified
sign on the tile for every parameter) and *root tiles* (``T'`` of one certified sign on the tile,
``T`` of opposite certified signs at its ends, and the radial eigenvalue ``-2 lam`` of one
certified sign): each root tile holds exactly one zero of ``T`` for every parameter, a simple one
with that tangent sign, so the number of circle equilibria and their stabilities (stable iff
``T' < 0`` and ``lam > 0``) are constant on the leaf. The tiling is audited (contiguous, cyclically
consistent signs). The open disk is covered by squares on which a component of ``g`` excludes 0
(no zero) or the Krawczyk operator, with the parameter balls, misses the square (no zero) or maps
it into the interior of the square (exactly one zero for every parameter, the inertia of ``H``
certified; the operator is iterated on what it returns until that lies inside the open disk, or
outside it: then the square has no zero in the disk); any other square left at the smallest width
leaves the leaf undecided. Squares are split off the float paths of the zeros of ``g`` over the leaf
(:func:`theory._region._circle_floats.zero_boxes`, a hint only), so that one square holds a path
with a margin, and a square that cuts a path is not split further.
The leaf's status is a label of the structure: ``mixture`` (2 on the circle, the stable one in the
first quadrant, none inside), ``specialised`` (4 on the circle, 2 stable, none inside), else
``"n on circle (s stable), m inside (q stable)"``.

**The symmetric one-hot law** (``onehot(k=2)``, probabilities ``1/2, 1/2``;
:mod:`theory._region._circle_symmetric`). Every zero of ``g`` lies on the diagonal, so the disk is
a tiling of the diagonal in one variable; ``T`` is odd about ``pi/4`` and ``-3 pi/4``, so a tile
about each is proved as a root tile whose zero is that point (its radial sign that of ``lam``
there) or as a *fork* tile (``T'''`` of one sign: one zero or three, by the sign of ``T'`` there),
and only the half of the circle between them is tiled, the other half being its mirror. All three
phase boundaries of this law pass through those two points: a leaf across one is proved once, its
structure a function of the signs of ``T'`` and ``lam`` at them, and split into sub-boxes on which
those signs are certified (two second-order forms each), down to ``min_width / 16``.

**Inheritance.** A tile or square decided for a leaf is decided for every sub-box of it, so a
leaf that fails hands its decided tiles to its two halves, which only rework the undecided pieces
(merged). The squares are not handed down when the disk failed: they were cut along the leaf's own
zero paths, which may cut the narrower paths of the halves; the halves cover the disk afresh.

The walk is that of :func:`theory._region._certify.certify_region`: split the side with the
largest width relative to its range (``alpha`` in log scale when its range spans a decade), down to
``min_width``; a leaf at that width whose ``alpha`` side is wider than ``min_width`` of the range in
linear scale is split across ``alpha`` further (near ``alpha = 1`` the field moves with ``alpha``
itself), then ``undecided``; ``box=``/``depth=`` cut it into subtrees as there (each pending box
carries what its parent proved, so a subtree walked elsewhere is walked as here:
:func:`numerics.certify_region_k2_tasks`). Before a proof attempt, the float signatures of the
circle equilibria at the leaf's corners and centre (:mod:`theory._region._circle_floats`) are
compared: when they differ no proof can succeed, and the leaf is split across the side whose ends
differ without trying. A root tile is also proved on a tile wider than the fine width when ``T``
has opposite certified signs at its ends and ``T'``, ``lam`` one certified sign on a few pieces
covering it; a piece with no certified sign of ``T`` at either end lies inside the band a zero
sweeps over the leaf and is not split further (it joins a cluster). Tiles wider than
:data:`_WIDEST` are split without an attempt. Each attempt has a budget (:data:`_MAX_TILES`,
:data:`_MAX_SQUARES`).

**Hints** (symmetric law). Any partition of the circle and the diagonal that proves a leaf will do,
and a neighbour's nearly does: a proof starts from the cuts of a leaf proved before it in the walk
(:class:`_Hints`; the tiles about the points of symmetry from the last half-widths proved there),
where a bisection from :data:`_WIDEST` tries each tile two or three times. Hints only change where
tiles are cut, never what a tile must satisfy, and they start afresh at every leaf at least
:data:`_HINT_SCOPE` (2^-4) wide, so that a subtree walked alone from a box at most :data:`MAX_DEPTH`
splits deep is walked as here.

**Cost.** Measured on a machine of 2 cores (the CPU seconds are the figures to compare). The default
region of the CLI (``sigrec phase --prior 'onehot(k=2)' --region``: ``theta`` 0-5 by ``alpha``
1e-4-1 in log, ``min_width = 2^-7``) leaves 0.19% undecided in 10,488 leaves and 49 CPU-s in one
process; the CLI with ``--workers 2`` takes about 30 s of certification (36 s in all). Until the
symmetric law's circle and diagonal functions were written in its weights
(:func:`theory._region._circle_taylor._weighted_field`) the same region took 204 CPU-s (115-122 s with
``--workers 2``): a leaf of the far corner failed at ``2^-6`` on the tile about ``pi/4``, whose
enclosure of ``T'`` over the leaf was several times wider than ``T'`` (the derivatives of
``e^{beta theta r_i} / D`` cancel, and balls lose it), and was proved only at ``2^-7``, in about a
hundred tiles. Before the hints, the linear ``alpha`` width only at ``min_width``, the clusters of
band pieces and ``G`` alone on the diagonal it took 609 CPU-s for 0.13% (bands ``min_width / 32``
wide), and at ``min_width = 2^-6`` 484 CPU-s for 3.8% (22.5% in 500 CPU-s before the symmetric law's
proofs, 73.6% with first-order forms). An attempt on a leaf that will still be split stops at the
first point of symmetry whose tile fails (its halves try again). What is left undecided are the
bands along the three phase boundaries, ``min_width / 16`` wide (two halves of a sub-box both
undecided are joined again). The field's setup (:func:`k2_field`, deriving and printing the ball
functions) takes about 5 s per process for the symmetric law, 2.5 s for another, once: the functions
are kept in the disk cache of generated code, and the package ships those of ``onehot(k=2)``.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field

import numpy as np
from flint import arb, arb_mat, fmpq

from ...core.validate import integer, real
from .._certify._circle import _min_square
from .._certify._options import RegionOptions
from .._certify._protocol import LeavesAnswer
from .._certify._roots import precision, sign
from .._certify._scalar import MAX_PREC
from .._certify._subspace_balls import inertia
from .._model import Model, ModelBox
from ._certify import _DOMAIN, _parse, _split_point, _sub_box, area_fractions, relative_width
from ._circle_floats import SignatureCache, zero_boxes
from ._circle_symmetric import CENTRES, conditions, diagonal, expand, interior, resolve, symmetric_tile
from ._circle_taylor import K2Field, Offsets, enclose, k2_field, second_order
from ._proof import cut_at, split_where

#: default relative width below which a leaf is not split further
MIN_WIDTH = 2.0 ** -8
#: ``F'`` sign -> label
_LABEL = {-1: "stable", 1: "unstable"}
#: where tiles and squares are split (not dyadic: an exact zero such as ``u = 1/4`` never lands on an end)
_SPLIT = fmpq(29, 59)


# ----------------------------------------------------------------------------------
# the field and its derivatives, in balls


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


# ----------------------------------------------------------------------------------
# the circle


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

    def _tile(self, a: fmpq, b: fmpq) -> tuple:
        """The tile's centre ball ``c``, the tile ``X`` (``phi = pi u``) and its offsets."""
        pi = arb.pi()
        X, c = pi * arb(a).union(arb(b)), pi * arb((a + b) / 2)
        return c, X, Offsets.of(X - c, self.leaf.dth, self.leaf.dal)

    def tangent(self, a: fmpq, b: fmpq) -> arb:
        """A ball containing ``T`` on the tile ``[a, b]`` for every parameter of the leaf (second-order
        form about the tile's and the leaf's centre, :mod:`theory._region._circle_taylor`)."""
        if (a, b) not in self.values:
            lf = self.leaf
            c, X, o = self._tile(a, b)
            jet, hess = self.f.tangent_jet(c.cos(), c.sin(), *lf.pc), self.f.tangent_hess(X.cos(), X.sin(), *lf.P)
            self.values[(a, b)] = second_order(jet, hess, o)
        return self.values[(a, b)]

    def slopes(self, a: fmpq, b: fmpq) -> tuple:
        """Balls containing ``(T', lam)`` on the tile ``[a, b]`` for every parameter of the leaf (as
        :meth:`tangent`)."""
        if (a, b) not in self.slope_balls:
            lf = self.leaf
            c, X, o = self._tile(a, b)
            jet, hess = self.f.slope_jet(c.cos(), c.sin(), *lf.pc), self.f.slope_hess(X.cos(), X.sin(), *lf.P)
            self.slope_balls[(a, b)] = enclose(jet, hess, o)
        return self.slope_balls[(a, b)]

    def decide(self, a: fmpq, b: fmpq):
        """``("sign", s)``, ``("root", tangent sign, radial sign)`` or ``None`` on the tile ``[a, b]``."""
        s = sign(self.tangent(a, b))
        if s:
            return ("sign", s)
        T1, lam = self.slopes(a, b)
        ds = sign(T1)
        if not ds:
            return None
        sa, sb = self.end_sign(a), self.end_sign(b)
        if sa and sa == sb:
            return ("sign", sa)  # T monotone on the tile, one sign at both ends
        if sa != -ds or sb != ds:
            return None
        radial = -sign(lam)
        return ("root", ds, radial) if radial else None

    def slope_signs(self, a: fmpq, b: fmpq) -> tuple:
        """The certified signs of ``T'`` and of ``-2 lam`` on the tile ``[a, b]`` (0: undecided)."""
        T1, lam = self.slopes(a, b)
        return sign(T1), -sign(lam)

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
_MAX_TILES, _MAX_SQUARES = 250, 1000
#: pieces a tile whose ends bracket a zero of ``T`` may be cut into to certify ``T'`` monotone on it
_MONOTONE_PIECES = 8
#: Krawczyk steps that may narrow a proved zero's enclosure until it lies in the open disk
_REFINE = 4
#: tiles wider than this (in ``u``, ``phi = pi u``) are split without a proof attempt
_WIDEST = fmpq(1, 16)


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
            tiles.append((a, b, *out))
        elif count > max_tiles:
            rest.append((a, b))
        elif b - a < u_min or not (circle.end_sign(a) or circle.end_sign(b)):  # inside a zero's band
            fine.append((a, b))
        elif (root := circle.monotone(a, b, _MONOTONE_PIECES))[0] is not None:
            tiles.append((a, b, *root[0]))
            count += root[1]
        else:
            count += root[1]
            stack += _halves(circle, a, b)
    for a, b in _merge(fine):
        root = circle.cluster(a, b, [(x, y) for x, y in fine if a <= x and y <= b])
        if root is None:
            rest.append((a, b))
        else:
            tiles.append((a, b, *root))
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
    """``("none",)``, ``("one", inertia)`` or ``None`` on the square ``box = (a, b, c, d)``: no zero of
    ``g`` in its part inside the open disk, or exactly one for every parameter of the leaf, inside the
    open disk (the Krawczyk operator maps the square into its interior; then it is iterated on what
    it returns, which holds the zero, until that lies in the open disk or outside it: then "none")."""
    a, b, c, d = box
    if _min_square(a, b) + _min_square(c, d) >= 1:
        return ("none",)  # outside the open disk
    X = [arb(a).union(arb(b)), arb(c).union(arb(d))]
    out = _krawczyk(f, leaf, X)
    if out is None or out == "none":
        return None if out is None else ("none",)
    K, H = out
    if not (arb(a) < K[0] < arb(b) and arb(c) < K[1] < arb(d)):
        return None
    signs = inertia(H)
    Z = [K[i].intersection(X[i]) for i in range(2)]
    for _ in range(_REFINE):
        r2 = Z[0] * Z[0] + Z[1] * Z[1]
        if r2 < 1 or r2 >= 1:
            break
        out = _krawczyk(f, leaf, Z)
        if not isinstance(out, tuple):
            return None  # a bug or a failure of the arithmetic: the zero is in Z
        Z = [out[0][i].intersection(Z[i]) for i in range(2)]
    if Z[0] * Z[0] + Z[1] * Z[1] >= 1:
        return ("none",)  # the one zero in the square is not in the open disk
    return ("one", signs) if signs is not None and Z[0] * Z[0] + Z[1] * Z[1] < 1 else None


def _krawczyk(f: K2Field, leaf: _Leaf, X: list):
    """``"none"`` when no zero of ``g`` lies in the box of balls ``X`` for any parameter of the leaf
    (a component of ``g`` excludes 0, or the Krawczyk operator misses ``X``), else ``(K, H)``: the
    Krawczyk operator (every zero in ``X`` lies in ``K``) and the Hessian's balls on ``X``; ``None``
    when the float Hessian is singular."""
    m = [arb(x.mid()) for x in X]
    gc, gh, zero = f.disk_jet(*m, *leaf.pc), f.disk_hess(*m, *leaf.P), arb(0)
    # g at the centre for every parameter: second-order forms in the parameters
    gP = [second_order((gc[i], zero, *gc[2 + 2 * i:4 + 2 * i]), (zero, zero, zero, *gh[3 * i:3 * i + 3]), leaf.o)
          for i in range(2)]
    dX = [X[0] - m[0], X[1] - m[1]]
    h11, h12, h22 = _disk_hessian(f, leaf, X, dX, gc[6:])
    H = [[h11, h12], [h12, h22]]
    if any(sign(gP[i] + H[i][0] * dX[0] + H[i][1] * dX[1]) for i in range(2)):
        return "none"
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
        return "none"
    return K, H


def _disk_hessian(f: K2Field, leaf: _Leaf, X: list, dX: list, centre) -> tuple:
    """Balls containing ``(H11, H12, H22)`` on the square ``X`` for every parameter of the leaf: the
    plain ball functions intersected with the mean-value forms about the centre (``centre``: their
    values there)."""
    out = f.disk_slopes(*X, *leaf.P)
    d = (*dX, leaf.dth, leaf.dal)
    return tuple(out[i].intersection(centre[i] + sum((out[3 + 4 * i + k] * d[k] for k in range(4)), arb(0)))
                 for i in range(3))


def _cover(decide, pending, w_min: fmpq, max_boxes: int, zeros=()):
    """Bisect the squares ``pending``: the decided squares and those left. ``zeros`` are the ``(core,
    band)`` boxes of the float paths of the zeros of ``g`` over the leaf
    (:func:`theory._region._circle_floats.zero_boxes`): a square is split off the band when it can be
    (a split through the path leaves both halves undecided at every depth, one just outside it leaves
    a square around the path, where the Krawczyk operator can prove the zero), and a square that
    meets a core without holding it is left as it is (:func:`_cuts`)."""
    done, left, stack, count = [], [], list(pending), 0
    while stack:
        box = stack.pop()
        count += 1
        out = decide(box) if count <= max_boxes else None
        if out is not None:
            done.append((box, *out))
            continue
        a, b, c, d = box
        if max(b - a, d - c) < w_min or count > max_boxes or any(_cuts(box, core) for core, _ in zeros):
            left.append(box)
            continue
        near = [z for _, z in zeros if z[0] < b and a < z[1] and z[2] < d and c < z[3]]
        if b - a >= d - c:
            p = _split_off(a, b, [z[:2] for z in near])
            stack += [(a, p, c, d), (p, b, c, d)]
        else:
            p = _split_off(c, d, [z[2:] for z in near])
            stack += [(a, b, c, p), (a, b, p, d)]
    return done, left


def _cuts(box, core) -> bool:
    """Whether the square ``box`` meets the float path ``core`` of a zero without holding all of it: no
    sub-square of it can be proved (the zero leaves it for some parameter), so it is not split."""
    a, b, c, d = box
    meets = core[0] < b and a < core[1] and core[2] < d and c < core[3]
    return meets and not (a < core[0] and core[1] < b and c < core[2] and core[3] < d)


def _split_off(lo: fmpq, hi: fmpq, bands) -> fmpq:
    """Where ``[lo, hi]`` is split: at :data:`_SPLIT` of it, or when that falls in one of the float
    intervals ``bands``, at the nearest of its ends inside ``(lo, hi)``."""
    p = lo + (hi - lo) * _SPLIT
    for zl, zh in bands:
        if zl <= p <= zh:
            ends = [q for q in (zl, zh) if lo < q < hi]
            return min(ends, key=lambda q: abs(q - p)) if ends else p
    return p


def _dyadic_box(box) -> tuple:
    """The float box ``(x_lo, x_hi, y_lo, y_hi)`` rounded outward to multiples of ``2^-20``."""
    x0, x1, y0, y1 = (math.floor(v * 2.0 ** 20) if i % 2 == 0 else math.ceil(v * 2.0 ** 20) for i, v in enumerate(box))
    return tuple(fmpq(v, 2 ** 20) for v in (x0, x1, y0, y1))


# ----------------------------------------------------------------------------------
# one leaf


@dataclass(frozen=True)
class K2Equilibrium:
    """One equilibrium proved on a leaf, for every parameter in it.

    Attributes
    ----------
    where : tuple of float
        On the circle: ``(phi_lo, phi_hi)`` in radians, the angle bracket (outward rounded) that holds
        exactly one zero of ``T`` for every parameter (a fork tile's side zeros lie in the open halves
        ``(c - h, c)`` and ``(c, c + h)``, whose closed brackets also hold ``c``, the zero in the middle,
        whose own bracket is the exact point); inside: ``(x_lo, x_hi, y_lo, y_hi)``, the square that
        holds exactly one zero of ``g`` (for the symmetric one-hot law, a piece of the diagonal).
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


@dataclass(frozen=True)
class _Proof:
    """What a proved leaf holds: the circle tiles, the disk squares (or, for the symmetric one-hot law,
    the diagonal pieces, :mod:`theory._region._circle_symmetric`) and the conditions they leave open."""

    tiles: tuple
    squares: tuple = ()
    pieces: tuple | None = None
    keys: tuple = ()

    def equilibria(self, signs=None) -> tuple:
        """The equilibria when the conditions have the signs ``signs`` (key -> +-1)."""
        if self.pieces is None:
            return _equilibria(self.tiles, self.squares)
        return _equilibria(expand(self.tiles, signs or {}), interior(self.pieces, signs or {}))

    def box(self, bounds, signs=None) -> K2RegionBox:
        """The leaf ``bounds`` (a sub-box of the proved one) with this structure."""
        eq = self.equilibria(signs)
        return K2RegionBox(bounds, status_of(eq), eq, len(self.tiles),
                           len(self.squares) if self.pieces is None else len(self.pieces))


@dataclass
class _Hints:
    """Where a leaf proved in this part of the walk cut its circle (``cuts``, in ``u``) and its diagonal
    (``pieces``, in ``t``), its relative ``width``, and the half-widths of the last tiles about the
    points of symmetry (``halves``): the next leaves, its neighbours, start from them (any partition
    that proves a leaf will do; starting from a neighbour's, most tiles are proved at the first try,
    where a bisection from :data:`_WIDEST` tries two or three times). The cuts are those of the last
    leaf that cut afresh: one narrower than ``width`` does (a wider leaf needs finer tiles, and a leaf
    adds its own cuts to those it starts from, so cuts handed on from leaf to leaf would only grow)."""

    cuts: tuple = ()
    pieces: tuple = ()
    halves: dict = field(default_factory=dict)
    width: float = math.inf


def _prove(f: K2Field, leaf: _Leaf, state: tuple, width: float, last: bool = True, hints: _Hints | None = None):
    """``(proof, state)``: the :class:`_Proof` (``None`` when the leaf is not proved) and what is
    decided so far (for the halves of a leaf that fails); ``last``: the leaf is not split further when
    it fails; ``hints``: where to start (symmetric law only; updated from what this leaf proves)."""
    if f.diag_jet is not None:
        return _prove_symmetric(f, leaf, state, width, last, _Hints() if hints is None else hints)
    tiles, pending, squares, left = state
    u_min = _fine(width, 24)
    circle = _Circle(f, leaf)
    new, pending = _tile(circle, pending, u_min, max_tiles=_MAX_TILES)
    tiles = (*tiles, *new)
    if pending:  # the disk only once the circle is proved (a wider leaf is harder)
        return None, (tiles, tuple(pending), squares, left)
    _audit(tiles)
    w_min = _fine(width, 12)
    zeros = [(_dyadic_box(core), _dyadic_box(band)) for core, band in zero_boxes(f.disk_floats, *leaf.floats)]
    done, left = _cover(lambda box: _disk_decide(f, leaf, box), left, w_min, max_boxes=_MAX_SQUARES, zeros=zeros)
    squares = (*squares, *done)
    if left:  # the halves cover the disk afresh: the squares cut here follow this leaf's zero paths, not theirs
        return None, (tiles, (), (), _state0()[3])
    return _Proof(tiles, squares), (tiles, (), squares, ())


def _prove_symmetric(f: K2Field, leaf: _Leaf, state: tuple, width: float, last: bool, hints: _Hints):
    """:func:`_prove` for the symmetric one-hot law: tiles about the points of symmetry (possibly
    conditional; without both, the attempt stops there unless the leaf is ``last``); the rest of the
    circle as for any law, on the half ``u`` in ``[1/4, 5/4]`` when both are proved (``T(pi/2 - phi) =
    -T(phi)`` gives the other half: :func:`_mirror`), the inherited tiles that overlap the new symmetric
    ones dropped; and the diagonal in place of the disk. Each part starts where ``hints`` say and
    updates them when it is proved."""
    circle = _Circle(f, leaf)
    sym = []
    for c in CENTRES:
        tile = symmetric_tile(circle, c, hints.halves.get(c))
        if tile is None and not last:  # the halves try again; the general tiling would need a tile
            return None, state  # holding the zero c, which the tiles about c failed to prove
        if tile is not None:
            sym.append(tile)
            hints.halves[c] = (tile[1] - tile[0]) / 2
    half = [(-_QUARTER * 3, _QUARTER)] if len(sym) == len(CENTRES) else []  # the half the mirror gives
    kept = tuple(t for t in state[0] if not any(t[0] < u[1] and u[0] < t[1] for u in [*sym, *half]))
    u_min = _fine(width, 24)
    fresh = not _at_least(width, hints.width)  # narrower than the leaf that cut: cut afresh
    new, pending = _tile(circle, _gaps([*kept, *sym, *half]), u_min, max_tiles=_MAX_TILES,
                         cuts=() if fresh else hints.cuts)
    kept = (*kept, *new)
    if pending:
        return None, (kept, tuple(pending), (), ())
    if fresh:
        hints.cuts, hints.width = tuple(sorted({u for t in kept for u in t[:2]})), width
    tiles = (*kept, *(_mirror(t) for t in kept if half), *sym)
    _audit(tiles)
    pieces = diagonal(f, leaf, _fine(width, 16),
                      cuts=() if fresh else hints.pieces)
    if pieces is None:
        return None, (kept, (), (), ())
    if fresh:
        hints.pieces = tuple(p[1] for p in pieces[:-1])
    return _Proof(tiles, (), pieces, conditions(tiles, pieces)), (kept, (), (), ())


_QUARTER = fmpq(1, 4)


def _fine(width: float, bits: int) -> fmpq:
    """The smallest piece a proof on a leaf of relative ``width`` cuts (angle tiles, squares, diagonal
    pieces): ``width / 32``, but not below ``2^-bits``."""
    return fmpq(*max(2.0 ** -bits, width / 32).as_integer_ratio())


def _audit(tiles) -> None:
    if not audit_circle(tiles):
        raise AssertionError("a complete tiling of the circle failed its audit")  # a bug, not a leaf's fate


def _mirror(tile) -> tuple:
    """The tile ``u -> 1/2 - u`` maps ``tile`` to (``phi -> pi/2 - phi``, ``u`` kept in ``[-1, 1]``): ``T``
    changes sign there and ``T'``, ``lam`` do not, so a sign tile's sign flips and a root tile keeps its
    signs."""
    a, b, kind, *rest = tile
    lo, hi = _QUARTER * 2 - b, _QUARTER * 2 - a
    if lo >= 1:
        lo, hi = lo - 2, hi - 2
    return (lo, hi, kind, -rest[0]) if kind == "sign" else (lo, hi, kind, *rest)


def _gaps(tiles) -> list:
    """The intervals of ``u`` in ``[-1, 1]`` that the (disjoint) tiles leave uncovered."""
    out, at = [], fmpq(-1)
    for a, b, *_ in sorted(tiles, key=lambda t: t[0]):
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < 1:
        out.append((at, fmpq(1)))
    return out


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
        Number of squares of the proof covering the disk (for the symmetric one-hot law: of pieces of
        the diagonal, :mod:`theory._region._circle_symmetric`).
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
class K2RegionCertificate(LeavesAnswer):
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

    #: every decided leaf's proof passed its audit in the walk (a failed audit raises there)
    certified = True


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


def certify_region_k2(model: ModelBox, options: RegionOptions | None = None) -> K2RegionCertificate:
    """Prove the structure of the equilibria of a ``k = 2`` law on every leaf of an adaptive split of
    a ``(theta, alpha)`` box (module doc).

    Parameters
    ----------
    model : ModelBox
        ``theta`` and ``alpha`` ranges (``0 <= theta_lo < theta_hi``, ``0 < alpha_lo < alpha_hi <= 1``),
        ``beta``, ``sigma2`` fixed, a ``k = 2`` signal law (``"onehot(k=2)"``, ...), one head.
    options : RegionOptions, optional
        ``min_width`` (default ``2^-8``; alpha in its scale), ``prec``, ``max_boxes``; ``box`` (a
        sub-box, walked exactly as the whole walk would when ``inherited`` is the one
        :attr:`K2RegionCertificate.pending` gave with it), ``depth`` (at most :data:`MAX_DEPTH`, 8, so
        that each pending box is walked alone as the whole walk walks it), ``inherited`` and the test
        hook ``field`` (replaces the derived ball functions, :func:`k2_field`)
        (:class:`theory._certify._options.RegionOptions`); not ``log_alpha`` nor ``sign_functions``.

    Returns
    -------
    K2RegionCertificate
    """
    start = time.perf_counter()
    o = RegionOptions.of(options)
    o.refuse(("log_alpha", "sign_functions"), "the k = 2 region walk")
    region, law = _region(model.theta, model.alpha, model.beta, model.sigma2, model.prior,
                          MIN_WIDTH if o.min_width is None else o.min_width, o.prec)
    if model.heads != 1:
        raise ValueError(f"`heads` must be 1 for a region certificate, got {model.heads}")
    max_boxes = integer("max_boxes", o.max_boxes, 1)
    depth = None if o.depth is None else integer("depth", o.depth, 0, MAX_DEPTH)
    top = tuple((k, *region["ranges"][k]) for k in ("theta", "alpha"))
    root = top if o.box is None else _sub_box(o.box, top)
    state = _state0() if o.inherited is None else _check_inherited(o.inherited)
    with precision(region["prec"]):
        leaves, pending = _walk(o.field or k2_field(law), region, (root, state), depth, max_boxes)
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


#: the arcs about the points of symmetry (centre, half-width, radians) whose zeros the float signatures of
#: the symmetric law leave out: the tiles there prove structures that change across the leaf
_SKIP = tuple((math.pi * float(c), math.pi / 8) for c in CENTRES)


def _proved(f: K2Field, proof: _Proof, bounds, region: dict) -> list:
    """The leaves of a proved box: itself, or, when its proof leaves conditions open, its sub-boxes on
    which they have certified signs (:func:`theory._region._circle_symmetric.resolve`)."""
    if not proof.keys:
        return [proof.box(bounds)]
    beta, sigma2 = region["fixed"]["beta"], region["fixed"]["sigma2"]

    def make(b):
        (_, t0, t1), (_, a0, a1) = b
        return _Leaf.of(t0, t1, a0, a1, beta, sigma2)

    parts = resolve(f, proof.keys, bounds, make, lambda b: [relative_width(region, *x) for x in b],
                    region["min_width"], region["scale"]["alpha"] == "log")
    return [K2RegionBox(b, "undecided") if signs is None else proof.box(b, signs) for b, signs in parts]


def _split_width(region: dict, side: tuple, plain: float) -> float:
    """The width the walk splits a side ``(name, lo, hi)`` by: its ``plain`` width
    (:func:`theory._region._certify.relative_width`), but for ``alpha`` in log scale at least its linear
    width relative to the range (the field moves with ``alpha`` itself, so a log-scale side near
    ``alpha = 1`` is wide for a proof)."""
    name, lo, hi = side
    if name == "alpha" and region["scale"]["alpha"] == "log":
        a, b = region["ranges"]["alpha"]
        return max(plain, (hi - lo) / (b - a))
    return plain


def _widths(region: dict, bounds) -> tuple:
    """``(split widths, plain widths)`` of a leaf: the plain ones are
    :func:`theory._region._certify.relative_width` (``alpha`` in its scale), and the walk splits by them
    while either side is wider than ``min_width``, then by :func:`_split_width` (``alpha`` also in linear
    scale), so that a leaf near ``alpha = 1`` is cut thinner in ``alpha`` only where it fails at
    ``min_width``."""
    plain = [relative_width(region, *b) for b in bounds]
    if max(plain) > region["min_width"]:
        return plain, plain
    return [_split_width(region, b, w) for b, w in zip(bounds, plain, strict=True)], plain


def _at_least(w: float, v: float) -> bool:
    """``w >= v`` for relative widths that are powers of two up to rounding (a width of ``0.075`` in a
    range of ``0.6`` is ``0.12499...``, not ``1/8``): a factor ``3/4`` of slack, half a split."""
    return w > 0.75 * v


#: the hints (:class:`_Hints`) start afresh at each leaf at least this wide (relative to the range): a
#: subtree walked alone (:func:`numerics.certify_region_k2_tasks`) from a box that wide is walked as in
#: the whole walk. After ``d`` splits a box is at least ``2^-ceil(d/2)`` wide on one side, so every box
#: at most :data:`MAX_DEPTH` splits deep is.
_HINT_SCOPE = 2.0 ** -4
MAX_DEPTH = 2 * round(-math.log2(_HINT_SCOPE))


def _walk(f: K2Field, region: dict, start: tuple, depth, max_boxes: int) -> tuple:
    """The leaves of the subtree of ``start = (bounds, state)`` in depth-first order (low halves
    first), each box handing what it decided to its halves, and the ``(index, bounds, state)`` of the
    boxes left at ``depth``. A box whose corners differ in float signature
    (:class:`theory._region._circle_floats.SignatureCache`) is split without a proof attempt."""
    beta, sigma2 = region["fixed"]["beta"], region["fixed"]["sigma2"]
    floats = SignatureCache(f.floats, beta, sigma2, skip=_SKIP if f.diag_jet is not None else ())
    leaves: list[K2RegionBox] = []
    pending: list[tuple] = []
    stack, examined, hints = [(*start, 0)], 0, _Hints()
    while stack:
        bounds, state, level = stack.pop()
        if depth is not None and level >= depth:
            pending.append((len(leaves), bounds, state))
            continue
        examined += 1
        if examined > max_boxes:
            leaves.extend(K2RegionBox(b, "undecided") for b in [bounds, *(b for b, _, _ in stack)])
            break
        widths, plain = _widths(region, bounds)
        if _at_least(max(plain), _HINT_SCOPE):
            hints = _Hints()
        axis = floats.split_axis(bounds)
        if axis is None:
            (_, t0, t1), (_, a0, a1) = bounds
            proof, state = _prove(f, _Leaf.of(t0, t1, a0, a1, beta, sigma2), state, max(widths),
                                  last=max(widths) <= region["min_width"], hints=hints)
            if proof is not None:
                leaves.extend(_proved(f, proof, bounds, region))
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
