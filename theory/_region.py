"""Certificates over a box of parameters: adaptive subdivision in ball arithmetic.

:func:`certify_region` takes any of ``theta``, ``alpha``, ``beta``, ``sigma2`` as a range
``(lo, hi)`` (the others fixed) and splits the parameter box until, on each leaf, one
statement is proved for *every* parameter in the leaf:

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
closed box. A leaf that proves neither is split (the side with the largest width relative
to its range, ``alpha`` in ``log`` when its range spans a decade or more) down to
``min_width`` (relative), then reported ``undecided``. Near a phase boundary (the fixed
prior's ``alpha_c(theta)``, where the root reaches the pole ``rho = -1``; in the sparse
regime ``beta theta = 1``) no box is decided, by construction: a thin undecided band.

The prior's own numeric parameters (``gaussian(mu, tau)``, ...) stay fixed: they enter
the tilted law as exact rationals (:meth:`theory.Prior.tilted_ball`), not as balls.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from flint import arb, fmpq

from ._certify import MAX_PREC, _sign_functions
from ._model import Model
from ._roots import _SPLIT, decide, precision, sign
from .validate import integer, real

#: the parameters that may be given as ranges, in this order
RANGED = ("theta", "alpha", "beta", "sigma2")
#: default relative width below which a box is not split further
MIN_WIDTH = 2.0 ** -10
#: ``F'`` sign -> label (as :func:`theory.pole_signs` and the CLI use them)
_LABEL = {-1: "stable", 1: "unstable"}


@dataclass(frozen=True)
class BallModel:
    """A model whose parameters are ``arb`` balls (what the sign functions read)."""

    prior: object
    theta: object
    alpha: object
    beta: object
    sigma2: object
    sparse: bool


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

    def as_dict(self) -> dict:
        out = {name: [lo, hi] for name, lo, hi in self.bounds}
        out["status"] = self.status
        if self.poles is not None:
            out["poles"] = {"plus": self.poles[0], "minus": self.poles[1]}
        if self.equilibrium is not None:
            lo, hi, stability, exact = self.equilibrium
            out["equilibrium"] = {"rho": [lo, hi], "stability": stability, "exact": exact}
        return out


@dataclass(frozen=True)
class RegionCertificate:
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
    """

    region: dict
    boxes: tuple
    fractions: dict
    certified: bool
    seconds: float

    @property
    def boxes_count(self) -> int:
        return len(self.boxes)

    def as_dict(self) -> dict:
        return {
            "region": self.region,
            "boxes": [b.as_dict() for b in self.boxes],
            "fractions": dict(self.fractions),
            "certified": self.certified,
            "boxes_count": self.boxes_count,
            "seconds": self.seconds,
        }


# ----------------------------------------------------------------------------------
# one box: tile [-1, 1] in rho with parameter balls


def _tiles(g, dg, rho_min: fmpq, max_tiles: int):
    """Tiles ``(lo, hi, kind, sign)`` covering ``[-1, 1]`` left to right, or ``None`` when
    a tile narrower than ``rho_min`` (or the budget) is reached undecided."""
    tiles, stack, count = [], [(fmpq(-1), fmpq(1))], 0
    while stack:
        a, b = stack.pop()
        count += 1
        if count > max_tiles:
            return None
        kind, s = decide(g, dg, a, b)
        if kind is not None:
            tiles.append((a, b, kind, s))
            continue
        if b - a < rho_min:
            return None
        p = _split(g, a, b)
        stack.append((p, b))
        stack.append((a, p))
    return tiles


#: where a rho-tile is split, in order of preference (the first with a certified sign of g)
_FRACTIONS = (_SPLIT, fmpq(1, 3), fmpq(2, 3), fmpq(1, 5), fmpq(4, 5))


def _split(g, a: fmpq, b: fmpq) -> fmpq:
    """A split point of ``[a, b]`` where ``g`` has a certified sign for the whole parameter
    box, if one of :data:`_FRACTIONS` gives one: a fixed split point that the root passes
    through for some parameter in the box would stay undecided at every depth."""
    for frac in _FRACTIONS:
        p = a + (b - a) * frac
        if sign(g(arb(p))):
            return p
    return a + (b - a) * _SPLIT


def audit(tiles, root_at_zero: bool) -> str | None:
    """The status a tiling proves, or ``None``: the tiles must cover ``[-1, 1]`` without
    gaps; no root tile and ``g > 0`` -> ``"monotone"``; exactly one root tile between tiles
    of opposite sign (consistent with ``g'``) -> ``"bistable"``; for a mean-zero prior
    (``root_at_zero``) no root tile and one sign of ``k`` -> ``"bistable"`` (``rho = 0``)."""
    if not tiles or tiles[0][0] != -1 or tiles[-1][1] != 1:
        return None
    if any(t[1] != u[0] for t, u in zip(tiles, tiles[1:])):
        return None
    roots = [i for i, t in enumerate(tiles) if t[2] == "root"]
    signs = {t[3] for t in tiles if t[2] == "sign"}
    if root_at_zero:
        return "bistable" if not roots and len(signs) == 1 else None
    if not roots:
        return "monotone" if signs == {1} else None
    if len(roots) != 1:
        return None
    i, slope = roots[0], tiles[roots[0]][3]
    left = {t[3] for t in tiles[:i]}
    right = {t[3] for t in tiles[i + 1:]}
    # g rises through the root iff g' > 0 there: the sign left of it is -slope, right +slope
    if left - {-slope} or right - {slope}:
        return None
    return "bistable"


def _prove(bm: BallModel, sign_functions, rho_min: fmpq, max_tiles: int):
    """``(status, equilibrium, poles, tiles)`` proved on the box, or ``None``."""
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
            equilibrium = (0.0, 0.0, _LABEL[s_plus], True)  # F'(0) = c k(0), k of one sign
        else:
            i = next(i for i, t in enumerate(tiles) if t[2] == "root")
            a, b, _, slope = tiles[i]
            # [A, a] and [b, B] keep g' of one sign and their end signs: no zero there
            A, B = a, b
            a, b = _narrow(g, A, B, -slope)
            tiles[i:i + 1] = [t for t in ((A, a, "sign", -slope), (a, b, "root", slope), (b, B, "sign", slope))
                              if t[0] < t[1]]
            # outward rounding of the rational ends keeps the root inside [lo, hi]
            lo, hi = _floor(a), _ceil(b)
            equilibrium = (lo, hi, _LABEL[slope], False)
    return status, equilibrium, poles, tuple((float(a), float(b), k, s) for a, b, k, s in tiles)


def _narrow(g, a: fmpq, b: fmpq, left: int, steps: int = 60):
    """Shrink a root tile ``[a, b]`` (``g(a)`` of sign ``left``, ``g(b)`` opposite, for every
    parameter) by bisection while ``g`` at a split point has a certified sign."""
    for _ in range(steps):
        for frac in (fmpq(1, 2), fmpq(1, 3), fmpq(2, 3), fmpq(1, 5), fmpq(4, 5)):
            p = a + (b - a) * frac
            s = sign(g(arb(p)))
            if s:
                break
        else:
            return a, b
        if s == left:
            a = p
        else:
            b = p
    return a, b


def _floor(q: fmpq) -> float:
    x = float(q)
    return x if fmpq(*x.as_integer_ratio()) <= q else math.nextafter(x, -math.inf)


def _ceil(q: fmpq) -> float:
    x = float(q)
    return x if fmpq(*x.as_integer_ratio()) >= q else math.nextafter(x, math.inf)


# ----------------------------------------------------------------------------------
# the parameter box


def _parse(name: str, value, domain) -> tuple[float, float] | float:
    """A fixed value (float) or a range ``(lo, hi)`` inside the parameter's domain."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"`{name}` range must be a pair (lo, hi), got {value!r}")
        lo, hi = (real(name, v) for v in value)
        if not lo < hi:
            raise ValueError(f"`{name}` range must have lo < hi, got {lo!r}:{hi!r} (give one value to fix it)")
        low, high, text = domain
        if lo <= low or (high is not None and hi >= high):
            raise ValueError(f"`{name}` range must lie in {text}, got {lo!r}:{hi!r}")
        return lo, hi
    return value


#: the open domain of a ranged parameter: ``(lower, upper, text)``; ``theta = 0`` (no field)
#: and ``alpha in {0, 1}`` (another regime, or ``m = 1``) are points, not parts of a box
_DOMAIN = {"theta": (0.0, None, "(0, inf)"), "alpha": (0.0, 1.0, "(0, 1)"),
           "beta": (0.0, None, "(0, inf)"), "sigma2": (0.0, None, "(0, inf)")}


def _split_point(lo: float, hi: float, log: bool) -> float:
    p = math.sqrt(lo * hi) if log else 0.5 * (lo + hi)
    return p if lo < p < hi else 0.5 * (lo + hi)


def certify_region(theta, alpha, beta=1.0, sigma2=1.0, prior="fixed", *, min_width: float = MIN_WIDTH,
                   prec: int = 128, log_alpha: bool | None = None, max_boxes: int = 200_000,
                   sign_functions=None) -> RegionCertificate:
    """Certify the status of the field on every leaf of an adaptive split of a parameter box.

    Parameters
    ----------
    theta, alpha, beta, sigma2 : float or (float, float)
        A fixed value, or a range ``(lo, hi)`` with ``lo < hi`` inside the open domain
        (``theta, beta, sigma2 > 0``, ``0 < alpha < 1``). At least one must be a range.
    prior : str or Prior
        Fixed (its numeric parameters are not ranged).
    min_width : float
        A box whose every side is narrower than ``min_width`` times its range (in the
        parameter's scale) is not split further; undecided if nothing was proved.
    prec : int
        Working precision in bits (53..4096).
    log_alpha : bool or None
        Split and measure ``alpha`` in log scale; default: when ``hi / lo >= 10``.
    max_boxes : int
        Budget of parameter boxes examined; boxes left when it runs out are undecided.
    sign_functions : callable, optional
        ``BallModel -> (g, dg, description, root_at_zero)``; default the point certificate's
        own (:func:`theory.certify`). A test hook: every status is proved from it.

    Returns
    -------
    RegionCertificate
    """
    start = time.perf_counter()
    given = {"theta": theta, "alpha": alpha, "beta": beta, "sigma2": sigma2}
    values = {k: _parse(k, v, _DOMAIN[k]) for k, v in given.items()}
    ranges = {k: v for k, v in values.items() if isinstance(v, tuple)}
    if not ranges:
        raise ValueError("give at least one of `theta`, `alpha`, `beta`, `sigma2` as a range (lo, hi); "
                         "for one point use certify")
    min_width = real("min_width", min_width, lower=0.0, upper=1.0, strict=True)
    prec = integer("prec", prec, 53, MAX_PREC)
    max_boxes = integer("max_boxes", max_boxes, 1)
    # the fixed values and the prior, validated by the point model at the box's corner
    probe = Model(**{k: (v[0] if isinstance(v, tuple) else v) for k, v in values.items()}, prior=prior)
    fixed = {k: getattr(probe, k) for k in RANGED if k not in ranges}
    if "alpha" in ranges:
        lo, hi = ranges["alpha"]
        log = (hi / lo >= 10) if log_alpha is None else bool(log_alpha)
    else:
        log = False
    scale = {k: ("log" if k == "alpha" and log else "linear") for k in ranges}
    sign_functions = sign_functions or _sign_functions

    def rel(name, lo, hi):
        a, b = ranges[name]
        if scale[name] == "log":
            return math.log(hi / lo) / math.log(b / a)
        return (hi - lo) / (b - a)

    leaves, stack, examined = [], [tuple((k, *ranges[k]) for k in ranges)], 0
    with precision(prec):
        fixed_balls = {k: arb(v) for k, v in fixed.items()}
        while stack:
            bounds = stack.pop()
            examined += 1
            if examined > max_boxes:
                leaves.extend(RegionBox(b, "undecided") for b in [bounds, *stack])
                break
            widths = [rel(*b) for b in bounds]
            balls = {k: arb(lo).union(arb(hi)) for k, lo, hi in bounds}
            bm = BallModel(probe.prior, sparse=probe.sparse, **fixed_balls, **balls)
            rho_min = fmpq(*max(2.0 ** -30, max(widths) / 64).as_integer_ratio())
            proved = _prove(bm, sign_functions, rho_min, max_tiles=512)
            if proved is not None:
                status, eq, poles, tiles = proved
                leaves.append(RegionBox(bounds, status, eq, poles, tiles))
                continue
            i = max(range(len(bounds)), key=widths.__getitem__)
            if widths[i] <= min_width:
                leaves.append(RegionBox(bounds, "undecided"))
                continue
            name, lo, hi = bounds[i]
            p = _split_point(lo, hi, scale[name] == "log")
            for part in ((p, hi), (lo, p)):
                stack.append(bounds[:i] + ((name, *part),) + bounds[i + 1:])
    fractions = {"monotone": 0.0, "bistable": 0.0, "undecided": 0.0}
    for leaf in leaves:
        fractions[leaf.status] += math.prod(rel(*b) for b in leaf.bounds)
    certified = all(audit(leaf.proof, leaf.equilibrium is not None and leaf.equilibrium[3]) == leaf.status
                    for leaf in leaves if leaf.status != "undecided")
    region = {"ranges": {k: list(v) for k, v in ranges.items()}, "fixed": fixed, "prior": probe.prior.spec,
              "scale": scale, "min_width": min_width, "prec": prec}
    return RegionCertificate(region, tuple(leaves), fractions, certified, time.perf_counter() - start)

