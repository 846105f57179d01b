"""H orthonormal queries ("heads") on the k-dimensional signal subspace: the reduced flow of
``M = U^T Q`` (docs/subspace-certificates.md section 3).

**Objective.** Heads ``Q = [q_1 ... q_H]`` in ``R^d`` with ``Q^T Q = I`` (the Stiefel manifold),
each a query of the one-query model of :mod:`theory._derivation._subspace`; the objective is the sum of the
heads' limit objectives, ``J(Q) = sum_h j(U^T q_h)``. ``j`` was derived for ``|q| = 1`` (the
``q``-coefficient ``beta sigma2`` of the pooled output uses ``<q, z> ~ N(0, sigma2 |q|^2)``),
so ``J`` is only meaningful on the manifold; ``sum_h j(U^T q_h)`` is one smooth extension of it
to all of ``R^{d x H}``, and a Riemannian gradient depends only on the values on the manifold,
so the choice of extension (with or without a radial ``|q|`` term) does not matter. Its Euclidean
gradient is ``G = U Gamma`` with ``Gamma = [g(m_1) ... g(m_H)]`` (``k x H``), ``m_h = U^T q_h`` the
columns of ``M`` and ``g = grad_r j``.

**Flow.** Riemannian gradient ascent for the metric induced by the embedding,
``dQ/dt = G - Q sym(Q^T G)`` with ``sym(A) = (A + A^T)/2`` (the orthogonal projection of ``G`` on
the tangent space ``{X : Q^T X + X^T Q = 0}``). Multiplying by ``U^T`` and using ``U^T U = I``,
``Q^T G = Q^T U Gamma = M^T Gamma``:

    dM/dt = Gamma - M sym(M^T Gamma),      d Q_perp/dt = -Q_perp sym(M^T Gamma),

with ``Q_perp = (I - U U^T) Q``; so the flow closes in ``M`` (``k x H``). ``H = 1`` is the one-query
flow ``g - <m, g> m``. Feasible ``M`` have singular values ``<= 1`` (``M`` is a block of an
orthonormal frame; with ``d >= k + H`` every such ``M`` occurs); their cosines are the cosines of
the principal angles between ``span Q`` and ``span U``. For ``H <= k`` the set ``M^T M = I`` (every
head inside the span) is invariant: there ``d(M^T M)/dt = Gamma^T M + M^T Gamma - 2 sym(M^T Gamma) = 0``.
(The canonical metric would give ``Gamma - M Gamma^T M`` instead: the same equilibria, other
transients; not used here.)

**Stability.** The Jacobian of the reduced field on ``R^{k x H}``,
``E -> [H(m_h) e_h]_h - E S - M sym(E^T Gamma + M^T [H(m_h) e_h]_h)`` with ``S = sym(M^T Gamma)``,
evaluated with the sympy Hessian; its eigenvalues include the directions that move heads out of
the span (for ``d > k + H``), as the radial eigenvalue does for one query. Everything here is
numerical evidence (float64, scipy), not interval-certified.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from .._model import Model
from ._subspace import _functions


def _sym(A: np.ndarray) -> np.ndarray:
    return (A + A.T) / 2


def _overlaps(model: Model, M) -> np.ndarray:
    M = np.array(M, dtype=float)
    if M.shape != (model.k, model.heads) or not np.all(np.isfinite(M)):
        raise ValueError(f"`M` must be a finite k x H matrix with k = {model.k}, H = {model.heads} (the model's "
                         f"heads), got shape {M.shape}")
    if np.linalg.svd(M, compute_uv=False)[0] > 1 + 1e-9:
        raise ValueError("`M` must have singular values <= 1 (it is U^T Q for an orthonormal frame Q)")
    return M


def _columns(model: Model, M: np.ndarray):
    """``Gamma`` (k x H), the Hessians per head and the summed objective."""
    fn, params = _functions(model.law, "math"), model.params()
    vals = [fn(*(M[:, h] / max(1.0, float(np.linalg.norm(M[:, h])))), *params) for h in range(M.shape[1])]
    return (np.column_stack([np.array(v[1], dtype=float) for v in vals]), [np.array(v[3], dtype=float) for v in vals],
            float(sum(v[0] for v in vals)))


def _flow(model: Model, M: np.ndarray) -> np.ndarray:
    gamma, _, _ = _columns(model, M)
    return gamma - M @ _sym(M.T @ gamma)


@dataclass(frozen=True)
class HeadsValues:
    """The reduced limit of ``H`` heads at frames ``M = U^T Q`` (what :func:`theory.evaluate` gives
    for a model with ``heads > 1``): the summed objective ``J = sum_h j(m_h)``, ``Gamma = [g(m_h)]``
    (the Euclidean gradient in ``M``), the flow ``dM/dt = Gamma - M sym(M^T Gamma)`` and the
    principal angles between ``span Q`` and ``span U``.

    For one frame (``M`` of shape ``(k, H)``) ``objective`` is a float, ``gradient`` and ``flow``
    have shape ``(k, H)`` and ``angles`` ``(min(k, H),)``; for ``n`` frames every array gains a
    leading axis of length ``n``."""

    M: np.ndarray
    objective: float | np.ndarray
    gradient: np.ndarray
    flow: np.ndarray
    angles: np.ndarray


def evaluate_heads(model: Model, M) -> HeadsValues:
    """The reduced limit at the frame(s) ``M``, shape ``(k, H)`` or ``(n, k, H)`` (float64)."""
    arr = np.asarray(M, dtype=float)
    if arr.ndim == 3:
        rows = [evaluate_heads(model, frame) for frame in arr]
        return HeadsValues(*(np.array([getattr(v, a) for v in rows])
                             for a in ("M", "objective", "gradient", "flow", "angles")))
    frame = _overlaps(model, arr)
    gamma, _, objective = _columns(model, frame)
    return HeadsValues(frame, objective, gamma, gamma - frame @ _sym(frame.T @ gamma), principal_angles(frame))


def evaluate_heads_mp(model: Model, M, dps: int = 40) -> dict:
    """The reduced limit at the frame ``M`` in mpmath at ``dps`` digits: ``objective`` (mpf),
    ``gradient`` and ``flow`` (``k x H`` mpmath matrices)."""
    frame = _overlaps(model, M)
    k, n = frame.shape
    with mpmath.workdps(dps + 10):
        fn, params = _functions(model.law, "mpmath"), [mpmath.mpf(p) for p in model.params()]
        Mm = mpmath.matrix(frame.tolist())
        vals = [fn(*(mpmath.mpf(x) for x in frame[:, h] / max(1.0, float(np.linalg.norm(frame[:, h])))), *params)
                for h in range(n)]
        gamma = mpmath.matrix([[vals[h][1][i] for h in range(n)] for i in range(k)])
        S = Mm.T * gamma
        flow = gamma - Mm * ((S + S.T) / 2)
        objective = mpmath.fsum(v[0] for v in vals)
    with mpmath.workdps(dps):
        return {"objective": +objective, "gradient": +gamma, "flow": +flow}


def heads_flow(model: Model, M) -> np.ndarray:
    """The reduced flow ``dM/dt = Gamma - M sym(M^T Gamma)`` at ``M`` (``k x H``)."""
    return _flow(model, _overlaps(model, M))


def heads_objective(model: Model, M) -> float:
    """``sum_h j(m_h)``."""
    return _columns(model, _overlaps(model, M))[2]


def heads_jacobian(model: Model, M) -> np.ndarray:
    """The Jacobian of :func:`heads_flow` as a ``kH x kH`` matrix on ``M.reshape(-1)`` (row-major)."""
    return _jacobian(model, _overlaps(model, M))


def _jacobian(model: Model, M: np.ndarray) -> np.ndarray:
    k, n = M.shape
    gamma, hess, _ = _columns(model, M)
    S = _sym(M.T @ gamma)
    J = np.empty((k * n, k * n))
    for idx in range(k * n):
        E = np.zeros((k, n))
        E.flat[idx] = 1.0
        dgamma = np.column_stack([hess[h] @ E[:, h] for h in range(n)])
        J[:, idx] = (dgamma - E @ S - M @ _sym(E.T @ gamma + M.T @ dgamma)).reshape(-1)
    return J


def principal_angles(M) -> np.ndarray:
    """Principal angles between ``span Q`` and ``span U`` from ``M = U^T Q``: ``arccos`` of the
    singular values, ascending (``min(k, H)`` of them)."""
    s = np.linalg.svd(np.asarray(M, dtype=float), compute_uv=False)
    return np.sort(np.arccos(np.clip(s, -1.0, 1.0)))


def random_frame(k: int, n_heads: int, d: int, rng: np.random.Generator) -> tuple:
    """``(Q, U)``: a uniformly random orthonormal ``d x H`` frame and ``U`` the first ``k``
    coordinate vectors (so ``M = Q[:k]``)."""
    if not k + n_heads <= d:
        raise ValueError(f"`d` must be >= k + H = {k + n_heads}, got {d}")
    Q, R = np.linalg.qr(rng.normal(size=(d, n_heads)))
    return Q * np.sign(np.diag(R)), np.eye(d)[:, :k]


def heads_random_starts(k: int, n_heads: int, n_random: int, seed: int) -> list:
    """The default starts of :func:`find_heads_equilibria` (and so of :func:`theory.certify_heads`):
    ``n_random`` frames of :func:`random_frame` in ``d = k + H + 1``, drawn in turn from
    ``default_rng(seed)``, as ``k x H`` overlaps ``M = U^T Q``."""
    rng = np.random.default_rng(seed)
    frames = [random_frame(k, n_heads, k + n_heads + 1, rng) for _ in range(n_random)]
    return [U.T @ Q for Q, U in frames]


@dataclass(frozen=True)
class HeadsRun:
    """End of an integration of the reduced flow: ``M``, ``speed = |dM/dt|`` there, the principal
    angles and the summed objective."""

    M: np.ndarray
    speed: float
    angles: np.ndarray
    objective: float


#: the speed ``|dM/dt|`` at which :func:`integrate_heads` stops: round-off level
SETTLED_SPEED = 1e-13


def integrate_heads(model: Model, M0, t_max: float = 500.0, rtol: float = 1e-10) -> HeadsRun:
    """Integrate the reduced flow from ``M0`` (scipy ``solve_ivp``, LSODA) to ``t_max``, or until
    ``|dM/dt|`` falls below :data:`SETTLED_SPEED`.

    A start whose speed is already within twice that (a restart where a run stopped) is returned
    as it is: there the stopping event's sign is round-off, and solve_ivp's root search on it
    fails ("f(a) and f(b) must have different signs")."""
    from scipy.integrate import solve_ivp

    M0 = _overlaps(model, M0)
    shape = M0.shape

    def rhs(_t, y):  # no validation: trial steps may leave the feasible set by ~rtol
        return _flow(model, y.reshape(shape)).reshape(-1)

    speed0 = float(np.linalg.norm(rhs(0, M0.reshape(-1))))
    if speed0 <= 2 * SETTLED_SPEED:
        return HeadsRun(M0, speed0, principal_angles(M0), heads_objective(model, M0))

    def settled(_t, y):  # stop once the speed is at round-off level
        return np.linalg.norm(rhs(0, y)) - SETTLED_SPEED

    settled.terminal = True  # type: ignore[attr-defined]  # solve_ivp reads an event function's attribute
    sol = solve_ivp(rhs, (0.0, float(t_max)), M0.reshape(-1), method="LSODA", rtol=rtol, atol=1e-12,
                    events=settled)
    M = sol.y[:, -1].reshape(shape)
    return HeadsRun(M, float(np.linalg.norm(rhs(0, M.reshape(-1)))), principal_angles(M), heads_objective(model, M))


@dataclass(frozen=True)
class HeadsEquilibrium:
    """An equilibrium of the reduced flow: ``M``, the Jacobian's eigenvalues (descending real
    part), ``stable`` (every real part < ``-tol``), ``neutral`` (eigenvalues within ``tol`` of 0:
    a direction the flow does not see), the principal angles and the objective.

    Numerical evidence (float64, scipy), not interval-certified.

    Attributes
    ----------
    M : ndarray, shape (k, H)
        The polished equilibrium ``M = U^T Q``.
    eigenvalues : ndarray of complex, shape (k H,)
        Eigenvalues of the Jacobian of the reduced flow at ``M``, by descending real part.
    stable : bool
        True iff every eigenvalue has real part ``< -tol``.
    neutral : int
        Number of eigenvalues with modulus ``<= tol`` (directions the flow does not see).
    angles : ndarray, shape (min(k, H),)
        Principal angles in radians between ``span Q`` and ``span U``, ascending.
    objective : float
        The summed objective ``sum_h j(m_h)`` at ``M``.
    residual : float
        ``|dM/dt|`` (Frobenius norm of the flow) at ``M``: how far the root finder is from an exact
        equilibrium.
    """

    M: np.ndarray
    eigenvalues: np.ndarray
    stable: bool
    neutral: int
    angles: np.ndarray
    objective: float
    residual: float


def heads_equilibrium(model: Model, M0, tol: float = 1e-9) -> HeadsEquilibrium:
    """Polish ``M0`` to an equilibrium of the reduced flow (scipy ``root``, the analytic Jacobian)
    and classify it by the Jacobian's eigenvalues (numerical)."""
    from scipy.optimize import root

    M0 = _overlaps(model, M0)
    shape = M0.shape
    sol = root(lambda y: _flow(model, y.reshape(shape)).reshape(-1), M0.reshape(-1),
               jac=lambda y: _jacobian(model, y.reshape(shape)), method="lm", tol=1e-15)
    M = sol.x.reshape(shape)
    ev = np.linalg.eigvals(_jacobian(model, M))
    ev = ev[np.argsort(-ev.real)]
    neutral = int(np.sum(np.abs(ev) <= tol))
    return HeadsEquilibrium(M, ev, bool(np.all(ev.real < -tol)), neutral, principal_angles(M),
                            _columns(model, M)[2], float(np.linalg.norm(_flow(model, M))))


def find_heads_equilibria(model: Model, starts=None, n_random: int = 8, seed: int = 0, t_max: float = 500.0,
                          tol: float = 1e-9) -> list:
    """Numerical equilibria of the reduced flow, distinct, in the order found: from each start
    (default ``n_random`` uniformly random frames of :func:`random_frame` in ``d = k + H + 1``) the
    end of :func:`integrate_heads` polished by :func:`heads_equilibrium`, and the start polished
    directly (which also reaches saddles and sources). Kept: residual ``<= tol`` and largest
    singular value ``<= 1 + 1e-7``. Numerical evidence; not a complete list."""
    if starts is None:
        starts = heads_random_starts(model.k, model.heads, n_random, seed)
    found: list = []
    for M0 in starts:
        M0 = _overlaps(model, M0)
        for M1 in (integrate_heads(model, M0, t_max=t_max).M, M0):
            try:
                e = heads_equilibrium(model, M1)
            except ValueError:  # the integration ended a hair outside the feasible set
                continue
            feasible = np.linalg.svd(e.M, compute_uv=False)[0] <= 1 + 1e-7
            if e.residual <= tol and feasible and not any(np.max(np.abs(e.M - f)) < 1e-7 for f in found):
                found.append(e.M)
    return found
