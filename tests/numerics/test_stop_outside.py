"""``simulate(stop_outside=(a, b))``: runs stop at their first exit, which is the unstopped run's.

The independent route is the same simulation without ``stop_outside``: each run draws from
its own generator, so up to its first exit from ``(a, b)`` a stopped run must follow the
unstopped run's path exactly (same draws, same arithmetic), and the first exit, its side and
``numerics.exits`` must agree. Models away from ``beta = sigma2 = 1``, every simulator kernel
(reduced at d = 2 and d >= 3, batches, the chunked long-context kernel, the full recursion).
"""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, SimulationOptions, exits, simulate
from sigrec.numerics._simulate._driver import LONG_CONTEXT, _Block, _run_unit, record_indices


def _first_exit(rho, a, b):
    out = (rho <= a) | (rho >= b)
    return np.where(out.any(axis=1), out.argmax(axis=1), -1)


CASES = [
    # (problem, simulator, steps, eta, rho0, (a, b))
    (Problem(2.0, 20, 200, 3), "reduced", 400, 0.05, 0.0, (-0.45, 0.5)),
    (Problem(1.5, 10, 120, 2, beta=1.4, sigma2=0.6, batch=2), "reduced", 400, 0.05, 0.1, (-0.3, 0.55)),
    (Problem(1.2, 30, 300, 6, beta=0.7, sigma2=1.8, prior="rademacher", batch=3), "reduced", 300, 0.08, 0.0,
     (-0.4, 0.4)),
    (Problem(2.0, 12, 90, 4, beta=1.2, prior="gaussian(mu=1, tau=0.5)"), "full", 250, 0.05, 0.0, (-0.4, 0.45)),
]


@pytest.mark.parametrize("problem, simulator, steps, eta, rho0, interval", CASES)
def test_stopped_runs_follow_the_unstopped_paths_to_their_exit(problem, simulator, steps, eta, rho0, interval):
    a, b = interval
    sched = Schedule.constant(eta)
    kw = dict(steps=steps, runs=16, rho0=rho0, seed=11, stride=1)
    free = simulate(problem, sched, options=SimulationOptions(simulator=simulator), **kw)
    stopped = simulate(problem, sched, options=SimulationOptions(simulator=simulator, stop_outside=interval), **kw)
    f_free, f_stop = _first_exit(free.rho, a, b), _first_exit(stopped.rho, a, b)
    assert (f_free >= 0).sum() >= 8, "the case must exit for most runs to test anything"
    np.testing.assert_array_equal(f_free, f_stop)
    assert exits(free.rho, a, b) == exits(stopped.rho, a, b)
    for i, k in enumerate(f_free):
        end = stopped.rho.shape[1] if k < 0 else k + 1
        np.testing.assert_array_equal(stopped.rho[i, :end], free.rho[i, :end])  # same draws up to the exit
        if k >= 0:
            assert np.all(stopped.rho[i, k:] == free.rho[i, k])  # then it stays where it left
            assert np.all(np.isnan(stopped.noise_mass[i, k:])) and np.all(np.isnan(stopped.objective[i, k:]))
            assert not np.any(np.isnan(stopped.noise_mass[i, :k]))
            np.testing.assert_array_equal(stopped.noise_mass[i, :k], free.noise_mass[i, :k])


def test_the_loop_ends_when_every_run_has_stopped():
    """Every run leaves quickly: the recorded tail repeats the exits, and no run steps on (the
    call is far cheaper than the unstopped one: checked by the draws, not by a clock)."""
    problem = Problem(3.0, 40, 200, 3)
    sched = Schedule.constant(0.3)
    stopped = simulate(problem, sched, steps=5000, runs=6, rho0=0.5, seed=3, stride=50,
                       options=SimulationOptions(stop_outside=(0.0, 0.6)))
    free = simulate(problem, sched, steps=60, runs=6, rho0=0.5, seed=3, stride=1)
    k = _first_exit(free.rho, 0.0, 0.6)
    assert np.all(k >= 0)
    np.testing.assert_array_equal(stopped.rho[:, -1], free.rho[np.arange(6), k])
    assert stopped.rho.shape[1] == record_indices(5000, 50).size


def test_a_start_outside_stops_at_once():
    problem = Problem(1.0, 10, 100, 3)
    sim = simulate(problem, Schedule.constant(0.1), steps=20, runs=4, rho0=0.9, seed=1,
                   options=SimulationOptions(stop_outside=(-0.5, 0.5)))
    assert np.all(sim.rho == 0.9)
    assert np.all(np.isnan(sim.noise_mass))


def test_chunked_long_context_kernel_retires_runs_too():
    problem = Problem(3.0, 400, LONG_CONTEXT + 1000, 3, beta=1.5)
    sched = Schedule.constant(2.0)
    kw = dict(steps=12, runs=4, rho0=0.3, seed=2, stride=1)
    free = simulate(problem, sched, **kw)
    lo, hi = -0.9, float(np.median(free.rho[:, 4]))  # about half the runs exit by step 4
    stopped = simulate(problem, sched, options=SimulationOptions(stop_outside=(lo, hi)), **kw)
    k = _first_exit(free.rho, lo, hi)
    assert 0 < (k >= 0).sum()
    np.testing.assert_array_equal(k, _first_exit(stopped.rho, lo, hi))
    for i, ki in enumerate(k):
        end = free.rho.shape[1] if ki < 0 else ki + 1
        np.testing.assert_array_equal(stopped.rho[i, :end], free.rho[i, :end])


def test_a_block_of_runs_on_a_worker_stops_them_as_inline():
    """The unit a cluster runs (``_Block``) carries the interval: runs 3..7 of 8 as a block equal
    those runs of the inline call."""
    problem = Problem(2.0, 20, 200, 3)
    sched = Schedule.constant(0.05)
    inline = simulate(problem, sched, steps=300, runs=8, rho0=0.0, seed=4,
                      options=SimulationOptions(stop_outside=(-0.45, 0.5)))
    record = record_indices(300, 1)
    block = _Block(problem, "scalar", "reduced", 4, 8, 3, 8, 0.0, sched.eta(np.arange(300)), record, (-0.45, 0.5))
    out = _run_unit(block)
    np.testing.assert_array_equal(out.overlaps, inline.overlaps[3:])
    np.testing.assert_array_equal(out.out_gram, inline.out_gram[3:])
    np.testing.assert_array_equal(out.noise_mass, inline.noise_mass[3:])


@pytest.mark.parametrize("bad", [(0.5, 0.5), (0.6, -0.2), (0.1,), "ab", (0.0, float("nan"))])
def test_a_bad_interval_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="stop_outside"):
        simulate(Problem(1.0, 10, 100, 3), Schedule.constant(0.1), steps=5, runs=2, seed=1,
                 options=SimulationOptions(stop_outside=bad))


@pytest.mark.parametrize("d, batch", [(2, 1), (3, 2), (7, 1)])
def test_a_retired_run_draws_nothing_and_keeps_its_state(d, batch):
    from sigrec.numerics._simulate._init import spawn_generators
    from sigrec.numerics._simulate._reduced import ReducedKernel

    problem = Problem(1.0, 10, 100, d, batch=batch, prior="rademacher")
    gens = spawn_generators(9, 3)
    kernel = ReducedKernel(problem, gens, np.array([0.1, 0.2, 0.3]))
    kernel.step(0.1)
    kernel.retire([1])
    state, rho = gens[1].bit_generator.state, kernel.rho
    others = [g.bit_generator.state for g in (gens[0], gens[2])]
    for _ in range(3):
        noise, obj = kernel.step(0.1)
        assert noise[1] == 0.0 and obj[1] == 0.0 and noise[0] > 0.0
    assert gens[1].bit_generator.state == state
    assert kernel.rho[1] == rho[1]
    assert all(g.bit_generator.state != s for g, s in zip((gens[0], gens[2]), others, strict=True))
