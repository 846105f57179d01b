"""The limit of one softmax query with a k-dimensional signal subspace (docs/subspace.md).

Model. ``U = [xi_1 ... xi_k]`` orthonormal; informative tokens ``x = theta U s + z`` with ``s``
from a :class:`theory._laws._vector.SubspaceLaw`, nuisance tokens ``x = z``,
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

import mpmath
import numpy as np
import sympy as sp

from .._laws._vector import SubspaceLaw, parse_subspace_law
from .._model import Model
from ._lemmas import tilted_first_moment, tilted_mean
from ._symbols import alpha, beta, sigma2, theta

PARAM_SYMBOLS = (theta, alpha, beta, sigma2)


def overlap_symbols(k: int) -> tuple:
    """The sympy overlaps ``r_1 .. r_k``."""
    return sp.symbols(f"r1:{k + 1}", real=True)


@dataclass(frozen=True)
class SubspaceModel:
    """The law of ``s`` and the parameters ``theta >= 0``, ``0 < alpha <= 1`` (proportional
    regime only), ``beta > 0``, ``sigma2 > 0`` of the subspace model.

    ``law`` is a spec (``"onehot(k=2)"``, ``"gaussian(k=2, tau=1)"``, any scalar prior) or a
    :class:`SubspaceLaw`, parsed once here.
    """

    law: SubspaceLaw | str
    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0

    def __post_init__(self):
        scalar = Model(self.theta, self.alpha, self.beta, self.sigma2)  # the same validation and messages
        if scalar.sparse:
            raise ValueError("`alpha` must be > 0 (the subspace model has no sparse limit yet), got 0.0")
        for name in ("theta", "alpha", "beta", "sigma2"):
            object.__setattr__(self, name, getattr(scalar, name))
        object.__setattr__(self, "law", parse_subspace_law(self.law))

    @property
    def k(self) -> int:
        return self.law.k

    def params(self) -> tuple:
        return (self.theta, self.alpha, self.beta, self.sigma2)


@dataclass(frozen=True)
class SubspaceDerivation:
    """The derived limit for one law; sympy expressions in ``r`` (:attr:`r`) and the parameters.

    ``pooled`` is ``(c_q, m)`` with ``f = c_q q + theta U m``; ``gradient``, ``hessian`` and
    ``flow`` are tuples (the Hessian a tuple of rows); ``flow = g - <r, g> r``.
    """

    law: SubspaceLaw
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
    return _derive(parse_subspace_law(law))


@cache
def _derive(law: SubspaceLaw) -> SubspaceDerivation:
    r = overlap_symbols(law.k)
    M, T = tilted_mean().rhs, tilted_first_moment().rhs[1]
    t = tuple(beta * theta * ri for ri in r)
    tv = sp.symbols(f"t1:{law.k + 1}", real=True)
    mgf = law.mgf(tv)
    Ms = mgf.subs(dict(zip(tv, t)))
    grad_ms = tuple(sp.diff(mgf, ti).subs(dict(zip(tv, t))) for ti in tv)
    # Step 2: numerator as (U-coefficients, q-coefficient), denominator
    num_u = tuple(alpha * theta * M * gm for gm in grad_ms)
    num_q = alpha * T * Ms + (1 - alpha) * T
    den = alpha * M * Ms + (1 - alpha) * M
    c_q = sp.simplify(num_q / den)
    if c_q.free_symbols & set(r):  # the structure used below; a failure means a wrong lemma
        raise AssertionError(f"q-coefficient of the pooled output depends on r: {c_q}")
    m = tuple(sp.simplify(nu / den / theta) for nu in num_u)
    # Step 3: objective and its derivatives
    objective = c_q**2 + theta**2 * sum(mi**2 for mi in m) + 2 * c_q * theta * sum(ri * mi for ri, mi in zip(r, m))
    gradient = tuple(sp.diff(objective, ri) for ri in r)
    hessian = tuple(tuple(sp.diff(gi, rj) for rj in r) for gi in gradient)
    # Step 4: the projected flow in the overlaps
    radial = sum(ri * gi for ri, gi in zip(r, gradient))
    flow = tuple(gi - radial * ri for gi, ri in zip(gradient, r))
    return SubspaceDerivation(law, r, mgf, (num_u, num_q), den, (c_q, m), objective, gradient, hessian, flow)


@cache
def _functions(law: SubspaceLaw, module: str):
    d = _derive(law)
    args = (*d.r, *PARAM_SYMBOLS)
    exprs = (d.objective, d.gradient, d.flow, d.hessian, d.pooled[1])
    return sp.lambdify(args, exprs, modules=module, cse=True)


def _overlaps(model: SubspaceModel, r) -> np.ndarray:
    r = np.asarray(r, dtype=float).reshape(-1)
    if r.shape != (model.k,) or not np.all(np.isfinite(r)):
        raise ValueError(f"`r` must be {model.k} finite overlaps, got {r!r}")
    if float(r @ r) > 1 + 1e-12:
        raise ValueError(f"`r` must lie in the unit ball (|r| <= 1), got |r| = {float(np.sqrt(r @ r))!r}")
    return r


@dataclass(frozen=True)
class SubspaceValues:
    """``j``, its gradient ``g`` and Hessian ``H`` in ``r``, the flow ``g - <r, g> r`` and the
    informative coefficients ``m`` (``f = beta sigma2 q + theta U m``) at one point ``r``."""

    r: np.ndarray
    objective: float
    gradient: np.ndarray
    hessian: np.ndarray
    flow: np.ndarray
    m: np.ndarray


def evaluate_subspace(model: SubspaceModel, r) -> SubspaceValues:
    """Evaluate the derived limit at the overlaps ``r`` (float64; exponentials formed directly,
    so ``beta theta`` must stay well below 700)."""
    r = _overlaps(model, r)
    j, g, v, h, m = _functions(model.law, "numpy")(*r, *model.params())
    return SubspaceValues(r, float(j), np.array(g, dtype=float), np.array(h, dtype=float),
                          np.array(v, dtype=float), np.array(m, dtype=float))


def evaluate_subspace_mp(model: SubspaceModel, r, dps: int = 40) -> dict:
    """The derived limit at ``r`` in mpmath at ``dps`` digits: ``objective`` (mpf), ``gradient``,
    ``flow``, ``m`` (lists of mpf) and ``hessian`` (an mpmath matrix)."""
    with mpmath.workdps(dps + 10):
        rr = [mpmath.mpf(x) for x in r]
        if len(rr) != model.k:
            raise ValueError(f"`r` must be {model.k} overlaps, got {len(rr)}")
        j, g, v, h, m = _functions(model.law, "mpmath")(*rr, *(mpmath.mpf(p) for p in model.params()))
    with mpmath.workdps(dps):
        return {"objective": +j, "gradient": [+x for x in g], "flow": [+x for x in v],
                "m": [+x for x in m], "hessian": mpmath.matrix([[+x for x in row] for row in h])}


def integrate_subspace_flow(model: SubspaceModel, r0, t_max: float = 200.0, rtol: float = 1e-10):
    """Integrate ``dr/dt = g - <r, g> r`` from ``r0`` (scipy ``solve_ivp``, LSODA) up to ``t_max``.

    Returns ``(r_final, speed)`` with ``speed = |dr/dt|`` at the end (small when it has
    settled at an equilibrium). Numerical evidence only.
    """
    from scipy.integrate import solve_ivp

    r0 = _overlaps(model, r0)
    fn = _functions(model.law, "numpy")
    params = model.params()

    def rhs(_t, r):
        return np.array(fn(*r, *params)[2], dtype=float)

    sol = solve_ivp(rhs, (0.0, float(t_max)), r0, method="LSODA", rtol=rtol, atol=1e-12)
    end = sol.y[:, -1]
    return end, float(np.linalg.norm(rhs(0.0, end)))
