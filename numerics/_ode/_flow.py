"""Integration of ``d rho/dt = F(rho)`` in ``y = atanh(rho)``: one path, and the flow map."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
from scipy.integrate import solve_ivp

from ...core.validate import alignments, nonnegative
from ...theory import Model
from . import _field
from ._equilibria import equilibrium_points
from ._field import ATOL, RTOL, check_model, one_minus_tanh


@dataclass(frozen=True)
class Trajectory:
    """One ODE solution sampled at requested times.

    Attributes
    ----------
    t : ndarray, shape (n,)
    rho : ndarray, shape (n,)
        ``rho(t) = tanh(y(t))``.
    y : ndarray, shape (n,)
        ``atanh(rho(t))`` (``±inf`` at a pole).
    one_minus_rho : ndarray, shape (n,)
        ``1 - rho(t)`` computed from ``y`` without cancellation.
    nfev : int
        Field evaluations.
    success : bool
    message : str
    """

    t: np.ndarray
    rho: np.ndarray
    y: np.ndarray
    one_minus_rho: np.ndarray
    nfev: int
    success: bool
    message: str




def integrate(model: Model, rho0: float, t_eval, *, rtol: float = RTOL, atol: float = ATOL) -> Trajectory:
    """Integrate ``d rho/dt = F(rho)`` from ``rho0`` and sample at ``t_eval``.

    Parameters
    ----------
    model : theory.Model
    rho0 : float
        Start in ``[-1, 1]``.
    t_eval : array_like, shape (n,)
        Non-decreasing times ``>= 0``.
    rtol, atol : float
        Tolerances of ``solve_ivp`` (DOP853) on ``y = atanh(rho)``; ``rtol <= 1e-10``.
    """
    check_model(model)
    rho0 = float(alignments("rho0", rho0))
    t = nonnegative("t_eval", t_eval)
    if np.any(np.diff(t) < 0):
        raise ValueError("`t_eval` must be non-decreasing")
    _check_tol(rtol, atol)
    y0 = math.atanh(rho0) if abs(rho0) < 1 else math.copysign(math.inf, rho0)
    if not math.isfinite(y0) or t.size == 0 or t[-1] == 0.0:
        y = np.full(t.shape, y0)
        return _trajectory(t, y, rho0, still=t == t, nfev=0, success=True, message="fixed point or zero horizon")
    # solve_ivp wants increasing times; repeated ones (t_k + eta_k == t_k in float64) share a value
    ts, back = np.unique(t, return_inverse=True)
    sol = solve_ivp(_field.rhs(model), (0.0, t[-1]), [y0], method="DOP853", t_eval=ts, rtol=rtol, atol=atol)
    y = sol.y[0][back] if sol.success else np.full(t.shape, np.nan)
    return _trajectory(t, y, rho0, still=t == 0.0, nfev=int(sol.nfev), success=bool(sol.success), message=sol.message)


def _stay(y, rho0, still):
    """``(rho, 1 - rho)`` from ``y``, with ``rho0`` returned itself where the flow did not move.

    ``tanh(atanh(x)) == x`` is not guaranteed: numpy picks its ``tanh``/``arctanh``
    kernels by CPU (AVX-512 or AVX2), and on some the round trip is one ulp off. A
    zero horizon, a pole and an exact equilibrium therefore return the start as given,
    so ``Phi_0(rho) = rho`` holds by construction on every CPU.
    """
    rho, omr = np.tanh(y), one_minus_tanh(y)
    if np.any(still):
        r0 = np.broadcast_to(rho0, rho.shape)
        rho = np.where(still, r0, rho)
        omr = np.where(still, 1.0 - r0, omr)
    return rho, omr


def _trajectory(t, y, rho0, still, nfev, success, message) -> Trajectory:
    rho, omr = _stay(y, rho0, still)
    return Trajectory(t=t, rho=rho, y=y, one_minus_rho=omr, nfev=nfev, success=success, message=message)


def _check_tol(rtol, atol):
    if not (isinstance(rtol, Real) and 0 < float(rtol) <= 1e-10):
        raise ValueError(f"`rtol` must lie in (0, 1e-10], got {rtol!r}")
    if not (isinstance(atol, Real) and float(atol) > 0):
        raise ValueError(f"`atol` must be > 0, got {atol!r}")


@dataclass(frozen=True)
class FlowMap:
    """``Phi_h(rho0)`` on broadcast arrays of starts and horizons.

    Attributes
    ----------
    rho0, h : ndarray
        The broadcast inputs.
    rho : ndarray
        ``Phi_h(rho0)``, same shape.
    one_minus_rho : ndarray
        ``1 - Phi_h(rho0)`` without cancellation.
    nfev : int
    success : bool
    message : str
    """

    rho0: np.ndarray
    h: np.ndarray
    rho: np.ndarray
    one_minus_rho: np.ndarray
    nfev: int
    success: bool
    message: str


def flow_map(model: Model, rho0, h, *, equilibria=None, rtol: float = RTOL, atol: float = ATOL) -> FlowMap:
    """The ODE flow ``Phi_h(rho0)`` for arrays of starts and horizons (broadcast).

    All moving starts are integrated together as one decoupled system in
    ``y = atanh(rho)`` up to the largest horizon, and read off the dense output.
    Starts at ``±1`` or exactly at an interior equilibrium (from ``equilibria``, or
    found by :func:`find_equilibria`) stay where they are.

    Parameters
    ----------
    model : theory.Model
    rho0 : array_like
        Starts in ``[-1, 1]``.
    h : array_like
        Horizons ``>= 0``, broadcast against ``rho0``.
    equilibria : sequence of float or Equilibria, optional
    rtol, atol : float
        ``solve_ivp`` tolerances; the error norm is an RMS over the starts, so the
        default ``rtol`` is tighter than the 1e-10 asked for one start.
    """
    check_model(model)
    r0, hh = np.broadcast_arrays(alignments("rho0", rho0), nonnegative("h", h))
    _check_tol(rtol, atol)
    points, degenerate = equilibrium_points(model, equilibria)
    flat_r, flat_h = r0.ravel(), hh.ravel()
    y0 = np.arctanh(np.clip(flat_r, -1.0, 1.0), where=np.abs(flat_r) < 1, out=np.copysign(np.inf, flat_r))
    y = y0.copy()
    fixed = (np.abs(flat_r) == 1) | np.isin(flat_r, points) | degenerate
    move = np.flatnonzero(~fixed & (flat_h > 0))
    nfev, success, message = 0, True, "no moving start"
    if move.size:
        hmax = float(flat_h[move].max())
        sol = solve_ivp(_field.rhs(model), (0.0, hmax), y0[move], method="DOP853", dense_output=True, rtol=rtol,
                        atol=atol)
        nfev, success, message = int(sol.nfev), bool(sol.success), sol.message
        if not success:
            y[move] = np.nan
        else:
            y[move] = _read_dense(sol.sol, flat_h[move])
    y = y.reshape(r0.shape)
    still = (fixed | (flat_h == 0)).reshape(r0.shape)
    rho, omr = _stay(y, r0, still)
    return FlowMap(rho0=r0, h=hh, rho=rho, one_minus_rho=omr, nfev=nfev, success=success, message=message)


def _read_dense(dense, h: np.ndarray, budget: int = 2_000_000) -> np.ndarray:
    """Component ``i`` of the dense output at time ``h[i]``, in memory-bounded chunks."""
    uniq, inv = np.unique(h, return_inverse=True)
    out = np.empty(h.shape)
    chunk = max(1, budget // h.size)
    for start in range(0, uniq.size, chunk):
        sel = np.flatnonzero((inv >= start) & (inv < start + chunk))
        values = dense(uniq[start : start + chunk])
        out[sel] = values[sel, inv[sel] - start]
    return out
