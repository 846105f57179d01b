"""The appendix's landscape figure draws what the region certificate proved: every leaf box in
the colour of its status, and the status of a box is the one ``theory.certify`` gives at any
point inside it, including the thin strip ``1 < theta < 1.06`` at small ``alpha`` that a
point grid drew monotone although it is bistable (``alpha_c(1.03) = 0.0395``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb

from sigrec.theory import Model, certify, critical_alpha
from sigrec.verify.render import style
from sigrec.verify.render._document import Document
from sigrec.verify.render._notes._landscape import _landscape_figure
from sigrec.verify.render._region_figure import COLOURS
from sigrec.verify.studies._appendix import landscape


@pytest.fixture(scope="module")
def land():
    return landscape()


@pytest.fixture(scope="module")
def drawn(land, tmp_path_factory):
    """The figure as the appendix draws it, kept open: ``(figure, axes, RGB pixels)``."""
    saved = []
    original = style.save

    def keep(fig, path):
        saved.append(fig)
        return original(fig, path)

    mp = pytest.MonkeyPatch()
    mp.setattr(style, "save", keep)
    try:
        _landscape_figure(Document("appendix"), land, tmp_path_factory.mktemp("phase"))
    finally:
        mp.undo()
    (fig,) = saved
    canvas = FigureCanvasAgg(fig)  # saving closed the figure: draw it again at its own dpi
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3] / 255.0
    return fig, fig.axes[0], pixels


def _box(cert, theta, alpha):
    """The leaf box containing ``(theta, alpha)``; a point on a shared edge takes the first."""
    for box in cert.boxes:
        b = {k: (lo, hi) for k, lo, hi in box.bounds}
        if b["theta"][0] <= theta <= b["theta"][1] and b["alpha"][0] <= alpha <= b["alpha"][1]:
            return box, b
    raise AssertionError(f"no box holds theta={theta}, alpha={alpha}")


def _points(n_strip=25, n_domain=40, seed=40):
    """``(theta, alpha)``: the issue's point, the strip ``1 < theta < 1.06`` below ``alpha_c`` and
    points over the whole domain (theta in (0, 5], alpha log-uniform in [1e-4, 1])."""
    rng = np.random.default_rng(seed)
    pts = [(1.03, 1e-3)]
    for t in rng.uniform(1.0, 1.06, n_strip):
        ac = critical_alpha(float(t), 1.0, 1.0)
        pts.append((float(t), float(10 ** rng.uniform(-4, math.log10(ac)))))
    pts += [(float(t), float(10 ** a)) for t, a in zip(rng.uniform(1e-3, 5, n_domain),
                                                                     rng.uniform(-4, 0, n_domain), strict=True)]
    return pts


def test_each_box_has_the_status_certify_gives_at_points_inside_it(land):
    cert = land.certificate
    decided = 0
    for theta, alpha in _points():
        box, _ = _box(cert, theta, alpha)
        point = certify(Model(theta, alpha, 1.0, 1.0)).status
        if box.status != "undecided":
            decided += 1
            assert box.status == point, (theta, alpha, box.bounds)
    assert decided >= 50
    box, _ = _box(cert, 1.03, 1e-3)
    assert box.status == "bistable" == certify(Model(1.03, 1e-3, 1.0, 1.0)).status


def test_the_figure_draws_every_box_in_the_colour_of_its_status(land, drawn):
    _, ax, _ = drawn
    cert = land.certificate
    collections = {c.get_label(): c for c in ax.collections}
    for status, colour in COLOURS.items():
        want = sorted(tuple(round(x, 12) for _, lo, hi in b.bounds for x in (lo, hi))
                      for b in cert.boxes if b.status == status)
        paths = collections[status].get_paths()
        got = sorted(tuple(round(float(x), 12) for x in (p.vertices[:, 0].min(), p.vertices[:, 0].max(),
                                                          p.vertices[:, 1].min(), p.vertices[:, 1].max()))
                     for p in paths)
        assert got == want, status
        assert np.allclose(collections[status].get_facecolor()[0][:3], to_rgb(colour))


def test_the_pixels_at_random_points_show_the_status_certify_gives(land, drawn):
    """Read the rendered image at points whose box spans at least 3 pixels each way (a smaller
    box is a sliver along the boundary, drawn under its neighbours' edges)."""
    _, ax, pixels = drawn
    cert, height = land.certificate, pixels.shape[0]
    read = 0
    for theta, alpha in _points():
        box, b = _box(cert, theta, alpha)
        (x0, y0), (x1, y1) = ax.transData.transform([(b["theta"][0], b["alpha"][0]), (b["theta"][1], b["alpha"][1])])
        if box.status == "undecided" or min(x1 - x0, y1 - y0) < 3:
            continue
        x, y = ax.transData.transform((theta, alpha))
        x, y = min(max(x, x0 + 1), x1 - 1), min(max(y, y0 + 1), y1 - 1)  # inside the box, off its edge
        colour = pixels[round(height - y), round(x)]
        if np.abs(colour).sum() < 0.3 or np.allclose(colour, to_rgb(COLOURS["undecided"]), atol=0.08):
            continue  # a boundary line or the undecided outline passes over this pixel
        assert np.allclose(colour, to_rgb(COLOURS[certify(Model(theta, alpha, 1.0, 1.0)).status]), atol=0.08), \
            (theta, alpha, colour)
        read += 1
    assert read >= 30
