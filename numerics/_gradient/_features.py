r"""Compiled token features of one collection (numba): the control variate's sums in one pass.

Claim. For the tokens of one kind (informative or nuisance) with in-plane coordinates
``c1 = sigma n1 + add``, ``c2 = sigma n2``, the out-of-plane normal ``n3`` and the score
``u = b0 c1 + b1 c2``, :func:`group_features` returns the averages over the kind's tokens of

    e1 V V^T (upper triangle, row-major),   e2 V,     V = (1, c1, c2, n3),
    e1 = exp(u - k1),   e2 = exp(2 u - k2),

the features of :func:`theory.token_feature_means` in its order (14 numbers; at ``d = 2`` pass
``n3 = 0`` and keep the 9 without ``n3``). They are what :func:`._influence._group_features`
computes with numpy from the numpy kernel's token rows; here they are read from the raw draws
``n1, n2, n3`` that the compiled kernel leaves in its buffer
(:class:`.._simulate._fused.FusedReducedKernel`), in one pass. The chunked kernel's
:func:`.._simulate._fused.chunk_moments3` holds these sums among its 25, but it reads formed rows
``c1, c2``, and forming them and taking all 25 sums costs more than the step itself.
Same sums, the order of the additions aside (``reassoc``, as the kernel's).
"""

from __future__ import annotations

import numpy as np

from .._simulate._fused import _jit, vexp


@_jit
def group_features(rows, add, has_add, score, scales, out):
    """The 14 features of one kind into ``out`` (module docstring) from its draws ``rows = (n1,
    n2, n3)``, with ``score = (sigma, b0, b1)`` and ``scales = (k1, k2)``; ``add`` is read only
    when ``has_add``."""
    n1, n2, n3 = rows
    sigma, b0, b1 = score
    k1, k2 = scales
    s0 = s1 = s2 = s3 = m11 = m12 = m13 = m22 = m23 = m33 = t0 = t1 = t2 = t3 = 0.0
    scale2 = np.exp(2.0 * k1 - k2)
    n = n1.shape[0]
    for i in range(n):
        a = add[i] if has_add else 0.0
        c1 = sigma * n1[i] + a
        c2 = sigma * n2[i]
        c3 = n3[i]
        x = vexp(b0 * c1 + b1 * c2 - k1)
        y = x * x * scale2
        u1, u2, u3 = x * c1, x * c2, x * c3
        s0 += x
        s1 += u1
        s2 += u2
        s3 += u3
        m11 += u1 * c1
        m12 += u1 * c2
        m13 += u1 * c3
        m22 += u2 * c2
        m23 += u2 * c3
        m33 += u3 * c3
        t0 += y
        t1 += y * c1
        t2 += y * c2
        t3 += y * c3
    sums = (s0, s1, s2, s3, m11, m12, m13, m22, m23, m33, t0, t1, t2, t3)
    for j in range(14):
        out[j] = sums[j] / n
