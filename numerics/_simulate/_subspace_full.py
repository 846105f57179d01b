r"""Full ``d``-dimensional Riemannian SGA for a ``k``-dimensional signal and ``H`` heads.

Without loss of generality ``U = [e_1 .. e_k]`` (the law of the recursion is invariant under
rotations that move ``U``). A token collection is ``X = sigma Z + theta S U^T`` on the first
``R`` rows: ``Z`` an ``L x d`` standard Gaussian matrix, the rows ``s_i`` of ``S`` (``R x k``)
drawn from the law (:class:`SignalSampler`); nuisance rows are pure noise.

Heads. The frame ``Q = [q_1 .. q_H]`` (``d x H``, ``Q^T Q = I``); head ``h`` has its own
softmax ``a_h = softmax(beta X q_h)`` and pooled output ``f_h = X^T a_h``; the objective is
``sum_h ||f_h||^2``, so its Euclidean gradient in ``R^{d x H}`` has columns
``grad_{q_h} ||f_h||^2 = 2 beta sum_i a_{h,i} (x_i - f_h) <x_i, f_h>`` (``numerics._simulate._full``,
tested there against finite differences). The heads interact only through the constraint.

Step (Riemannian SGA on ``V(d, H)``, the embedded metric): with ``G`` the batch average,

    Xi = G - Q sym(Q^T G),   Q' = retract(Q + eta Xi) = (Q + eta Xi) ((Q + eta Xi)^T (Q + eta Xi))^{-1/2},

the tangent projection and the polar retraction (:mod:`numerics._simulate._stiefel`). For ``H = 1`` this
is ``q' = normalize(q + eta P_q g)``, the scalar recursion of ``numerics._simulate._full``; for ``k = 1``,
``H = 1`` and the same seed the two draw the same numbers in the same order.

Recorded: ``M = U^T Q = Q[:k]`` (``k x H``) and ``P^T P = Q[k:]^T Q[k:]``, the Gram of the
out-of-span part (``= I - M^T M``, kept separately so that small principal angles are not lost
to cancellation).
"""

from __future__ import annotations

import numpy as np

from ._full import BUFFER_BYTES, token_gradient
from ._stiefel import retract, symmetrize


class SignalSampler:
    """Draws of ``s`` (n, k) from ``law`` (a ``theory.SignalLaw``), its arrays built once.

    A scalar prior draws through its own sampler (``theory.Prior.sample``; the ``fixed`` prior
    draws nothing); a finite law draws ``n`` uniforms and inverts the distribution function of
    its atoms; a Gaussian law draws ``n k`` normals.
    """

    def __init__(self, law):
        self.law, self.k = law, law.k
        atoms = None if law.family == "scalar" else law.atoms
        if atoms is not None:
            self.cdf = np.cumsum([float(p) for p, _ in atoms])[:-1]
            self.vectors = np.array([[float(v) for v in vec] for _, vec in atoms])
        elif law.family != "scalar":
            mu, tau = law.gaussian_moments
            self.mu, self.tau = np.array([float(m) for m in mu]), float(tau)
        self.atoms = atoms

    def __call__(self, gen: np.random.Generator, n: int) -> np.ndarray:
        if self.law.family == "scalar":
            return self.law.prior.sample(gen, n)[:, None]
        if self.atoms is not None:
            return self.vectors[np.searchsorted(self.cdf, gen.random(n), side="right")]
        return self.mu + self.tau * gen.standard_normal((n, self.k))


def draw_tokens(gen: np.random.Generator, out: np.ndarray, problem, signals: SignalSampler) -> None:
    """Fill ``out`` (L, d) with one token collection (``U = [e_1 .. e_k]``) from ``gen``:
    the ``L d`` normals first, then the ``R`` signals."""
    gen.standard_normal(out=out)
    if problem.sigma2 != 1.0:
        out *= np.sqrt(problem.sigma2)
    if problem.R and problem.theta:
        out[: problem.R, : problem.k] += problem.theta * signals(gen, problem.R)


def riemannian_step(Q: np.ndarray, G: np.ndarray, eta: float) -> np.ndarray:
    """``retract(Q + eta (G - Q sym(Q^T G)))`` for stacks ``Q``, ``G`` (..., d, H)."""
    Xi = G - Q @ symmetrize(np.swapaxes(Q, -1, -2) @ G)
    return retract(Q + eta * Xi)


def heads_objective(X: np.ndarray, Q: np.ndarray, beta: float) -> float:
    """``sum_h ||f_{q_h}(X)||^2`` for one collection ``X`` (L, d) and frame ``Q`` (d, H)."""
    a = beta * (X @ Q)
    a = np.exp(a - a.max(axis=0))
    a /= a.sum(axis=0)
    F = X.T @ a
    return float(np.sum(F * F))


class SubspaceFullKernel:
    """State ``Q`` (runs, d, H) of the full recursion; see :func:`numerics.simulate`."""

    def __init__(self, problem, generators, Q0: np.ndarray):
        self.problem, self.gens = problem, generators
        self.signals = SignalSampler(problem.law)
        self.Q = np.array(Q0, dtype=float)
        runs, d = self.Q.shape[:2]
        self.chunk = int(max(1, min(runs, BUFFER_BYTES // (8 * problem.L * d))))
        self.buffer = np.empty((self.chunk, problem.L, d))
        self.buffer.fill(0.0)  # fault the pages in now, outside the timed loop

    @property
    def overlaps(self) -> np.ndarray:
        """``M = U^T Q`` (runs, k, H)."""
        return self.Q[:, : self.problem.k].copy()

    @property
    def out_gram(self) -> np.ndarray:
        """``P^T P`` (runs, H, H), ``P = (I - U U^T) Q``."""
        P = self.Q[:, self.problem.k :]
        return symmetrize(np.swapaxes(P, 1, 2) @ P)

    def step(self, eta: float):
        """One step; returns the batch averages of the nuisance attention mass per head
        (runs, H) and of the objective ``sum_h ||f_h||^2`` (runs,) at the current frame."""
        p = self.problem
        runs, _, H = self.Q.shape
        nuisance, obj = np.zeros((runs, H)), np.zeros(runs)
        for lo in range(0, runs, self.chunk):
            hi = min(runs, lo + self.chunk)
            Qt = np.swapaxes(self.Q[lo:hi], 1, 2)  # (n, H, d): the heads as rows
            X = self.buffer[: hi - lo]
            gbar = np.zeros_like(Qt)
            for _ in range(p.batch):
                for j in range(hi - lo):
                    draw_tokens(self.gens[lo + j], X[j], p, self.signals)
                grad, f, a = token_gradient(X[:, None], Qt, p.beta)
                gbar += grad
                nuisance[lo:hi] += a[:, :, p.R :].sum(axis=2)
                obj[lo:hi] += np.sum(f * f, axis=(1, 2))
            G = np.swapaxes(gbar, 1, 2) / p.batch
            self.Q[lo:hi] = riemannian_step(self.Q[lo:hi], G, eta)
        return nuisance / p.batch, obj / p.batch
