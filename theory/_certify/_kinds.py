"""The kind of a certified equilibrium (mixture, specialised, anti-specialised, tilted), decided
in ball arithmetic from its Krawczyk box.

The rules are those of :mod:`theory._field._kinds` (one :func:`theory._field._kinds.classify`);
here every predicate is a certified inequality on the enclosure ``K`` of the equilibrium, and
"fixed by the symmetry ``R``" is proved by ``R K`` lying inside the Krawczyk box ``B``: ``R``
maps the equilibrium ``z`` (in ``K``) to an equilibrium ``R z`` (the law, hence the flow, is
invariant under ``R``, checked exactly), which then lies in ``B``, where the Krawczyk test proved
``z`` the only one: ``R z = z``. A predicate the balls do not decide counts as false, so the kind
never claims more than is proved (at worst ``tilted``); without a box the kind is ``undecided``.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq

from .._field._kinds import classify, directions, symmetries
from ._roots import sign


def _ball(q: Fraction) -> arb:
    """The exact ball of a fraction."""
    return arb(fmpq(q.numerator, q.denominator))


def certified_kind(law, box: tuple, enclosure: tuple) -> str:
    """The kind of the equilibrium certified in ``box`` (Krawczyk box ``B``) with enclosure
    ``enclosure`` (``K``), balls in ``r``; ``"undecided"`` without a box."""
    if not box or not enclosure:
        return "undecided"
    dirs = directions(law)
    K = list(enclosure)
    c = []
    for a in dirs:
        norm = _ball(sum((x * x for x in a), Fraction(0))).sqrt()
        c.append(sum((_ball(x) * k for x, k in zip(a, K, strict=True)), arb(0)) / norm)
    syms = symmetries(law)

    def fixed(i: int, j: int) -> bool:
        R = syms.get((i, j))
        if R is None:
            return False
        image = [sum((_ball(x) * k for x, k in zip(row, K, strict=True)), arb(0)) for row in R]
        return all(b.contains(y) for b, y in zip(box, image, strict=True))

    total = sign(sum(c, arb(0)))
    return classify(len(dirs), fixed, lambda j: bool(c[j] > 0), lambda j, i: bool(c[j] > abs(c[i])),
                    lambda j, i: bool(c[j] < c[i]), total)
