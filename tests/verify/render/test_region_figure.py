"""The region certificate's figure: render draws the boxes and the boundaries ``verify.studies``
computes (``region_boundaries``); it computes nothing itself."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.theory import ModelBox, certify
from sigrec.verify.render import draw_region, figure_path
from sigrec.verify.studies import region_boundaries


@pytest.fixture(scope="module")
def fixed_region():
    return certify(ModelBox((0.0, 5.0), (1e-4, 1.0)), min_width=0.125, log_alpha=True)


def test_the_figure_draws_every_box_by_status_and_the_studies_boundaries(fixed_region, tmp_path):
    png = tmp_path / "region.png"
    lines = region_boundaries(fixed_region.region)
    drawn = draw_region(fixed_region, png, lines)
    counts = {s: sum(b.status == s for b in fixed_region.boxes) for s in ("monotone", "bistable", "undecided")}
    assert drawn["patches"] == counts and counts["bistable"] > 0
    assert drawn["lines"] == [line.label for line in lines] == [r"closed form $\alpha_c(\theta)$", r"$\beta\theta=1$"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.with_suffix(".pdf").stat().st_size > 0
    # independent of the closed form: every box the certificate proves bistable lies below alpha_c
    curve, edge = lines
    assert edge.vertical and edge.x[0] == 1.0  # beta theta = 1 at beta = 1
    for box in fixed_region.boxes:
        if box.status == "bistable":
            b = {k: (lo, hi) for k, lo, hi in box.bounds}
            inside = (curve.x >= b["theta"][0]) & (curve.x <= b["theta"][1])
            assert np.all(curve.y[inside] > b["alpha"][1])


def test_no_boundary_off_the_theta_axis_or_for_a_ranged_prior():
    base = {"fixed": {"beta": 1.0, "sigma2": 1.0}, "prior": "fixed"}
    assert region_boundaries({**base, "ranges": {"alpha": (0.1, 1.0), "theta": (0.0, 2.0)}}) == ()
    assert region_boundaries({**base, "prior": "gaussian(mu=0.5:1, tau=0.2)",
                              "ranges": {"theta": (0.0, 2.0), "alpha": (0.1, 1.0)}}) == ()
    # theta with beta: the hyperbola beta theta = 1, dashed
    (line,) = region_boundaries({"fixed": {"alpha": 0.3, "sigma2": 1.0}, "prior": "fixed",
                                 "ranges": {"theta": (0.2, 3.0), "beta": (0.5, 2.0)}})
    assert line.style == "--" and np.allclose(line.x * line.y, 1.0)


@pytest.mark.parametrize("text, words", [("x.txt", "must be a .png path"), (" ", "must be a .png path"),
                                         ("/nonexistent-dir/x.png", "does not exist")])
def test_a_figure_path_is_a_png_in_an_existing_folder(text, words):
    with pytest.raises(ValueError, match=words):
        figure_path(text)
