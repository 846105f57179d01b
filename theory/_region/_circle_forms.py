"""The second-order (Taylor) centred forms of a ``k = 2`` region leaf (:mod:`theory._region._circle`).

``F(X, P) in F(c, p_c) + grad F(c, p_c) . Delta + 1/2 Delta^T Hess F(X, P) Delta`` (Taylor's theorem
with the Lagrange remainder: the Hessian at some point of the segment from the centre, which lies in
the box), with ``Delta = (X - c, Theta - theta_c, A - alpha_c)``: the gradient is read at the centre
(tight balls) and the wide balls enter only through the Hessian, at second order in the widths (the
first-order form ``F(c, p_c) + grad F(X, P) . Delta`` reads the gradient over the whole box, where the
long expressions overestimate their range tenfold). The squares of ``Delta`` are enclosed in
``[0, w^2]`` (:func:`square`), not ``[-w^2, w^2]``. The jets and Hessians are those of
:class:`theory._region._circle_taylor.K2Field`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb

#: entries per function of the jet (value and gradient) and of the Hessian
JET, HESS = 4, 6


def square(d: arb) -> arb:
    """A ball containing ``x^2`` for every ``x`` in ``d``: ``[0, max |d|^2]`` (the ball product
    ``d * d`` of a ball centred at 0 is ``[-w^2, w^2]``)."""
    top = abs(d).upper()
    return arb(0).union(arb(top) * arb(top))


@dataclass(frozen=True)
class Offsets:
    """``Delta = (X - c, Theta - theta_c, A - alpha_c)`` and the balls of its products that the
    second-order form reads: the squares (:func:`square`) and the cross products."""

    d: tuple
    sq: tuple
    cross: tuple

    @classmethod
    def of(cls, dx: arb, dth: arb, dal: arb) -> Offsets:
        return cls((dx, dth, dal), (square(dx), square(dth), square(dal)), (dx * dth, dx * dal, dth * dal))


def second_order(jet, hess, o: Offsets) -> arb:
    """The second-order form of one function: ``jet = (F, F_phi, F_theta, F_alpha)`` at the centre,
    ``hess`` (one function's six, :class:`K2Field`) over the box, ``o`` the offsets."""
    F, Fp, Ft, Fa = jet
    pp, pt, pa, tt, ta, aa = hess
    (dx, dth, dal), (sx, sth, sal), (xt, xa, ta_) = o.d, o.sq, o.cross
    return F + Fp * dx + Ft * dth + Fa * dal + (pp * sx + tt * sth + aa * sal) / 2 + pt * xt + pa * xa + ta * ta_


def enclose(jet, hess, o: Offsets) -> tuple:
    """:func:`second_order` of each function whose jets and Hessians ``jet``, ``hess`` list in turn (as
    :class:`K2Field` returns them)."""
    return tuple(second_order(jet[JET * i:JET * (i + 1)], hess[HESS * i:HESS * (i + 1)], o)
                 for i in range(len(jet) // JET))
