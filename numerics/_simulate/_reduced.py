r"""Exact reduced simulation of the alignment chain (docs/design.md section 2).

Claim. For isotropic noise, ``rho_k = <q_k, xi>`` is a Markov chain, and one step
of it can be sampled *exactly in law* with ``3L + 2`` random draws per token
collection (``d >= 3``; ``2L`` for ``d = 2``) and O(L) arithmetic, whatever ``d``.

Derivation
----------
Fix ``q`` with ``rho = <q, xi>``, ``rho_perp = sqrt(1 - rho^2) >= 0``. Take the orthonormal
basis ``e1 = xi``, ``e2 = (q - rho xi) / rho_perp`` and ``n_out = d - 2`` further vectors, so that
``q = rho e1 + rho_perp e2``. A token is

    x_i = c1_i e1 + c2_i e2 + x_i^o,   c1_i = theta s_i 1{i < R} + sigma n1_i,
                                     c2_i = sigma n2_i,   x_i^o = sigma Z[:, i] in R^{n_out},

with ``n1, n2 ~ N(0, I_L)`` and ``Z`` an ``n_out x L`` standard Gaussian matrix, all
independent (the noise is isotropic, so its coordinates in any orthonormal basis
chosen independently of it are i.i.d. ``N(0, sigma2)``).

*Scores and pooled output.* ``u_i = beta (rho c1_i + rho_perp c2_i)`` uses only in-plane
coordinates; so does ``a = softmax(u)``. ``f = f1 e1 + f2 e2 + f_o`` with
``f1 = a.c1``, ``f2 = a.c2``, ``f_o = sigma Z a``. With ``r_i = a_i <x_i, f>`` and
``S = sum_i r_i = ||f||^2`` the per-sample gradient (see ``_full``) is

    g = 2 beta (sum_i r_i x_i - S f):   g1 = 2 beta (r.c1 - S f1),  g2 = 2 beta (r.c2 - S f2),
                                         g_o = 2 beta sigma Z v,    v = r - S a,

and ``<x_i, f> = c1_i f1 + c2_i f2 + t_i`` with ``t = sigma^2 Z^T Z a``.
So ``Z`` enters only through ``t`` and through ``||Z v||^2`` (the update below needs
the norm of the out-of-plane gradient only).

*Splitting Z.* ``a`` is independent of ``Z``. Let ``a_hat = a / ||a||`` and complete
it to an orthogonal ``U = [a_hat, U_perp]`` of ``R^L`` (chosen from ``a`` only). By
rotation invariance ``Z U = [gamma, Z_perp]`` with ``gamma ~ N(0, I_{n_out})``, ``Z_perp``
an ``n_out x (L-1)`` standard Gaussian matrix, independent. Then

    Z^T gamma = U (Z U)^T gamma = a_hat ||gamma||^2 + U_perp Z_perp^T gamma.

Given ``gamma``, ``Z_perp^T gamma / ||gamma|| = zeta ~ N(0, I_{L-1})`` independently of
``gamma``; and ``U_perp zeta`` has the law of ``h = (I - a_hat a_hat^T) n3`` with
``n3 ~ N(0, I_L)``. With ``chi = ||gamma||^2 ~ chi2_{n_out}``:

    t = sigma^2 ||a|| Z^T gamma = sigma^2 ||a|| (chi a_hat + sqrt(chi) h),
    ||f_o||^2 = sigma^2 ||a||^2 chi.

For ``v = (v.a_hat) a_hat + w`` (``w`` perpendicular to ``a_hat``) write
``Z v = (v.a_hat) gamma + Z_perp omega``, ``omega = U_perp^T w``. Split ``R^{n_out}`` into
``gamma_hat`` and its complement with an orthonormal ``B_gamma``:
``gamma_hat^T Z_perp omega = zeta.omega = h.w`` and
``B_gamma^T Z_perp`` is an ``(n_out-1) x (L-1)`` standard Gaussian matrix independent of
``(gamma, zeta, n1, n2)`` hence of ``omega``, so ``||B_gamma^T Z_perp omega||^2 =
||w||^2 chi'`` with ``chi' ~ chi2_{n_out-1}`` independent of everything else. Hence

    ||Z v||^2 = (sqrt(chi) (v.a_hat) + h.v)^2 + ||w||^2 chi',
    h.v = n3.v - (a_hat.n3)(a_hat.v),   ||w||^2 = ||v||^2 - (v.a_hat)^2,

all O(L) from ``n1, n2, n3`` (``3L`` normals) and the two chi-squares (``+2``).

*Rounding.* The kernels form ``Z v_i = Z r_i - S e_i`` token by token (``e = Z a``) and take
``g1, g2``, ``v.a_hat``, ``n3.v`` and ``|v|^2`` as sums of it. Expanding instead, e.g.
``|v|^2 = |r|^2 - 2 S r.a + S^2 |a|^2``, subtracts terms that are up to 1e9 times larger than
the result when the attention is nearly one-hot (few tokens, ``beta sigma`` of 5 or more):
``3.1e5 - 6.2e5 + 3.1e5 = 2.6e-4`` at ``L = 2``, ``d = 200``, ``beta = sigma2 = 3``, where
``rho`` after one step was off by 1e-9 against a 60-digit evaluation of the same draws. The
chunked kernel (:mod:`._reduced_chunks`) knows ``S`` only after its last chunk and has to
expand; the others do not.

*Mini-batches.* For ``B > 1`` the in-plane parts of the gradients average directly.
The out-of-plane parts are ``y_b = sigma Z_b v_b`` with independent ``Z_b``; each
``y_b`` is rotation invariant in ``R^{n_out}`` given its norm (``Z_b -> O Z_b`` keeps
``Z_b^T Z_b`` and the in-plane data, and sends ``y_b`` to ``O y_b``), so its
direction is uniform and independent of everything else. The norm of a running sum
``Y`` is therefore updated exactly by ``||Y + y||^2 = ||Y||^2 + 2 ||Y|| ||y|| cos +
||y||^2`` with ``cos`` the first coordinate of a uniform unit vector of ``R^{n_out}``:
``cos = g / sqrt(g^2 + chi2_{n_out-1})``, ``g ~ N(0, 1)`` (two extra draws per member).

*The step.* With ``gbar`` the batch average, ``P_q gbar`` has in-plane part
``c (rho_perp e1 - rho e2)``, ``c = rho_perp gbar1 - rho gbar2``, and out-of-plane part
``gbar_o``, ``G = ||gbar_o||^2 = (2 beta / B)^2 ||sum_b y_b||^2``. So

    q + eta P_q gbar = (rho + eta rho_perp c) e1 + (rho_perp - eta rho c) e2 + eta gbar_o,
    rho' = (rho + eta rho_perp c) / N,   rho_perp' = sqrt((rho_perp - eta rho c)^2 + eta^2 G) / N,
    N^2 = (rho + eta rho_perp c)^2 + (rho_perp - eta rho c)^2 + eta^2 G.

The law of ``(rho', rho_perp')`` depends on ``q`` only through ``rho``: the chain is Markov
and this is one exact transition. ``rho_perp'`` is tracked alongside ``rho'`` so that
``1 - rho^2`` never has to be recovered by cancellation. For ``d = 2`` (``n_out = 0``)
there is no out-of-plane part (``t = 0``, ``G = 0``): ``2L`` draws per member.

Draw order per run and batch member (one generator per run): ``n1, n2[, n3]``
(one call), the ``R`` signal strengths ``s_i`` if the prior is not ``fixed``
(:meth:`theory._laws.Prior.sample`), ``[chi, chi']``, and for members
after the first the pair ``(g, chi2_{n_out-1})`` of the batch composition.
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np


def _chi2_pair(gen: np.random.Generator, n_out: int) -> tuple[float, float]:
    """``[chi2_{n_out}, chi2_{n_out-1}]`` as ``2 * Gamma(k/2)`` (``Gamma(0) = 0``)."""
    # two scalar calls: the array-shape form of standard_gamma costs ~50 us of checks
    return 2.0 * gen.standard_gamma(n_out / 2.0), 2.0 * gen.standard_gamma((n_out - 1) / 2.0)


class StepScalars(NamedTuple):
    """One run's step (one batch member): the in-plane gradient ``(g1, g2)``, the squared norm
    ``zv2 = ||sigma Z v||^2`` of its out-of-plane part, the nuisance mass, the objective and the
    chi-square pair ``(chi, chi')`` it drew (``zv2`` and the pair are 0 at ``d = 2``)."""

    g1: float
    g2: float
    zv2: float
    nuisance: float
    objective: float
    chi: float
    chi1: float


class Gradient(NamedTuple):
    """The gradient of one token collection per run (or its batch average), each (runs,): in
    plane ``(g1, g2)``, ``out2`` the squared norm of the out-of-plane part (``||sigma Z v||^2``
    for one member, ``G`` for the batch average), the nuisance mass and the objective."""

    g1: np.ndarray
    g2: np.ndarray
    out2: np.ndarray
    nuisance: np.ndarray
    objective: np.ndarray


def _out_of_plane_step(beta, sigma2, attention, chis, G, vv) -> StepScalars:
    """The end of one run's step at ``d >= 3`` (plain floats), shared by every reduced kernel
    (compiled from this source in :mod:`._fused`): from ``G = Z (v.c1, v.c2, v.n3, v.a)`` and
    ``vv = Z^2 |v|^2`` (``v = r - S a``), ``attention = (Z, S, a.n3, |a|, nuisance sum)`` (``S =
    |f|^2`` the objective) and the chi-square pair ``chis = (chi, chi')``."""
    Z, S, an3, na, nuisance = attention
    chi, chi1 = chis
    sq = math.sqrt(chi)
    G1, G2, G3, Ga = G
    va = Ga / Z / na  # v.a_hat
    hv = G3 / Z - (an3 / na) * va  # h.v = n3.v - (a_hat.n3)(a_hat.v)
    vv = vv / (Z * Z)
    w2 = max(vv - va * va, 0.0)
    zv2 = sigma2 * ((sq * va + hv) ** 2 + w2 * chi1)
    return StepScalars(2.0 * beta * G1 / Z, 2.0 * beta * G2 / Z, zv2, nuisance / Z, S, chi, chi1)


def step_update(rho, rho_perp, c, G, eta):
    """The exact transition (module docstring, "The step"): from ``(rho, rho_perp)``, the
    in-plane coefficient ``c = rho_perp g1 - rho g2`` of ``P_q g`` and the squared norm ``G`` of
    its out-of-plane part, ``(rho', rho_perp')`` after a step ``eta`` (broadcast)."""
    x1 = rho + eta * rho_perp * c
    x2 = rho_perp - eta * rho * c
    out2 = eta * eta * G
    norm = np.sqrt(x1 * x1 + x2 * x2 + out2)
    return x1 / norm, np.sqrt(x2 * x2 + out2) / norm


class ReducedKernel:
    """State ``(rho, rho_perp)`` (runs,) of the exact reduced chain; see :func:`numerics.simulate`.

    Work buffer ``W`` (runs, rows + 2, L): per run the rows ``c1, c2[, n3]``, the unnormalised
    attention ``e = exp(u - shift)`` and, last, the constant nuisance indicator ``1{i >= R}``.
    A run's O(L) reductions are four products with its rows: ``W e`` gives
    ``Z (a.c1, a.c2[, a.n3], a.e)`` and the nuisance mass ``sum_{i >= R} e_i`` at once,
    ``<x_i, f> = lin . W_i`` one pass, ``W (e <x, f>)`` the averages ``Z (r.c1, r.c2[, r.n3], r.e)``;
    the softmax normalisation ``a = e / Z`` is folded into per-run scalars (Python floats), and
    ``S = sum_i r_i = <f, f>`` is the objective itself (``sum_i a_i <x_i, f> = <sum_i a_i x_i, f>``).

    Each run's step is computed right after its draws, while its block of ``(rows + 2) L``
    floats (336 kB at ``L = 10,500``) is still in the core's cache: the blocks of all runs
    (10 MB for 30 runs) are not, and passes batched over all runs re-read every row from
    the shared cache or from memory.

    The shift is 0 (no pass for the maximum) unless the run's ``Z = sum e`` leaves
    ``[Z_LOW, Z_HIGH]``; then its step is recomputed with ``shift = max u``. Softmax is shift
    invariant, so either is the same step.
    """

    #: accept the unshifted ``e = exp(u)`` while ``Z_LOW <= Z <= Z_HIGH``: then every ``e_i <= Z``
    #: and ``e_i^2 <x_i, f>^2`` stay far inside the double range, and tokens that underflow
    #: weigh less than ``exp(-600)`` against the largest
    Z_LOW, Z_HIGH = 1e-30, 1e30

    def __init__(self, problem, generators, rho0: np.ndarray):
        self._init_state(problem, generators, rho0)
        runs, L, R, k = len(generators), problem.L, problem.R, self.rows
        self.work = np.zeros((runs, k + 2, L))
        self.work[:, k + 1, R:] = 1.0
        self._xf = np.zeros(L)  # <x_i, f>, then e_i <x_i, f>, of the run being computed
        self._coef = np.zeros((runs, 2))  # beta (rho, rho_perp) per run
        width = k + 1 if self.n_out >= 1 else 2  # the rows <x_i, f> is linear in
        # per run: token rows (drawn), c1 of the informative tokens, (c1, c2), e, the rows of
        # <x_i, f>, the scores' coefficients, e of the informative tokens, the whole block
        self._views = [(W[:k], W[0, :R], W[:2], W[k], W[:width], self._coef[i], W[k, :R], W)
                       for i, W in enumerate(self.work)]
        p = problem
        self._constants = (R, p.beta, p.theta, p.sigma2, self.law.family == "fixed", self.n_out)

    def _init_state(self, problem, generators, rho0: np.ndarray) -> None:
        """The state every variant of the kernel shares: ``(rho, rho_perp)``, the in-plane rows
        and the per-run chi-square and composition draws (not the token buffers)."""
        self.problem, self.gens = problem, generators
        self.n_out = problem.d - 2
        self._rho = np.array(rho0, dtype=float)
        self._rho_perp = np.sqrt(np.maximum(0.0, 1.0 - self._rho**2))
        self.rows = 3 if self.n_out >= 1 else 2
        self.law = problem.prior
        self.chi = np.zeros((len(generators), 2))
        self.compose = np.zeros((len(generators), 2))
        #: the runs still stepped (all until :meth:`retire`); a retired run draws nothing more
        self._active = list(range(len(generators)))
        self._retired = np.zeros(len(generators), bool)

    def retire(self, runs) -> None:
        """Stop stepping ``runs`` (indices): they draw nothing more, their ``rho`` stays where it
        is and their entries of :meth:`step`'s results are 0. Each run has its own generator,
        so the others' draws, and hence their paths, do not change."""
        self._retired[np.asarray(runs, dtype=int)] = True
        self._active = np.flatnonzero(~self._retired).tolist()

    @property
    def rho(self) -> np.ndarray:
        return self._rho.copy()

    def _draw_out_of_plane(self, i: int, gen: np.random.Generator, first: bool) -> tuple[float, float]:
        """Run ``i``'s out-of-plane draws at ``d >= 3``, after its tokens: returns the chi-square pair
        ``(chi, chi')``; after the first member of a batch, the composition pair goes to
        ``compose[i]``."""
        chi = _chi2_pair(gen, self.n_out)
        if not first:
            self.compose[i] = gen.standard_normal(), 2.0 * gen.standard_gamma((self.n_out - 1) / 2.0)
        return chi

    def _member(self, first: bool) -> Gradient:
        """One token collection per run."""
        p = self.problem
        np.multiply(p.beta, self._rho, out=self._coef[:, 0])
        np.multiply(p.beta, self._rho_perp, out=self._coef[:, 1])
        run = self._run
        # an unshifted exp that overflows (inf, then inf * 0 = nan in the sums) is redone shifted;
        # any other non-finite result is reported below, as numpy would have
        with np.errstate(over="ignore", invalid="ignore"):
            if len(self._active) == len(self.gens):
                out = np.array([run(i, gen, first, views)
                                for i, (gen, views) in enumerate(zip(self.gens, self._views, strict=True))])
            else:  # retired runs: no draws, zero gradient, nuisance and objective
                out = np.zeros((len(self.gens), len(StepScalars._fields)))
                if self._active:
                    out[self._active] = [run(i, self.gens[i], first, self._views[i]) for i in self._active]
                if self.n_out >= 1:
                    out[self._retired, 5:] = self.chi[self._retired]
                    self.compose[self._retired] = 0.0, 1.0  # cos = 0: the zero member adds nothing
        if not np.isfinite(out).all():
            warnings.warn("the reduced step produced non-finite values", RuntimeWarning, stacklevel=3)
        if self.n_out >= 1:
            self.chi[:] = out[:, 5:]
        return Gradient(*out[:, :5].T)

    def _run(self, i: int, gen, first: bool, views) -> StepScalars:
        """Run ``i``: its draws (tokens, signal strengths, out-of-plane), then its step's sums and
        scalars in Python floats."""
        R, beta, theta, sigma2, fixed, n_out = self._constants
        tokens, c1_info, c12, e, lin_rows, coef, e_info, W = views
        gen.standard_normal(out=tokens)
        signs = None if fixed else self.law.sample(gen, R)
        if n_out >= 1:
            chi, chi1 = self._draw_out_of_plane(i, gen, first)
        if sigma2 != 1.0:
            np.multiply(c12, math.sqrt(sigma2), out=c12)  # rows 0, 1 become sigma n1, sigma n2
        if R and theta:
            np.add(c1_info, theta if fixed else theta * signs, out=c1_info)
        np.dot(coef, c12, out=e)  # u = beta (rho c1 + rho_perp c2)
        np.exp(e, out=e)
        sums = np.dot(W, e).tolist()  # Z (a.c1, a.c2[, a.n3], a.e), nuisance sum
        Z = sums[-1] + float(e_info.sum()) if R else sums[-1]
        if not self.Z_LOW <= Z <= self.Z_HIGH:  # scores too large or too small for shift 0
            u = np.dot(coef, c12, out=e)
            u -= u.max()
            np.exp(u, out=e)
            sums = np.dot(W, e).tolist()
            Z = sums[-1] + float(e_info.sum()) if R else sums[-1]
        f1, f2 = sums[0] / Z, sums[1] / Z
        obj = f1 * f1 + f2 * f2
        xf = self._xf
        if n_out < 1:
            np.dot((f1, f2), lin_rows, out=xf)  # <x_i, f>
            np.multiply(e, xf, out=xf)  # Z r
            xf -= obj * e  # Z v = Z (r - S a), S = sum_i r_i = <f, f>
            G1, G2 = np.dot(lin_rows, xf).tolist()
            return StepScalars(2.0 * beta * G1 / Z, 2.0 * beta * G2 / Z, 0.0, sums[-1] / Z, obj, 0.0, 0.0)
        an3, na2 = sums[2] / Z, sums[3] / Z / Z
        na, sq = math.sqrt(na2), math.sqrt(chi)
        # t = sigma2 [a (chi - sqrt(chi) a.n3 / ||a||) + ||a|| sqrt(chi) n3], a = e / Z
        np.dot((f1, f2, sigma2 * na * sq, sigma2 * (chi - sq * an3 / na) / Z), lin_rows, out=xf)  # <x_i, f>
        obj += sigma2 * na2 * chi
        np.multiply(e, xf, out=xf)  # Z r
        xf -= obj * e  # Z v = Z (r - S a), S = sum_i r_i = <f, f>
        G = np.dot(lin_rows, xf).tolist()  # Z (v.c1, v.c2, v.n3, v.e)
        G[3] /= Z  # Z v.a
        return _out_of_plane_step(beta, sigma2, (Z, obj, an3, na, sums[-1]), (chi, chi1), G, float(np.dot(xf, xf)))

    def gradient(self, after_member=None) -> Gradient:
        """One batch of token collections per run, without moving: the batch average.
        ``after_member(b)``, if given, is called after member ``b``'s sums, while :attr:`work`
        still holds its tokens."""
        p = self.problem
        g1, g2, Y2, nuisance, obj = self._member(first=True)
        if after_member is not None:
            after_member(0)
        for b in range(1, p.batch):
            h1, h2, z2, nm, ob = self._member(first=False)
            if after_member is not None:
                after_member(b)
            g1, g2, nuisance, obj = g1 + h1, g2 + h2, nuisance + nm, obj + ob
            if self.n_out >= 1:
                g, c2 = self.compose[:, 0], self.compose[:, 1]
                cos = g / np.sqrt(g * g + c2)
                Y2 = np.maximum(Y2 + 2.0 * np.sqrt(Y2 * z2) * cos + z2, 0.0)
        B = p.batch
        return Gradient(g1 / B, g2 / B, (2.0 * p.beta / B) ** 2 * Y2, nuisance / B, obj / B)

    def step(self, eta: float):
        g1, g2, G, nuisance, obj = self.gradient()
        rho, rho_perp = self._rho, self._rho_perp
        c = rho_perp * g1 - rho * g2
        new_rho, new_perp = step_update(rho, rho_perp, c, G, eta)
        if len(self._active) == len(self.gens):
            self._rho, self._rho_perp = new_rho, new_perp
        else:  # a retired run keeps its state exactly (its zero step would renormalise by ~1 ulp)
            live = ~self._retired
            self._rho = np.where(live, new_rho, rho)
            self._rho_perp = np.where(live, new_perp, rho_perp)
        return nuisance, obj
