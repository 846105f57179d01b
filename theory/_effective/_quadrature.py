"""Quadrature cross-check of the finite-step derivation (independent of sympy's route).

:func:`effective_quadrature` recomputes ``V_o``, ``V_p``, ``A2`` and ``<gbar, e_perp>``
of :func:`derive_effective` at one parameter point by tensor Gauss–Hermite quadrature
in mpmath (nodes and weights by Golub–Welsch, :func:`hermite_rule`), using neither
the one-dimensional tilting lemmas nor the polynomial layer of the influence function.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import sympy as sp

from .._derivation._symbols import ARGS
from .._laws import Prior, parse_prior
from ._derivation import derive_effective


@dataclass(frozen=True)
class EffectiveQuadrature:
    """``V_o``, ``V_p``, ``A2`` and ``<gbar, e_perp>`` at one point: sympy vs quadrature."""

    params: dict
    symbolic: tuple
    quadrature: tuple
    max_rel_diff: float


def hermite_rule(n: int):
    """Gauss–Hermite nodes and weights for ``N(0, 1)`` at the working precision (Golub–Welsch).

    Exact for polynomials of degree ``<= 2n - 1``; weights sum to 1.
    """
    J = mpmath.zeros(n, n)
    for k in range(1, n):
        J[k, k - 1] = J[k - 1, k] = mpmath.sqrt(k)
    nodes, vecs = mpmath.eigsy(J)
    return [nodes[i] for i in range(n)], [vecs[0, i] ** 2 for i in range(n)]


def effective_quadrature(prior: Prior | str, p: dict, dps: int = 50, nodes: int = 8) -> EffectiveQuadrature:
    """Cross-check ``V_o, V_p, A2, <gbar, e_perp>`` by product quadrature at ``dps`` digits.

    Independent of the symbolic route: no 1-D lemma and no polynomial expansion.
    Each ``E_kind[w^k fn(x1, x2)]`` is computed by completing the square
    (``exp(c y) phi(y - mu) = exp(c mu + c^2 s2 / 2) phi(y - mu - c s2)``) and a
    tensor Gauss–Hermite rule on the shifted standard normals; the influence
    function is evaluated as a vector expression at the nodes. The integrands are
    polynomials of degree <= 4 after the shift, so ``nodes >= 3`` is exact and the
    difference measures only the working precision.
    """
    prior = parse_prior(prior)
    with mpmath.workdps(dps + 10):
        r, t, a, b, s2 = (mpmath.mpf(p[k]) for k in ("rho", "theta", "alpha", "beta", "sigma2"))
        rho_perp = mpmath.sqrt(1 - r * r)
        sig = mpmath.sqrt(s2)
        law = _mp_law(prior)
        un, uw = hermite_rule(nodes)

        def expect(fn, k, kind):
            """``E_kind[w^k fn(x1, x2)]``."""
            signs = law if kind == "informative" else {0: mpmath.mpf(1)}
            total = 0
            for sv, pr in signs.items():
                mu = t * sv
                c1, c2 = k * b * r, k * b * rho_perp
                scale = mpmath.exp(c1 * mu + (c1 * c1 + c2 * c2) * s2 / 2)
                acc = 0
                for u, wu in zip(un, uw, strict=True):
                    for v, wv in zip(un, uw, strict=True):
                        acc += wu * wv * fn(mu + c1 * s2 + sig * u, c2 * s2 + sig * v)
                total += pr * scale * acc
            return total

        def mix(fn, k):
            return a * expect(fn, k, "informative") + (1 - a) * expect(fn, k, "nuisance")

        D = mix(lambda y1, y2: 1, 1)
        f = [mix(lambda y1, y2: y1, 1) / D, mix(lambda y1, y2: y2, 1) / D]
        m12 = mix(lambda y1, y2: y1 * y2, 1) / D
        M = [[mix(lambda y1, y2: y1 * y1, 1) / D, m12], [m12, mix(lambda y1, y2: y2 * y2, 1) / D]]
        fn2 = f[0] ** 2 + f[1] ** 2
        e_perp = (rho_perp, -r)

        def psi_perp(y1, y2):
            x = (y1, y2)
            xf = y1 * f[0] + y2 * f[1]
            dx = (y1 - f[0], y2 - f[1])
            fdx = f[0] * dx[0] + f[1] * dx[1]
            comp = []
            for i in range(2):
                Mf = M[i][0] * f[0] + M[i][1] * f[1]
                Mdx = M[i][0] * dx[0] + M[i][1] * dx[1]
                comp.append(x[i] * xf - Mf + Mdx - fn2 * dx[i] - 2 * fdx * f[i])
            return 2 * b * (comp[0] * e_perp[0] + comp[1] * e_perp[1])

        V_o = 4 * b * b * s2 * mix(lambda y1, y2: (y1 * f[0] + y2 * f[1] + s2 - fn2) ** 2, 2) / D**2
        V_p = 0
        for kind, wt in (("informative", a), ("nuisance", 1 - a)):
            V_p += wt * (expect(lambda y1, y2: psi_perp(y1, y2) ** 2, 2, kind) - expect(psi_perp, 1, kind) ** 2) / D**2
        A2 = mix(lambda y1, y2: 1, 2) / D**2
        gbar = [2 * b * sum((M[i][j] - (fn2 if i == j else 0)) * f[j] for j in range(2)) for i in range(2)]
        mean_perp = gbar[0] * e_perp[0] + gbar[1] * e_perp[1]
        quad = (V_o, V_p, A2, mean_perp)
        sym = _lam_mp(prior)(r, t, a, b, s2)[:4]
        rel = max(abs(x - y) / max(abs(y), mpmath.mpf(10) ** (-dps)) for x, y in zip(sym, quad, strict=True))
        return EffectiveQuadrature(dict(p), tuple(float(x) for x in sym), tuple(float(x) for x in quad), float(rel))


def _mp_law(law: Prior) -> dict:
    """``{value: probability}`` of ``s`` at the working precision: the atoms of a finite law,
    or a 60-node Gauss–Hermite rule for a Gaussian prior (the integrands are
    ``exp(c s)`` times a polynomial in ``s``: entire, so the rule converges
    geometrically; 60 nodes resolve the 40-50 digits of the check for ``c tau`` of
    order 1)."""
    if law.support is not None:
        return {mpmath.mpf(v.numerator) / v.denominator: mpmath.mpf(q.numerator) / q.denominator
                for v, q in law.support}
    mu = mpmath.mpf(law.mu.numerator) / law.mu.denominator
    tau = mpmath.mpf(law.tau.numerator) / law.tau.denominator
    nodes, weights = hermite_rule(60)
    out: dict = {}
    for u, w in zip(nodes, weights, strict=True):
        out[mu + tau * u] = out.get(mu + tau * u, 0) + w
    return out


@cache
def _lam_mp(prior: Prior):
    e = derive_effective(prior)
    return sp.lambdify(ARGS, (e.out_of_plane_variance, e.in_plane_variance, e.weight_square, e.mean_perp),
                       modules="mpmath")
