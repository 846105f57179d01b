r"""Exact reduced simulation of the ``H``-head subspace chain (docs/subspace-simulation.md).

Claim. For isotropic noise, ``M_t = U^T Q_t`` (``k x H``) is a Markov chain, and one step of it
can be sampled *exactly in law* with ``(k + 2H) L`` normals, the ``R`` signals and ``O(H^2)``
further draws per token collection (``H (H + 1)`` once ``d >= k + 3H``; ``d >= k + 2H`` is
required), whatever ``d``. For ``k = H = 1`` this is the ``3L + 2`` of ``numerics._simulate._reduced``,
whose derivation this one follows.

Markov property
---------------
Let ``O`` be orthogonal with ``O U = U``. The token law is invariant (``z`` isotropic, signal
in ``span U``); the gradient is equivariant (``G(OQ, OX) = O G(Q, X)``), and so are the tangent
projection and the polar retraction; hence ``Q' (OQ, OX) = O Q'(Q, X)`` and the law of
``U^T Q'`` given ``Q`` equals that given ``OQ``. Two frames with the same ``M`` have out-of-span
parts ``P = (I - U U^T) Q`` with the same Gram ``P^T P = I - M^T M``, so some such ``O`` maps
one onto the other (``d - k >= H``): the transition law depends on ``M`` only. The state is
``M`` with ``P^T P`` (a function of ``M``; tracked to avoid cancellation when it is small).

Coordinates
-----------
Given ``M``, take ``C = (P^T P)^{1/2}`` (symmetric) and an orthonormal ``V`` (``d x H``) of
``span(U)^perp`` with ``P = V C``; complete ``[U, V]`` by ``n_out = d - k - H`` vectors. Then
``Q = [U V] Q_c``, ``Q_c = [M; C]`` (``(k + H) x H``, no out-of-plane part), and a token is

    x_i = [U V] c_i + sigma Z[:, i],   c_i = (theta s_i 1{i < R} + sigma n1_i,  sigma n2_i),

``n1 ~ N(0, I_k)``, ``n2 ~ N(0, I_H)``, ``Z`` an ``n_out x L`` standard Gaussian, independent.

*Scores.* ``a_h = softmax(beta C_in^T q_{c,h})`` (``C_in`` the ``(k + H) x L`` in-plane
coordinates) is free of ``Z``. With ``A = [a_1 .. a_H]`` (``L x H``): ``f_h = C_in a_h +
sigma Z a_h``, ``<x_i, f_h> = c_i . f_{h,in} + sigma^2 (Z^T Z A)_{ih}``, ``r_h = a_h * <x, f_h>``,
``S_h = sum_i r_{h,i} = |f_h|^2``, and the gradient of head ``h`` has in-plane part
``2 beta (C_in r_h - S_h f_{h,in})`` and out-of-plane part ``2 beta sigma Z v_h``,
``v_h = r_h - S_h a_h``. So ``Z`` enters through ``Z^T Z A`` and the Gram ``(Z V_m)^T (Z V_m)``
(``V_m = [v_1 .. v_H]``) only: the step needs the out-of-plane gradient's Gram (below).

*Splitting Z.* ``A = Â R_a`` (thin QR, from ``A`` only), ``[Â, U_perp]`` orthogonal. By
rotation invariance ``Z [Â, U_perp] = [Z_a, Z_perp]``, independent standard Gaussians. Bartlett:
``Z_a = W_g T_g``, ``T_g`` upper triangular (:class:`numerics._simulate._stiefel.WishartRoot`, ``n_out``
degrees of freedom) independent of ``W_g`` uniform on ``V(n_out, H)``. Given ``Z_a``,
``ζ = Z_perp^T W_g`` and ``E = B^T Z_perp`` (``B`` an orthonormal complement of ``W_g``) are
independent standard Gaussians independent of ``Z_a``; ``Ĥ = U_perp ζ`` has the law of
``(I - Â Â^T) N3``, ``N3 ~ N(0, I_L)^H``. Then, with ``Z A = Z_a R_a``,

    Z^T Z A = Â T_g^T T_g R_a + Ĥ T_g R_a,
    W_g^T Z V_m = T_g Â^T V_m + Ĥ^T V_m =: K_1,   B^T Z V_m = E U_perp^T V_m,

and ``E U_perp^T V_m`` has i.i.d. rows ``N(0, Σ)``, ``Σ = V_m^T V_m - (Â^T V_m)^T (Â^T V_m)``, so its
Gram is ``(T_b Σ^{1/2})^T (T_b Σ^{1/2})`` with ``T_b`` a Wishart root of ``n_out - H`` degrees of
freedom, independent of everything else. The out-of-plane Gram of the member is

    Γ_y = (2 beta)^2 sigma^2 (K_1^T K_1 + (T_b Σ^{1/2})^T (T_b Σ^{1/2})).

*Mini-batches.* The in-plane gradients average directly. Out of plane, ``Y_b = Z_b V_{m,b}``
with independent ``Z_b``; ``Z_b -> O Z_b`` (``O`` orthogonal on the ``n_out`` complement) keeps
the in-plane data and ``Z_b^T Z_b`` and sends ``Y_b`` to ``O Y_b``, so ``(Y_b)_b`` has the law
of ``(O_b Y_b)_b`` with ``O_b`` independent Haar. For a running sum ``Y`` of Gram ``S_Y`` and a
new member of Gram ``Γ_y``: ``Y = W R``, ``Y_b = W_b R_b`` (polar, ``R = S_Y^{1/2}``,
``R_b = Γ_y^{1/2}``), and ``W^T O_b W_b`` has the law of
:func:`numerics._simulate._stiefel.haar_overlap` ``X``, so ``|Y + O_b Y_b|^2 = S_Y + Γ_y + R X R_b +
R_b X^T R`` (``H = 1``: ``X = g / sqrt(g^2 + chi2_{n_out - 1})``, the scalar chain's cosine).

*The step.* With the averages ``G_in`` (in-plane, ``(k + H) x H``) and ``Γ = S_Y / B^2``
(Gram of the out-of-plane part ``G_o``; ``Q`` has none, so ``Xi_o = G_o``):
``Xi_in = G_in - Q_c sym(Q_c^T G_in)``, ``A_in = Q_c + eta Xi_in``,
``N = (A_in^T A_in + eta^2 Γ)^{-1/2}`` (the polar retraction: ``A^T A`` of the full
``A = Q + eta Xi``), and

    M' = A_in[:k] N,   P'^T P' = N (A_in[k:]^T A_in[k:] + eta^2 Γ) N.

Draw order per run and batch member (one generator per run): the ``(k + 2H) x L`` normals
(rows ``n1``, ``n2``, ``N3``; one call), the ``R`` signals (:class:`SignalSampler`), ``T_g``,
``T_b``, and for members after the first the ``H x H`` normals ``G_1`` and the Wishart root
(``n_out - H``) of the batch composition.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._full import softmax_rows
from ._stiefel import WishartRoot, haar_overlap, inv_sqrt, sym_sqrt, symmetrize
from ._subspace_full import SignalSampler


def _t(X: np.ndarray) -> np.ndarray:
    return np.swapaxes(X, -1, -2)


class _Member(NamedTuple):
    """One token collection per run: the in-plane gradient ``G_in`` (runs, k + H, H), the Gram
    ``Γ_y`` of its out-of-plane part (runs, H, H), the nuisance mass per head and the objective."""

    gin: np.ndarray
    gram: np.ndarray
    nuisance: np.ndarray
    objective: np.ndarray


class SubspaceReducedKernel:
    """State ``(M, P^T P)`` (runs, k, H), (runs, H, H) of the exact reduced chain; see
    :func:`numerics.simulate`. Work buffer ``W`` (runs, k + 3H, L): rows ``c_in``
    (``k + H``), ``N3`` (``H``), then the orthonormal rows ``Â^T`` (``H``)."""

    def __init__(self, problem, generators, M0: np.ndarray, P0: np.ndarray):
        self.problem, self.gens = problem, generators
        self.M, self.P = np.array(M0, dtype=float), np.array(P0, dtype=float)
        runs, k, H = self.M.shape
        self.k, self.H, self.n_out = k, H, problem.d - k - H
        if self.n_out < H:
            raise ValueError(f"`d` must be >= k + 2 heads = {k + 2 * H} for the reduced simulator, got {problem.d}")
        self.work = np.zeros((runs, k + 3 * H, problem.L))
        self.rows = np.zeros((runs, H, problem.L))
        self.attention = np.zeros((runs, H, problem.L))
        self.signals = np.zeros((runs, problem.R, k))
        self.Tg, self.Tb = np.zeros((runs, H, H)), np.zeros((runs, H, H))
        self.G1, self.T2 = np.zeros((runs, H, H)), np.zeros((runs, H, H))
        self.sampler = SignalSampler(problem.law)
        self.root_g, self.root_b = WishartRoot(self.n_out, H), WishartRoot(self.n_out - H, H)

    @property
    def overlaps(self) -> np.ndarray:
        return self.M.copy()

    @property
    def out_gram(self) -> np.ndarray:
        return self.P.copy()

    def _draw(self, first: bool) -> None:
        p = self.problem
        draw_signals = bool(p.R and p.theta)
        root_g, root_b = self.root_g, self.root_b
        for i, gen in enumerate(self.gens):
            gen.standard_normal(out=self.work[i, : -self.H])
            if draw_signals:
                self.signals[i] = self.sampler(gen, p.R)
            root_g.draw(gen, self.Tg[i])
            root_b.draw(gen, self.Tb[i])
            if not first:
                gen.standard_normal(out=self.G1[i])
                root_b.draw(gen, self.T2[i])

    def _member(self, Qc: np.ndarray, first: bool) -> _Member:
        """One token collection (:class:`_Member`).

        Every O(L) quantity is a linear combination of the rows of ``W = [C_in; N3; Â^T]``
        (``A = Â R_a`` by Householder QR, ``Ĥ = N3 - Â K`` with ``K = Â^T N3``). No matrix is
        inverted and no Gram is formed by expanding a square, so nearly one-hot attention (large
        ``beta``) costs no accuracy: ``v_h`` is formed token by token and
        ``Σ = |(I - Â Â^T) V_m|^2`` from the projected rows. A member costs the QR, three products
        with ``W`` (``W Â``, the assembly of ``<x_i, f_h>``, ``W V_m``), the projected rows and
        ``H x H`` algebra.
        """
        p, k, H = self.problem, self.k, self.H
        self._draw(first)
        W, s2, At = self.work, p.sigma2, self.attention
        Cin = W[:, : k + H]
        if s2 != 1.0:
            Cin *= np.sqrt(s2)
        if p.R and p.theta:
            Cin[:, :k, : p.R] += p.theta * _t(self.signals)
        np.matmul(p.beta * _t(Qc), Cin, out=At)
        softmax_rows(At)  # rows a_h
        Ahat, Ra = np.linalg.qr(_t(At))
        W[:, k + 2 * H :] = _t(Ahat)
        D = W[:, : k + 2 * H] @ Ahat  # (C_in Â; N3^T Â)
        Fin = D[:, : k + H] @ Ra  # C_in A
        K = _t(D[:, k + H :])  # Â^T N3
        Tg = self.Tg
        Y = Tg @ Ra
        X = _t(Tg) @ Y - K @ Y  # Z^T Z A = Â T_g^T T_g R_a + Ĥ T_g R_a = Â X + N3 Y
        coef = np.concatenate([_t(Fin), s2 * _t(Y), s2 * _t(X)], axis=2)
        Vt = np.matmul(coef, W, out=self.rows)  # <x_i, f_h>
        S = np.vecdot(At, Vt)  # |f_h|^2 = sum_i r_{h,i}
        Vt -= S[:, :, None]
        Vt *= At  # rows v_h = r_h - S_h a_h, formed token by token (no cancellation of sums)
        E = W @ _t(Vt)  # (C_in V_m; N3^T V_m; Â^T V_m)
        Gin = 2.0 * p.beta * E[:, : k + H]  # 2 beta (C_in r_h - S_h f_{h,in})
        AV = E[:, k + 2 * H :]
        HmV = E[:, k + H : k + 2 * H] - _t(K) @ AV  # Ĥ^T V_m = N3^T V_m - K^T Â^T V_m
        Wt = Vt - _t(AV) @ W[:, k + 2 * H :]  # rows of (I - Â Â^T) V_m: Σ = Wt Wt^T is PSD as formed
        K1 = Tg @ AV + HmV
        KB = self.Tb @ sym_sqrt(Wt @ _t(Wt))
        gram = (2.0 * p.beta) ** 2 * s2 * symmetrize(_t(K1) @ K1 + _t(KB) @ KB)
        return _Member(Gin, gram, At[:, :, p.R :].sum(axis=2), S.sum(axis=1))

    def step(self, eta: float):
        p, k = self.problem, self.k
        Qc = np.concatenate([self.M, sym_sqrt(self.P)], axis=1)
        Gin, SY, nuisance, obj = self._member(Qc, first=True)
        for _ in range(1, p.batch):
            g, gram, nm, ob = self._member(Qc, first=False)
            Gin, nuisance, obj = Gin + g, nuisance + nm, obj + ob
            R, Rb = sym_sqrt(SY), sym_sqrt(gram)
            RXRb = R @ haar_overlap(self.G1, self.T2) @ Rb
            SY = symmetrize(SY + gram + RXRb + _t(RXRb))
        B = p.batch
        Gin = Gin / B
        Gam = SY / B**2
        Xi = Gin - Qc @ symmetrize(_t(Qc) @ Gin)
        Ain = Qc + eta * Xi
        N = inv_sqrt(_t(Ain) @ Ain + eta * eta * Gam)
        out = Ain[:, k:]
        self.M = Ain[:, :k] @ N
        self.P = symmetrize(N @ (_t(out) @ out + eta * eta * Gam) @ N)
        return nuisance / B, obj / B
