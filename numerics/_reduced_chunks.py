r"""The exact reduced chain with its tokens in chunks: memory independent of ``L``.

:class:`ReducedKernel` holds every token of every run (``(rows + 1) x L`` floats per run: 3 GB
for 30 runs at ``L = 10^6``). Its step needs of the tokens only sums: with
``V_i = (c1_i, c2_i[, n3_i], e_i)`` and ``e_i = exp(u_i - m)``,

* the attention averages ``Z D_a = sum_i e_i V_ai`` (``Z = sum_i e_i``);
* ``Z E_b = sum_i e_i <x_i, f> V_bi = sum_a lin_a sum_i e_i V_ai V_bi``, since
  ``<x_i, f> = lin . V_i`` is linear in the token with coefficients ``lin`` that depend on the
  averages ``D`` only (see :mod:`._reduced`), and ``Z S = sum_i e_i <x_i, f> = lin . sum_i e_i V_i``;
* ``Z^2 |r|^2 = sum_i e_i^2 <x_i, f>^2 = lin^T (sum_i e_i^2 V_i V_i^T) lin``.

So two ``K x K`` moment matrices per run (``K = rows + 1``), ``M = sum_i e_i V_i V_i^T`` and
``N = sum_i e_i^2 V_i V_i^T``, with the sums ``sum_i e_i V_i`` and ``Z``, carry everything, and
they accumulate over chunks of tokens. The shift ``m`` is the running maximum of the scores:
when a chunk raises it by ``delta``, every accumulated ``e`` shrinks by ``s = exp(-delta)``, and
an entry of ``M`` (``N``) with ``j`` of its factors equal to ``e`` (the row ``e`` of ``V``)
scales by ``s^{1 + j}`` (``s^{2 + j}``): every ``e_i <= 1``, nothing overflows. The law is that of
:class:`ReducedKernel`; only the order of floating-point sums differs.

Draw order per run and batch member: for each chunk ``n1, n2[, n3]`` of the chunk (one call)
and the signal strengths of its informative tokens (if the prior is not ``fixed``), then
``[chi, chi']`` and the batch-composition pair, as in :mod:`._reduced`. With one chunk
(``chunk >= L``) that is :class:`ReducedKernel`'s order, draw for draw.
"""

from __future__ import annotations

import numpy as np

from ._reduced import ReducedKernel

#: tokens per chunk (chosen by ``sigrec bench``: the moment product is most efficient per token
#: at about a thousand tokens, where a run's chunk stays in cache)
CHUNK = 1024


class ChunkedReducedKernel(ReducedKernel):
    """:class:`ReducedKernel` with the tokens of each collection processed ``chunk`` at a time
    (memory ``O(runs x chunk)``, independent of ``L``).

    Work buffer (runs, 2 (rows + 1), chunk): the rows ``V = (c1, c2[, n3], e)`` and below them
    ``A = e V``, so that one batched product ``A [V; A]^T`` gives both moment matrices
    ``M = sum e V V^T`` and ``N = sum e^2 V V^T`` of the chunk.
    """

    def __init__(self, problem, generators, rho0: np.ndarray, chunk: int = CHUNK):
        self._init_state(problem, generators, rho0)
        self.chunk = int(min(chunk, problem.L))
        runs, K = len(generators), self.rows + 1
        self.work = np.zeros((runs, 2 * K, self.chunk))
        self.scores = np.zeros((runs, 1, self.chunk))
        self.signs = np.empty((runs, min(problem.R, self.chunk))) if problem.prior.family != "fixed" else None
        # the rescaling factor's power per entry: 1 + (number of factors e) in M, one more in N,
        # and 1 + (row is e) in the sums e V
        is_e = np.zeros(K)
        is_e[self.rows] = 1.0
        pow_m = 1.0 + is_e[:, None] + is_e[None, :]
        self._pow = np.concatenate([pow_m, pow_m + 1.0], axis=1)
        self._pow_sum = 1.0 + is_e

    def _draw_chunk(self, lo: int, hi: int) -> None:
        p, rows, n = self.problem, self.rows, hi - lo
        informative = max(0, min(hi, p.R) - lo)
        for i, gen in enumerate(self.gens):
            if n == self.chunk:
                gen.standard_normal(out=self.work[i, :rows])
            else:  # the last, shorter chunk
                self.work[i, :rows, :n] = gen.standard_normal((rows, n))
            if self.signs is not None and informative:
                self.signs[i, :informative] = self.law.sample(gen, informative)

    def _draw_tail(self, first: bool) -> None:
        for i, gen in enumerate(self.gens):
            self._draw_out_of_plane(i, gen, first)

    def _member(self, first: bool):
        p = self.problem
        R, k, runs = p.R, self.rows, len(self.gens)
        K = k + 1
        MN = np.zeros((runs, K, 2 * K))  # [M | N]
        sums = np.zeros((runs, K))  # sum e V
        Z = np.zeros(runs)  # sum e
        nuisance = np.zeros(runs)
        m = np.full(runs, -np.inf)
        coef = np.stack([p.beta * self._rho, p.beta * self._rho_perp], axis=1)[:, None, :]
        for lo in range(0, p.L, self.chunk):
            hi = min(p.L, lo + self.chunk)
            n = hi - lo
            self._draw_chunk(lo, hi)
            W = self.work[:, :, :n]
            if p.sigma2 != 1.0:
                W[:, :2] *= np.sqrt(p.sigma2)
            informative = max(0, min(hi, R) - lo)
            if informative and p.theta:
                W[:, 0, :informative] += p.theta if self.signs is None else p.theta * self.signs[:, :informative]
            u = np.matmul(coef, W[:, :2], out=self.scores[:, :, :n])[:, 0]
            top = np.maximum(m, u.max(axis=1))
            if lo:  # what is accumulated shrinks by s = exp(m - top) per factor e
                s = np.exp(m - top)
                MN *= s[:, None, None] ** self._pow
                sums *= s[:, None] ** self._pow_sum
                Z *= s
                nuisance *= s
            m = top
            u -= m[:, None]
            e = np.exp(u, out=W[:, k])
            np.multiply(W[:, :K], e[:, None, :], out=W[:, K:])
            MN += np.matmul(W[:, K:], W.transpose(0, 2, 1))
            sums += W[:, K:].sum(axis=2)
            Z += e.sum(axis=1)
            if hi > R:
                nuisance += e[:, max(0, R - lo):].sum(axis=1)
        self._draw_tail(first)
        D = sums / Z[:, None]  # a.c1, a.c2[, a.n3], a.e
        lin, obj = self._linear(D, Z)
        E = np.matmul(lin, MN[:, :, :K])[:, 0] / Z[:, None]  # r.c1, r.c2[, r.n3], r.e
        S = np.matmul(lin, sums[:, :, None])[:, 0, 0] / Z
        rr = np.matmul(np.matmul(lin, MN[:, :, K:]), lin.transpose(0, 2, 1))[:, 0, 0] / (Z * Z)
        return self._gradient(D, Z, E, S, rr, nuisance / Z, obj)
