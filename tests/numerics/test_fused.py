"""The compiled reduced kernels (``numerics/_simulate/_fused.py``) against the numpy kernels they replace in
:func:`numerics.simulate`: the same draws (generator states equal after every step, which holds
by construction), the same chain to rounding on random models across the supported space
(priors, beta, sigma2, theta, d, L, R including 0 and L, batches, chunks), the shifted step when
the scores overflow, and :func:`vexp` against numpy's ``exp`` and against mpmath."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigrec.numerics import LONG_CONTEXT, Problem, spawn_generators
from sigrec.numerics._simulate._driver import reduced_kernel
from sigrec.numerics._simulate._fused import FusedChunkedKernel, FusedReducedKernel, _jit, vexp
from sigrec.numerics._simulate._reduced import ReducedKernel
from sigrec.numerics._simulate._reduced_chunks import ChunkedReducedKernel

PRIORS = ["fixed", "rademacher", "gaussian(mu=1, tau=0.5)"]


@_jit
def vexp_array(u, out):
    """``out = exp(u)`` elementwise with :func:`vexp`."""
    for i in range(u.shape[0]):
        out[i] = vexp(u[i])



def _ulps(x: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``|x - ref|`` in units of the last place of ``ref`` (``ref`` finite, nonzero)."""
    return np.abs(x - ref) / np.spacing(np.abs(ref))


@pytest.mark.parametrize("lo, hi", [(-745.0, -708.0), (-708.0, -40.0), (-40.0, 40.0), (-1e-6, 1e-6),
                                    (40.0, 709.78)])
def test_vexp_is_within_one_ulp_of_numpy(lo, hi):
    x = np.random.default_rng(int(abs(lo) * 7 + hi)).uniform(lo, hi, 200_000)
    out = np.empty_like(x)
    vexp_array(x, out)
    ref = np.exp(x)
    nonzero = ref > 0
    assert np.array_equal(out == 0, ref == 0)
    assert _ulps(out[nonzero], ref[nonzero]).max() <= 1.0


def test_vexp_against_mpmath():
    """An independent route: the correctly rounded ``exp`` (mpmath at 60 digits) on points spread
    over the whole range, subnormal results included."""
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-745.0, 709.78, 300), rng.normal(0.0, 5.0, 300), [0.5 * np.log(2.0)]])
    out = np.empty_like(x)
    vexp_array(x, out)
    with mpmath.workdps(60):
        ref = np.array([float(mpmath.exp(mpmath.mpf(float(v)))) for v in x])
    assert _ulps(out[ref > 0], ref[ref > 0]).max() <= 1.0


def test_vexp_special_values_are_numpys():
    x = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 709.782712893384, 709.79, 710.0, -745.13,
                  -745.14, -746.0, 1e300, -1e300, 5e-324])
    out = np.empty_like(x)
    vexp_array(x, out)
    with np.errstate(over="ignore"):
        ref = np.exp(x)
    assert np.array_equal(out, ref, equal_nan=True)


def _pair(fused_cls, numpy_cls, p, seed, runs=3, **kw):
    rho0 = np.random.default_rng(seed + 1000).uniform(-0.95, 0.95, runs)
    a = numpy_cls(p, spawn_generators(seed, runs), rho0, **kw)
    b = fused_cls(p, spawn_generators(seed, runs), rho0, **kw)
    return a, b


def _same_chain(a, b, steps=3, eta=0.05, tol=1e-9):
    """``steps`` steps of both kernels from the same state, each step compared and then ``b`` set
    to ``a``'s state: what is compared is one step's rounding, not its growth along a chain
    (at ``beta sigma2 ~ 10`` and ``d = 200`` the chain amplifies a difference of 1e-13 in a few
    steps)."""
    for _ in range(steps):
        na, oa = a.step(eta)
        nb, ob = b.step(eta)
        # the same draws: every generator is in the same state after the step
        assert [g.bit_generator.state for g in a.gens] == [g.bit_generator.state for g in b.gens]
        np.testing.assert_allclose(b.rho, a.rho, rtol=0, atol=tol)
        np.testing.assert_allclose(nb, na, rtol=tol, atol=1e-300)
        np.testing.assert_allclose(ob, oa, rtol=tol, atol=1e-300)
        b._rho, b._rho_perp = a._rho.copy(), a._rho_perp.copy()


_models = st.fixed_dictionaries({
    "d": st.sampled_from([2, 3, 4, 30, 200]),
    "L": st.integers(2, 400),  # L = 1: test_one_token_does_not_move
    "r": st.floats(0.0, 1.0),
    "beta": st.floats(0.1, 5.0),
    "sigma2": st.floats(0.2, 4.0),
    "theta": st.floats(0.0, 4.0),
    "prior": st.sampled_from(PRIORS),
    "batch": st.sampled_from([1, 1, 2, 3]),
    "seed": st.integers(0, 10_000),
})


def _problem(m) -> Problem:
    return Problem(theta=m["theta"], R=round(m["r"] * m["L"]), L=m["L"], d=m["d"], beta=m["beta"],
                   sigma2=m["sigma2"], prior=m["prior"], batch=m["batch"])


#: one step's agreement of the chunked kernels over the whole space of the strategy above.
#: Where the attention is nearly one-hot (few tokens, ``beta sigma`` of 5 or more), both expand
#: ``Z^2 |v|^2 = Z^2 |r|^2 - 2 S Z r.e + S^2 |e|^2``, a difference of terms up to 1e9 times larger
#: than itself (numerics/_simulate/_reduced.py, "Rounding"), so their two roundings differ by up to about
#: 1e-9 in ``rho`` there. The kernels that hold every token sum ``v`` itself and agree to 1e-9.
LOOSE = 1e-7


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_models)
def test_fused_kernel_is_the_numpy_kernels_chain(m):
    a, b = _pair(FusedReducedKernel, ReducedKernel, _problem(m), m["seed"])
    _same_chain(a, b, tol=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_fused_kernel_agrees_to_1e_9_on_random_models(seed):
    """Random models with ``beta sigma <= 3`` and ``L >= 20`` (no one-hot attention): the chains
    agree to 1e-9 after five steps."""
    rng = np.random.default_rng(seed)
    L = int(rng.integers(20, 3000))
    p = Problem(theta=float(rng.uniform(0, 3)), R=int(rng.integers(0, L + 1)), L=L,
                d=int(rng.choice([2, 3, 5, 100])), beta=float(rng.uniform(0.2, 2.0)),
                sigma2=float(rng.uniform(0.3, 2.2)), prior=str(rng.choice(PRIORS)),
                batch=int(rng.choice([1, 1, 3])))
    a, b = _pair(FusedReducedKernel, ReducedKernel, p, seed)
    for _ in range(5):
        a.step(0.05)
        b.step(0.05)
    np.testing.assert_allclose(b.rho, a.rho, rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_models, st.integers(1, 300))
def test_fused_chunked_kernel_is_the_numpy_chunked_kernels_chain(m, chunk):
    a, b = _pair(FusedChunkedKernel, ChunkedReducedKernel, _problem(m), m["seed"], chunk=chunk)
    _same_chain(a, b, tol=LOOSE)
    assert (a.shifts, a.raises) == (b.shifts, b.raises)


@pytest.mark.parametrize("d", [2, 40])
@pytest.mark.parametrize("beta", [150.0, 1e-3])
def test_scores_out_of_range_take_the_shifted_step(d, beta):
    """``beta = 150``: ``exp`` of the unshifted scores overflows (``Z = inf``), and the step is
    redone with the shift ``max u``; ``beta = 1e-3`` stays unshifted. Both as numpy's kernel,
    with no warning."""
    p = Problem(theta=3.0, R=5, L=400, d=d, beta=beta, sigma2=4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = _pair(FusedReducedKernel, ReducedKernel, p, 3)
        # with beta = 150 the step is near-hard attention: rounding in the sums moves rho by ~1e-12
        _same_chain(a, b, steps=3, eta=1e-4, tol=1e-10)
        a, b = _pair(FusedChunkedKernel, ChunkedReducedKernel, p, 3, chunk=64)
        _same_chain(a, b, steps=3, eta=1e-4, tol=1e-10)
        assert (a.shifts > 0) == (beta > 1) and a.shifts == b.shifts


@pytest.mark.parametrize("d", [2, 200])
def test_one_token_does_not_move(d):
    """With one token the attention is 1 and the gradient ``2 beta (|x|^2 x - |x|^2 x)`` is 0, so
    ``rho`` stays where it is; numerically the step is rounding noise (the out-of-plane norm is a
    difference of equal terms), which the two kernels round differently: both stay within 1e-7."""
    p = Problem(theta=0.0, R=0, L=1, d=d, beta=2.0, sigma2=4.0)
    a, b = _pair(FusedReducedKernel, ReducedKernel, p, 1)
    rho0 = a.rho
    for _ in range(3):
        a.step(0.05)
        b.step(0.05)
    assert np.abs(a.rho - rho0).max() < 1e-7 and np.abs(b.rho - rho0).max() < 1e-7


def test_retired_runs_draw_nothing_in_the_fused_kernel():
    p = Problem(theta=1.0, R=10, L=120, d=9, beta=1.4, sigma2=0.8)
    a, b = _pair(FusedReducedKernel, ReducedKernel, p, 5, runs=4)
    for k in (a, b):
        k.retire([1, 3])
    before = [g.bit_generator.state for g in b.gens]
    _same_chain(a, b, steps=2)
    after = [g.bit_generator.state for g in b.gens]
    assert before[1] == after[1] and before[3] == after[3] and before[0] != after[0]
    assert b.rho[1] == a.rho[1]


def test_simulate_runs_the_fused_kernels():
    assert reduced_kernel(1000) is FusedReducedKernel
    assert reduced_kernel(LONG_CONTEXT) is FusedReducedKernel
    assert reduced_kernel(LONG_CONTEXT + 1) is FusedChunkedKernel
