"""Full ``d``-dimensional projected stochastic gradient ascent (docs/design.md section 1).

Without loss of generality ``xi = e_1`` (the law of the recursion is invariant under
rotations that move ``xi``). A token collection is ``X = sigma Z + theta s e_1^T``
on the first ``R`` rows, ``Z`` an ``L x d`` standard Gaussian matrix, ``s_i`` drawn
from the signal prior (``s_i = 1`` for the fixed prior; :meth:`theory._laws.Prior.sample`).

Per-sample gradient. With ``u = beta X q``, ``a = softmax(u)``, ``f = X^T a``,
``d a_i / d q = beta a_i (x_i - f)`` (softmax Jacobian ``diag(a) - a a^T`` applied
to ``beta X``), hence ``d f / d q = beta sum_i a_i x_i (x_i - f)^T`` and

    grad_q ||f||^2 = 2 (df/dq)^T f = 2 beta sum_i a_i (x_i - f) <x_i, f>
                   = 2 beta (X^T r - f sum_i r_i),   r_i = a_i <x_i, f>,

(``sum_i r_i = ||f||^2``). This is the gradient in ``R^d`` of ``||f_q(X)||^2`` as a
function of an unconstrained ``q``; the tests check it against central finite
differences. The step is ``q <- normalize(q + eta P_q gbar)`` with ``gbar`` the
batch average and ``P_q = I - q q^T``.

The softmax is computed by log-sum-exp (subtract the row maximum). Runs are
processed together as ``(runs, L, d)`` arrays, in chunks of runs that keep the
token buffer under :data:`BUFFER_BYTES`.
"""

from __future__ import annotations

import numpy as np

#: upper bound on the size of the token buffer (bytes)
BUFFER_BYTES = 300 * 2**20


def softmax_rows(u: np.ndarray) -> np.ndarray:
    """Row-wise softmax of ``u`` (last axis) by log-sum-exp, in place; returns ``u``."""
    u -= u.max(axis=-1, keepdims=True)
    np.exp(u, out=u)
    u /= u.sum(axis=-1, keepdims=True)
    return u


def token_gradient(X: np.ndarray, q: np.ndarray, beta: float):
    """Per-sample gradient ``grad_q ||f_q(X)||^2`` and the pooled output.

    Parameters
    ----------
    X : ndarray, shape (..., L, d)
        Token collections.
    q : ndarray, shape (..., d)
        Queries (not necessarily unit).
    beta : float

    Returns
    -------
    grad : ndarray, shape (..., d)
        ``2 beta sum_i a_i (x_i - f) <x_i, f>``.
    f : ndarray, shape (..., d)
        ``f = X^T softmax(beta X q)``.
    a : ndarray, shape (..., L)
        Attention weights.
    """
    a = softmax_rows(beta * np.matmul(X, q[..., :, None])[..., 0])
    f = np.matmul(a[..., None, :], X)[..., 0, :]
    r = a * np.matmul(X, f[..., :, None])[..., 0]
    grad = np.matmul(r[..., None, :], X)[..., 0, :]
    grad -= f * r.sum(axis=-1, keepdims=True)
    grad *= 2.0 * beta
    return grad, f, a


def draw_tokens(gen: np.random.Generator, out: np.ndarray, problem) -> None:
    """Fill ``out`` (L, d) with one token collection (``xi = e_1``) from ``gen``."""
    gen.standard_normal(out=out)
    if problem.sigma2 != 1.0:
        out *= np.sqrt(problem.sigma2)
    if problem.R and problem.theta:
        if problem.prior.family == "fixed":
            out[: problem.R, 0] += problem.theta
        else:
            out[: problem.R, 0] += problem.theta * problem.prior.sample(gen, problem.R)


class FullKernel:
    """State ``q`` (runs, d) of the full recursion; see :func:`numerics.simulate`."""

    def __init__(self, problem, generators, rho0: np.ndarray):
        self.problem, self.gens = problem, generators
        runs, d = len(generators), problem.d
        q = np.empty((runs, d))
        for i, gen in enumerate(generators):
            # q_0 = rho0 e_1 + sqrt(1 - rho0^2) u, u uniform on the sphere of e_1^perp
            u = gen.standard_normal(d - 1)
            q[i, 1:] = np.sqrt(max(0.0, 1.0 - rho0[i] ** 2)) * u / np.linalg.norm(u)
            q[i, 0] = rho0[i]
        self.q = q
        self.chunk = int(max(1, min(runs, BUFFER_BYTES // (8 * problem.L * d))))
        self.buffer = np.empty((self.chunk, problem.L, d))
        self.buffer.fill(0.0)  # fault the pages in now, outside the timed loop

    @property
    def rho(self) -> np.ndarray:
        return self.q[:, 0].copy()

    def step(self, eta: float):
        p = self.problem
        runs = self.q.shape[0]
        nuisance, obj = np.zeros(runs), np.zeros(runs)
        for lo in range(0, runs, self.chunk):
            hi = min(runs, lo + self.chunk)
            q = self.q[lo:hi]
            X = self.buffer[: hi - lo]
            gbar = np.zeros_like(q)
            for _ in range(p.batch):
                for j in range(hi - lo):
                    draw_tokens(self.gens[lo + j], X[j], p)
                grad, f, a = token_gradient(X, q, p.beta)
                gbar += grad
                nuisance[lo:hi] += a[:, p.R :].sum(axis=1)
                obj[lo:hi] += np.sum(f * f, axis=1)
            gbar /= p.batch
            gbar -= q * np.sum(q * gbar, axis=1, keepdims=True)
            q += eta * gbar
            q /= np.linalg.norm(q, axis=1, keepdims=True)
        return nuisance / p.batch, obj / p.batch
