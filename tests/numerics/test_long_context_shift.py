"""The chunked reduced kernel's shift (``numerics/_simulate/_reduced_chunks.py``): shift 0 until a chunk's
``sum e`` leaves ``[Z_LOW, Z_HIGH]``, then that chunk recomputed at its maximum and the sums so far
rescaled. Checked against :class:`ReducedKernel` (which holds every token and shifts by the
maximum of all of them) on the same draws, where scores are large enough to force the path."""

from __future__ import annotations

import warnings
from collections import deque

import numpy as np
import pytest

from sigrec.numerics import Problem, spawn_generators
from sigrec.numerics._simulate._reduced import ReducedKernel
from sigrec.numerics._simulate._reduced_chunks import ChunkedReducedKernel

from ._draws import DrawRecorder

# scores u = beta (rho c1 + rho_perp c2): beta theta = 75 and beta sigma = 25 to 30 put sum e far
# above Z_HIGH = 1e30 at shift 0; with rho0 <= -0.8, beta theta = 100 (R = L) puts it far below
# Z_LOW = 1e-30, and beta theta = 150 then tokens with beta sigma = 6 first below, then above
MODELS = {
    "large-scores-batch2": dict(theta=2.5, R=40, L=300, d=7, beta=30.0, sigma2=0.6, batch=2),
    "d2-large": dict(theta=3.0, R=20, L=300, d=2, beta=25.0, sigma2=1.3),
    "gaussian-prior": dict(theta=2.0, R=90, L=257, d=5, beta=20.0, sigma2=1.4,
                           prior="gaussian(mu=1, tau=0.5)"),
    "rademacher-d2": dict(theta=2.0, R=50, L=200, d=2, beta=18.0, prior="rademacher"),
    "all-informative-low": dict(theta=2.5, R=300, L=300, d=4, beta=40.0, sigma2=0.01),
    "low-then-raised": dict(theta=5.0, R=100, L=300, d=6, beta=30.0, sigma2=0.04),
}


def _starts(name, runs):
    """Starts across [-0.9, 0.9]; negative ones (informative scores far below 0) for the models
    whose scores are all low."""
    return np.linspace(-0.9, -0.8, runs) if "low" in name else np.linspace(-0.9, 0.9, runs)


def _close(kernel, direct, a, b):
    """Rounding: moments lose digits where attention sits on few tokens (``|r|^2`` and ``|v|^2``
    come from cancelling sums), 1e-11 in rho per step seen at beta theta = 75; the nuisance mass
    moves with rho as ``exp(beta theta rho)``."""
    np.testing.assert_allclose(kernel.rho, direct.rho, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-7, atol=1e-300)  # nuisance mass
    np.testing.assert_allclose(a[1], b[1], rtol=1e-9, atol=1e-14)  # objective


@pytest.mark.parametrize("name", sorted(MODELS))
def test_one_chunk_with_a_forced_shift_is_the_reduced_kernel_on_the_same_seed(name):
    """One chunk (``chunk >= L``) draws what :class:`ReducedKernel` draws, in its order: on the same
    seeds the chains agree to rounding over 8 steps, and the shifted path was taken."""
    p = Problem(**MODELS[name])
    runs = 5
    rho0 = _starts(name, runs)
    chunked = ChunkedReducedKernel(p, spawn_generators(21, runs), rho0, chunk=10**9)
    direct = ReducedKernel(p, spawn_generators(21, runs), rho0)
    for _ in range(8):
        eta = 0.3 / p.beta**2
        _close(chunked, direct, chunked.step(eta), direct.step(eta))
    assert chunked.shifts > 0 or name == "low-then-raised"  # its noise tokens keep sum e in range


class _Replay:
    """Serves a :class:`DrawRecorder`'s draws to :class:`ReducedKernel`: a collection's ``(rows, L)``
    normals are the chunks' blocks joined along the token axis, its ``R`` signal strengths the
    chunks' draws joined (set aside while the blocks are collected)."""

    def __init__(self, recorder, L):
        self.rec, self.L, self.pending = recorder, L, deque()

    def standard_normal(self, size=None, out=None):
        if out is None and size is None:
            kind, x = self.rec.log.popleft()
            assert kind == "normal" and np.ndim(x) == 0
            return x
        if out is None:
            return self._joined("normal", size)
        parts, n = [], 0
        while n < self.L:
            kind, x = self.rec.log.popleft()
            if kind == "normal" and np.ndim(x) == 2:
                parts.append(x)
                n += x.shape[1]
            else:
                self.pending.append((kind, x))
        out[...] = np.concatenate(parts, axis=1)
        return out

    def integers(self, low, high, size):
        return self._joined("integers", size)

    def _joined(self, kind, size):
        parts, n = [], 0
        while n < size:
            k, x = self.pending.popleft() if self.pending else self.rec.log.popleft()
            assert k == kind and np.ndim(x) == 1
            parts.append(x)
            n += len(x)
        assert n == size
        return np.concatenate(parts)

    def standard_gamma(self, shape):
        kind, x = self.rec.log.popleft()
        assert kind == "gamma"
        return x


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("chunk", [32, 100])
def test_shifts_raised_between_chunks_give_the_reduced_kernels_chain(name, chunk):
    """Chunks of 32 or 100 tokens: the shift is set on a first chunk and raised on later ones
    (more shifts than collections), and fed the same draws :class:`ReducedKernel` takes the same
    steps to rounding; the signal strengths of random priors are drawn per chunk."""
    p = Problem(**MODELS[name])
    runs = 5
    rho0 = _starts(name, runs)
    recorders = [DrawRecorder(g) for g in spawn_generators(5, runs)]
    chunked = ChunkedReducedKernel(p, recorders, rho0, chunk=chunk)
    direct = ReducedKernel(p, [_Replay(r, p.L) for r in recorders], rho0)
    steps = 8
    for _ in range(steps):
        eta = 0.3 / p.beta**2
        _close(chunked, direct, chunked.step(eta), direct.step(eta))
    assert all(not r.log for r in recorders)  # every draw consumed, in order
    assert chunked.shifts > 0
    if chunk == 32 and name != "all-informative-low":
        assert chunked.raises > 0


def test_a_chunk_that_overflows_is_not_accepted():
    """At shift 0 a chunk's ``exp`` overflows (scores near 1000): the step is finite and no
    warning leaks."""
    p = Problem(theta=10.0, R=30, L=200, d=3, beta=100.0)
    rho0 = np.array([0.99, 0.5])
    chunked = ChunkedReducedKernel(p, spawn_generators(2, 2), rho0, chunk=64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the overflow it recovers from is not reported
        out = chunked.step(1e-5)
    assert np.isfinite(chunked.rho).all() and np.isfinite(out[0]).all() and np.isfinite(out[1]).all()
    assert chunked.shifts >= 2
