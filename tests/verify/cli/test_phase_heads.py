"""``sigrec phase --heads H``: the certified states of H heads over a (theta, alpha) grid
(verify/studies/_heads_phase.py, docs/guide/subspace.md).

The CLI's JSON is the library's diagram; each stable kind it reports is checked at its point by
certifying the reported equilibrium again on its own (no search), and the stable shared-direction
state by another route: the float flow from a perturbed copy of it returns to it, and from the
rank-one start where no stable shared state is reported the flow ends elsewhere."""

import json

import numpy as np
import pytest

from sigrec.theory import Model, certify, integrate_heads
from sigrec.theory._field._heads import random_frame
from sigrec.verify.cli._main import main
from sigrec.verify.studies import heads_diagram
from sigrec.verify.studies._heads_phase import random_starts, rank_one_starts

from ._run import error_line

LAW, H = "onehot(k=2)", 2
#: the grid thetas (1.5, 3) x alphas (0.3, 1): theta = theta_max / n_theta .. theta_max, alpha log-spaced
FLAGS = ["--prior", LAW, "--heads", str(H), "--n-theta", "2", "--theta-max", "3", "--n-alpha", "2",
         "--alpha-min", "0.3"]
SHARED, NOT_SHARED = (3.0, 0.3), (1.5, 0.3)


def _run(capsys, argv):
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


def _without_seconds(doc: dict) -> dict:
    """The diagram without the wall times (the only numbers that differ between two runs)."""
    doc = {k: v for k, v in doc.items() if k not in ("seconds", "diagram_file", "figure")}
    doc["cells"] = [{k: v for k, v in c.items() if k != "seconds"} for c in doc["cells"]]
    return doc


@pytest.fixture(scope="module")
def cli_doc(tmp_path_factory):
    """The CLI's JSON on the grid, and its output folder (capsys is function-scoped: stdout is read
    through a file here)."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("heads") / "report"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["phase", *FLAGS, "--out", str(out), "--json"])
    assert rc == 0
    return json.loads(buf.getvalue()), out


def _cell(doc: dict, theta: float, alpha: float) -> dict:
    [cell] = [c for c in doc["cells"] if c["theta"] == pytest.approx(theta) and c["alpha"] == pytest.approx(alpha)]
    return cell


@pytest.fixture(scope="module")
def library(cli_doc):
    """The library's diagram on the grid the CLI reports."""
    doc, _ = cli_doc
    return heads_diagram(Model(1.0, 0.5, prior=LAW, heads=H), doc["thetas"], doc["alphas"])


@pytest.mark.heavy
def test_json_is_the_librarys_diagram_and_the_files_are_written(cli_doc, library):
    doc, out = cli_doc
    assert doc["thetas"] == pytest.approx([1.5, 3.0]) and doc["alphas"] == pytest.approx([0.3, 1.0])
    assert _without_seconds(doc) == _without_seconds(library.as_dict())
    assert doc["complete"] is False and doc["heads"] == H and doc["k"] == 2
    saved = json.loads((out / "heads_phase.json").read_text())
    assert _without_seconds(saved) == _without_seconds(doc)
    assert (out / "heads_phase.png").stat().st_size > 5000 and (out / "heads_phase.pdf").exists()


@pytest.mark.heavy
def test_shared_direction_is_stable_at_theta_3_and_not_at_theta_1_5(cli_doc):
    doc, _ = cli_doc
    shared, not_shared = _cell(doc, *SHARED), _cell(doc, *NOT_SHARED)
    assert "shared-direction" in shared["stable_kinds"] and "specialised" in shared["stable_kinds"]
    assert "shared-direction" not in not_shared["stable_kinds"]
    assert not_shared["stable_kinds"] == ["specialised"]
    # the counts add up to what was found, and match the number of stable entries
    for c in doc["cells"]:
        assert c["counts"]["stable"] == len(c["stable"]) and c["undecided"] == c["counts"]["undecided"]
        assert sorted({s["kind"] for s in c["stable"]}) == c["stable_kinds"]


@pytest.mark.heavy
def test_every_reported_stable_kind_is_a_certified_box_at_its_point(cli_doc):
    doc, _ = cli_doc
    for c in doc["cells"]:
        model = Model(c["theta"], c["alpha"], 1.0, 1.0, LAW, heads=H)
        # certify the reported equilibria on their own: no search, the boxes from the floats given
        cert = certify(model, equilibria=[np.array(s["start"]) for s in c["stable"]])
        assert [b.status for b in cert.boxes] == ["stable"] * len(c["stable"])
        assert [b.kind for b in cert.boxes] == [s["kind"] for s in c["stable"]]
        for b, s in zip(cert.boxes, c["stable"], strict=True):  # the box is about the reported floats
            assert np.max(np.abs(b.M - np.array(s["start"]))) < 1e-9


@pytest.mark.heavy
def test_the_flow_returns_to_the_stable_shared_state_and_misses_it_where_none_is_stable(cli_doc):
    doc, _ = cli_doc
    [shared] = [s for s in _cell(doc, *SHARED)["stable"] if s["kind"] == "shared-direction"][:1]
    M = np.array(shared["start"])
    assert np.allclose(M[:, 0], M[:, 1], atol=1e-9)  # both heads on one direction
    model = Model(*SHARED, 1.0, 1.0, LAW, heads=H)
    M0 = M + 1e-3 * np.array([[1.0, -2.0], [-1.5, 0.5]])  # unequal between the heads and the rows
    M0 *= min(1.0, 0.999 / np.linalg.norm(M0, 2))  # the state has a unit singular value: stay feasible
    assert 1e-4 < np.max(np.abs(M0 - M)) < 1e-2
    end = integrate_heads(model, M0, t_max=2000.0)
    assert end.speed < 1e-9 and np.max(np.abs(end.M - M)) < 1e-6
    # theta 1.5: from the rank-one starts the flow ends with the heads on different directions
    model = Model(*NOT_SHARED, 1.0, 1.0, LAW, heads=H)
    for M0 in rank_one_starts(2, H):
        end = integrate_heads(model, M0, t_max=5000.0)
        directions = np.argmax(np.abs(end.M), axis=0)
        assert end.speed < 1e-9 and sorted(directions) == [0, 1], end.M


@pytest.mark.heavy
def test_human_output_is_the_librarys_diagram_as_a_table(capsys, tmp_path, monkeypatch, library):
    from sigrec.verify.cli import _phase

    calls = []

    def fake(*args, **kwargs):  # the diagram computed above, for the grid the CLI asks
        calls.append(args)
        return library

    monkeypatch.setattr(_phase, "heads_diagram", fake)
    text = _run(capsys, ["phase", *FLAGS, "--out", str(tmp_path / "r")])
    [(model, thetas, alphas)] = calls
    assert (model.law.spec, model.heads, model.beta, model.sigma2) == (LAW, H, 1.0, 1.0)
    assert list(thetas) == list(library.thetas) and list(alphas) == list(library.alphas)
    lines = text.splitlines()
    assert "not proved complete" in lines[0]
    header = lines[1].split()
    assert header[:3] == ["theta", "\\", "alpha"] and [float(a) for a in header[3:]] == pytest.approx([0.3, 1.0])
    rows = {float(line.split()[0]): line.split()[1:] for line in lines[2:4]}
    assert rows[3.0][0] == "shared+spec" and rows[1.5][0] == "spec"  # the alpha = 0.3 column
    assert (tmp_path / "r" / "heads_phase.png").exists()


@pytest.mark.heavy
def test_the_rank_one_starts_find_three_heads_on_one_direction():
    d = heads_diagram(Model(1.0, 0.5, prior=LAW, heads=3), [3.0], [0.5])
    [cell] = d.cells
    assert "shared-direction" in cell.stable_kinds and "recovered-shared" in cell.stable_kinds
    M = next(np.array(s["start"]) for s in cell.stable if s["kind"] == "shared-direction")
    assert np.allclose(M, M[:, :1], atol=1e-9)  # every head on the same point
    # from the default random frames alone the search misses it: why the rank-one starts are added
    alone = certify(Model(3.0, 0.5, 1.0, 1.0, LAW, heads=3))
    assert "shared-direction" not in {b.kind for b in alone.stable}


def test_the_grid_points_go_to_the_executor_given_as_picklable_units_in_alpha_major_order():
    import pickle

    from sigrec.verify.studies import HeadsCell

    class Recorder:  # stands in for a cluster: what it gets must survive pickling
        def map(self, fn, units, progress=None):
            fn, units = pickle.loads(pickle.dumps((fn, list(units))))
            self.units = units
            return [HeadsCell(u[2], u[3], (), {}, 0, True, (), 0.0) for u in units]

    ex = Recorder()
    d = heads_diagram(Model(1.0, 0.5, 1.5, 0.5, LAW, heads=3), [1.0, 2.0, 3.0], [0.2, 0.9], executor=ex, n_random=2,
                      seed=7)
    assert [(u[2], u[3]) for u in ex.units] == [(t, a) for a in (0.2, 0.9) for t in (1.0, 2.0, 3.0)]
    assert {u[:2] + u[4:] for u in ex.units} == {(LAW, 3, 1.5, 0.5, 2, 7)}
    assert d.cell(2.0, 0.9) is d.cells[4] and d.cells[4].theta == 2.0 and d.cells[4].alpha == 0.9


def test_a_bad_grid_is_refused_before_any_work():
    with pytest.raises(ValueError, match="k >= 2"):
        heads_diagram(Model(1.0, 0.5, prior="fixed", heads=2), [1.0], [0.5])
    with pytest.raises(ValueError, match="theta must be > 0"):
        heads_diagram(Model(1.0, 0.5, prior=LAW, heads=2), [0.0, 1.0], [0.5])
    with pytest.raises(ValueError, match="alpha"):
        heads_diagram(Model(1.0, 0.5, prior=LAW, heads=2), [1.0], [1.5])


def test_the_starts_are_the_default_frames_and_rank_one_frames():
    rng = np.random.default_rng(5)
    frames = [random_frame(2, 3, 6, rng) for _ in range(4)]
    for mine, (Q, U) in zip(random_starts(2, 3, 4, 5), frames, strict=True):
        assert np.array_equal(mine, U.T @ Q)
    starts = rank_one_starts(2, 3)
    assert len(starts) == 4
    for n, M in enumerate(starts):
        j, s = divmod(n, 2)
        assert np.linalg.norm(M, 2) <= 0.95  # a feasible frame: singular values below 1
        assert np.all(np.sign(M[j]) == (1 if s == 0 else -1)) and np.abs(M[j]).min() > 0.4
        assert len({tuple(np.round(col, 12)) for col in M.T}) == 3  # no two heads equal


def test_a_scalar_prior_is_refused_in_one_line(capsys, tmp_path):
    rc = main(["phase", "--heads", "2", "--out", str(tmp_path / "x")])
    out = capsys.readouterr()
    lines = out.err.strip().splitlines()
    assert rc == 2 and out.out == "" and len(lines) == 1 and "Traceback" not in out.err
    assert lines[0].startswith("error: ") and "k-dimensional" in lines[0] and "onehot(k=2)" in lines[0]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("flag", [["--grid"], ["--min-width", "0.01"]])
def test_the_region_flags_are_refused_with_heads(capsys, tmp_path, flag):
    line = error_line(capsys, ["phase", "--heads", "2", "--prior", LAW, *flag, "--out", str(tmp_path / "x")])
    assert "--grid and --min-width are for one query" in line
    assert not (tmp_path / "x").exists()
