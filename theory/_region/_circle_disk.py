"""The open disk of a ``k = 2`` region leaf (:mod:`theory._region._circle`): squares on which a
component of ``g`` excludes 0 or the Krawczyk operator, with the parameter balls, proves no zero or
exactly one."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from flint import arb, arb_mat, fmpq

from .._certify._circle import _min_square
from .._certify._roots import _SPLIT, sign
from .._certify._subspace_balls import inertia
from ._circle_forms import second_order
from ._circle_taylor import K2Field
from ._circle_tiles import _Leaf

#: Krawczyk steps that may narrow a proved zero's enclosure until it lies in the open disk
_REFINE = 4


class Square(NamedTuple):
    """A square ``box = (x_lo, x_hi, y_lo, y_hi)`` decided for every parameter of the leaf: ``kind``
    ``"none"`` (no zero of ``g`` in its part inside the open disk) or ``"one"`` (exactly one, inside the
    open disk, ``H`` of the ``inertia`` ``(n_negative, n_positive)`` there)."""

    box: tuple
    kind: str
    inertia: tuple | None = None


@dataclass(frozen=True)
class Krawczyk:
    """The Krawczyk test on a box ``X`` of balls: ``K`` is ``None`` when no zero of ``g`` lies in ``X``
    for any parameter of the leaf (a component of ``g`` excludes 0, or the operator misses ``X``), else
    the operator (every zero in ``X`` lies in ``K``) and ``H`` the Hessian's balls on ``X``."""

    K: list | None = None
    H: list | None = None


def _disk_decide(f: K2Field, leaf: _Leaf, box: tuple) -> Square | None:
    """The :class:`Square` ``box = (a, b, c, d)`` decided, or ``None``: ``"one"`` when the Krawczyk
    operator maps the square into its interior (then it is iterated on what it returns, which holds the
    zero, until that lies in the open disk or outside it: then ``"none"``)."""
    a, b, c, d = box
    if _min_square(a, b) + _min_square(c, d) >= 1:
        return Square(box, "none")  # outside the open disk
    X = [arb(a).union(arb(b)), arb(c).union(arb(d))]
    out = _krawczyk(f, leaf, X)
    if out is None or out.K is None:
        return None if out is None else Square(box, "none")
    K, H = out.K, out.H
    assert H is not None
    if not (arb(a) < K[0] < arb(b) and arb(c) < K[1] < arb(d)):
        return None
    signs = inertia(H)
    Z = [K[i].intersection(X[i]) for i in range(2)]
    for _ in range(_REFINE):
        r2 = Z[0] * Z[0] + Z[1] * Z[1]
        if r2 < 1 or r2 >= 1:
            break
        again = _krawczyk(f, leaf, Z)
        if again is None or again.K is None:
            return None  # a bug or a failure of the arithmetic: the zero is in Z
        Z = [again.K[i].intersection(Z[i]) for i in range(2)]
    if Z[0] * Z[0] + Z[1] * Z[1] >= 1:
        return Square(box, "none")  # the one zero in the square is not in the open disk
    return Square(box, "one", signs) if signs is not None and Z[0] * Z[0] + Z[1] * Z[1] < 1 else None


def _krawczyk(f: K2Field, leaf: _Leaf, X: list) -> Krawczyk | None:
    """The :class:`Krawczyk` test on the box of balls ``X``; ``None`` when the float Hessian is
    singular."""
    m = [arb(x.mid()) for x in X]
    gc, gh, zero = f.disk_jet(*m, *leaf.pc), f.disk_hess(*m, *leaf.P), arb(0)
    # g at the centre for every parameter: second-order forms in the parameters
    gP = [second_order((gc[i], zero, *gc[2 + 2 * i:4 + 2 * i]), (zero, zero, zero, *gh[3 * i:3 * i + 3]), leaf.o)
          for i in range(2)]
    dX = [X[0] - m[0], X[1] - m[1]]
    h11, h12, h22 = _disk_hessian(f, leaf, X, dX, gc[6:])
    H = [[h11, h12], [h12, h22]]
    if any(sign(gP[i] + H[i][0] * dX[0] + H[i][1] * dX[1]) for i in range(2)):
        return Krawczyk()
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
        return Krawczyk()
    return Krawczyk(K, H)


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
            done.append(out)
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

