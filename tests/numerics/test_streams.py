"""Run ``i``'s stream is child ``i`` of ``SeedSequence(seed)``, whichever block of runs asks for it."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.numerics import spawn_generators


@pytest.mark.parametrize("seed, runs, lo", [(0, 5, 0), (7, 1000, 990), (2**40 + 3, 64, 17)])
def test_a_block_of_runs_draws_the_spawned_childrens_streams(seed, runs, lo):
    children = np.random.SeedSequence(seed).spawn(runs)[lo:]
    block = spawn_generators(seed, runs, lo)
    assert len(block) == runs - lo
    for child, gen in zip(children, block, strict=True):
        assert np.array_equal(np.random.default_rng(child).integers(0, 2**63, 8), gen.integers(0, 2**63, 8))


def test_distinct_runs_draw_distinct_streams():
    a, b = spawn_generators(3, 2)
    assert not np.array_equal(a.integers(0, 2**63, 4), b.integers(0, 2**63, 4))
