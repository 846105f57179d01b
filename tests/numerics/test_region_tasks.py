"""Region certificates on the executor (numerics.certify_region_tasks): the subtrees of the
box as units give the serial certificate, in-process and on a real dask cluster."""

from __future__ import annotations

import pytest

from sigrec.numerics import certify_region_tasks, executor
from sigrec.theory import ModelBox, RegionOptions, certify

REGION = ((0.0, 5.0), (1e-4, 1.0))


def _content(cert) -> dict:
    doc = cert.as_dict()
    doc.pop("seconds")
    return doc


@pytest.fixture(scope="module")
def serial():
    return certify(ModelBox(*REGION), min_width=2.0 ** -6)


@pytest.mark.parametrize("depth", [0, 1, 3, 40])
def test_in_process_units_merge_into_the_serial_certificate(serial, depth):
    parallel = certify_region_tasks(ModelBox(*REGION), RegionOptions(min_width=2.0 ** -6), depth=depth)
    assert _content(parallel) == _content(serial)


def test_the_comparison_can_fail():
    """Another min width gives another tiling: the equality above is not vacuous."""
    a = certify_region_tasks(ModelBox(*REGION), RegionOptions(min_width=2.0 ** -5), depth=2)
    b = certify(ModelBox(*REGION), min_width=2.0 ** -6)
    assert _content(a) != _content(b) and a.boxes_count < b.boxes_count


def test_pending_boxes_are_the_unexamined_part():
    import math

    top = certify(ModelBox(*REGION), min_width=2.0 ** -6, depth=2)
    assert top.pending and "pending" in top.as_dict()
    assert [i for i, _ in top.pending] == sorted(i for i, _ in top.pending)
    # leaves above the cut plus the pending boxes tile the region: their measures add to 1
    def measure(bounds):
        (_, t0, t1), (_, a0, a1) = bounds
        return (t1 - t0) / 5.0 * math.log(a1 / a0) / math.log(1e4)

    assert math.isclose(sum(top.fractions.values()) + sum(measure(b) for _, b in top.pending), 1.0, rel_tol=1e-12)


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="sign_functions"):
        certify_region_tasks(ModelBox(*REGION), RegionOptions(sign_functions=lambda bm: None))
    with pytest.raises(ValueError, match="depth"):
        certify_region_tasks(ModelBox(*REGION), depth=-1)


def _executed(cluster) -> int:
    """Tasks the cluster's workers have run so far (the cluster is shared with other tests)."""
    with cluster.client() as c:
        return sum(c.run(lambda dask_worker: dask_worker.state.executed_count).values())


def test_a_real_scheduler_and_workers_give_the_serial_boxes(cluster, serial):
    before = _executed(cluster)
    with executor(scheduler=cluster.address):
        on_cluster = certify_region_tasks(ModelBox(*REGION), RegionOptions(min_width=2.0 ** -6), depth=3)
    assert _content(on_cluster) == _content(serial)
    # the units did run on the workers (tasks of _subtree were processed there)
    assert _executed(cluster) > before


@pytest.mark.slow
def test_a_ranged_prior_on_the_cluster(cluster):
    args = ((2.0, 3.0), 0.05, 1.0, 1.0, "rademacher(p=0.6:0.9)")
    ref = certify(ModelBox(*args), min_width=2.0 ** -4)
    with executor(scheduler=cluster.address):
        got = certify_region_tasks(ModelBox(*args), RegionOptions(min_width=2.0 ** -4), depth=2)
    assert _content(got) == _content(ref) and set(ref.region["ranges"]) == {"theta", "p"}
