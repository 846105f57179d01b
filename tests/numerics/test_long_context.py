"""The reduced chain in token chunks (``numerics/_simulate/_reduced_chunks.py``) against the kernel that
holds every token: the same step on the same tokens, the same law, and memory that does not
grow with ``L``. Models away from the defaults (beta, sigma2, priors, batch, d = 2)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.stats import ks_2samp

from sigrec.numerics import LONG_CONTEXT, Problem, Schedule, kernel_floats, simulate, spawn_generators
from sigrec.numerics._simulate._reduced import ReducedKernel
from sigrec.numerics._simulate._reduced_chunks import ChunkedReducedKernel

from ._draws import DrawRecorder

MODELS = [
    dict(theta=2.5, R=40, L=300, d=7, beta=1.7, sigma2=0.6, batch=2),
    dict(theta=0.8, R=20, L=300, d=2, beta=1.3, sigma2=0.7),
    dict(theta=1.2, R=30, L=257, d=5, sigma2=1.4, beta=0.6),
]


class _Replay:
    """Serves the recorded draws to :class:`ReducedKernel`, the chunks of one collection's
    ``(rows, L)`` normals joined along the token axis."""

    def __init__(self, recorder, L):
        self.rec, self.L = recorder, L

    def standard_normal(self, size=None, out=None):
        if out is None:
            kind, x = self.rec.log.popleft()
            assert kind == "normal" and np.ndim(x) == 0
            return x
        parts, n = [], 0
        while n < self.L:
            kind, x = self.rec.log.popleft()
            assert kind == "normal" and x.ndim == 2
            parts.append(x)
            n += x.shape[1]
        out[...] = np.concatenate(parts, axis=1)
        return out

    def standard_gamma(self, shape):
        kind, x = self.rec.log.popleft()
        assert kind == "gamma"
        return x


@pytest.mark.parametrize("kw", MODELS, ids=["bistable-batch2", "d2", "odd-L"])
@pytest.mark.parametrize("chunk", [10**9, 64, 100])
def test_the_chunked_step_is_the_same_step_on_the_same_tokens(kw, chunk):
    """Fed the tokens the chunked kernel drew (chunks of 64 or 100 tokens, or one chunk), the
    kernel that holds every token takes the same steps: alignments and nuisance masses agree to
    rounding after 25 steps from starts across [-0.95, 0.95] (the running maximum of the scores
    moves between chunks: theta = 2.5 puts the informative tokens' scores far above the rest)."""
    p = Problem(**kw)
    runs = 6
    recorders = [DrawRecorder(g) for g in spawn_generators(11, runs)]
    rho0 = np.linspace(-0.95, 0.95, runs)
    chunked = ChunkedReducedKernel(p, recorders, rho0, chunk=chunk)
    direct = ReducedKernel(p, [_Replay(r, p.L) for r in recorders], rho0)
    for _ in range(25):
        a = chunked.step(0.2)
        b = direct.step(0.2)
        np.testing.assert_allclose(chunked.rho, direct.rho, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a[0], b[0], rtol=1e-11, atol=1e-14)  # nuisance mass
        np.testing.assert_allclose(a[1], b[1], rtol=1e-11, atol=1e-14)  # objective
    assert all(not r.log for r in recorders)  # every draw consumed, in order


def test_the_chunked_chain_has_the_law_of_the_reduced_chain():
    """Priors with random signal strengths (drawn per chunk) too: two-sample KS of rho after 1 and
    6 steps, chunks of 50 tokens against the whole collection, independent seeds."""
    p = Problem(theta=1.5, R=60, L=240, d=6, beta=1.2, sigma2=0.8, prior="gaussian(mu=1, tau=0.5)")
    runs = 600
    out = {}
    for name, factory, seed in (("direct", ReducedKernel, 1), ("chunked", ChunkedReducedKernel, 2)):
        gens = spawn_generators(seed, runs)
        kernel = factory(p, gens, np.full(runs, 0.2)) if factory is ReducedKernel else \
            factory(p, gens, np.full(runs, 0.2), chunk=50)
        rows = []
        for k in range(6):
            kernel.step(0.3)
            if k in (0, 5):
                rows.append(kernel.rho)
        out[name] = rows
    for a, b in zip(out["direct"], out["chunked"], strict=True):
        assert ks_2samp(a, b).pvalue > 0.01 / 2
    assert abs(out["direct"][1].mean() - out["chunked"][1].mean()) > 0  # not the same draws


def _peak(L: int) -> tuple[int, np.ndarray]:
    p = Problem(theta=1.0, R=L // 10, L=L, d=20)
    simulate(p, Schedule.constant(0.5), steps=1, runs=2, rho0=0.5, seed=3)  # warm the theory caches
    tracemalloc.start()
    sim = simulate(p, Schedule.constant(0.5), steps=2, runs=2, rho0=0.5, seed=3)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, sim.rho


def test_simulate_switches_to_chunks_beyond_the_long_context_limit():
    """``simulate`` beyond ``LONG_CONTEXT`` tokens holds chunk buffers, not the tokens: its peak
    traced memory is a fraction of one run's tokens in the whole-collection kernel, and doubling
    ``L`` does not raise it; the runs move as the theory says (a positive field at rho0 = 0.5)."""
    L = 4 * LONG_CONTEXT
    peak, rho = _peak(L)
    peak2, _ = _peak(2 * L)
    one_run = 8 * 4 * L  # bytes of one run's tokens in the whole-collection kernel (4 rows of L)
    assert kernel_floats("reduced", LONG_CONTEXT, 20) == 4 * LONG_CONTEXT
    assert kernel_floats("reduced", L, 20) == kernel_floats("reduced", 100 * L, 20)
    assert peak < one_run / 4, (peak, one_run)
    assert peak2 < 1.25 * peak + 2**16, (peak, peak2)
    assert np.all(rho[:, -1] > 0.5)
