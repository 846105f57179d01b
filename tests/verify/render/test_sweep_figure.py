"""The sweep's -xi fraction panel follows its data: small fractions (larger d) are not drawn
as one point at the origin of a fixed [0, 0.6] square."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from sigrec.verify.render import _sweep_figure as sweep_figure
from sigrec.verify.studies import SweepFigure


def _data(scale: float) -> SweepFigure:
    rng = np.random.default_rng(0)
    shape = (3, 4)
    pred = scale * rng.uniform(0.1, 1.0, shape)
    sim = pred * rng.uniform(0.8, 1.2, shape)
    return SweepFigure("alpha", np.array([1.5, 2.0, 3.0]), np.array([0.01, 0.03, 0.1, 0.3]),
                       np.tile([0.01, 0.03, 0.1, 0.3], (3, 1)), np.ones(shape, bool), np.ones(shape, bool),
                       sim, pred, 0.8 * sim, 1.2 * sim, np.full(shape, 0.99), "$d=20$", 400, 0.9, None)


@pytest.mark.parametrize("scale", [0.004, 0.4])
def test_the_fraction_axes_cover_the_cells_and_spread_them(monkeypatch, tmp_path, scale):
    drawn = []
    real_save = sweep_figure.style.save

    def save(fig, path):
        drawn.append(fig)
        return real_save(fig, path)

    monkeypatch.setattr(sweep_figure.style, "save", save)
    data = _data(scale)
    sweep_figure.plot_sweep(data, tmp_path)
    ax = drawn[0].axes[0]
    lo, hi = ax.get_xlim()
    assert lo < data.pred.min() and data.pred.max() < hi and data.hi.max() < ax.get_ylim()[1]
    # the cells span at least a third of each axis (at scale 0.004 a fixed [0, 0.6] square gave 0.7%)
    assert (data.pred.max() - data.pred.min()) / (hi - lo) > 0.3
    assert isinstance(drawn[0], matplotlib.figure.Figure)
