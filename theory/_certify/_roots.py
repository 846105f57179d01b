"""Root isolation of a function given by ball enclosures (python-flint ``arb``).

:func:`isolate` bisects an interval: a box is decided when the ball enclosure of ``g``
(direct or mean-value form ``g(c) + g'(X)(X - c)``) excludes 0; a box on which ``g'``
excludes 0 and ``g`` has certified opposite signs at the two ends holds exactly one
simple root; boxes that stay undecided down to ``min_width`` are merged, and a merged
cluster is a certified simple root only under the same test, otherwise it is reported
*undecided* (a double root or a touching zero looks like this; we never claim
certainty we do not have). Root brackets are refined by bisection to ``bracket_width``.
Every evaluated box is counted (:attr:`Isolation.boxes`).

Split points are not dyadic midpoints (fraction 29/59), so that an exactly
representable root does not land on a box end where its sign is 0.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from flint import arb, ctx, fmpq

_SPLIT = fmpq(29, 59)
#: the default interval of :func:`isolate`, ``[-1, 1]``
_LO, _HI = fmpq(-1), fmpq(1)


@contextmanager
def precision(bits: int):
    """Context setting the global flint working precision to ``bits`` (restored on exit)."""
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


def sign(x: arb) -> int:
    """The certified sign of the ball ``x``: ``1``, ``-1``, or ``0`` when it contains 0."""
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def _ball(lo: fmpq, hi: fmpq) -> arb:
    """A ball containing the box ``[lo, hi]``."""
    a, b = arb(lo), arb(hi)
    return a.union(b)


def decide(g, dg, a: fmpq, b: fmpq) -> tuple:
    """What the balls prove on the box ``[a, b]``: ``("sign", s)`` when ``g`` has the sign
    ``s`` on it (direct or mean-value enclosure, or ``g'`` of one sign with equal end
    signs), ``("root", s)`` when it holds exactly one simple root (``g'`` of sign ``s``,
    opposite end signs), else ``(None, 0)``."""
    X = _ball(a, b)
    box_sign = sign(g(X))
    D = None
    if box_sign == 0 and dg is not None:
        D = dg(X)
        c = a + (b - a) / 2
        box_sign = sign(g(arb(c)) + D * (X - arb(c)))
    if box_sign != 0:
        return "sign", box_sign
    if D is not None and sign(D) != 0:
        ga, gb = sign(g(arb(a))), sign(g(arb(b)))
        if ga * gb == -1:
            return "root", sign(D)
        if ga != 0 and ga == gb:  # monotone on the box with equal end signs
            return "sign", ga
    return None, 0


@dataclass
class Isolation:
    """What :func:`isolate` found: root brackets ``(lo, hi, sign of g')``, undecided boxes
    ``(lo, hi)`` (``fmpq`` ends) and the number of boxes evaluated."""

    roots: list
    undecided: list
    boxes: int


def isolate(g, dg, lo=_LO, hi=_HI, *, min_width=1e-12, bracket_width=1e-10, max_boxes=200_000) -> Isolation:
    """Isolate the roots of ``g`` on ``[lo, hi]`` with ball arithmetic (see module doc)
    at the current flint precision.

    ``g`` and ``dg`` map an ``arb`` ball to an enclosure of the function and of its
    derivative on that ball. ``dg`` may be ``None`` (then only direct enclosures).
    """
    min_w = fmpq(*float(min_width).as_integer_ratio())
    out = Isolation([], [], 0)
    stack = [(fmpq(lo), fmpq(hi))]
    decided_sign: list = []  # (lo, hi, sign) for decided boxes, kept for merging
    while stack:
        a, b = stack.pop()
        out.boxes += 1
        if out.boxes > max_boxes:
            out.undecided.append((a, b))
            out.undecided.extend(stack)
            break
        kind, box_sign = decide(g, dg, a, b)
        if kind == "sign":
            decided_sign.append((a, b, box_sign))
            continue
        if kind == "root":
            out.roots.append((a, b, box_sign))
            continue
        if b - a < min_w:
            out.undecided.append((a, b))
            continue
        p = a + (b - a) * _SPLIT
        stack.append((p, b))
        stack.append((a, p))
    # merge adjacent undecided boxes; certify a cluster if it is a clean crossing
    out.undecided.sort()
    merged: list[tuple] = []
    for a, b in out.undecided:
        if merged and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    out.undecided = []
    for a, b in merged:
        ga, gb = sign(g(arb(a))), sign(g(arb(b)))
        D = dg(_ball(a, b)) if dg is not None else None
        if ga * gb == -1 and D is not None and sign(D) != 0:
            out.roots.append((a, b, sign(D)))
        else:
            out.undecided.append((a, b))
    # refine every root bracket by bisection on certified point signs
    bw = fmpq(*float(bracket_width).as_integer_ratio())
    refined = []
    for a, b, ds in sorted(out.roots):
        sign_a = sign(g(arb(a)))
        while b - a > bw:
            for frac in (_SPLIT, fmpq(1, 3), fmpq(2, 3)):
                p = a + (b - a) * frac
                sign_p = sign(g(arb(p)))
                if sign_p != 0:
                    break
            else:
                break  # the arithmetic cannot split further at this precision
            out.boxes += 1
            if sign_p == sign_a:
                a = p
            else:
                b = p
        refined.append((a, b, ds))
    out.roots = refined
    return out
