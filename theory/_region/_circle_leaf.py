"""One leaf of a ``k = 2`` region walk (:mod:`theory._region._circle`): the proof of its circle and
disk (or diagonal), what it hands its halves when it fails, and the equilibria it proves."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from flint import arb, fmpq

from ._circle_disk import _cover, _disk_decide, _dyadic_box
from ._circle_floats import zero_boxes
from ._circle_symmetric import CENTRES, conditions, diagonal, expand, interior, symmetric_tile
from ._circle_taylor import K2Field
from ._circle_tiles import _MAX_SQUARES, _MAX_TILES, _QUARTER, _Circle, _gaps, _Leaf, _mirror, _tile, audit_circle
from ._proof import _LABEL


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


@dataclass(frozen=True)
class LeafState:
    """What is decided on a leaf, handed to its halves when it fails (:mod:`theory._region._circle`,
    inheritance): the circle ``tiles``, the intervals of ``u`` still ``pending``, the disk ``squares``
    and the squares ``left``. The default: nothing decided, the whole circle ``u in [-1, 1]`` and the
    square ``[-1, 1]^2`` pending."""

    tiles: tuple = ()
    pending: tuple = ((fmpq(-1), fmpq(1)),)
    squares: tuple = ()
    left: tuple = ((fmpq(-1), fmpq(1), fmpq(-1), fmpq(1)),)


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

    @property
    def squares_count(self) -> int:
        """The squares of the disk (or the pieces of the diagonal) the proof holds."""
        return len(self.squares) if self.pieces is None else len(self.pieces)


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


def _prove(f: K2Field, leaf: _Leaf, state: LeafState, width: float, last: bool = True,
           hints: _Hints | None = None) -> tuple[_Proof | None, LeafState]:
    """``(proof, state)``: the :class:`_Proof` (``None`` when the leaf is not proved) and what is
    decided so far (for the halves of a leaf that fails); ``last``: the leaf is not split further when
    it fails; ``hints``: where to start (symmetric law only; updated from what this leaf proves)."""
    if f.diag_jet is not None:
        return _prove_symmetric(f, leaf, state, width, last, _Hints() if hints is None else hints)
    new, pending = _tile(_Circle(f, leaf), state.pending, _fine(width, 24), max_tiles=_MAX_TILES)
    tiles = (*state.tiles, *new)
    if pending:  # the disk only once the circle is proved (a wider leaf is harder)
        return None, LeafState(tiles, tuple(pending), state.squares, state.left)
    _audit(tiles)
    zeros = [(_dyadic_box(core), _dyadic_box(band)) for core, band in zero_boxes(f.disk_floats, *leaf.floats)]
    done, left = _cover(lambda box: _disk_decide(f, leaf, box), state.left, _fine(width, 12),
                        max_boxes=_MAX_SQUARES, zeros=zeros)
    squares = (*state.squares, *done)
    if left:  # the halves cover the disk afresh: the squares cut here follow this leaf's zero paths, not theirs
        return None, LeafState(tiles, pending=())
    return _Proof(tiles, squares), LeafState(tiles, (), squares, ())


def _prove_symmetric(f: K2Field, leaf: _Leaf, state: LeafState, width: float, last: bool,
                     hints: _Hints) -> tuple[_Proof | None, LeafState]:
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
            hints.halves[c] = (tile.hi - tile.lo) / 2
    half = [(-_QUARTER * 3, _QUARTER)] if len(sym) == len(CENTRES) else []  # the half the mirror gives
    kept = tuple(t for t in state.tiles if not any(t[0] < u[1] and u[0] < t[1] for u in [*sym, *half]))
    u_min = _fine(width, 24)
    fresh = not _at_least(width, hints.width)  # narrower than the leaf that cut: cut afresh
    new, pending = _tile(circle, _gaps([*kept, *sym, *half]), u_min, max_tiles=_MAX_TILES,
                         cuts=() if fresh else hints.cuts)
    kept = (*kept, *new)
    if pending:
        return None, LeafState(kept, tuple(pending), (), ())
    if fresh:
        hints.cuts, hints.width = tuple(sorted({u for t in kept for u in t[:2]})), width
    tiles = (*kept, *(_mirror(t) for t in kept if half), *sym)
    _audit(tiles)
    pieces = diagonal(f, leaf, _fine(width, 16),
                      cuts=() if fresh else hints.pieces)
    if pieces is None:
        return None, LeafState(kept, (), (), ())
    if fresh:
        hints.pieces = tuple(p.hi for p in pieces[:-1])
    return _Proof(tiles, (), pieces, conditions(tiles, pieces)), LeafState(kept, (), (), ())


def _at_least(w: float, v: float) -> bool:
    """``w >= v`` for relative widths that are powers of two up to rounding (a width of ``0.075`` in a
    range of ``0.6`` is ``0.12499...``, not ``1/8``): a factor ``3/4`` of slack, half a split."""
    return w > 0.75 * v


def _fine(width: float, bits: int) -> fmpq:
    """The smallest piece a proof on a leaf of relative ``width`` cuts (angle tiles, squares, diagonal
    pieces): ``width / 32``, but not below ``2^-bits``."""
    return fmpq(*max(2.0 ** -bits, width / 32).as_integer_ratio())


def _audit(tiles) -> None:
    if not audit_circle(tiles):
        raise AssertionError("a complete tiling of the circle failed its audit")  # a bug, not a leaf's fate


def _equilibria(tiles, squares) -> tuple:
    """The equilibria of the root tiles (in angle order) and of the squares of one zero."""
    out = []
    pi = arb.pi()
    for t in sorted(tiles, key=lambda t: t.lo):
        if t.kind == "root":
            lo, hi = (pi * arb(t.lo)).lower(), (pi * arb(t.hi)).upper()
            where = (math.nextafter(float(lo), -math.inf), math.nextafter(float(hi), math.inf))
            out.append(K2Equilibrium(where, "circle", t.sign, t.radial, None, t.sign < 0 and t.radial < 0))
    out += [K2Equilibrium(tuple(float(x) for x in s.box), "interior", inertia=s.inertia, stable=s.inertia == (2, 0))
            for s in squares if s.kind == "one"]
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

