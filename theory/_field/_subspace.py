"""Numeric evaluation of the subspace limit: ``j(r)``, its gradient and Hessian, the flow.

The sympy expressions of :mod:`theory._derivation._subspace` lambdified once per law (numpy
and mpmath), evaluated at overlap vectors ``r = U^T q`` in the unit ball, and the flow
``dr/dt = g - <r, g> r`` integrated (numerical evidence only). ``k = 1`` is the scalar model
(``r = rho``, ``g = j'``, flow ``(1 - rho^2) j'``), evaluated here by the generic expressions
rather than the scalar engine's closed forms (:mod:`._scalar`); the two agree to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from .._derivation._subspace import PARAM_SYMBOLS, _derive
from .._laws._vector import SignalLaw
from .._model import Model


@cache
def _functions(law: SignalLaw, module: str):
    d = _derive(law)
    args = (*d.r, *PARAM_SYMBOLS)
    exprs = (d.objective, d.gradient, d.flow, d.hessian, d.pooled[1])
    return sp.lambdify(args, exprs, modules=module, cse=True)


def _overlaps(model: Model, r) -> np.ndarray:
    r = np.asarray(r, dtype=float).reshape(-1)
    if r.shape != (model.k,) or not np.all(np.isfinite(r)):
        raise ValueError(f"`r` must be {model.k} finite overlaps, got {r!r}")
    if float(r @ r) > 1 + 1e-12:
        raise ValueError(f"`r` must lie in the unit ball (|r| <= 1), got |r| = {float(np.sqrt(r @ r))!r}")
    return r


@dataclass(frozen=True)
class SubspaceValues:
    """``j``, its gradient ``g`` and Hessian ``H`` in ``r``, the flow ``g - <r, g> r`` and the
    informative coefficients ``m`` (``f = beta sigma2 q + theta U m``) at the points ``r``.

    For one point (``r`` of shape ``(k,)``) ``objective`` is a float, ``gradient``, ``flow`` and
    ``m`` have shape ``(k,)`` and ``hessian`` ``(k, k)``; for ``n`` points every array gains a
    leading axis of length ``n``."""

    r: np.ndarray
    objective: float | np.ndarray
    gradient: np.ndarray
    hessian: np.ndarray
    flow: np.ndarray
    m: np.ndarray


def evaluate_subspace(model: Model, r) -> SubspaceValues:
    """Evaluate the derived limit at the overlaps ``r``, shape ``(k,)`` or ``(n, k)`` (float64;
    exponentials formed directly, so ``beta theta`` must stay well below 700)."""
    arr = np.asarray(r, dtype=float)
    if arr.ndim == 2 and arr.shape[0] >= 1:
        rows = [evaluate_subspace(model, row) for row in arr]
        return SubspaceValues(np.array([v.r for v in rows]), np.array([v.objective for v in rows]),
                              *(np.array([getattr(v, a) for v in rows]) for a in ("gradient", "hessian", "flow", "m")))
    r = _overlaps(model, arr)
    j, g, v, h, m = _functions(model.law, "numpy")(*r, *model.params())
    return SubspaceValues(r, float(j), np.array(g, dtype=float), np.array(h, dtype=float),
                          np.array(v, dtype=float), np.array(m, dtype=float))


def evaluate_subspace_mp(model: Model, r, dps: int = 40) -> dict:
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


@dataclass(frozen=True)
class FlowEnd:
    """Where the flow from a start stands at ``t_max``: the overlaps ``r`` and the speed
    ``|dr/dt|`` there (small when it has settled at an equilibrium)."""

    r: np.ndarray
    speed: float


def integrate_subspace_flow(model: Model, r0, t_max: float = 200.0, rtol: float = 1e-10) -> FlowEnd:
    """Integrate ``dr/dt = g - <r, g> r`` from ``r0`` (scipy ``solve_ivp``, LSODA) up to ``t_max``.

    Numerical evidence only.
    """
    from scipy.integrate import solve_ivp

    r0 = _overlaps(model, r0)
    fn = _functions(model.law, "numpy")
    params = model.params()

    def rhs(_t, r):
        return np.array(fn(*r, *params)[2], dtype=float)

    sol = solve_ivp(rhs, (0.0, float(t_max)), r0, method="LSODA", rtol=rtol, atol=1e-12)
    end = sol.y[:, -1]
    return FlowEnd(end, float(np.linalg.norm(rhs(0.0, end))))
