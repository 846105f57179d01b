r"""The exact reduced chain with its tokens in chunks: memory independent of ``L``.

:class:`ReducedKernel` holds every token of every run (``(rows + 2) x L`` floats per run: 4 GB
for 100 runs at ``L = 10^6``). Its step needs of the tokens only sums: with
``V_i = (c1_i, c2_i[, n3_i], e_i)`` and ``e_i = exp(u_i - m)``,

* the attention averages ``Z D_a = sum_i e_i V_ai`` (``Z = sum_i e_i``);
* ``Z E_b = sum_i e_i <x_i, f> V_bi = sum_a lin_a sum_i e_i V_ai V_bi``, since
  ``<x_i, f> = lin . V_i`` is linear in the token with coefficients ``lin`` that depend on the
  averages ``D`` only (see :mod:`._reduced`), and ``Z S = sum_i e_i <x_i, f> = Z |f|^2``;
* ``Z^2 |r|^2 = sum_i e_i^2 <x_i, f>^2 = lin^T (sum_i e_i^2 V_i V_i^T) lin``.

So the moments ``M = sum_i e_i V_i V_i^T`` and ``N = sum_i e_i^2 V_i V_i^T`` (``K x K``,
``K = rows + 1``; for ``d = 2`` only ``M`` over ``(c1, c2)``), the sums ``sum_i e_i V_i`` and
``Z`` carry everything, and they accumulate over chunks of tokens: 25 distinct sums of
products per token for ``d >= 3``, 6 for ``d = 2`` (the nuisance mass ``sum_{i >= R} e_i`` is
``Z`` of the chunks past ``R``).

Shift. As in :class:`ReducedKernel` the shift ``m`` is 0 (no pass for the maximum) while it keeps
every ``e_i`` in range: a chunk is accepted when its ``sum e <= Z_HIGH`` (and, for the first
chunk, ``>= Z_LOW``). Otherwise its scores (still in the buffer) are recomputed with the shift
raised to their maximum (for the first chunk: set to it), and what is accumulated shrinks by
``s = exp(m_old - m_new)`` per factor ``e`` of each sum (``s^j`` for a sum of ``e^j``). Then
every accumulated ``e_i <= Z_HIGH``, ``Z >= Z_LOW`` (a reshifted chunk adds its maximum's
``e = 1``), nothing overflows, and tokens that underflow weigh less than ``exp(-600)`` against
the largest. Softmax is shift invariant: the law is that of :class:`ReducedKernel`, and only the
order of floating-point sums differs.

Draw order per run and batch member: for each chunk ``n1, n2[, n3]`` of the chunk (one call
into a ``(rows, n)`` block) and the signal strengths of its informative tokens (if the prior is
not ``fixed``), then ``[chi, chi']`` and the batch-composition pair, as in :mod:`._reduced`.
With one chunk (``chunk >= L``) that is :class:`ReducedKernel`'s order, draw for draw. Which
normal is which token's depends on ``chunk``, so a seed's chain does too (the law does not).

Each run's chunk loop runs to its end before the next run's starts (one buffer for all runs,
hot in the core's cache): the sums are matrix-vector products of the buffer's rows (streaming;
OpenBLAS's matrix-matrix products of these shapes pack their operands first and are 2 to 5
times slower per product here).
"""

from __future__ import annotations

import math

import numpy as np

from ._reduced import ReducedKernel, StepScalars, _out_of_plane_step

#: tokens per chunk (measured with ``d = 100`` and 2: the buffer, 9 rows of 8,192 floats
#: (590 kB), stays in a core's L2 cache, and the ~12 numpy calls per chunk cost about 1% of it)
CHUNK = 8192

#: buffer rows as monomials in (c1, c2, n3, e): ``d >= 3`` rows
#: ``e, 1, c1, c2, n3, e c1, e c2, e n3, e^2``; ``d = 2`` rows ``c1, c2, e, 1, e c1, e c2``
_ROWS3 = ((0, 0, 0, 1), (0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0),
          (1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (0, 0, 0, 2))
_ROWS2 = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 1), (0, 0, 0, 0), (1, 0, 0, 1), (0, 1, 0, 1))
#: the products per chunk: (first row, end row, vector row) -> buffer[first:end] @ buffer[vector]
_PRODUCTS3 = ((0, 9, 0), (2, 9, 5), (3, 9, 6), (4, 9, 7), (8, 9, 8))
_PRODUCTS2 = ((0, 4, 2), (0, 2, 4), (1, 2, 5))
#: the rows multiplied by e: (first, end, first of the result)
_TIMES_E3 = ((2, 5, 5), (0, 1, 8))
_TIMES_E2 = ((0, 2, 4),)
#: (first, end) of the drawn rows
_TOKENS3, _TOKENS2 = (2, 5), (0, 2)


class ChunkedReducedKernel(ReducedKernel):
    """:class:`ReducedKernel` with the tokens of each collection processed ``chunk`` at a time
    (memory ``O(chunk)``, independent of ``L`` and of the number of runs).

    Buffer (``d >= 3``) of rows ``e, 1, c1, c2, n3, e c1, e c2, e n3, e^2``: the unnormalised
    attention, a constant row, the drawn rows and their products with ``e`` (two calls); five
    matrix-vector products of its rows (``[0:9] e``, ``[2:9] (e c1)``, ``[3:9] (e c2)``,
    ``[4:9] (e n3)``, ``e^2 . e^2``) give the 28 sums (25 distinct) of a chunk, accumulated in
    ``acc``. ``d = 2``: rows ``c1, c2, e, 1, e c1, e c2``, products ``[0:4] e``, ``[0:2] (e c1)``,
    ``c2 . (e c2)``.

    ``shifts`` counts the chunks recomputed with a shift set (a collection's first chunk) or
    raised (a later one), ``raises`` the latter.
    """

    Z_LOW, Z_HIGH = ReducedKernel.Z_LOW, ReducedKernel.Z_HIGH

    def __init__(self, problem, generators, rho0: np.ndarray, chunk: int = CHUNK):
        self._init_state(problem, generators, rho0)
        p, k = problem, self.rows
        self.chunk = int(max(1, min(chunk, p.L)))
        self._coef = np.zeros((len(generators), 2))  # beta (rho, rho_perp) per run
        self._views = list(self._coef)  # what ReducedKernel._member hands to _run: the coefficients
        self._constants = (p.R, p.beta, p.theta, p.sigma2, self.law.family == "fixed", self.n_out)
        self.shifts = self.raises = 0
        rows, products, times_e, (t0, t1) = ((_ROWS3, _PRODUCTS3, _TIMES_E3, _TOKENS3) if k == 3 else
                                             (_ROWS2, _PRODUCTS2, _TIMES_E2, _TOKENS2))
        e_row, ones = rows.index((0, 0, 0, 1)), rows.index((0, 0, 0, 0))
        # the monomial of each accumulated sum, the first index of each monomial
        monos = [tuple(a + b for a, b in zip(rows[r], rows[x], strict=True))
                 for lo, hi, x in products for r in range(lo, hi)]
        where: dict[tuple[int, ...], int] = {}
        for j, m in enumerate(monos):
            where.setdefault(m, j)
        self._monos = monos  # the monomial of each entry of _part and _acc
        self._acc = np.zeros(len(monos))
        self._part = np.zeros(len(monos))
        self._epow = np.array([m[3] for m in monos], dtype=float)  # the power of e in each sum
        self._index = where
        self._z = where[(0, 0, 0, 1)]
        if k == 3:  # indices into acc of M = sum e V V^T and N = sum e^2 V V^T, V = (c1, c2, n3, e)
            basis = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
            self._m_index, self._n_index = (
                np.array([[where[tuple(a + b + (j == 3) * power for j, (a, b) in enumerate(zip(va, vb, strict=True)))]
                           for vb in basis] for va in basis]) for power in (1, 2))
        tail = p.L % self.chunk
        buffers = {}
        for n in {self.chunk} | ({tail} if tail else set()):
            buf = np.zeros((len(rows), n))
            buf[ones] = 1.0
            buffers[n] = buf
        self._chunks = []
        for lo in range(0, p.L, self.chunk):
            hi = min(p.L, lo + self.chunk)
            buf = buffers[hi - lo]
            informative = max(0, min(hi, p.R) - lo)
            # each product's first index into _part (the last cumulative sum, the total, starts none)
            views = [(buf[a:b], buf[x], self._part[j:j + b - a])
                     for (a, b, x), j in zip(products, np.cumsum([0] + [b - a for a, b, _ in products]), strict=False)]
            eV = [(buf[a:b], buf[c:c + b - a]) for a, b, c in times_e]
            self._chunks.append((lo, hi, buf[t0:t1], buf[t0:t0 + 2], buf[t0, :informative], buf[e_row], eV,
                                 views, informative, buf[e_row, max(0, p.R - lo):] if lo < p.R < hi else None))

    def _moments(self, coef, tokens, c12, e, eV, views, shift: float) -> float:
        """A chunk's sums into ``_part`` with ``e = exp(u - shift)``; returns its ``sum e``.
        ``tokens``: the chunk's rows ``c1, c2[, n3]`` (``c12`` the first two); ``eV`` and
        ``views``: the products below."""
        np.dot(coef, c12, out=e)  # u = beta (rho c1 + rho_perp c2)
        if shift:
            e -= shift
        np.exp(e, out=e)
        for rows, out in eV:
            np.multiply(rows, e, out=out)
        for rows, x, out in views:
            np.dot(rows, x, out=out)
        return float(self._part[self._z])

    def _run(self, i: int, gen, first: bool, coef) -> StepScalars:
        """Run ``i``: its chunks (draws and sums), its out-of-plane draws, then its step's scalars
        as in :meth:`ReducedKernel._run`."""
        R, beta, theta, sigma2, fixed, n_out = self._constants
        low, high = self.Z_LOW, self.Z_HIGH
        acc, part, moments = self._acc, self._part, self._moments
        acc.fill(0.0)
        sigma = math.sqrt(sigma2)
        shift, nuisance = 0.0, 0.0
        for lo, hi, tokens, c12, c1_info, e, eV, views, informative, e_past_R in self._chunks:
            gen.standard_normal(out=tokens)
            if informative and not fixed:
                signs = self.law.sample(gen, informative)
            if sigma2 != 1.0:
                np.multiply(c12, sigma, out=c12)  # the rows c1, c2 become sigma n1, sigma n2
            if informative and theta:
                np.add(c1_info, theta if fixed else theta * signs, out=c1_info)
            Zc = moments(coef, tokens, c12, e, eV, views, shift)
            if not Zc <= high or (not lo and Zc < low):  # e out of range: shift to the chunk's max
                top = float(np.dot(coef, c12, out=e).max())
                if lo:
                    top = max(top, shift)
                    s = math.exp(shift - top)
                    np.multiply(acc, s ** self._epow, out=acc)
                    nuisance *= s
                    self.raises += 1
                shift = top
                self.shifts += 1
                Zc = moments(coef, tokens, c12, e, eV, views, shift)
            acc += part
            if hi > R:
                # e_past_R is None when the chunk starts at or past R (it ends past R)
                nuisance += Zc if e_past_R is None else float(e_past_R.sum())
        if n_out >= 1:
            chi, chi1 = self._draw_out_of_plane(i, gen, first)
        at = self._index
        m = acc.tolist()
        Z = m[self._z]
        f1, f2 = m[at[(1, 0, 0, 1)]] / Z, m[at[(0, 1, 0, 1)]] / Z
        obj = f1 * f1 + f2 * f2
        if n_out < 1:
            M11, M12, M22 = m[at[(2, 0, 0, 1)]], m[at[(1, 1, 0, 1)]], m[at[(0, 2, 0, 1)]]
            E1, E2 = f1 * M11 + f2 * M12, f1 * M12 + f2 * M22  # Z (r.c1, r.c2)
            S = obj  # sum_i r_i = <f, f>
            return StepScalars(2.0 * beta * (E1 / Z - S * f1), 2.0 * beta * (E2 / Z - S * f2), 0.0, nuisance / Z, obj,
                               0.0, 0.0)
        an3, na2 = m[at[(0, 0, 1, 1)]] / Z, m[at[(0, 0, 0, 2)]] / Z / Z
        na, sq = math.sqrt(na2), math.sqrt(chi)
        # t = sigma2 [a (chi - sqrt(chi) a.n3 / ||a||) + ||a|| sqrt(chi) n3], a = e / Z
        lin = np.array((f1, f2, sigma2 * na * sq, sigma2 * (chi - sq * an3 / na) / Z))
        obj += sigma2 * na2 * chi
        E1, E2, E3, Ee = (lin @ acc[self._m_index]).tolist()  # Z (r.c1, r.c2, r.n3, r.e)
        rr = float(lin @ acc[self._n_index] @ lin)  # Z^2 |r|^2
        # Z v = Z r - S e, expanded (S is known only now): Z (v.c1, v.c2, v.n3, v.a), Z^2 |v|^2
        S = obj
        G = (E1 - S * Z * f1, E2 - S * Z * f2, E3 - S * Z * an3, (Ee - S * m[at[(0, 0, 0, 2)]]) / Z)
        vv = rr - 2.0 * S * Ee + S * S * m[at[(0, 0, 0, 2)]]
        return _out_of_plane_step(beta, sigma2, (Z, obj, an3, na, nuisance), (chi, chi1), G, vv)
