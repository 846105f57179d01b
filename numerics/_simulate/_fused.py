r"""Compiled loops of the reduced kernel (numba): a run's O(L) work in two passes over its tokens.

:class:`._reduced.ReducedKernel` (numpy) reads a run's token rows about twenty times per step:
one call per product, each a pass over ``L`` floats (scores, ``exp``, ``W e``, ``<x_i, f>``,
``e <x, f>``, ``W (e <x, f>)``, ``|r|^2``). :func:`run3` and :func:`run2` compute the same sums
(docs/design.md section 2; :mod:`._reduced` has the derivation) in one call per run and two
passes, reading the drawn rows ``n1, n2[, n3]`` as they are (never writing them):

* pass one: ``c1 = sigma n1 + theta s_i`` (informative tokens; ``sigma n1`` after),
  ``c2 = sigma n2``, the score ``u = b0 c1 + b1 c2`` (``(b0, b1) = beta (rho, rho_perp)``),
  ``e = exp(u - shift)`` (written), and the sums ``Z (a.c1, a.c2[, a.n3, a.e])``, with
  ``Z = sum e`` split at ``R`` (the nuisance mass);
* the per-run scalars (the objective ``S = |f|^2`` among them), then pass two: ``c1, c2`` again,
  ``Z v_i = e_i <x_i, f> - S e_i`` on the fly, and ``Z (v.c1, v.c2[, v.n3, v.e])``,
  ``Z^2 |v|^2`` (sums of ``v`` itself, not of ``r`` and ``a`` apart: see "Rounding" in
  :mod:`._reduced`); then the step's scalars (:func:`._reduced._out_of_plane_step`, compiled
  from the same source);
* if ``Z`` leaves ``[low, high]``, pass one again with ``shift = max u`` (a third pass for the
  maximum first), as :class:`._reduced.ReducedKernel` does.

``exp`` is :func:`vexp`, written here so that it vectorises inside the loops (numba's ``exp``
is a scalar libm call, 5 times slower per element than numpy's SIMD ``exp``; a pass that calls
numpy in between cannot be fused): Cody-Waite reduction ``x = k ln 2 + r``, ``|r| <= ln(2)/2``
(``k`` rounded by adding ``1.5 * 2^52``, which also leaves it in the low bits: no float-to-integer
conversion, which AVX2 lacks), a degree-11 polynomial (error 3e-18 on that interval), and
``2^k`` built in the exponent bits, in two factors so that subnormal results round once. Within 1 ulp of numpy's
``exp`` on ``[-745, 710]``, with the same ``inf``, ``0`` and ``nan`` outside (tested).

Contract. The same draws, law and sums as the numpy kernel; only the order of the
floating-point additions differs (``reassoc``: sums are split over SIMD lanes) and ``a * b +
c`` may round once (``contract``: fused multiply-add). No other fast-math assumption (no
``nnan``/``ninf``): an overflowing ``exp`` gives ``Z = inf`` and the step is redone with a
shift. :func:`vexp` itself is compiled without ``reassoc``, which could undo its reduction.
Results agree with the numpy kernel to rounding (tests/numerics/test_fused.py), not bit for bit.

Loops run over whole arrays or slices that start at 0: a loop over ``range(R, n)`` keeps
numba's negative-index check in its body and is not vectorised (5 times slower, measured).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from numba import types
from numba.extending import intrinsic

from ._jitcache import cached_jit
from ._reduced import ReducedKernel, StepScalars, _out_of_plane_step
from ._reduced_chunks import CHUNK, ChunkedReducedKernel

#: reorder sums (SIMD reductions) and fuse multiply-adds; nothing about infinities or NaNs
FAST = frozenset({"reassoc", "contract"})

#: numba keeps these loops compiled in a checked folder, never beside the sources
#: (:mod:`._jitcache`: ``$NUMBA_CACHE_DIR`` or ``numba/`` in sigrec's private cache folder, each
#: file checked before it is loaded; off for the process, with one warning, when it cannot be trusted)
_jit = cached_jit(fastmath=set(FAST))
_oop = _jit(_out_of_plane_step)


def _bits_to_float_intrinsic(typingctx, x):
    """The float64 whose bits are the int64 ``x`` (an LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


def _float_to_bits_intrinsic(typingctx, x):
    """The int64 with the bits of the float64 ``x`` (an LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))
    return types.int64(types.float64), codegen


#: called with the value only (numba supplies ``typingctx``), which mypy cannot see
_bits_to_float: Any = intrinsic(_bits_to_float_intrinsic)
_float_to_bits: Any = intrinsic(_float_to_bits_intrinsic)

_LOG2E = 1.4426950408889634
#: ln 2 = _LN2_HI + _LN2_LO, _LN2_HI with trailing zero bits (k _LN2_HI exact for |k| < 2^11)
_LN2_HI, _LN2_LO = 0.693145751953125, 1.42860682030941723212e-6
#: 1.5 * 2^52: in ``t = y + _SHIFT`` (``|y| < 2^51``) the float's unit is 1, so ``t`` holds ``y``
#: rounded to the nearest integer ``k``, ``t - _SHIFT = k`` exactly and ``bits(t) = bits(_SHIFT) + k``
_SHIFT = 6755399441055744.0
_SHIFT_BITS = 0x4338000000000000
#: exp on [-ln(2)/2, ln(2)/2]: the degree-11 Chebyshev fit (mpmath.chebyfit at 40 digits, error
#: 3.2e-18 there, 0.03 ulp), highest degree first
_C = (2.5110037605963777e-08, 2.763263963904103e-07, 2.755724091857897e-06, 2.4801485482328494e-05,
      0.00019841269890047113, 0.0013888888952314775, 0.008333333333319601, 0.0416666666664881,
      0.1666666666666668, 0.5000000000000019, 1.0, 1.0)


@cached_jit(fastmath={"contract"})
def vexp(x):
    """``exp(x)`` for a float64, branch-free so that it vectorises (see the module text)."""
    C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0 = _C
    xc = min(max(x, -746.0), 710.0)  # exp(710) = inf and exp(-746) = 0 in double
    t = xc * _LOG2E + _SHIFT
    kf = t - _SHIFT  # k = round(x / ln 2), exactly (no reassociation in this function)
    k = _float_to_bits(t) - _SHIFT_BITS
    r = (xc - kf * _LN2_HI) - kf * _LN2_LO
    p = C11 * r + C10
    p = p * r + C9
    p = p * r + C8
    p = p * r + C7
    p = p * r + C6
    p = p * r + C5
    p = p * r + C4
    p = p * r + C3
    p = p * r + C2
    p = p * r + C1
    p = p * r + C0
    h = k >> 1  # 2^k = 2^h 2^(k - h), each factor a normal number for k in [-1076, 1024]
    y = p * _bits_to_float((h + 1023) << 52) * _bits_to_float((k - h + 1023) << 52)
    return y if x == x else x  # nan stays nan (min/max above would turn it into a bound)


class TokenSums(NamedTuple):
    """One pass's sums over its tokens of a weight ``w`` times ``c1, c2, n3, e``, and ``last``:
    pass one ``w = e`` and ``last = sum e`` (``Z``), pass two ``w = Z v`` and ``last = sum w^2``."""

    c1: float
    c2: float
    n3: float
    e: float
    last: float


@_jit
def _max_score(rows, add, has_add, score):
    sigma, b0, b1 = score
    n1, n2 = rows[0], rows[1]
    m = -math.inf
    for i in range(n1.shape[0]):
        a = add[i] if has_add else 0.0
        m = max(m, b0 * (sigma * n1[i] + a) + b1 * (sigma * n2[i]))
    return m


@_jit
def _pass1_3(rows, e, add, has_add, score, shift):
    """Pass one at ``d >= 3`` over ``rows = (n1, n2, n3)`` with ``score = (sigma, b0, b1)``."""
    sigma, b0, b1 = score
    n1, n2, n3 = rows
    s1 = s2 = s3 = s4 = z = 0.0
    for i in range(e.shape[0]):
        a = add[i] if has_add else 0.0
        c1 = sigma * n1[i] + a
        c2 = sigma * n2[i]
        x = vexp(b0 * c1 + b1 * c2 - shift)
        e[i] = x
        s1 += x * c1
        s2 += x * c2
        s3 += x * n3[i]
        s4 += x * x
        z += x
    return TokenSums(s1, s2, s3, s4, z)


@_jit
def _pass2_3(rows, e, add, has_add, sigma, lin, S):
    """Pass two at ``d >= 3``: ``<x_i, f> = lin . (c1, c2, n3, e)``, ``S`` the objective."""
    l0, l1, l2, l3 = lin
    n1, n2, n3 = rows
    G1 = G2 = G3 = Ge = vv = 0.0
    for i in range(e.shape[0]):
        a = add[i] if has_add else 0.0
        c1 = sigma * n1[i] + a
        c2 = sigma * n2[i]
        x = e[i]
        v = x * (l0 * c1 + l1 * c2 + l2 * n3[i] + l3 * x) - S * x  # Z v_i = e_i <x_i, f> - S e_i
        G1 += v * c1
        G2 += v * c2
        G3 += v * n3[i]
        Ge += v * x
        vv += v * v
    return TokenSums(G1, G2, G3, Ge, vv)


@_jit
def run3(tok, e, add, score, beta, sigma2, chis, bounds):
    """One run's step at ``d >= 3`` from its drawn rows ``tok = (n1, n2, n3)`` and the
    informative tokens' ``add = theta s_i`` (``R = len(add)``), into the score buffer ``e``, with
    ``score = (sigma, b0, b1)``, the chi-square pair ``chis = (chi, chi')`` and the accepted
    ``bounds = (low, high)`` of ``Z``: the :class:`._reduced.StepScalars`."""
    R = add.shape[0]
    n1, n2, n3 = tok[0], tok[1], tok[2]
    info, noise = (n1[:R], n2[:R], n3[:R]), (n1[R:], n2[R:], n3[R:])
    low, high = bounds
    chi = chis[0]
    shift = 0.0
    a = _pass1_3(info, e[:R], add, True, score, shift)
    b = _pass1_3(noise, e[R:], add, False, score, shift)
    Z = a.last + b.last
    if not (low <= Z <= high):  # scores too large or too small for shift 0 (or nan)
        shift = max(_max_score(info, add, True, score), _max_score(noise, add, False, score))
        a = _pass1_3(info, e[:R], add, True, score, shift)
        b = _pass1_3(noise, e[R:], add, False, score, shift)
        Z = a.last + b.last
    f1, f2 = (a.c1 + b.c1) / Z, (a.c2 + b.c2) / Z
    obj = f1 * f1 + f2 * f2
    an3, na2 = (a.n3 + b.n3) / Z, (a.e + b.e) / Z / Z
    na, sq = math.sqrt(na2), math.sqrt(chi)
    # t = sigma2 [a (chi - sqrt(chi) a.n3 / ||a||) + ||a|| sqrt(chi) n3], a = e / Z
    lin = (f1, f2, sigma2 * na * sq, sigma2 * (chi - sq * an3 / na) / Z)
    obj += sigma2 * na2 * chi  # S = sum_i r_i = <f, f>
    sigma = score[0]
    g = _pass2_3(info, e[:R], add, True, sigma, lin, obj)
    h = _pass2_3(noise, e[R:], add, False, sigma, lin, obj)
    return _oop(beta, sigma2, (Z, obj, an3, na, b.last), chis, (g.c1 + h.c1, g.c2 + h.c2, g.n3 + h.n3, (g.e + h.e) / Z),
                g.last + h.last)


@_jit
def _pass1_2(rows, e, add, has_add, score, shift):
    sigma, b0, b1 = score
    n1, n2 = rows
    s1 = s2 = z = 0.0
    for i in range(e.shape[0]):
        a = add[i] if has_add else 0.0
        c1 = sigma * n1[i] + a
        c2 = sigma * n2[i]
        x = vexp(b0 * c1 + b1 * c2 - shift)
        e[i] = x
        s1 += x * c1
        s2 += x * c2
        z += x
    return s1, s2, z


@_jit
def _pass2_2(rows, e, add, has_add, sigma, f, S):
    f1, f2 = f
    n1, n2 = rows
    G1 = G2 = 0.0
    for i in range(e.shape[0]):
        a = add[i] if has_add else 0.0
        c1 = sigma * n1[i] + a
        c2 = sigma * n2[i]
        v = e[i] * (f1 * c1 + f2 * c2 - S)  # Z v_i = e_i (<x_i, f> - S)
        G1 += v * c1
        G2 += v * c2
    return G1, G2


@_jit
def run2(tok, e, add, score, beta, bounds):
    """:func:`run3` at ``d = 2`` (rows ``n1, n2``; no out-of-plane part: ``||sigma Z v||^2`` and
    the chi-squares are 0)."""
    R = add.shape[0]
    n1, n2 = tok[0], tok[1]
    info, noise = (n1[:R], n2[:R]), (n1[R:], n2[R:])
    low, high = bounds
    shift = 0.0
    a1, a2, zi = _pass1_2(info, e[:R], add, True, score, shift)
    b1_, b2, zn = _pass1_2(noise, e[R:], add, False, score, shift)
    Z = zi + zn
    if not (low <= Z <= high):
        shift = max(_max_score(info, add, True, score), _max_score(noise, add, False, score))
        a1, a2, zi = _pass1_2(info, e[:R], add, True, score, shift)
        b1_, b2, zn = _pass1_2(noise, e[R:], add, False, score, shift)
        Z = zi + zn
    f1, f2 = (a1 + b1_) / Z, (a2 + b2) / Z
    obj = f1 * f1 + f2 * f2
    sigma = score[0]
    G1, G2 = _pass2_2(info, e[:R], add, True, sigma, (f1, f2), obj)  # S = sum_i r_i = <f, f>
    H1, H2 = _pass2_2(noise, e[R:], add, False, sigma, (f1, f2), obj)
    return StepScalars(2.0 * beta * (G1 + H1) / Z, 2.0 * beta * (G2 + H2) / Z, 0.0, zn / Z, obj, 0.0, 0.0)


class FusedReducedKernel(ReducedKernel):
    """:class:`._reduced.ReducedKernel` with a run's O(L) work in one compiled call
    (:func:`run3`, :func:`run2`): the same draws in the same order (``n1, n2[, n3]`` in one
    call, the signal strengths, the out-of-plane pair), the same law, the same chain to
    rounding.

    The runs take turns in one token buffer ``(rows, L)`` and one score buffer ``(L,)``: a step
    keeps nothing of its tokens, so both stay in the core's cache from the draws to the last
    pass, and the memory is ``(rows + 1) L`` floats whatever the number of runs.

    After :meth:`_run`, the buffer holds run ``i``'s drawn rows and :attr:`last_add` its
    informative tokens' ``theta s_i``: a subclass that reads the draws of the step
    (:class:`numerics._gradient._influence._FeatureKernel`) reads them there.
    """

    #: ``theta s_i`` (shape ``(R,)``) of the run drawn last (the signal strengths of its step)
    last_add: np.ndarray

    def __init__(self, problem, generators, rho0: np.ndarray):
        self._init_state(problem, generators, rho0)
        p = problem
        self._tok = np.zeros((self.rows, p.L))
        self._e = np.zeros(p.L)
        self._coef = np.zeros((len(generators), 2))  # beta (rho, rho_perp) per run
        self._views = list(self._coef)  # what ReducedKernel._member hands to _run: the coefficients
        self._constants = (p.R, p.beta, p.theta, p.sigma2, self.law.family == "fixed", self.n_out)
        self._sigma = math.sqrt(p.sigma2)
        self._fixed_add = np.full(p.R, float(p.theta))  # theta s_i with s_i = 1 (fixed prior)
        self.last_add = self._fixed_add

    def _run(self, i: int, gen, first: bool, coef) -> StepScalars:
        """Run ``i``: its draws, then its step's scalars as in :meth:`ReducedKernel._run`."""
        R, beta, theta, sigma2, fixed, n_out = self._constants
        tok = self._tok
        gen.standard_normal(out=tok)
        add = self._fixed_add if fixed else theta * np.asarray(self.law.sample(gen, R), dtype=float)
        self.last_add = add
        b0, b1 = coef.tolist()
        score, bounds = (self._sigma, b0, b1), (self.Z_LOW, self.Z_HIGH)
        if n_out < 1:
            return run2(tok, self._e, add, score, beta, bounds)
        return run3(tok, self._e, add, score, beta, sigma2, self._draw_out_of_plane(i, gen, first), bounds)


#: the distinct sums of a chunk, as monomials (exponents of c1, c2, n3, e), in the order
#: :func:`chunk_moments3` and :func:`chunk_moments2` compute them
MONOMIALS3 = ((0, 0, 0, 1), (1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 1, 1), (0, 0, 0, 2),
              (2, 0, 0, 1), (1, 1, 0, 1), (1, 0, 1, 1), (0, 2, 0, 1), (0, 1, 1, 1), (0, 0, 2, 1),
              (1, 0, 0, 2), (0, 1, 0, 2), (0, 0, 1, 2), (0, 0, 0, 3),
              (2, 0, 0, 2), (1, 1, 0, 2), (1, 0, 1, 2), (0, 2, 0, 2), (0, 1, 1, 2), (0, 0, 2, 2),
              (1, 0, 0, 3), (0, 1, 0, 3), (0, 0, 1, 3), (0, 0, 0, 4))
MONOMIALS2 = ((0, 0, 0, 1), (1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 0, 2), (2, 0, 0, 1), (1, 1, 0, 1), (0, 2, 0, 1))


@_jit
def chunk_moments3(tok, e, b0, b1, shift, out, where):
    """A chunk's sums at ``d >= 3`` in one pass: ``e = exp(b0 c1 + b1 c2 - shift)`` (written) and
    the 25 sums of :data:`MONOMIALS3` over the rows ``tok = (c1, c2, n3)``; ``out[j]`` gets sum
    ``where[j]``. Returns ``sum e``."""
    c1r, c2r, n3r = tok[0], tok[1], tok[2]
    z = a1 = a2 = a3 = a4 = 0.0
    m11 = m12 = m13 = m22 = m23 = m33 = 0.0
    q1 = q2 = q3 = q4 = 0.0
    n11 = n12 = n13 = n22 = n23 = n33 = 0.0
    t1 = t2 = t3 = t4 = 0.0
    for i in range(e.shape[0]):
        c1, c2, n3 = c1r[i], c2r[i], n3r[i]
        x = vexp(b0 * c1 + b1 * c2 - shift)
        e[i] = x
        x2 = x * x
        u1, u2, u3 = x * c1, x * c2, x * n3  # e V
        w1, w2, w3 = x2 * c1, x2 * c2, x2 * n3  # e^2 V
        z += x
        a1 += u1
        a2 += u2
        a3 += u3
        a4 += x2
        m11 += u1 * c1
        m12 += u1 * c2
        m13 += u1 * n3
        m22 += u2 * c2
        m23 += u2 * n3
        m33 += u3 * n3
        q1 += w1
        q2 += w2
        q3 += w3
        q4 += x2 * x
        n11 += w1 * c1
        n12 += w1 * c2
        n13 += w1 * n3
        n22 += w2 * c2
        n23 += w2 * n3
        n33 += w3 * n3
        t1 += w1 * x
        t2 += w2 * x
        t3 += w3 * x
        t4 += x2 * x2
    sums = (z, a1, a2, a3, a4, m11, m12, m13, m22, m23, m33, q1, q2, q3, q4,
            n11, n12, n13, n22, n23, n33, t1, t2, t3, t4)
    for j in range(out.shape[0]):
        out[j] = sums[where[j]]
    return z


@_jit
def chunk_moments2(tok, e, b0, b1, shift, out, where):
    """:func:`chunk_moments3` at ``d = 2``: the 7 sums of :data:`MONOMIALS2` over ``(c1, c2)``."""
    c1r, c2r = tok[0], tok[1]
    z = a1 = a2 = a4 = m11 = m12 = m22 = 0.0
    for i in range(e.shape[0]):
        c1, c2 = c1r[i], c2r[i]
        x = vexp(b0 * c1 + b1 * c2 - shift)
        e[i] = x
        u1, u2 = x * c1, x * c2
        z += x
        a1 += u1
        a2 += u2
        a4 += x * x
        m11 += u1 * c1
        m12 += u1 * c2
        m22 += u2 * c2
    sums = (z, a1, a2, a4, m11, m12, m22)
    for j in range(out.shape[0]):
        out[j] = sums[where[j]]
    return z


class FusedChunkedKernel(ChunkedReducedKernel):
    """:class:`._reduced_chunks.ChunkedReducedKernel` with each chunk's sums in one compiled pass
    (:func:`chunk_moments3`, :func:`chunk_moments2`) instead of two products with ``e`` and five
    matrix-vector products: the same draws, chunks, shifts and law; the sums to rounding."""

    def __init__(self, problem, generators, rho0: np.ndarray, chunk: int = CHUNK):
        super().__init__(problem, generators, rho0, chunk)
        distinct = MONOMIALS3 if self.rows == 3 else MONOMIALS2
        self._where = np.array([distinct.index(m) for m in self._monos], dtype=np.int64)
        self._chunk_moments = chunk_moments3 if self.rows == 3 else chunk_moments2

    def _moments(self, coef, tokens, c12, e, eV, views, shift: float) -> float:
        b0, b1 = coef.tolist()
        return self._chunk_moments(tokens, e, b0, b1, float(shift), self._part, self._where)

