"""Checks return figure specs (data) and never draw; the renderer draws them."""

import numpy as np

from sigrec.verify.checks import REGISTRY, Case, CheckContext, FieldFigure
from sigrec.verify.render import figures

#: a theory-only bistable case: field.monotone has one figure
CASE = Case("bist", 2.0, 1 / 21)


def test_a_check_writes_nothing_and_returns_its_figure_as_data(tmp_path):
    folder = tmp_path / "figures"
    (rec,) = REGISTRY["field.monotone"].run(CASE, CheckContext(figure_dir=folder))
    assert not folder.exists()  # nothing written, not even the folder
    (spec,) = rec.figures
    assert isinstance(spec, FieldFigure) and rec.details["figures"] == [spec.path]
    assert spec.path == str(folder / "field-bist.png")
    assert spec.rho.shape == spec.field.shape and spec.certificate.status == "bistable"
    assert "figures" not in rec.as_dict()  # the report lists paths, not specs
    assert figures.draw_records([rec, rec]) == [spec.path]  # each path drawn once
    assert (folder / "field-bist.png").read_bytes()[:4] == b"\x89PNG"
    assert (folder / "field-bist.pdf").read_bytes().startswith(b"%PDF")


def test_without_figure_dir_no_spec(tmp_path):
    (rec,) = REGISTRY["field.monotone"].run(CASE, CheckContext())
    assert rec.figures == () and "figures" not in rec.details


def test_drawing_a_spec_twice_gives_the_same_bytes(tmp_path):
    (rec,) = REGISTRY["field.monotone"].run(CASE, CheckContext(figure_dir=tmp_path))
    a = figures.draw(rec.figures[0], tmp_path / "a.png")
    b = figures.draw(rec.figures[0], tmp_path / "b.png")
    assert open(a, "rb").read() == open(b, "rb").read()
    assert np.all(np.isfinite(rec.figures[0].field))
