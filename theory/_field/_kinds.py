"""What an equilibrium of the one-query subspace flow is: mixture, specialised, anti-specialised, tilted.

The kind of a point ``r`` (on the sphere or inside the ball) is read from its alignments with
the law's *directions* and from the law's *symmetries*:

* directions ``a_j``: the atoms of a finite law (``onehot``: the signal directions ``xi_j``;
  ``discrete``: the vectors ``v_j``), or the coordinate axes of a Gaussian law; the alignment
  with direction ``j`` is ``c_j = <r, a_j> / |a_j|``;
* symmetries: for two directions ``i, j`` of equal length (and, for a finite law, equal
  probability), the reflection ``R_ij = I - 2 w w^T / |w|^2``, ``w = a_i - a_j``, that swaps them;
  it is a symmetry of the law when it maps the law to itself (every atom to an atom of the same
  probability; for a Gaussian law: the mean to itself), decided in exact rational arithmetic.
  A symmetry maps equilibria to equilibria; ``r`` *is fixed* by it when ``R_ij r = r`` (then
  ``c_i = c_j``). Directions joined by fixing symmetries form the point's classes.

The kinds, in this order:

* ``mixture+`` / ``mixture-``: every direction in one class (``r`` fixed by symmetries joining
  all of them: the symmetric mixture of the law), with ``sum_j c_j`` of that sign;
* ``specialised(j)``: ``c_j > 0`` and ``c_j > |c_i|`` for every other direction (the query leans
  towards direction ``j``, positively, more than towards any other);
* ``anti-specialised(j)``: at least three directions, every direction but ``j`` in one class
  with positive alignment, and ``c_j`` below it (the query mixes the others and avoids ``j``);
* ``tilted``: anything else (e.g. ``(-0.907, -0.421)`` of ``onehot(k=2)`` at theta 3, alpha 0.05:
  no positive leaning, no symmetry).

:func:`classify` holds the rules over predicates, so the float label (:func:`kind_of`, what the
numerical equilibria carry) and the certified one (:func:`theory._certify._kinds.certified_kind`:
every predicate decided in ball arithmetic from a Krawczyk box) are the same definition.
``j`` counts from 1.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

#: tolerance of the float predicates (the certified ones have none)
TOL = 1e-7


def directions(law) -> tuple:
    """The law's directions ``a_j`` as exact fractions (module doc)."""
    atoms = law.atoms
    if atoms is not None and law.family != "scalar":
        return tuple(tuple(Fraction(x) for x in v) for _, v in atoms)
    return tuple(tuple(Fraction(int(i == j)) for i in range(law.k)) for j in range(law.k))


def _reflect(w: tuple, x: tuple) -> tuple:
    ww = sum(a * a for a in w)
    s = 2 * sum(a * b for a, b in zip(w, x, strict=True)) / ww
    return tuple(b - s * a for a, b in zip(w, x, strict=True))


def reflection(a: tuple, b: tuple) -> tuple:
    """The matrix (rows of fractions) of the reflection swapping ``a`` and ``b`` (``|a| = |b|``)."""
    w = tuple(x - y for x, y in zip(a, b, strict=True))
    k = len(a)
    cols = [_reflect(w, tuple(Fraction(int(i == j)) for i in range(k))) for j in range(k)]
    return tuple(tuple(cols[j][i] for j in range(k)) for i in range(k))


def symmetries(law) -> dict:
    """``{(i, j): R_ij}`` for the pairs of directions ``i < j`` whose swapping reflection is a
    symmetry of the law (module doc), exact."""
    dirs = directions(law)
    atoms = law.atoms if law.family != "scalar" else None
    out = {}
    for i in range(len(dirs)):
        for j in range(i + 1, len(dirs)):
            a, b = dirs[i], dirs[j]
            if a == b or sum(x * x for x in a) != sum(x * x for x in b):
                continue
            w = tuple(x - y for x, y in zip(a, b, strict=True))
            if atoms is not None:
                image = sorted((p, _reflect(w, tuple(Fraction(x) for x in v))) for p, v in atoms)
                if image != sorted((p, tuple(Fraction(x) for x in v)) for p, v in atoms):
                    continue
            elif law.family == "gaussian":
                mu = tuple(Fraction(x) for x in law.mu) if law.mu else (Fraction(0),) * law.k
                if _reflect(w, mu) != mu:
                    continue
            else:
                continue
            out[(i, j)] = reflection(a, b)
    return out


def classify(n: int, fixed: Callable[[int, int], bool], positive: Callable[[int], bool],
             leans: Callable[[int, int], bool], below: Callable[[int, int], bool], total_sign: int) -> str:
    """The kind (module doc) from predicates over ``n`` directions: ``fixed(i, j)`` (a symmetry
    swapping ``i, j`` fixes the point), ``positive(j)`` (``c_j > 0``), ``leans(j, i)``
    (``c_j > |c_i|``), ``below(j, i)`` (``c_j < c_i``), ``total_sign`` the sign of ``sum c_j``
    (0: undecided)."""
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if fixed(i, j):
                parent[root(j)] = root(i)
    classes: dict[int, list[int]] = {}
    for i in range(n):
        classes.setdefault(root(i), []).append(i)
    if n >= 2 and len(classes) == 1 and total_sign:
        return "mixture+" if total_sign > 0 else "mixture-"
    for j in range(n):
        if positive(j) and all(leans(j, i) for i in range(n) if i != j):
            return f"specialised({j + 1})"
    if n >= 3:
        for j in range(n):
            rest = [i for i in range(n) if i != j]
            if (len({root(i) for i in rest}) == 1 and root(j) != root(rest[0])
                    and all(positive(i) and below(j, i) for i in rest)):
                return f"anti-specialised({j + 1})"
    return "tilted"


def kind_of(law, r) -> str:
    """The float kind of the point ``r`` (module doc; predicates to :data:`TOL`)."""
    r = np.asarray(r, dtype=float)
    dirs = directions(law)
    A = np.array([[float(x) for x in a] for a in dirs])
    c = A @ r / np.linalg.norm(A, axis=1)
    syms = symmetries(law)

    def fixed(i, j):
        R = syms.get((i, j))
        return R is not None and bool(np.allclose(np.array(R, dtype=float) @ r, r, atol=TOL, rtol=0))

    total = float(c.sum())
    return classify(len(dirs), fixed, lambda j: c[j] > TOL, lambda j, i: c[j] > abs(c[i]) + TOL,
                    lambda j, i: c[j] < c[i] - TOL, 0 if abs(total) <= TOL else int(np.sign(total)))
