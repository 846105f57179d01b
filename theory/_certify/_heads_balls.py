"""The reduced flow of H heads in balls (:mod:`theory._certify._heads`): the map ``Phi(M) = Gamma(M) -
M sym(M^T Gamma(M))`` and its Jacobian enclosed entrywise on a box, the Krawczyk test on it, and the
eigenvalue enclosures the certificate reads (Gershgorin discs of a similar matrix for a symmetric ball
matrix, Rump's ``acb_mat.eig`` for the Jacobian).
"""

from __future__ import annotations

import math

import numpy as np
from flint import acb_mat, arb, arb_mat

from ._subspace import _outward

# ----------------------------------------------------------------------------------
# the map Phi and its Jacobian in balls


def _sym(A: list) -> list:
    n = len(A)
    return [[(A[i][j] + A[j][i]) / 2 for j in range(n)] for i in range(n)]


def _mtg(M: list, G: list) -> list:
    """``M^T G`` for ``k x H`` lists of balls."""
    k, n = len(M), len(M[0])
    return [[sum((M[i][a] * G[i][b] for i in range(k)), arb(0)) for b in range(n)] for a in range(n)]


def _columns(fld, M: list, params) -> tuple:
    """``Gamma`` (``k x H`` balls) and the Hessians per head on the box ``M``."""
    k, n = len(M), len(M[0])
    cols = [fld([M[i][h] for i in range(k)], params) for h in range(n)]
    return [[cols[h][0][i] for h in range(n)] for i in range(k)], [c[1] for c in cols]


def _phi(M: list, G: list) -> tuple:
    """``Phi = Gamma - M S`` and ``S = sym(M^T Gamma)``."""
    k, n = len(M), len(M[0])
    S = _sym(_mtg(M, G))
    return [[G[i][h] - sum((M[i][j] * S[j][h] for j in range(n)), arb(0)) for h in range(n)] for i in range(k)], S


def _jacobian_column(M: list, G: list, hess: list, S: list, a: int, b: int) -> list:
    """``dPhi`` along ``E = e_a e_b^T`` (row-major), module doc."""
    k, n = len(M), len(M[0])
    dg = [hess[b][i][a] for i in range(k)]  # the only nonzero column (b) of dGamma
    T = [[arb(0)] * n for _ in range(n)]  # E^T Gamma + M^T dGamma
    for h in range(n):
        T[b][h] += G[a][h]
    for l_ in range(n):
        T[l_][b] += sum((M[i][l_] * dg[i] for i in range(k)), arb(0))
    sT = _sym(T)
    out = []
    for i in range(k):
        for h in range(n):
            v = (dg[i] if h == b else arb(0)) - (S[b][h] if i == a else arb(0))
            out.append(v - sum((M[i][l_] * sT[l_][h] for l_ in range(n)), arb(0)))
    return out


def heads_system(fld, k: int, n_heads: int):
    """``system(z, params) -> (F, J)``: ``Phi`` and its Jacobian in balls at the box ``z`` (``kH``
    balls, ``M`` row-major), for :func:`theory._certify._subspace_balls.krawczyk`."""

    def system(z, params):
        M = [[arb(z[i * n_heads + h]) for h in range(n_heads)] for i in range(k)]
        G, hess = _columns(fld, M, params)
        F, S = _phi(M, G)
        cols = [_jacobian_column(M, G, hess, S, a, b) for a in range(k) for b in range(n_heads)]
        return [x for row in F for x in row], [[cols[c][r] for c in range(k * n_heads)] for r in range(k * n_heads)]

    return system


def krawczyk_holds(system, box, params) -> bool:
    """Whether the Krawczyk operator maps the box ``box`` (balls) into its interior for
    ``system``: the test of :func:`theory._certify._subspace_balls.krawczyk` on a given box, with
    the float inverse Jacobian at its centre (tests run it with a wrong field on a certified box)."""
    c = [arb(b.mid()) for b in box]
    n = len(c)
    Fc, Jc = system(c, params)
    try:
        Y = arb_mat(np.linalg.inv(np.array([[float(x.mid()) for x in row] for row in Jc])).tolist())
    except np.linalg.LinAlgError:
        return False
    _, JZ = system(list(box), params)
    eye = arb_mat([[arb(int(i == j)) for j in range(n)] for i in range(n)])
    YF = Y * arb_mat([[x] for x in Fc])
    step = (eye - Y * arb_mat(JZ)) * arb_mat([[box[i] - c[i]] for i in range(n)])
    return all(box[i].contains_interior(c[i] - YF[i, 0] + step[i, 0]) for i in range(n))


# ----------------------------------------------------------------------------------
# eigenvalue enclosures


def _interval(lo: float, hi: float) -> arb:
    return arb(lo).union(arb(hi))


def symmetric_eigenvalues(A: list):
    """Enclosures ``s_1 <= ... <= s_n`` (balls, ascending) of the eigenvalues of every symmetric
    matrix in the square list of balls ``A`` (symmetrised first), or ``None``.

    ``C = V^{-1} A V`` with ``V`` the float eigenvectors of the midpoint and ``V^{-1}`` a ball
    inverse is similar to ``A``, so its Gershgorin discs hold the (real) eigenvalues: a connected
    union of ``m`` discs holds exactly ``m`` of them, each placed in the union's hull. Sorted lower
    and sorted upper ends then bound each order statistic."""
    n = len(A)
    sA = arb_mat(_sym(A))
    _, V = np.linalg.eigh(np.array([[float(sA[i, j].mid()) for j in range(n)] for i in range(n)]))
    Va = arb_mat(V.tolist())
    try:
        C = Va.inv() * sA * Va
    except (ZeroDivisionError, ValueError):
        return None
    discs = []
    for i in range(n):
        r = sum((abs(C[i, j]) for j in range(n) if j != i), arb(0))
        discs.append(list(_outward(C[i, i] + arb(0, float(r.upper()) * (1 + 2**-40)))))
    if not all(math.isfinite(x) for d in discs for x in d):
        return None
    order = sorted(range(n), key=lambda i: discs[i][0])
    groups: list = []
    for i in order:  # merge overlapping intervals into components
        if groups and discs[i][0] <= groups[-1][1]:
            groups[-1] = [groups[-1][0], max(groups[-1][1], discs[i][1]), groups[-1][2] + 1]
        else:
            groups.append([*discs[i], 1])
    ends = [(lo, hi) for lo, hi, m in groups for _ in range(m)]
    return [_interval(lo, hi) for lo, hi in ends]


def _eig(A: acb_mat):
    """Certified eigenvalue enclosures of every matrix in the ball matrix ``A`` (Rump; clusters
    with ``multiple=True``), or ``None``."""
    for multiple in (False, True):
        try:
            ev = A.eig(algorithm="rump", multiple=multiple)
        except (ValueError, ZeroDivisionError):
            continue
        if all(e.is_finite() for e in ev):
            return list(ev)
    return None
