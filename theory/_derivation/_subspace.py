"""The limit of one softmax query with a k-dimensional signal subspace (docs/subspace.md).

Model. ``U = [xi_1 ... xi_k]`` orthonormal; informative tokens ``x = theta U s + z`` with ``s``
from a :class:`theory._laws._vector.SignalLaw`, nuisance tokens ``x = z``,
``z ~ N(0, sigma2 I_d)``, fraction ``alpha`` informative; scores ``beta <q, x_i>``, pooled
output ``f = sum_i a_i x_i``, objective ``|f|^2`` (docs/design.md section 1 with ``k = 1``).
Overlaps ``r = U^T q`` (``|r| <= 1``).

Step 1 (lemmas, :mod:`theory._derivation._lemmas`): ``<q, x> = theta <r, s> + y`` with ``y = <q, z>``, so
``E_z e^{beta<q,x>} = e^{<t, s>} M`` and ``E_z e^{beta<q,x>} x = e^{<t, s>}(theta M U s + T q)``
with ``t = beta theta r``, ``M = E e^{beta y}`` and ``T = E y e^{beta y}``; averaging over ``s``
gives ``M_s(t)`` and ``grad M_s(t)`` (the law's MGF on ``R^k``).

Step 2 (ratio limit): ``f = (alpha N_inf + (1 - alpha) N_nuis) / (alpha D_inf + (1 - alpha) D_nuis)
= c_q q + theta U m(r)``; sympy finds ``c_q = beta sigma2`` and
``m = alpha grad M_s(t) / (alpha M_s(t) + 1 - alpha)``.

Step 3: ``j(r) = |f|^2 = c_q^2 + theta^2 |m|^2 + 2 c_q theta <r, m>``, a function of ``r`` only;
its gradient ``g`` and Hessian ``H`` in ``r`` by sympy.

Step 4 (flow). On the sphere ``dq/dt = (I - q q^T) grad_q J`` with ``J(q) = j(U^T q)``, so
``grad_q J = U g`` and ``dq/dt = U g - <r, g> q``. Applying ``U^T``:
``dr/dt = g - <r, g> r`` (closed in ``r``); the part of ``q`` outside ``span(U)``,
``q_perp = (I - U U^T) q``, obeys ``dq_perp/dt = -<r, g> q_perp``, consistent with
``d|r|^2/dt = 2 <r, g> (1 - |r|^2)``. The unit sphere ``|r| = 1`` (``q`` in the span) is
invariant; with ``d > k`` the open ball is reachable too. ``k = 1``: ``d rho/dt = (1 - rho^2) j'``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from .._laws._vector import SignalLaw, parse_law
from ._lemmas import tilted_first_moment, tilted_mean
from ._symbols import alpha, beta, sigma2, theta

PARAM_SYMBOLS = (theta, alpha, beta, sigma2)


def overlap_symbols(k: int) -> tuple:
    """The sympy overlaps ``r_1 .. r_k``."""
    return sp.symbols(f"r1:{k + 1}", real=True)


@dataclass(frozen=True)
class SubspaceDerivation:
    """The derived limit for one law; sympy expressions in ``r`` (:attr:`r`) and the parameters.

    ``pooled`` is ``(c_q, m)`` with ``f = c_q q + theta U m``; ``gradient``, ``hessian`` and
    ``flow`` are tuples (the Hessian a tuple of rows); ``flow = g - <r, g> r``.
    """

    law: SignalLaw
    r: tuple
    mgf: sp.Expr
    numerator: tuple
    denominator: sp.Expr
    pooled: tuple
    objective: sp.Expr
    gradient: tuple
    hessian: tuple
    flow: tuple


def derive_subspace(law) -> SubspaceDerivation:
    """Derive ``f``, ``j(r)``, its gradient and Hessian and the flow for ``law`` (cached)."""
    return _derive(parse_law(law))


@cache
def _derive(law: SignalLaw) -> SubspaceDerivation:
    r = overlap_symbols(law.k)
    M, T = tilted_mean().rhs, tilted_first_moment().rhs[1]
    t = tuple(beta * theta * ri for ri in r)
    tv = sp.symbols(f"t1:{law.k + 1}", real=True)
    mgf = law.mgf(tv)
    Ms = mgf.subs(dict(zip(tv, t, strict=True)))
    grad_ms = tuple(sp.diff(mgf, ti).subs(dict(zip(tv, t, strict=True))) for ti in tv)
    # Step 2: numerator as (U-coefficients, q-coefficient), denominator
    num_u = tuple(alpha * theta * M * gm for gm in grad_ms)
    num_q = alpha * T * Ms + (1 - alpha) * T
    den = alpha * M * Ms + (1 - alpha) * M
    c_q = sp.simplify(num_q / den)
    if c_q.free_symbols & set(r):  # the structure used below; a failure means a wrong lemma
        raise AssertionError(f"q-coefficient of the pooled output depends on r: {c_q}")
    m = tuple(sp.simplify(nu / den / theta) for nu in num_u)
    # Step 3: objective and its derivatives
    objective = (c_q**2 + theta**2 * sum(mi**2 for mi in m)
                 + 2 * c_q * theta * sum(ri * mi for ri, mi in zip(r, m, strict=True)))
    gradient = tuple(sp.diff(objective, ri) for ri in r)
    hessian = tuple(tuple(sp.diff(gi, rj) for rj in r) for gi in gradient)
    # Step 4: the projected flow in the overlaps
    radial = sum(ri * gi for ri, gi in zip(r, gradient, strict=True))
    flow = tuple(gi - radial * ri for gi, ri in zip(gradient, r, strict=True))
    return SubspaceDerivation(law, r, mgf, (num_u, num_q), den, (c_q, m), objective, gradient, hessian, flow)
