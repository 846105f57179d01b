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
form in the angle *and* the parameters (:mod:`theory._region._circle_forms`), read from forward
derivatives of a straight-line program (:mod:`theory._region._circle_taylor`). In the disk, ``g`` at
a square's centre is the same form in the parameters, and the Hessian ``H`` of the field over the
square is the plain ball function intersected with its mean-value form.

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

**The symmetric one-hot law** (``onehot(k=2)``; :mod:`theory._region._circle_symmetric`): the disk
is a tiling of the diagonal, the tiles about the two points of symmetry (root or *fork* tiles) prove
the circle's half between them, its mirror the other half, and a leaf across a phase boundary (all
three pass through those points) is proved once, then split into sub-boxes on which the signs of
``T'`` and ``lam`` at them are certified, down to ``min_width / 16``.

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
:func:`numerics.certify_region_tasks`). Before a proof attempt, the float signatures of the
circle equilibria at the leaf's corners and centre (:mod:`theory._region._circle_floats`) are
compared: when they differ no proof can succeed, and the leaf is split across the side whose ends
differ without trying. A root tile is also proved on a tile wider than the fine width when ``T``
has opposite certified signs at its ends and ``T'``, ``lam`` one certified sign on a few pieces
covering it; a piece with no certified sign of ``T`` at either end lies inside the band a zero
sweeps over the leaf and is not split further (it joins a cluster). Tiles wider than
:data:`theory._region._circle_tiles._WIDEST` are split without an attempt. Each attempt has a budget
(:data:`theory._region._circle_tiles._MAX_TILES`, :data:`theory._region._circle_tiles._MAX_SQUARES`).

**Hints** (symmetric law). Any partition of the circle and the diagonal that proves a leaf will do,
and a neighbour's nearly does: a proof starts from the cuts of a leaf proved before it in the walk
(:class:`theory._region._circle_leaf._Hints`; the tiles about the points of symmetry from the last
half-widths proved there), where a bisection from the widest tile tries each tile two or three
times. Hints only change where tiles are cut, never what a tile must satisfy, and they start afresh
at every leaf at least :data:`_HINT_SCOPE` (2^-4) wide, so that a subtree walked alone from a box at
most :data:`MAX_DEPTH` splits deep is walked as here.

**What is left.** An attempt on a leaf that will still be split stops at the first point of symmetry
whose tile fails (its halves try again). What is left undecided are the bands along the three phase
boundaries, ``min_width / 16`` wide (two halves of a sub-box both undecided are joined again). The
field's setup (:func:`theory._region._circle_taylor.k2_field`, deriving and printing the ball
functions) is done once per process: the functions are kept in the disk cache of generated code, and
the package ships those of ``onehot(k=2)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ...core.validate import integer, real
from .._certify._options import RegionOptions
from .._certify._protocol import LeavesAnswer
from .._certify._roots import precision
from .._certify._scalar import MAX_PREC
from .._model import Model, ModelBox
from ._certify import _DOMAIN, Step, Walk, _parse, _sub_box, area_fractions, relative_width
from ._circle_floats import SignatureCache
from ._circle_leaf import LeafState, _at_least, _Hints, _Proof, _prove, status_of
from ._circle_symmetric import CENTRES, resolve
from ._circle_taylor import K2Field, k2_field
from ._circle_tiles import _Leaf

#: default relative width below which a leaf is not split further
MIN_WIDTH = 2.0 ** -8


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
        ``certify(box, box=bounds, inherited=inherited)`` walks it as the whole walk would
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
    state = LeafState() if o.inherited is None else _check_inherited(o.inherited)
    with precision(region["prec"]):
        f = o.field or k2_field(law)
        walk = Walk(_Examine(f, region), lambda b: K2RegionBox(b, "undecided"), region["scale"], depth, max_boxes)
        leaves, pending = walk.run(root, state)
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


def _check_inherited(inherited) -> LeafState:
    """``inherited`` checked to be a leaf's state (:class:`theory._region._circle_leaf.LeafState`)."""
    if not isinstance(inherited, LeafState):
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
        return [_leaf_box(proof, bounds)]
    beta, sigma2 = region["fixed"]["beta"], region["fixed"]["sigma2"]

    def make(b):
        (_, t0, t1), (_, a0, a1) = b
        return _Leaf.of(t0, t1, a0, a1, beta, sigma2)

    parts = resolve(f, proof.keys, bounds, make, lambda b: [relative_width(region, *x) for x in b],
                    region["min_width"], region["scale"]["alpha"] == "log")
    return [K2RegionBox(b, "undecided") if signs is None else _leaf_box(proof, b, signs) for b, signs in parts]


def _leaf_box(proof: _Proof, bounds: tuple, signs: dict | None = None) -> K2RegionBox:
    """The leaf ``bounds`` (a sub-box of the proved one) with the structure of ``proof``."""
    eq = proof.equilibria(signs)
    return K2RegionBox(bounds, status_of(eq), eq, len(proof.tiles), proof.squares_count)


def _widths(region: dict, bounds) -> tuple:
    """``(split widths, plain widths)`` of a leaf: the plain ones are
    :func:`theory._region._certify.relative_width` (``alpha`` in its scale), and the walk splits by them
    while either side is wider than ``min_width``, then, for ``alpha`` in log scale, by at least its
    linear width relative to the range (the field moves with ``alpha`` itself, so a log-scale side near
    ``alpha = 1`` is wide for a proof): a leaf near ``alpha = 1`` is cut thinner in ``alpha`` only where it
    fails at ``min_width``."""
    plain = [relative_width(region, *b) for b in bounds]
    if max(plain) > region["min_width"] or region["scale"]["alpha"] != "log":
        return plain, plain
    a, b = region["ranges"]["alpha"]
    pairs = zip(bounds, plain, strict=True)
    return [max(w, (hi - lo) / (b - a)) if name == "alpha" else w for (name, lo, hi), w in pairs], plain


#: the hints (:class:`theory._region._circle_leaf._Hints`) start afresh at each leaf at least this wide
#: (relative to the range): a subtree walked alone (:func:`numerics.certify_region_tasks`) from a box
#: that wide is walked as in the whole walk. After ``d`` splits a box is at least ``2^-ceil(d/2)`` wide
#: on one side, so every box at most :data:`MAX_DEPTH` splits deep is.
_HINT_SCOPE = 2.0 ** -4
MAX_DEPTH = 2 * round(-math.log2(_HINT_SCOPE))


class _Examine:
    """:attr:`theory._region._certify.Walk.examine` of :func:`certify_region_k2`: prove the leaf, each
    box handing what it decided to its halves, with the hints of the leaves proved before it; a box
    whose corners differ in float signature (:class:`theory._region._circle_floats.SignatureCache`) is
    split without a proof attempt."""

    def __init__(self, f: K2Field, region: dict):
        self.f, self.region, self.hints = f, region, _Hints()
        self.beta, self.sigma2 = region["fixed"]["beta"], region["fixed"]["sigma2"]
        self.floats = SignatureCache(f.floats, self.beta, self.sigma2, skip=_SKIP if f.diag_jet is not None else ())

    def __call__(self, bounds: tuple, state: object) -> Step:
        assert isinstance(state, LeafState)
        region, min_width = self.region, self.region["min_width"]
        widths, plain = _widths(region, bounds)
        if _at_least(max(plain), _HINT_SCOPE):
            self.hints = _Hints()
        axis = self.floats.split_axis(bounds)
        if axis is None:
            (_, t0, t1), (_, a0, a1) = bounds
            proof, state = _prove(self.f, _Leaf.of(t0, t1, a0, a1, self.beta, self.sigma2), state, max(widths),
                                  last=max(widths) <= min_width, hints=self.hints)
            if proof is not None:
                return Step(_proved(self.f, proof, bounds, region))
        i = axis if axis is not None and axis >= 0 and widths[axis] > min_width else \
            max(range(2), key=widths.__getitem__)
        return Step([K2RegionBox(bounds, "undecided")]) if widths[i] <= min_width else Step(axis=i, state=state)
