r"""The step-size-corrected ODE and the two predictions of the mean alignment.

On the ODE time axis of the recursion, ``t_k = sum_{j<k} eta_j`` (:meth:`Schedule.times`),
the plain prediction is the limit ODE ``d rho/dt = F(rho)`` and the corrected
prediction is

    d rho / dt = F_eta(t)(rho) = F(rho) + F_1(rho) / L - (eta(t) / 2) rho E|P g|^2(rho),

from ``theory.effective_drift`` (the one-step expansion of the renormalised recursion
to first order in ``eta``; ``F_1 / L`` is the ``O(1/L)`` bias of the mean
gradient at finite ``L``). ``eta(t)`` is the schedule on that axis: ``eta_k`` at
``t_k``, linearly interpolated in between (constant for a constant step), so both
predictions are read at exactly the times ``t_k`` of the recorded iterates.

The drift has the form ``A(rho) - eta B(rho)`` with ``A``, ``B`` free of ``eta``;
both are tabulated once on a grid of ``rho`` and interpolated by cubic splines
(the derived expressions are large; the spline error at the default grid is below
``1e-9`` of the drift scale, far under Monte Carlo error).

Stiffness. ``A`` and ``B`` grow like ``exp(c beta^2)`` at small ``L`` (``|B'|`` is about
``1e11`` at ``beta = 4, L = 4``), and the corrected ODE then relaxes to the zero of
``F_eta`` on a time scale far below the horizon. An explicit solver would need of the
order of ``Lip x horizon`` steps (``1e10`` there: minutes to hours), so when
``Lip x horizon`` (``Lip = max |A'| + eta_max |B'|`` on the grid) exceeds
:data:`STIFF` the ODE is solved by the implicit methods of :data:`STIFF_METHODS` with the
spline Jacobian, the next one when a method fails; below it (every shipped
configuration, ``Lip x horizon <= 3e3``) by ``DOP853`` as before. ``LSODA`` comes first:
at an equilibrium near ``rho = 0`` the spline's rounding (``eps |B|`` at the
neighbouring nodes) exceeds the first Newton correction, and the convergence test of
scipy's ``Radau`` and ``BDF`` then shrinks the step without end, while ``LSODA``
accepts a correction below the tolerance at once; ``Radau`` (one step, no history)
copes better with the kinks of ``eta(t)`` of a long decaying schedule. Each attempt
stops after :data:`MAX_EVALUATIONS` drift evaluations and counts as failed, so an
integration never runs on.
"""

from __future__ import annotations

import bisect
import contextlib
import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.integrate import solve_ivp
from scipy.interpolate import CubicSpline

from ...core.validate import instance, integer, real
from ...theory import Validity, effective_drift, validity
from .._schedule import Schedule
from .._simulate._driver import Problem, record_indices
from . import integrate

#: rho grid of the drift tables
GRID = 1601
#: ``Lip x horizon`` above which the corrected ODE is solved implicitly (module docstring);
#: an explicit solver needs about ``Lip x horizon / 3`` steps, a few seconds at this value
STIFF = 2e4
#: implicit methods for a stiff corrected ODE, tried in this order (module docstring)
STIFF_METHODS = ("LSODA", "Radau")
#: drift evaluations one solver attempt may use (a guard; shipped configurations use
#: at most about 2e4, the stiff cases of the tests below 1e5; about 5 s at 2e5)
MAX_EVALUATIONS = 2 * 10**5


@dataclass(frozen=True)
class CorrectedDrift:
    """``F_eta(rho) = A(rho) - eta B(rho)`` as splines on ``[-1, 1]``.

    Attributes
    ----------
    problem : Problem
    A, B : scipy.interpolate.CubicSpline
        ``A = F + F_1 / L`` and ``B = rho E|P g|^2 / 2`` (times ``drag_scale``).
    finite_L, drag_scale : as given to :func:`corrected_drift`.
    """

    problem: Problem
    A: CubicSpline = field(repr=False)
    B: CubicSpline = field(repr=False)
    finite_L: bool = True
    drag_scale: float = 1.0

    def __call__(self, rho, eta):
        """``F_eta(rho)`` (broadcast)."""
        return self.A(rho) - np.asarray(eta) * self.B(rho)

    def scalar(self):
        """``F_eta(rho)`` for one float ``rho`` in ``[-1, 1]`` and one ``eta``, as a plain-Python
        function: the same cubic pieces as ``__call__`` (the coefficients of ``A`` and ``B`` on
        the knot interval of ``rho``, Horner's rule from the interval's left knot), without
        numpy's per-call overhead (an ODE solve calls it thousands of times with a scalar;
        values agree with ``__call__`` to rounding)."""
        return _scalar_drift(self.A, self.B)

    def slope(self, rho, eta):
        """``d F_eta / d rho`` (broadcast), from the splines."""
        return self.A(rho, 1) - np.asarray(eta) * self.B(rho, 1)

    def lipschitz(self, eta_max: float) -> float:
        """``max |A'| + eta_max max |B'|`` over the grid and its midpoints: a bound on
        ``|d F_eta / d rho|`` for ``0 <= eta <= eta_max`` (``inf`` when it overflows)."""
        x = self.A.x
        r = np.concatenate([x, 0.5 * (x[1:] + x[:-1])])
        with np.errstate(over="ignore", invalid="ignore"):
            return float(np.max(np.abs(self.A(r, 1))) + eta_max * np.max(np.abs(self.B(r, 1))))


def _scalar_drift(A: CubicSpline, B: CubicSpline):
    """See :meth:`CorrectedDrift.scalar` (``A`` and ``B`` share their knots)."""
    knots = A.x.tolist()
    n = len(knots) - 1  # intervals
    lo, width = knots[0], (knots[-1] - knots[0]) / n
    pieces = [tuple(a) + tuple(b) for a, b in zip(A.c.T.tolist(), B.c.T.tolist(), strict=True)]

    def f(r: float, eta: float) -> float:
        i = min(max(int((r - lo) / width), 0), n - 1)
        # the uniform guess is off by one at most near a knot (linspace rounding): settle on the
        # interval whose left knot is <= r, as CubicSpline's search does
        if r < knots[i] and i > 0:
            i -= 1
        elif i + 1 < n and r >= knots[i + 1]:
            i += 1
        a3, a2, a1, a0, b3, b2, b1, b0 = pieces[i]
        x = r - knots[i]
        return (((a3 * x + a2) * x + a1) * x + a0) - eta * (((b3 * x + b2) * x + b1) * x + b0)

    return f


def corrected_drift(problem: Problem, *, finite_L: bool = True, drag_scale: float = 1.0,
                    grid: int = GRID) -> CorrectedDrift:
    """Tabulate the corrected drift of ``problem`` (``R >= 1``).

    Parameters
    ----------
    problem : Problem
    finite_L : bool
        Include the ``O(1/L)`` bias of the mean gradient.
    drag_scale : float
        Multiplies the drag (1 is the derived value; others exist for tests).
    grid : int
        Number of grid points on ``[-1, 1]``.
    """
    instance("problem", problem, Problem)
    if problem.R < 1:
        raise ValueError("the corrected drift needs at least one informative token (`R` >= 1)")
    return _tabulate(problem, bool(finite_L), real("drag_scale", drag_scale), integer("grid", grid, 101))


@lru_cache(maxsize=32)
def _tabulate(problem: Problem, finite_L: bool, drag_scale: float, grid: int) -> CorrectedDrift:
    """The tables of :func:`corrected_drift`, once per process and argument set: the planner,
    the diffusion tables and ``predict`` ask for the same problem many times, and each
    table costs a self-normalised second moment on ``grid`` alignments (the result is
    immutable and depends on nothing else)."""
    r = np.linspace(-1.0, 1.0, grid)
    e1 = effective_drift(problem.model, r, 1.0, problem.d, problem.L, problem.batch, finite_L=finite_L)
    # F_eta = A + eta B: A is the drift at eta = 0 (F + F_1/L; its drag and Euler terms vanish)
    A = e1.field + e1.finite_L
    B = drag_scale * e1.drag
    return CorrectedDrift(problem, CubicSpline(r, A), CubicSpline(r, B), finite_L, drag_scale)


def _eta_of_t(schedule: Schedule, steps: int):
    """``eta(t)``: ``eta_k`` at ``t_k``, linear in between, ``eta_steps`` beyond."""
    t = schedule.times(steps)
    e = schedule.eta(np.arange(steps + 1))
    if schedule.power == 0.0:
        return lambda _t: schedule.eta0
    # np.interp's rule (clamped at both ends) in plain Python: the ODE solver calls it with
    # one float thousands of times
    ts, es = t.tolist(), e.tolist()
    last = len(ts) - 1

    def eta(tt: float) -> float:
        tt = float(tt)
        if tt <= ts[0]:
            return es[0]
        if tt >= ts[last]:
            return es[last]
        j = bisect.bisect_right(ts, tt)  # ts[j - 1] <= tt < ts[j]
        t0, t1 = ts[j - 1], ts[j]
        return es[j - 1] + (es[j] - es[j - 1]) * (tt - t0) / (t1 - t0) if t1 > t0 else es[j - 1]

    return eta


@dataclass(frozen=True)
class Prediction:
    """Plain and corrected predictions of the mean alignment at iterations ``step``.

    Attributes
    ----------
    problem : Problem
    schedule : Schedule
    rho0 : float
    step : ndarray of int, shape (n,)
        ``0, S, 2S, ...`` and the last step.
    time : ndarray, shape (n,)
        ``t_k`` of those steps.
    rho_plain : ndarray, shape (n,)
        Limit ODE ``d rho/dt = F``.
    rho_corrected : ndarray, shape (n,)
        Corrected ODE ``d rho/dt = F_eta(t)``.
    eta : ndarray, shape (n,)
        ``eta_k`` at those steps.
    success : bool
    message : str
    validity : theory.Validity
        Whether the corrected drift's expansion holds for this instance and schedule.
    """

    problem: Problem
    schedule: Schedule
    rho0: float
    step: np.ndarray
    time: np.ndarray
    rho_plain: np.ndarray
    rho_corrected: np.ndarray
    eta: np.ndarray
    success: bool
    message: str
    validity: Validity

    def as_dict(self) -> dict:
        return {
            "problem": self.problem.as_dict(),
            "schedule": self.schedule.as_dict(),
            "rho0": self.rho0,
            "step": self.step.tolist(),
            "time": self.time.tolist(),
            "eta": self.eta.tolist(),
            "rho_plain": self.rho_plain.tolist(),
            "rho_corrected": self.rho_corrected.tolist(),
            "success": self.success,
            "message": self.message,
            "validity": self.validity.as_dict(),
        }


class _TooMuchWork(Exception):
    pass


def integrate_corrected(drift: CorrectedDrift, schedule: Schedule, steps: int, rho0: float, t_eval,
                        *, rtol: float = 1e-9, atol: float = 1e-12):
    """Integrate ``d rho/dt = F_eta(t)(rho)`` from ``rho0`` and sample at ``t_eval``.

    Returns ``(rho, success, message)``; ``rho`` is ``nan`` when the integration fails
    (an attempt also fails after :data:`MAX_EVALUATIONS` drift evaluations). ``DOP853``,
    or the methods of :data:`STIFF_METHODS` with the spline Jacobian when the problem is
    stiff (module docstring).
    """
    eta_t = _eta_of_t(schedule, steps)
    t_eval = np.asarray(t_eval, dtype=float)
    calls = [0]
    f = drift.scalar()

    def rhs(t, y):
        calls[0] += 1
        if calls[0] > MAX_EVALUATIONS:
            raise _TooMuchWork
        r = min(max(float(y[0]), -1.0), 1.0)
        return [f(r, eta_t(t))]

    def jac(t, y):
        if not -1.0 <= y[0] <= 1.0:
            return [[0.0]]  # the drift is constant beyond the clamp
        return [[float(drift.slope(y[0], eta_t(t)))]]

    span = (0.0, float(t_eval[-1]))
    if span[1] == 0.0:
        return np.full(t_eval.shape, rho0), True, "zero horizon"
    # max_step: resolve the schedule's variation of eta (a few steps' worth of time)
    max_step = max(span[1] / 200.0, 1e-6)
    eta_max = float(schedule.eta(np.zeros(1))[0])  # eta_k does not increase with k
    lip = drift.lipschitz(eta_max)
    # an overflowing bound (eta0 near the float limit) has no usable Jacobian either;
    # the explicit solver then stops at once or the caller refuses the non-finite result
    stiff = math.isfinite(lip) and lip * span[1] > STIFF
    # solve_ivp wants increasing times; repeated ones (t_k + eta_k == t_k in float64) share a value
    ts, back = np.unique(t_eval, return_inverse=True)
    failures = []
    for method in STIFF_METHODS if stiff else ("DOP853",):
        calls[0] = 0
        # first step 1 / Lip: LSODA starts with functional (Adams) iterations, which diverge
        # for h Lip >> 1 and end the run before it switches to BDF
        options = {"jac": jac, "first_step": 1.0 / lip} if stiff else {}
        try:
            # LSODA reports its failures as UserWarnings too: they go into the message
            with warnings.catch_warnings(record=True) if stiff else contextlib.nullcontext([]) as caught:
                if stiff:
                    warnings.simplefilter("always", UserWarning)
                sol = solve_ivp(rhs, span, [rho0], method=method, t_eval=ts, rtol=rtol, atol=atol,
                                max_step=max_step, **options)
        except _TooMuchWork:
            failures.append(f"{method}: more than {MAX_EVALUATIONS} drift evaluations")
            continue
        if sol.success:
            return sol.y[0][back], True, sol.message
        failures.append(f"{method}: {' '.join([sol.message] + [str(w.message) for w in caught])}")
    return np.full(t_eval.shape, np.nan), False, f"{'; '.join(failures)} (horizon t = {span[1]:.3g})"


def predict_scalar(problem: Problem, schedule: Schedule, steps: int, rho0: float, stride: int = 1, *,
            finite_L: bool = True, drag_scale: float = 1.0) -> Prediction:
    """Plain and corrected predictions of ``E rho_k`` at ``k = 0, S, 2S, ..., steps``.

    Parameters
    ----------
    problem : Problem
        ``R >= 1``.
    schedule : Schedule
        Same conventions as :func:`numerics.simulate` (``k`` counts from 0).
    steps : int
        ``>= 1``.
    rho0 : float
        Start in ``[-1, 1]``.
    stride : int
        ``S >= 1``; the last step is always included.
    finite_L, drag_scale :
        Passed to :func:`corrected_drift`.
    """
    instance("schedule", schedule, Schedule)
    steps = integer("steps", steps, 1)
    stride = integer("stride", stride, 1)
    rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    drift = corrected_drift(problem, finite_L=finite_L, drag_scale=drag_scale)
    idx = record_indices(steps, stride)
    t = schedule.times(steps)[idx]
    if not np.isfinite(t[-1]):
        raise ValueError(f"`eta0`, `k0` and `power`: the ODE time t_K = eta_0 + ... + eta_(K-1) overflows float64 "
                         f"(K = {steps}, eta_0 = {float(schedule.eta(np.zeros(1))[0]):.3g}); use a smaller `eta0`")
    plain = integrate(problem.model, rho0, t)
    corr, ok, msg = integrate_corrected(drift, schedule, steps, rho0, t)
    success = bool(plain.success and ok)
    message = "ok" if success else f"plain: {plain.message}; corrected: {msg}"
    eta = schedule.eta(idx)
    # eta_k = eta0 / (k + k0)^p is monotone in k: its largest value is at one end
    valid = validity(problem.model, problem.d, problem.L, float(np.max(schedule.eta(np.array([0, steps - 1])))),
                     problem.batch)
    return Prediction(problem=problem, schedule=schedule, rho0=float(rho0), step=idx, time=t,
                      rho_plain=np.asarray(plain.rho, dtype=float), rho_corrected=np.asarray(corr, dtype=float),
                      eta=eta, success=success, message=message, validity=valid)
