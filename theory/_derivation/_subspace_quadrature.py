"""Independent mpmath quadrature of the subspace limit ``j(r)`` and its gradient (docs/subspace.md).

Nothing here uses ``<q, z> ~ N(0, sigma2)``, Stein's lemma or the MGF of the law. Work in
the orthonormal coordinates ``xi_1 .. xi_k, e`` with ``e`` the unit vector of
``q - U r``, so ``q = U r + rho_perp e`` with ``rho_perp = sqrt(1 - |r|^2)`` (``|r| < 1``).
A token's coordinates are independent Gaussians: ``x_i ~ N(theta s_i, sigma2)`` given
``s`` (``x_e ~ N(0, sigma2)``), the score is ``u = beta (sum_i r_i x_i + rho_perp x_e)``, and
every moment ``E[e^u prod_a x_a^{n_a}]`` is a product of one-dimensional integrals
``I_n(c, mu, var)`` (:func:`theory._derivation._quadrature.gaussian_integral`, tanh-sinh). A finite law
is averaged over its atoms; a Gaussian law ``N(mu, tau^2 I_k)`` by convolution
(``x_i ~ N(theta mu_i, sigma2 + theta^2 tau^2)``).

Then ``f_a = N_a / D``, ``j = sum_a f_a^2``, and the gradient differentiates under the
integral: ``dq/dr_i = xi_i - (r_i / rho_perp) e``, so ``d u / d r_i = beta <dq/dr_i, x>``,
``dD/dr_i = beta sum_b w_b E[e^u x_b]`` and ``dN_a/dr_i = beta sum_b w_b E[e^u x_a x_b]``
with ``w = dq/dr_i`` in coordinates: second moments, not finite differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath

from .._field._subspace import evaluate_subspace_mp
from .._model import Model
from ._quadrature import _mpq, gaussian_integral


@dataclass(frozen=True)
class SubspaceQuadrature:
    """``j`` and its gradient at one point by quadrature and from the derivation, and the
    largest relative difference of the two (objective, then gradient as a vector)."""

    r: tuple
    objective: tuple
    gradient: tuple
    rel_diff: float


def _components(model: Model, t):
    """The informative law as ``[(prob, means of x_1..x_k, variance)]`` at the working precision."""
    s2 = mpmath.mpf(model.sigma2)
    atoms = model.law.atoms
    if atoms is not None:
        return [(_mpq(p), [t * _mpq(v) for v in vec], s2) for p, vec in atoms]
    mu, tau = model.law.gaussian_moments
    return [(mpmath.mpf(1), [t * _mpq(m) for m in mu], s2 + (t * _mpq(tau)) ** 2)]


def quadrature_objective(model: Model, r, dps: int = 40) -> tuple:
    """``(j, gradient)`` at the overlaps ``r`` (``|r| < 1``) by quadrature at ``dps`` digits."""
    k = model.k
    with mpmath.workdps(dps + 10):
        rr = [mpmath.mpf(x) for x in r]
        norm2 = sum(x * x for x in rr)
        if len(rr) != k or norm2 >= 1:
            raise ValueError(f"`r` must be {k} overlaps with |r| < 1, got {r!r}")
        t, a, b, s2 = (mpmath.mpf(v) for v in model.params())
        perp = mpmath.sqrt(1 - norm2)
        coef = [*rr, perp]  # score coefficients on the k + 1 coordinates
        comps = _components(model, t)
        integral = cache(gaussian_integral)  # each distinct one computed once per point

        def moment(powers):
            """``E[e^u prod x_a^{n_a}]`` over the token mixture (``powers`` has k + 1 entries)."""
            def product(means, var):
                out = mpmath.mpf(1)
                for i in range(k + 1):
                    mu_i, var_i = (means[i], var) if i < k else (mpmath.mpf(0), s2)
                    out *= integral(powers[i], b * coef[i], mu_i, var_i)
                return out

            inf = sum(p * product(means, var) for p, means, var in comps)
            return a * inf + (1 - a) * product([mpmath.mpf(0)] * k, s2)

        unit = [[int(i == j) for j in range(k + 1)] for i in range(k + 1)]
        D = moment([0] * (k + 1))
        N = [moment(unit[i]) for i in range(k + 1)]
        f = [n / D for n in N]
        j = sum(x * x for x in f)
        second = [[moment([u + v for u, v in zip(unit[x], unit[y], strict=True)]) for y in range(k + 1)]
                  for x in range(k + 1)]
        grad = []
        for i in range(k):
            w = [mpmath.mpf(int(i == c)) for c in range(k)] + [-rr[i] / perp]
            dD = b * sum(w[c] * N[c] for c in range(k + 1))
            dN = [b * sum(w[c] * second[x][c] for c in range(k + 1)) for x in range(k + 1)]
            grad.append(2 * sum(f[x] * (dN[x] * D - N[x] * dD) / D**2 for x in range(k + 1)))
    with mpmath.workdps(dps):
        return +j, [+x for x in grad]


def _rel(a, b) -> float:
    num = mpmath.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))
    den = mpmath.sqrt(sum(x * x for x in a))
    return float(num / den) if den != 0 else float(num)


def subspace_quadrature(model: Model, r, dps: int = 40) -> SubspaceQuadrature:
    """Compare the derived ``j`` and gradient with :func:`quadrature_objective` at ``r``."""
    j_q, g_q = quadrature_objective(model, r, dps)
    sym = evaluate_subspace_mp(model, r, dps + 10)
    rel = max(_rel([sym["objective"]], [j_q]), _rel(sym["gradient"], g_q))
    return SubspaceQuadrature(tuple(float(x) for x in r), (float(sym["objective"]), float(j_q)),
                              (tuple(map(float, sym["gradient"])), tuple(map(float, g_q))), rel)
