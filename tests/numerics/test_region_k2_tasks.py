"""The k = 2 region certificate on the executor (numerics.certify_region_tasks): the same leaves
as the serial walk, and the options it refuses."""

import pytest

from sigrec.numerics import certify_region_tasks
from sigrec.theory import ModelBox, RegionOptions, certify

ARGS = ((0.7, 1.0), (0.1, 0.15), 1.0, 1.0, "onehot(k=2)")


@pytest.mark.heavy
def test_subtrees_give_the_serial_leaves():
    serial = certify(ModelBox(*ARGS), min_width=2.0 ** -3)
    for depth in (0, 2, 3):
        parallel = certify_region_tasks(ModelBox(*ARGS), RegionOptions(min_width=2.0 ** -3), depth=depth)
        assert parallel.boxes == serial.boxes, depth
        assert parallel.fractions == serial.fractions
        assert parallel.region == serial.region
    assert any(b.status != "undecided" for b in serial.boxes)


@pytest.mark.heavy
def test_a_cut_walk_leaves_pending_boxes_in_order():
    top = certify(ModelBox(*ARGS), min_width=2.0 ** -3, depth=1)
    assert top.boxes == () and [i for i, _, _ in top.pending] == [0, 0]
    (_, low, _), (_, high, _) = top.pending
    assert low[0][1] == ARGS[0][0] and high[0][2] == ARGS[0][1]


def test_options_that_cannot_travel_are_refused():
    for name, value in (("field", lambda law: None), ("box", ()), ("inherited", ())):
        with pytest.raises(ValueError, match=name):
            certify_region_tasks(ModelBox(*ARGS), RegionOptions(**{name: value}))
    with pytest.raises(ValueError, match="inherited"):
        certify(ModelBox(*ARGS), inherited=("not", "a", "state"))


def test_a_depth_whose_units_could_be_narrower_than_the_hint_span_is_refused():
    # below 8 splits a unit could be narrower than 2^-4 of the region, where the walk hands on where
    # one leaf's proof cut the circle to the next: it would not be walked as in the serial call
    with pytest.raises(ValueError, match="depth"):
        certify(ModelBox(*ARGS), depth=9)
    with pytest.raises(ValueError, match="depth"):
        certify_region_tasks(ModelBox(*ARGS), depth=9)
