"""Certificates over a box of parameters: adaptive subdivision in ball arithmetic.

:func:`certify_region` takes any of ``theta``, ``alpha``, ``beta``, ``sigma2`` and the
numeric parameters of the prior (``gaussian(mu=0.5:1, tau=0.2)``,
:func:`theory._laws.parse_ranged_prior`) as ranges (the others fixed) and splits the
parameter box until, on each leaf, one statement is proved for *every* parameter in the
leaf:

* ``monotone``: the sign function ``g`` of :func:`theory.certify` (``j' = P g`` with ``P``
  known analytically to be positive) is ``> 0`` on ``[-1, 1]``;
* ``bistable``: ``g`` has exactly one zero in ``(-1, 1)``, inside a certified rho-interval
  ``[a, b]`` on which ``g(a)``, ``g(b)`` have opposite certified signs and ``g'`` a certified
  sign (so the root is simple and ``F' = (1 - rho^2) P g'`` there has that sign), and ``g``
  has a certified sign on the rest of ``[-1, 1]`` (so also at both poles,
  ``F'(+1) = -2 j'(1)``, ``F'(-1) = 2 j'(-1)``). For a mean-zero prior (rademacher) the
  certified factor is ``k = j' / (c rho)``: ``k`` of one sign on ``[-1, 1]`` proves the one
  exact equilibrium ``rho = 0`` (no other), as in the point certificate.

Every parameter enters the sign function as an ``arb`` ball covering the leaf, and every
evaluation point in ``rho`` as a ball or an exact rational, so a claim holds on the
closed box (:mod:`theory._region._proof`), with two ends of the domain: ``alpha = 1`` is
part of a box (the informative mass is formed as ``alpha M / (alpha M + 1 - alpha)``,
continuous there), and a box may start at ``theta = 0``, where the field vanishes
identically: its claim is for ``0 < theta <= hi`` (``g`` itself is proved on the closed
box; only the removed factor ``P``, proportional to ``theta``, vanishes at 0).

A leaf that proves neither is split (the side with the largest width relative to its
range, ``alpha`` in ``log`` when its range spans a decade or more) down to ``min_width``
(relative), then reported ``undecided``. Near a phase boundary (the fixed prior's
``alpha_c(theta)``, where the root reaches the pole ``rho = -1``; in the sparse regime
``beta theta = 1``) no box is decided, by construction: a thin undecided band.

The tree of boxes is a function of the region alone: a sub-box (``box=``) is split and
proved exactly as inside the whole run, and ``depth=`` stops the walk, leaving the boxes
at that depth *pending* in order, so the subtrees can run elsewhere
(:func:`numerics.certify_region_tasks`) and be merged by
:meth:`RegionCertificate.from_boxes` into the same certificate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from flint import arb, fmpq

from ...core.validate import integer, real
from .._certify._options import RegionOptions
from .._certify._protocol import LeavesAnswer
from .._certify._roots import precision
from .._certify._scalar import MAX_PREC, _sign_functions
from .._laws import Prior, RangedPrior, parse_ranged_prior
from .._laws._ranged import WidePrior, region_law
from .._model import _DOMAIN, RANGED, Model, ModelBox
from .._model import parse_side as _parse
from ._proof import BallModel, audit, prove_box

#: default relative width below which a box is not split further
MIN_WIDTH = 2.0 ** -10


@dataclass(frozen=True)
class RegionBox:
    """One leaf of :func:`certify_region`.

    Attributes
    ----------
    bounds : tuple of (str, float, float)
        The ranged parameters and the closed interval of each.
    status : {"monotone", "bistable", "undecided"}
    equilibrium : tuple or None
        Bistable: ``(lo, hi, stability, exact)``: for every parameter in the box the one
        interior equilibrium lies in ``(lo, hi)`` (``lo == hi`` when exact).
    poles : tuple or None
        ``(F'(+1), F'(-1))`` labels ``"stable"``/``"unstable"``, certified on the box.
    proof : tuple
        The rho-tiles ``(lo, hi, kind, sign)`` that proved the status (``kind`` is
        ``"sign"``: ``g`` has that sign on the tile, or ``"root"``: one simple root, ``g'``
        of that sign); empty when undecided.
    """

    bounds: tuple
    status: str
    equilibrium: tuple | None = None
    poles: tuple | None = None
    proof: tuple = ()

    @property
    def equilibria(self) -> tuple:
        """The interior equilibrium proved on the box (``()`` or a 1-tuple of :attr:`equilibrium`)."""
        return () if self.equilibrium is None else (self.equilibrium,)

    def as_dict(self) -> dict:
        out: dict[str, object] = {name: [lo, hi] for name, lo, hi in self.bounds}
        out["status"] = self.status
        if self.poles is not None:
            out["poles"] = {"plus": self.poles[0], "minus": self.poles[1]}
        if self.equilibrium is not None:
            lo, hi, stability, exact = self.equilibrium
            out["equilibrium"] = {"rho": [lo, hi], "stability": stability, "exact": exact}
        return out


@dataclass(frozen=True)
class RegionCertificate(LeavesAnswer):
    """Outcome of :func:`certify_region`.

    Attributes
    ----------
    region : dict
        ``ranges`` (name -> ``[lo, hi]``), ``fixed`` (name -> value), ``prior``, ``scale``
        (name -> ``"linear"`` or ``"log"``: how widths and measure are taken), ``min_width``,
        ``prec``.
    boxes : tuple of RegionBox
        The leaves; they tile the parameter box.
    fractions : dict
        Measure fraction of each status (product of the relative widths in each
        parameter's scale, so ``alpha`` in log when ``scale["alpha"] == "log"``).
    certified : bool
        True iff every non-undecided leaf carries a proof that passes :func:`audit`
        (a contiguous tiling of ``[-1, 1]`` with the claimed sign pattern).
    seconds : float
    pending : tuple
        With ``depth``: ``(index, bounds)`` of the boxes left unexamined at that depth, in
        order; the leaves of the subtree of each belong at ``index`` in ``boxes``
        (:meth:`from_boxes` merges them). Empty otherwise.
    """

    region: dict
    boxes: tuple
    fractions: dict
    certified: bool
    seconds: float
    pending: tuple = ()

    @property
    def boxes_count(self) -> int:
        return len(self.boxes)


    @classmethod
    def from_boxes(cls, region: dict, boxes, seconds: float, pending=()) -> RegionCertificate:
        """The certificate of the leaves ``boxes`` of ``region`` (a :attr:`region` dict):
        fractions in the region's scales and the audit of every proof, recomputed here."""
        boxes = tuple(boxes)
        fractions = area_fractions(region, boxes, ("monotone", "bistable", "undecided"))
        certified = all(audit(leaf.proof, leaf.equilibrium is not None and leaf.equilibrium[3]) == leaf.status
                        for leaf in boxes if leaf.status != "undecided")
        return cls(region, boxes, fractions, certified, seconds, tuple(pending))

    def as_dict(self) -> dict:
        out = {
            "region": self.region,
            "boxes": [b.as_dict() for b in self.boxes],
            "fractions": dict(self.fractions),
            "certified": self.certified,
            "boxes_count": self.boxes_count,
            "seconds": self.seconds,
        }
        if self.pending:
            out["pending"] = [[i, [list(b) for b in bounds]] for i, bounds in self.pending]
        return out


# ----------------------------------------------------------------------------------
# the parameter box


def area_fractions(region: dict, leaves, statuses=("undecided",)) -> dict:
    """The area of ``region`` (each side in its scale, :func:`relative_width`) that the ``leaves``
    of each status cover; every status of ``statuses`` is present (0 when no leaf has it)."""
    out = dict.fromkeys(statuses, 0.0)
    for leaf in leaves:
        out[leaf.status] = out.get(leaf.status, 0.0) + math.prod(relative_width(region, *b) for b in leaf.bounds)
    return out


def relative_width(region: dict, name: str, lo: float, hi: float) -> float:
    """The width of ``[lo, hi]`` in parameter ``name`` as a fraction of the region's range of it, in
    the region's scale for it (``region["scale"][name]``: ``"log"`` or ``"linear"``); what the walks
    split by and what the area fractions are summed in."""
    a, b = region["ranges"][name]
    if region["scale"][name] == "log":
        return math.log(hi / lo) / math.log(b / a)
    return (hi - lo) / (b - a)


def _split_point(lo: float, hi: float, log: bool) -> float:
    p = math.sqrt(lo * hi) if log else lo + 0.5 * (hi - lo)
    return p if lo < p < hi else lo + 0.5 * (hi - lo)


def _sub_box(box, top) -> tuple:
    """``box`` (bounds ``((name, lo, hi), ...)`` as :attr:`RegionBox.bounds`) checked to lie in ``top``."""
    try:
        box = tuple((str(n), float(lo), float(hi)) for n, lo, hi in box)
    except (TypeError, ValueError):
        raise ValueError(f"`box` must be bounds ((name, lo, hi), ...) as RegionBox.bounds, got {box!r}") from None
    if [n for n, _, _ in box] != [n for n, _, _ in top] or not all(
            a <= lo < hi <= b for (_, lo, hi), (_, a, b) in zip(box, top, strict=True)):
        raise ValueError(f"`box` must be a sub-box of {top!r} with the same names in order, got {box!r}")
    return box


def certify_region(model: ModelBox, options: RegionOptions | None = None) -> RegionCertificate:
    """Certify the status of the field on every leaf of an adaptive split of a parameter box.

    Parameters
    ----------
    model : ModelBox
        The box: ``theta``, ``alpha``, ``beta``, ``sigma2`` fixed or ranges (a box starting at
        ``theta = 0`` makes its claim for ``theta > 0``), a scalar prior whose numbers may be
        ranges ``LO:HI`` (each a side of the box, linear scale, named as in the spec in
        :attr:`RegionBox.bounds`); at least one range. One head.
    options : RegionOptions, optional
        ``min_width`` (default ``2^-10``), ``prec``, ``log_alpha``, ``max_boxes``, ``box``,
        ``depth`` and the test hook ``sign_functions`` (:class:`theory._certify._options.RegionOptions`);
        not ``inherited`` nor ``field`` (the ``k = 2`` walk's).

    Returns
    -------
    RegionCertificate
    """
    start = time.perf_counter()
    o = RegionOptions.of(options)
    o.refuse(("inherited", "field"), "the scalar region walk")
    if model.heads != 1:
        raise ValueError(f"`heads` must be 1 for a region certificate, got {model.heads}")
    given = {"theta": model.theta, "alpha": model.alpha, "beta": model.beta, "sigma2": model.sigma2}
    ctx = _context(given, model.prior, MIN_WIDTH if o.min_width is None else o.min_width, o.prec, o.log_alpha,
                   o.sign_functions)
    max_boxes = integer("max_boxes", o.max_boxes, 1)
    depth = None if o.depth is None else integer("depth", o.depth, 0)
    top = tuple((k, *ctx.ranges[k]) for k in ctx.ranges)
    root = top if o.box is None else _sub_box(o.box, top)
    with precision(ctx.prec):
        walk = Walk(_Examine(ctx), lambda b: RegionBox(b, "undecided"), ctx.scale, depth, max_boxes)
        leaves, pending = walk.run(root)
    return RegionCertificate.from_boxes(ctx.region, leaves, time.perf_counter() - start,
                                        [(p.position, p.bounds) for p in pending])


@dataclass(frozen=True)
class _Context:
    """What every box of one region reads: ranges, scales, fixed values, the prior."""

    ranges: dict
    scale: dict
    fixed: dict
    prior: RangedPrior | WidePrior | Prior
    sparse: bool
    min_width: float
    prec: int
    sign_functions: object
    region: dict

    def rel(self, name, lo, hi) -> float:
        return relative_width(self.region, name, lo, hi)


def _context(given: dict, prior, min_width, prec, log_alpha, sign_functions) -> _Context:
    """The context of the region of the values ``given`` (name -> value or range) and ``prior``."""
    values = {k: _parse(k, v, _DOMAIN[k]) for k, v in given.items()}
    ranges = {k: v for k, v in values.items() if isinstance(v, tuple)}
    law = parse_ranged_prior(prior)
    if isinstance(law, RangedPrior):
        ranges.update(law.ranges)
    if not ranges:
        raise ValueError("give at least one of `theta`, `alpha`, `beta`, `sigma2` (or a prior parameter) as a "
                         "range (lo, hi); for one point use certify")
    min_width = real("min_width", min_width, lower=0.0, upper=1.0, strict=True)
    prec = integer("prec", prec, 53, MAX_PREC)
    # the fixed values and the prior, validated by the point model at the box's corner
    point = law.at() if isinstance(law, RangedPrior) else law
    corner = {k: (v[0] if isinstance(v, tuple) else v) for k, v in values.items()}
    probe = Model(corner["theta"], corner["alpha"], corner["beta"], corner["sigma2"], prior=point)
    fixed = {k: getattr(probe, k) for k in RANGED if k not in ranges}
    lo, hi = ranges.get("alpha", (1.0, 1.0))
    log = "alpha" in ranges and ((hi / lo >= 10) if log_alpha is None else bool(log_alpha))
    scale = {k: ("log" if k == "alpha" and log else "linear") for k in ranges}
    region = {"ranges": {k: list(v) for k, v in ranges.items()}, "fixed": fixed, "prior": str(law.spec),
              "scale": scale, "min_width": min_width, "prec": prec}
    # a point prior of three or more atoms is read through the tight enclosures over a wide t
    law = law if isinstance(law, RangedPrior) else region_law(probe.prior)
    return _Context(ranges=ranges, scale=scale, fixed=fixed, prior=law,
                    sparse=probe.sparse, min_width=min_width, prec=prec,
                    sign_functions=sign_functions or _sign_functions, region=region)


# ----------------------------------------------------------------------------------
# the walk (of this module's boxes and of the k = 2 ones, theory._region._circle)


class Pending(NamedTuple):
    """A box left unexamined at the walk's depth: the leaves of its subtree belong at ``position`` in
    the walk's leaves, and ``state`` is what its parent handed down (the ``k = 2`` walk's, else ``None``)."""

    position: int
    bounds: tuple
    state: object = None


class Step(NamedTuple):
    """What the walk does with a box: keep ``leaves`` (proved or undecided), or, when ``None``, split it
    across side ``axis``, handing ``state`` to both halves."""

    leaves: list | None = None
    axis: int = 0
    state: object = None


@dataclass(frozen=True)
class Walk:
    """A depth-first walk of a box (low halves first): ``examine(bounds, state) -> Step`` decides each
    box, ``undecided(bounds)`` is the leaf of a box the budget ``max_boxes`` leaves unexamined, a split
    is at :func:`_split_point` in the side's ``scale``, and the boxes ``depth`` splits below the start
    are left pending."""

    examine: Callable[[tuple, object], Step]
    undecided: Callable[[tuple], object]
    scale: dict
    depth: int | None
    max_boxes: int

    def run(self, root: tuple, state: object = None) -> tuple[list, list[Pending]]:
        """The leaves of the subtree of ``root`` in order and the boxes left at ``depth``."""
        leaves: list = []
        pending: list[Pending] = []
        stack, examined = [(root, state, 0)], 0
        while stack:
            bounds, state, level = stack.pop()
            if self.depth is not None and level >= self.depth:
                pending.append(Pending(len(leaves), bounds, state))
                continue
            examined += 1
            if examined > self.max_boxes:
                leaves.extend(self.undecided(b) for b in [bounds, *(b for b, _, _ in stack)])
                break
            step = self.examine(bounds, state)
            if step.leaves is not None:
                leaves.extend(step.leaves)
                continue
            i = step.axis
            name, lo, hi = bounds[i]
            p = _split_point(lo, hi, self.scale[name] == "log")
            for part in ((p, hi), (lo, p)):
                stack.append(((*bounds[:i], (name, *part), *bounds[i + 1:]), step.state, level + 1))
        return leaves, pending


class _Examine:
    """:attr:`Walk.examine` of :func:`certify_region`: prove a status on the box, else split its widest
    side, down to ``min_width``."""

    def __init__(self, ctx: _Context):
        self.ctx = ctx
        self.fixed_balls = {k: arb(v) for k, v in ctx.fixed.items()}

    def __call__(self, bounds: tuple, state: object) -> Step:
        ctx = self.ctx
        widths = [ctx.rel(*b) for b in bounds]
        balls = {k: arb(lo).union(arb(hi)) for k, lo, hi in bounds if k in RANGED}
        law = ctx.prior.ball({k: (lo, hi) for k, lo, hi in bounds if k not in RANGED}) \
            if isinstance(ctx.prior, RangedPrior) else ctx.prior
        bm = BallModel(law, sparse=ctx.sparse, **self.fixed_balls, **balls)
        rho_min = fmpq(*max(2.0 ** -30, max(widths) / 64).as_integer_ratio())
        proved = prove_box(bm, ctx.sign_functions, rho_min, max_tiles=512)
        if proved is not None:
            return Step([RegionBox(bounds, *proved)])
        i = max(range(len(bounds)), key=widths.__getitem__)
        return Step([RegionBox(bounds, "undecided")]) if widths[i] <= ctx.min_width else Step(axis=i)
