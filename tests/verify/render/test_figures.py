"""The report and appendix figures follow the one plot style (verify/render/style.py):
titles name the case and its parameters in math, axis labels are symbols, log axes
label only a few ticks, runs of a bistable model are drawn per basin, error bars stay
on the axes, and every figure is written as PNG and vector PDF."""

from itertools import pairwise
from types import SimpleNamespace

import numpy as np
import pytest

from sigrec.numerics import Problem, Schedule, simulate
from sigrec.theory import Model, certify
from sigrec.verify.checks import field_figure, finite_size_figure, nuisance_figure, trajectories_figure
from sigrec.verify.render import figures, style

PLAIN = ("theta=", "alpha=", "sigma2", "beta*", "abs(", "rho=", "eta=")


@pytest.fixture()
def captured(monkeypatch):
    """The figures passed to ``save`` (drawn, then written as usual)."""
    figs = []
    real = style.save

    def save(fig, path):
        fig.canvas.draw()
        figs.append(fig)
        return real(fig, path)

    monkeypatch.setattr(figures, "save", save)
    return figs


def _texts(fig):
    ax = fig.axes[0]
    return ax.get_title(), ax.get_xlabel(), ax.get_ylabel()


def _no_plain_math(*texts):
    for t in texts:
        outside = "".join(t.split("$")[::2])
        assert not any(p in outside for p in PLAIN), t


@pytest.fixture(scope="module")
def bistable_sim():
    problem = Problem(theta=2.0, R=50, L=1050, d=3)
    return simulate(problem, Schedule(eta0=2.0, k0=10, power=0.6), steps=150, runs=12, seed=5, stride=5)


def test_trajectories_separate_the_basins_and_name_the_case(bistable_sim, captured, tmp_path):
    sim = bistable_sim
    model = sim.problem.model
    eq = list(certify(model).midpoints)
    path = figures.draw(trajectories_figure(tmp_path / "t.png", model, sim, eq,
                                            "SGA vs ODE from rho0=0.50, L=10, d=10"))
    fig = captured[-1]
    title, xl, yl = _texts(fig)
    assert "$\\theta=2$" in title and "$d=3$" in title and "$L=1{,}050$" in title
    assert "d=10" not in title  # the instance drawn is the simulation's own
    _no_plain_math(title, xl, yl)
    ax = fig.axes[0]
    final = sim.rho[:, -1]
    colours = {}
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata())
        if y.size == sim.rho.shape[1] and line.get_linestyle() == "-" and line.get_linewidth() < 1:
            colours.setdefault(line.get_color(), []).append(np.sign(y[-1]))
    # every thin SGA line has the colour of its final basin, and both basins occur
    assert (final > 0).any() and (final < 0).any()
    assert all(len(set(v)) == 1 for v in colours.values()) and len(colours) == 2
    assert sum(len(v) for v in colours.values()) == sim.runs
    assert (tmp_path / "t.pdf").read_bytes().startswith(b"%PDF") and path.endswith("t.png")


def test_field_title_and_labels(captured, tmp_path):
    model = Model(theta=2.0, alpha=1 / 21)
    figures.draw(field_figure(tmp_path / "f.png", model, certify(model), title="paper's bistable case"))
    title, xl, yl = _texts(captured[-1])
    assert "$\\theta=2$" in title and "$\\alpha=0.0476$" in title
    assert xl == "$\\rho$" and yl == "$F(\\rho)$ (symmetric log scale)"  # its -xi stretch is small
    _no_plain_math(title, xl, yl)


def _visible_labels(axis):
    return [t for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]


def _overlap(labels, renderer):
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    return any(a.x1 > b.x0 + 0.5 for a, b in pairwise(boxes))


@pytest.mark.parametrize("lo, hi", [(0.04, 0.3), (1e-5, 1e-1), (200, 5000), (28, 110), (0.11, 0.25),
                                    (2.4e-5, 4.6e-5)])
def test_log_axis_labels_neither_overlap_nor_vanish(lo, hi):
    fig, ax = style.figure()
    ax.plot([lo, hi], [lo, hi])
    style.log_axis(ax, "x")
    style.log_axis(ax, "y")
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    xs = [t for t in _visible_labels(ax.xaxis) if lo * 0.9 <= t.get_position()[0] <= hi * 1.1]
    assert 2 <= len(xs) <= 8
    assert not _overlap(xs, r)
    if hi / lo < 10:  # within a decade every 1-2-5 tick inside the range is labelled
        ticks = [m * 10.0**e for e in range(-6, 5) for m in (1, 2, 5) if lo <= m * 10.0**e <= hi]
        assert len(xs) >= min(len(ticks), 2)
        # a short range is not cluttered: at most five labels (the tracking figure's middle panel
        # on [0.11, 0.25] had seven, every minor tick in scientific form)
        assert len(xs) <= 5, [t.get_text() for t in xs]
    style.pyplot().close(fig)


def test_errorbars_stay_on_a_log_axis():
    fig, ax = style.figure()
    y = np.array([1e-2, 3e-3, 4e-4])
    err = np.array([5e-3, 6e-3, 1e-3])  # the last two would reach below zero
    style.errorbar_log(ax, [1, 2, 3], y, err, fmt="o")
    style.log_axis(ax, "y")
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    segs = np.concatenate([c.get_segments() for c in ax.collections])
    ends = np.concatenate([s[:, 1] for s in segs])
    assert np.all(ends > 0) and lo <= ends.min() and ends.max() <= hi
    style.pyplot().close(fig)


def test_params_are_math():
    problem = Problem(theta=0.25, R=500, L=10500, d=100)
    text = style.params(problem=problem, schedule=Schedule(eta0=0.05, power=0.0))
    assert text == "$\\theta=0.25$, $R=500$, $L=10{,}500$, $d=100$, $\\eta=0.05$"
    assert style.params(Model(theta=2.0, alpha=0.0)).endswith("$\\alpha\\to0$")


def test_nuisance_mass_and_finite_size_figures(captured, tmp_path):
    model = Model(theta=0.25, alpha=1 / 21)
    rho_k = np.linspace(-0.5, 1, 200)[None, :].repeat(3, axis=0)
    measured = 0.94 + 0.001 * np.random.default_rng(0).standard_normal(rho_k.shape)
    figures.draw(nuisance_figure(tmp_path / "n.png", model, rho_k, measured, 0.94))
    _no_plain_math(*_texts(captured[-1]))
    rows = [{"L": L, "rho": 0.5, "err": e, "se": s} for L, e, s in ((100, 1e-2, 2e-3), (400, 2e-3, 4e-3),
                                                                    (1600, 5e-4, 1e-3))]
    figures.draw(finite_size_figure(tmp_path / "s.png", rows, [0.5], {"0.5": {"C": 0.8}}, None, None,
                                    C_theory={"0.5": 0.65}))
    fig = captured[-1]
    _no_plain_math(*_texts(fig))
    ax = fig.axes[0]
    # the fitted C and the leading-order theory's C are both drawn, each as |C|/L over the sizes
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    fitted = next(v for k, v in lines.items() if k.startswith("fitted"))
    theory = next(v for k, v in lines.items() if k.startswith("theory"))
    np.testing.assert_allclose(theory.get_ydata() * theory.get_xdata(), 0.65)
    np.testing.assert_allclose(fitted.get_ydata() * fitted.get_xdata(), 0.8)
    lo, _ = ax.get_ylim()
    ends = np.concatenate([s[:, 1] for c in ax.collections for s in c.get_segments()])
    assert np.all(ends > 0) and lo <= ends.min()


def test_tracking_trajectory_title_is_not_a_shared_constant(bistable_sim, captured, tmp_path):
    sim = bistable_sim
    model = sim.problem.model
    figures.draw(trajectories_figure(tmp_path / "a.png", model, sim, list(certify(model).midpoints), ""))
    other = SimpleNamespace(**{k: getattr(sim, k) for k in ("times", "rho", "initial_rho", "runs", "schedule")},
                            problem=Problem(theta=2.0, R=50, L=1050, d=7))
    figures.draw(trajectories_figure(tmp_path / "b.png", model, other, list(certify(model).midpoints), ""))
    assert _texts(captured[-2])[0] != _texts(captured[-1])[0]


def test_figure_saved_as_vector_pdf(tmp_path):
    fig, ax = style.figure()
    ax.plot([0, 1], [0, 1])
    style.save(fig, tmp_path / "x.png")
    pdf = (tmp_path / "x.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"/Subtype /Image" not in pdf
    assert (tmp_path / "x.png").read_bytes()[:4] == b"\x89PNG"


def test_a_small_bistable_stretch_is_drawn_on_a_symlog_axis(captured, tmp_path):
    """The paper's theta = 2 model (alpha = 1/21): F on [-1, rho*] peaks near 4e-4 against
    max |F| near 1; on a linear axis that stretch is a flat line. The figure switches to symlog,
    linear within a tenth of the small peak, and the stretch spans a visible part of the axis;
    a monotone field stays linear."""
    model = Model(theta=2.0, alpha=1 / 21)
    spec = field_figure(tmp_path / "f.png", model, certify(model))
    neg = np.asarray(spec.field)[np.asarray(spec.rho) < certify(model).equilibria[0].lo]
    assert 1e-4 < np.max(np.abs(neg)) < 0.02 * np.max(np.abs(spec.field))
    figures.draw(spec)
    ax = captured[-1].axes[0]
    assert ax.get_yscale() == "symlog"
    lo, hi = ax.get_ylim()
    trans = ax.yaxis.get_transform()
    span = trans.transform(np.array([lo, hi]))
    low = trans.transform(np.array([0.0, np.min(neg)]))
    assert abs(low[1] - low[0]) > 0.1 * abs(span[1] - span[0])  # the stretch is a tenth of the axis or more
    monotone = Model(theta=0.5, alpha=0.3)
    figures.draw(field_figure(tmp_path / "m.png", monotone, certify(monotone)))
    assert captured[-1].axes[0].get_yscale() == "linear"


def test_appendix_figures_are_drawn_with_text_at_the_body_size():
    from sigrec.verify.render import style

    fig, _ = style.figure(ncols=3)
    assert style.pyplot().rcParams["xtick.labelsize"] == style.STYLE["xtick.labelsize"]
    assert tuple(fig.get_size_inches()) == style.WIDE
    style.pyplot().close(fig)
    with style.body_text():
        fig, _ = style.figure(ncols=3)
        rc = style.pyplot().rcParams
        # 11pt body: labels at 10pt and ticks at 9pt once the figure is included at the text width
        assert rc["axes.labelsize"] == 10 and rc["xtick.labelsize"] == 9 and rc["legend.fontsize"] == 9
        assert fig.get_size_inches()[0] == style.SIZE[0]
        style.pyplot().close(fig)
    assert style.pyplot().rcParams["axes.labelsize"] == style.STYLE["axes.labelsize"]


def test_effective_drift_data_round_trips_through_its_npz(tmp_path):
    import numpy as np

    from sigrec.numerics import Problem, Schedule
    from sigrec.verify.checks import EffectiveDriftFigure

    rng = np.random.default_rng(3)
    spec = EffectiveDriftFigure(str(tmp_path / "e.png"), np.linspace(0, 4, 9), rng.random((5, 9)), 5,
                                Problem(0.7, 30, 330, 4, beta=1.3, sigma2=0.8, prior="rademacher(p=0.8)"),
                                Schedule(eta0=2.0, k0=5.0, power=0.7), np.linspace(0, 4, 7), rng.random(7),
                                rng.random(7), "weak: x")
    spec.save_data(tmp_path / "e.npz")
    back = EffectiveDriftFigure.load_data(tmp_path / "e.npz", tmp_path / "f.png")
    assert back.path == str(tmp_path / "f.png") and back.runs == 5 and back.title == "weak: x"
    assert back.problem.as_dict() == spec.problem.as_dict() and back.schedule.as_dict() == spec.schedule.as_dict()
    for name in ("times", "rho", "ode_time", "rho_plain", "rho_corrected"):
        assert np.array_equal(getattr(back, name), getattr(spec, name))


def test_every_drawn_line_is_in_the_legend_the_ode_lies_beneath_and_the_caption_names_the_claim(
        bistable_sim, captured, tmp_path):
    """Issue 41: the basin means were drawn thick without a legend entry, a run that followed its dashed
    ODE curve hid beneath it, and no figure said which claim it supports."""
    sim = bistable_sim
    model = sim.problem.model
    figures.draw(trajectories_figure(tmp_path / "t.png", model, sim, list(certify(model).midpoints), "SGA",
                                     claim="claim 4: recovery up to sign (sga.convergence)"))
    fig = captured[-1]
    ax = fig.axes[0]

    def style_of(line):
        return line.get_color(), line.get_linestyle(), line.get_linewidth()

    lines = [ln for ln in ax.get_lines() if np.asarray(ln.get_ydata()).size > 1]
    labelled = {style_of(ln) for ln in lines if not ln.get_label().startswith("_")}
    assert {style_of(ln) for ln in lines} == labelled  # every kind of line drawn has its legend entry
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("mean of the runs") for t in legend)
    ode = [ln for ln in lines if ln.get_linestyle() == "--"]
    runs = [ln for ln in lines if ln.get_linestyle() == "-"]
    assert ode and runs and max(ln.get_zorder() for ln in ode) < min(ln.get_zorder() for ln in runs)
    assert fig._suptitle is not None and fig._suptitle.get_text() == (
        "Supports claim 4: recovery up to sign (sga.convergence)")
