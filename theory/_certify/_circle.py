"""Every equilibrium of a ``k = 2`` model, certified: on the circle and inside the disk
(docs/subspace-certificates.md).

On the unit circle ``r = (cos phi, sin phi)`` with tangent ``t = (-sin phi, cos phi)`` the flow is
``dphi/dt = T(phi) = <t, g(r)>`` and, since ``dr/dphi = t`` and ``dt/dphi = -r``,

    T'(phi) = t^T H t - <r, g> = t^T H t - lam,

which is the tangent eigenvalue of :mod:`theory._certify._subspace` at a zero. So the sphere
equilibria of a ``k = 2`` model are the roots of the scalar function ``T`` on the circle, and
:func:`theory._certify._roots.isolate` (mean-value form, bisection, ball arithmetic) finds *all* of them:
each simple root in a certified bracket with the sign of ``T'`` (tangent stability), the sign of
``T`` certified everywhere else. ``isolate`` works on ``[-3, -3 + 2p]`` with the rational ``p``
just above ``pi``; brackets certified beyond ``-3 + 2 pi`` (against the ball ``pi``) are copies of
roots just after the seam ``-3`` and are dropped, a bracket that contains ``-3 + 2 pi`` is reported
undecided.
The radial eigenvalue ``-2 lam`` is signed on each bracket. :func:`certify_disk` does the same for
the open disk (zeros of ``g``) by bisection of the square with exclusion tests and Krawczyk
uniqueness on the boxes themselves. Together they give the
completeness the Krawczyk certificate of :mod:`theory._certify._subspace` lacks, for ``k = 2``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from flint import arb, arb_mat, fmpq

from .._model import Model
from ._roots import isolate, precision, sign
from ._subspace import _check_prec, _params
from ._subspace_balls import ball_field, inertia, interior_system

#: a rational just above pi (pi < 355/113 = 3.14159292...) and the seam angle where the turn starts
_P = fmpq(355, 113)
_SEAM = fmpq(-3)


@dataclass(frozen=True)
class CircleEquilibrium:
    """One equilibrium on the circle: the angle bracket ``[lo, hi]``, the certified signs of the
    tangent eigenvalue ``T'`` and of the radial one ``-2 lam``, ``stable`` when both are negative."""

    lo: float
    hi: float
    tangent_sign: int
    radial_sign: int
    stable: bool


@dataclass(frozen=True)
class CircleCertificate:
    """Outcome of :func:`certify_circle`: ``complete`` when every angle was decided (then
    ``equilibria`` is the full list of sphere equilibria, in angle order).

    Attributes
    ----------
    equilibria : tuple of CircleEquilibrium
        The sphere equilibria found, each in a certified angle bracket, in angle order.
    complete : bool
        True iff :attr:`undecided` is empty: every angle of the circle was decided and every radial
        sign certified, so :attr:`equilibria` lists every equilibrium on the circle.
    undecided : tuple of (float, float)
        Angle intervals ``(phi_lo, phi_hi)`` in radians where the sign of ``T`` could not be decided,
        a root bracket at the seam ``-3 + 2 pi``, or a bracket whose radial sign is undecided.
    boxes : int
        Number of angle boxes evaluated.
    prec : int
        Bits of ball precision.
    """

    equilibria: tuple
    complete: bool
    undecided: tuple
    boxes: int
    prec: int


class _OnCircle(NamedTuple):
    """The point ``(cos phi, sin phi)`` of the circle with the field ``g`` and its Jacobian ``h`` there."""

    c: arb
    s: arb
    g: list
    h: list


def certify_circle(model: Model, prec: int = 128, bracket_width: float = 1e-12,
                   min_width: float = 1e-12) -> CircleCertificate:
    """Certify the set of all equilibria of a ``k = 2`` model on the unit circle (module doc)."""
    if not isinstance(model, Model) or model.k != 2 or model.heads != 1:
        raise ValueError("`model` must be a theory.Model with k = 2 and one head")
    prec = _check_prec(prec)
    field = ball_field(model.law)
    with precision(prec):
        params = _params(model)

        def parts(phi):
            c, s = phi.cos(), phi.sin()
            g, h = field([c, s], params)
            return _OnCircle(c, s, g, h)

        def T(phi):
            c, s, g, _ = parts(phi)
            return -s * g[0] + c * g[1]

        def dT(phi):
            c, s, g, h = parts(phi)
            tht = s * s * h[0][0] - 2 * s * c * h[0][1] + c * c * h[1][1]
            return tht - (c * g[0] + s * g[1])

        iso = isolate(T, dT, _SEAM, _SEAM + 2 * _P, bracket_width=bracket_width, min_width=min_width)
        turn = _SEAM + 2 * arb.pi()  # the seam after one turn
        found, undecided = [], [(float(a), float(b)) for a, b in iso.undecided]
        for a, b, ds in iso.roots:
            A, B = arb(a), arb(b)
            if A > turn:
                continue  # the copy of a root just after the seam
            if not B < turn:
                undecided.append((float(a), float(b)))  # a root within the bracket width of the seam
                continue
            ball = A.union(B)
            _, _, g, _ = parts(ball)
            radial = -sign(ball.cos() * g[0] + ball.sin() * g[1])
            found.append(CircleEquilibrium(float(a), float(b), ds, radial, ds < 0 and radial < 0))
            if radial == 0:
                undecided.append((float(a), float(b)))
    return CircleCertificate(tuple(found), not undecided, tuple(undecided), iso.boxes, prec)


@dataclass(frozen=True)
class DiskCertificate:
    """Outcome of :func:`certify_disk`: the interior equilibria, each a box with exactly one
    (``(box, inertia of H)``: balls and ``(n_negative, n_positive)``), ``complete`` when the rest
    of the open disk was certified free of zeros of ``g``.

    Attributes
    ----------
    equilibria : tuple of (tuple of arb, tuple or None)
        One ``(box, inertia)`` per interior equilibrium, in the order found: the box (two balls,
        inside the open disk) holds exactly one zero of ``g``; ``inertia`` is ``(n_negative,
        n_positive)`` of the Hessian ``H`` on it, ``None`` when undecided.
    complete : bool
        True iff no box is undecided and every inertia was decided: the rest of the open disk is
        certified free of zeros of ``g``.
    undecided : tuple of (float, float, float, float)
        Boxes ``(x_lo, x_hi, y_lo, y_hi)`` left undecided (narrower than ``min_width``, or beyond
        ``max_boxes``).
    boxes : int
        Number of boxes of the bisection visited.
    prec : int
        Bits of ball precision.
    """

    equilibria: tuple
    complete: bool
    undecided: tuple
    boxes: int
    prec: int


def _box_test(system, X, params):
    """``"none"`` (no zero of ``g`` in ``X``), ``"one"`` (Krawczyk on ``X`` itself), or ``None``."""
    g, _ = system(X, params)
    if any(not gi.contains(0) for gi in g):
        return "none"
    c = [arb(x.mid()) for x in X]
    gc, _ = system(c, params)
    _, JX = system(X, params)
    try:
        Y = arb_mat(np.linalg.inv(np.array([[float(x.mid()) for x in row] for row in JX])).tolist())
    except np.linalg.LinAlgError:
        return None
    n = len(X)
    eye = arb_mat([[arb(int(i == j)) for j in range(n)] for i in range(n)])
    step = (eye - Y * arb_mat(JX)) * arb_mat([[X[i] - c[i]] for i in range(n)])
    YF = Y * arb_mat([[x] for x in gc])
    K = [c[i] - YF[i, 0] + step[i, 0] for i in range(n)]
    if any(not K[i].overlaps(X[i]) for i in range(n)):
        return "none"
    if all(X[i].contains_interior(K[i]) for i in range(n)):
        return "one"
    return None


def certify_disk(model: Model, prec: int = 128, min_width: float = 1e-6,
                 max_boxes: int = 200_000) -> DiskCertificate:
    """Certify every interior equilibrium (``g = 0``, ``|r| < 1``) of a ``k = 2`` model: bisect the
    square ``[-1, 1]^2``; a box is dropped when it lies outside the open disk or a component of
    ``g`` excludes 0 on it or the Krawczyk image misses it, kept as an equilibrium when the Krawczyk
    test proves a unique zero in it (and it lies inside the disk), else split down to ``min_width``
    (then undecided)."""
    if not isinstance(model, Model) or model.k != 2 or model.heads != 1:
        raise ValueError("`model` must be a theory.Model with k = 2 and one head")
    prec = _check_prec(prec)
    system = interior_system(ball_field(model.law))
    found, undecided, count = [], [], 0
    min_w = fmpq(*float(min_width).as_integer_ratio())
    with precision(prec):
        params = _params(model)
        stack = [(fmpq(-1), fmpq(1), fmpq(-1), fmpq(1))]
        while stack:
            a, b, c, d = stack.pop()
            count += 1
            X = [arb(a).union(arb(b)), arb(c).union(arb(d))]
            if count > max_boxes:
                undecided.append((float(a), float(b), float(c), float(d)))
                continue
            if _min_square(a, b) + _min_square(c, d) >= 1:
                continue  # outside the open disk
            result = _box_test(system, X, params)
            if result == "none":
                continue
            if result == "one" and X[0] * X[0] + X[1] * X[1] < 1:
                _, H = system(X, params)
                found.append((tuple(X), inertia(H)))
                continue
            if b - a < min_w:
                undecided.append((float(a), float(b), float(c), float(d)))
                continue
            if b - a >= d - c:
                m = a + (b - a) * fmpq(29, 59)
                stack += [(a, m, c, d), (m, b, c, d)]
            else:
                m = c + (d - c) * fmpq(29, 59)
                stack += [(a, b, c, m), (a, b, m, d)]
    return DiskCertificate(tuple(found), not undecided and all(i is not None for _, i in found),
                           tuple(undecided), count, prec)


def _min_square(a: fmpq, b: fmpq) -> fmpq:
    """``min x^2`` over ``[a, b]``, exactly."""
    if a <= 0 <= b:
        return fmpq(0)
    return min(a * a, b * b)
