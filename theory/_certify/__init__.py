"""Interval (ball) certificates of the limit field and what follows from them.

One signal direction: :mod:`._scalar` (the certified sign of ``j'`` and its interior roots),
:mod:`._roots` (root isolation in ball arithmetic), :mod:`._field_ball` (the field at a ball or
a power series), :mod:`._conditions` (how far the sign goes symbolically), :mod:`._critical`
(thresholds along ``alpha``), :mod:`._basin` (the certified basin of a start),
:mod:`._ode_time` (certified flow times). A k-dimensional signal: :mod:`._subspace_balls`
(the derived field in ``arb``, Krawczyk), :mod:`._subspace` (certified equilibria),
:mod:`._circle` (every equilibrium of ``k = 2``), :mod:`._complete` (is a list complete),
:mod:`._near` (the equilibrium near a point), :mod:`._transition` (the mixture transition). Several
orthonormal heads: :mod:`._heads` (certified equilibria of the reduced flow of ``M = U^T Q``).
"""

from ._heads import HeadsBox, HeadsCertificate

__all__ = ["HeadsBox", "HeadsCertificate"]
