r"""Frames on the Stiefel manifold and the random matrices of the subspace simulators.

``V(d, H) = {Q in R^{d x H}: Q^T Q = I}``. Everything here acts on stacks of small
``H x H`` (or ``k x H``) matrices, one per run, vectorised over the leading axis; the
random draws take one generator (one run) at a time, so that run ``i`` draws only from
its own stream.

* :func:`sym_sqrt`, :func:`inv_sqrt`: the symmetric square root of a positive semidefinite
  matrix and the inverse square root of a positive definite one (``eigh``).
* The **polar retraction** ``retract(A) = A (A^T A)^{-1/2}``: the orthonormal factor of the
  polar decomposition, the nearest frame to ``A``. It is equivariant on both sides
  (``retract(O A R) = O retract(A) R`` for orthogonal ``O``, ``R``), so the heads' order
  does not matter; for ``H = 1`` it is ``a / |a|``.
* :class:`WishartRoot`: draws of an ``H x H`` matrix ``T`` with ``T^T T ~ Wishart_H(n, I)``. For
  ``n >= H`` the Bartlett decomposition: ``T`` upper triangular, ``T_ii^2 ~ chi2_{n - i}``
  (``i = 0 .. H-1``), ``T_ij ~ N(0, 1)`` for ``j > i``, all independent; moreover for an
  ``n x H`` standard Gaussian ``G = W T`` with ``T`` this law and ``W = G T^{-1}`` uniform on
  ``V(n, H)`` and independent of ``T``. For ``n < H``: the first ``n`` rows a standard
  Gaussian ``n x H`` matrix, the rest zero (``T^T T = G^T G`` by definition).
* :func:`haar_overlap`: the law of ``W_1^T W_2`` for ``W_1`` fixed and ``W_2`` uniform on
  ``V(n, H)``: with ``G = [G_1; G_2]`` an ``n x H`` standard Gaussian, the polar factor
  ``G (G^T G)^{-1/2}`` is uniform (its law is invariant under ``G -> O G``), and taking
  ``W_1 = [I_H; 0]`` gives ``W_1^T W_2 = G_1 (G_1^T G_1 + G_2^T G_2)^{-1/2}`` with
  ``G_2^T G_2 ~ Wishart_H(n - H, I)`` (``H^2`` normals and one Wishart root).
* :func:`uniform_frames`: the start ``Q_0`` uniform on ``V(d, H)`` as the polar factor of a
  ``d x H`` standard Gaussian ``G``; with ``U = [e_1 .. e_k]`` its overlaps are
  ``M_0 = G_1 (G^T G)^{-1/2}`` and the Gram of its out-of-span part
  ``P^T P = (G^T G)^{-1/2} G_2^T G_2 (G^T G)^{-1/2}`` (``G_1`` the first ``k`` rows). Both
  simulators draw the same ``G`` first in each run's stream, so they share their starts.
"""

from __future__ import annotations

import numpy as np


def symmetrize(S: np.ndarray) -> np.ndarray:
    """``(S + S^T) / 2`` over the last two axes."""
    return 0.5 * (S + np.swapaxes(S, -1, -2))


def sym_sqrt(S: np.ndarray) -> np.ndarray:
    """Symmetric square root of positive semidefinite ``S`` (..., H, H); negative rounding
    errors in the eigenvalues are set to zero."""
    w, V = np.linalg.eigh(symmetrize(S))
    return (V * np.sqrt(np.maximum(w, 0.0))[..., None, :]) @ np.swapaxes(V, -1, -2)


def inv_sqrt(S: np.ndarray) -> np.ndarray:
    """``S^{-1/2}`` of positive definite ``S`` (..., H, H)."""
    w, V = np.linalg.eigh(symmetrize(S))
    return (V / np.sqrt(w)[..., None, :]) @ np.swapaxes(V, -1, -2)


def retract(A: np.ndarray) -> np.ndarray:
    """Polar retraction ``A (A^T A)^{-1/2}`` of ``A`` (..., d, H) of full column rank."""
    return A @ inv_sqrt(np.swapaxes(A, -1, -2) @ A)


class WishartRoot:
    """Draws of ``T`` (H, H), ``T^T T ~ Wishart_H(n, I)`` (module docstring), into a buffer
    whose entries outside the drawn pattern must be zero (they are never written).

    Draw order: ``n >= H``: the ``H (H - 1) / 2`` off-diagonal normals (one call, row by
    row), then the ``H`` chi-squares ``2 Gamma((n - i) / 2)``; ``0 < n < H``: ``n H`` normals.
    """

    def __init__(self, n: int, H: int):
        self.n, self.H = n, H
        self.upper = np.triu_indices(H, 1)
        self.shapes = [(n - i) / 2.0 for i in range(H)]

    def draw(self, gen: np.random.Generator, out: np.ndarray) -> None:
        """Fill ``out`` (H, H), zero outside the pattern, with one draw from ``gen``."""
        n, H = self.n, self.H
        if n >= H:
            if H > 1:
                out[self.upper] = gen.standard_normal(H * (H - 1) // 2)
            for i, shape in enumerate(self.shapes):
                out[i, i] = np.sqrt(2.0 * gen.standard_gamma(shape))
        elif n > 0:
            out[:n] = gen.standard_normal((n, H))


def haar_overlap(G1: np.ndarray, T2: np.ndarray) -> np.ndarray:
    """``W_1^T W_2 = G_1 (G_1^T G_1 + T_2^T T_2)^{-1/2}`` from ``G_1`` (..., H, H) standard
    normal and ``T_2`` a Wishart root of ``n - H`` degrees of freedom (module docstring)."""
    gram = np.swapaxes(G1, -1, -2) @ G1 + np.swapaxes(T2, -1, -2) @ T2
    return G1 @ inv_sqrt(gram)


def principal_angles(out_gram: np.ndarray, k: int) -> np.ndarray:
    """Principal angles between ``span(Q)`` and ``span(U)`` from ``P^T P`` (..., H, H),
    ``P = (I - U U^T) Q``, for orthonormal ``Q``: ``arcsin sqrt`` of the ``min(k, H)``
    smallest eigenvalues, ascending (the other ``H - k`` eigenvalues, if any, are 1).

    Computed from ``P^T P`` rather than from the singular values of ``M = U^T Q`` so that
    small angles are not lost to cancellation in ``1 - cos^2``.
    """
    H = out_gram.shape[-1]
    mu = np.clip(np.linalg.eigvalsh(symmetrize(out_gram))[..., : min(k, H)], 0.0, 1.0)
    return np.arctan2(np.sqrt(mu), np.sqrt(1.0 - mu))


def uniform_frames(generators, d: int, k: int, H: int):
    """Starts uniform on ``V(d, H)``: ``(G, M_0, P_0^T P_0)``, ``G`` (runs, d, H) the Gaussian
    whose polar factor is ``Q_0`` (module docstring), drawn first in each run's stream."""
    G = np.stack([gen.standard_normal((d, H)) for gen in generators])
    G1, G2 = G[:, :k], G[:, k:]
    root = inv_sqrt(np.swapaxes(G, 1, 2) @ G)
    M0 = G1 @ root
    P0 = symmetrize(root @ (np.swapaxes(G2, 1, 2) @ G2) @ root)
    return G, M0, P0


def fixed_frames(generators, d: int, M0: np.ndarray):
    """Frames ``Q_0 = [M_0; V C_0]`` with ``C_0 = (I - M_0^T M_0)^{1/2}`` and ``V`` uniform on
    the frames of ``span(U)^perp`` (the polar factor of a ``(d - k) x H`` Gaussian drawn from
    each run's stream); any such ``V`` gives the same law of the recursion (docs/subspace-simulation.md)."""
    k, H = M0.shape
    C0 = sym_sqrt(np.eye(H) - M0.T @ M0)
    Q = np.empty((len(generators), d, H))
    for i, gen in enumerate(generators):
        V = retract(gen.standard_normal((d - k, H)))
        Q[i, :k], Q[i, k:] = M0, V @ C0
    return Q
