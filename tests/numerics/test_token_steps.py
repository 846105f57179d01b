"""``numerics.count_token_steps``: the token-steps the samplers draw, counted exactly.

The independent routes: the definition (``runs x steps x L x batch`` for a plain simulation), the
recorded path of a run stopped by ``stop_outside`` (its first exit step is the number of steps it
drew in the reduced simulator), and the same simulation split over a local dask cluster.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sigrec.numerics import (
    Problem,
    Schedule,
    SimulationOptions,
    count_token_steps,
    gradient_features,
    measured_law,
    simulate,
    spawn_generators,
)

STOP = (-0.45, 0.5)


def _exit_steps(sim, steps: int) -> np.ndarray:
    """Each run's first step outside ``STOP`` (``steps`` if it never left), read off its path (stride 1)."""
    out = (sim.rho <= STOP[0]) | (sim.rho >= STOP[1])
    return np.where(out.any(axis=1), out.argmax(axis=1), steps)


@pytest.mark.parametrize("simulator", ["reduced", "full"])
def test_a_plain_simulation_counts_runs_steps_tokens_and_batch(simulator):
    p = Problem(theta=2.0, R=20, L=150, d=4, batch=3)
    with count_token_steps() as cost:
        simulate(p, Schedule.constant(0.05), steps=7, runs=5, seed=1, options=SimulationOptions(simulator=simulator))
    assert cost.token_steps == 5 * 7 * 150 * 3 and cost.simulations == 1
    assert cost.by_sampler == {"simulate": 5 * 7 * 150 * 3} and cost.cpu_elsewhere == 0.0


def test_a_subspace_simulation_counts_the_same_way():
    p = Problem(theta=1.0, R=20, L=120, d=8, prior="onehot(k=2)").with_heads(2)
    with count_token_steps() as cost:
        simulate(p, Schedule.constant(0.05), steps=4, runs=3, seed=2)
    assert cost.token_steps == 3 * 4 * 120


def test_a_stopped_run_counts_the_steps_it_took():
    """Reduced: each run draws up to its exit and nothing after (exactly the sum of the exit steps);
    full: it is stepped (and discarded) until the last run has stopped."""
    p, steps = Problem(2.0, 20, 200, 3, batch=2), 300
    for simulator in ("reduced", "full"):
        with count_token_steps() as cost:
            sim = simulate(p, Schedule.constant(0.05), steps=steps, runs=8, rho0=0.0, seed=4,
                           options=SimulationOptions(stop_outside=STOP, simulator=simulator))
        exits = _exit_steps(sim, steps)
        assert 0 < exits.max() < steps  # every run stopped early: the count is not the plain one
        drawn = exits.sum() if simulator == "reduced" else exits.max() * exits.size
        assert cost.token_steps == drawn * p.L * p.batch, simulator


def test_a_cluster_counts_what_in_process_counts():
    """Blocks of runs on two worker processes: the same count, taken on the client from what the
    blocks return, and their CPU seconds reported as spent elsewhere."""
    p, steps = Problem(2.0, 20, 200, 3), 300
    counts = {}
    for workers in (1, 2):
        with count_token_steps() as cost:
            simulate(p, Schedule.constant(0.05), steps=steps, runs=8, rho0=0.0, seed=4,
                     options=SimulationOptions(stop_outside=STOP, workers=workers))
            simulate(p, Schedule.constant(0.05), steps=20, runs=6, seed=5, options=SimulationOptions(workers=workers))
        counts[workers] = cost
    assert counts[2].token_steps == counts[1].token_steps and counts[2].simulations == 2
    assert counts[1].cpu_elsewhere == 0.0 and counts[2].cpu_elsewhere > 0.0


def test_blocks_nest_and_threads_count_apart():
    p = Problem(theta=1.0, R=10, L=50, d=3)
    seen = {}

    def other():
        with count_token_steps() as mine:
            simulate(p, Schedule.constant(0.1), steps=3, runs=2, seed=0)
        seen["other"] = mine.token_steps

    with count_token_steps() as outer:
        simulate(p, Schedule.constant(0.1), steps=2, runs=1, seed=0)
        with count_token_steps() as inner:
            simulate(p, Schedule.constant(0.1), steps=1, runs=4, seed=0)
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert inner.token_steps == 4 * 50 and outer.token_steps == (2 + 4) * 50
    assert seen["other"] == 3 * 2 * 50  # its own thread's draws, in neither of these blocks
    with count_token_steps() as none:
        pass
    assert none.token_steps == 0.0 and none.simulations == 0


def test_the_one_step_samplers_count_their_collections():
    """``gradient_features``: one collection per generator; ``measured_law``: one exact step per draw at
    each grid point (``law.runs``)."""
    p = Problem(theta=1.0, R=10, L=80, d=3, batch=2)
    with count_token_steps() as cost:
        gradient_features(p, 0.3, spawn_generators(1, 7))
    assert cost.by_sampler == {"gradient_features": 7 * 80 * 2} and cost.simulations == 0
    with count_token_steps() as cost:
        law = measured_law(p, 0.05, grid=np.linspace(-0.5, 0.5, 3), runs=500, seed=1)
    assert cost.by_sampler == {"measured_law": int(law.runs.sum()) * 80 * 2}
