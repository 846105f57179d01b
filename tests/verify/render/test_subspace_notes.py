"""The appendix's signal-subspace section: its formulas are the sympy objects (evaluated against
an independent quadrature), its transition table holds certified brackets that contain an
independently found root, and its flow figure marks the equilibria of the certificate.

The section's data is computed once with fewer cases than the appendix's (one transition case,
two starts, one run per heads panel); the full data runs in the slow test.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

import numpy as np
import pytest
import sympy as sp

from sigrec.theory import (
    Model,
    find_subspace_equilibria,
    principal_angles,
    subspace_quadrature,
    symbols,
    tex,
)
from sigrec.theory._field._subspace import evaluate_subspace
from sigrec.verify.render import _subspace_figure, style
from sigrec.verify.render._document import Document
from sigrec.verify.render._notes import _subspace as section
from sigrec.verify.render._notes._format import NAMES
from sigrec.verify.studies import _appendix_subspace as sub

from .test_rounding_level import residues

REDUCED = {
    "TRANSITION_CASES": ((2, 0.3),),
    "FLOW_STARTS": ((0.3, 0.1), (-0.5, -0.45)),
    "HEADS_PANELS": ((1.5, 0.05, (0,)), (3.0, 0.3, (4,))),
    "EXTRA_HEAD": (1.5, 0.05, (0,)),
    # a box across the mixture's boundary (theta_c near 0.9 at small alpha) and the specialised phase
    "REGION_K2": {**sub.REGION_K2, "theta": (0.7, 1.3), "alpha": (0.01, 0.1), "min_width": 2.0 ** -3},
}


class _Data:
    def __init__(self, subspace):
        self.subspace = subspace


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """``(data, markdown, latex, folder)`` of the section rendered from reduced data."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in REDUCED.items():
            mp.setattr(sub, name, value)
        data = sub.subspace_data()
    out = tmp_path_factory.mktemp("subspace")
    doc = Document("test")
    with style.body_text():
        section.subspace_section(doc, _Data(data), out)
    return data, doc.markdown(), doc.latex(), out


def _math_blocks(md: str) -> list[str]:
    return re.findall(r"```math\n(.*?)\n```", md, flags=re.S)


def test_printed_objective_is_the_derived_one_against_quadrature(rendered):
    data, md, _, _ = rendered
    f = data.forms
    blocks = _math_blocks(md)
    # the displays are the forms as printed by theory.tex (nothing typed in)
    assert f"j(r) = {tex(f['j'], NAMES)}," in blocks
    assert f"g_1 = {tex(f['g1'], NAMES)}," in blocks
    assert any(b.startswith(f"m_1 = {tex(f['m'][0], NAMES)}") for b in blocks)
    # the printed j and g_1, with the printed m substituted, at a point away from the defaults,
    # against the 1-D quadrature of theory (which does not use the MGF route)
    th, al, be, s2, r = 1.3, 0.2, 0.8, 1.4, (0.3, -0.5)
    q = subspace_quadrature(Model(th, al, beta=be, sigma2=s2, prior="onehot(k=2)"), list(r), dps=15)
    at = {symbols.theta: th, symbols.alpha: al, symbols.beta: be, symbols.sigma2: s2,
          f["r"][0]: r[0], f["r"][1]: r[1]}
    m_vals = {mi: form.subs(at) for mi, form in zip(f["m_symbols"], f["m"], strict=True)}
    j_printed = float(f["j"].subs(m_vals).subs(at))
    g_printed = float(f["g1"].subs(m_vals).subs(at))
    assert j_printed == pytest.approx(q.objective[1], rel=1e-12)
    assert g_printed == pytest.approx(q.gradient[1][0], rel=1e-12)
    model = Model(th, al, beta=be, sigma2=s2, prior="onehot(k=2)")
    assert j_printed == pytest.approx(evaluate_subspace(model, r).objective, rel=1e-12)


def test_the_form_check_can_fail():
    d = sub.derive("onehot(k=2)", engine="subspace")
    with pytest.raises(AssertionError):
        sub._checked(d.objective * (1 + sp.Rational(1, 1000)), d.objective, "j")


def _tangent(k: int, theta: float, alpha: float) -> float:
    """The mixture's tangent eigenvalue from the float Hessian of evaluate_subspace (not the
    closed form, not the ball curve of certify_transition)."""
    v = evaluate_subspace(Model(theta, alpha, prior=f"onehot(k={k})"), np.full(k, k ** -0.5))
    t = np.zeros(k)
    t[:2] = (1 / math.sqrt(2), -1 / math.sqrt(2))
    return float(t @ v.hessian @ t - v.r @ v.gradient)


def _root(k: int, alpha: float) -> float:
    from scipy.optimize import brentq

    return brentq(lambda th: _tangent(k, th, alpha), 0.3, 2.0, xtol=1e-14)


def test_transition_table_holds_certified_brackets_around_an_independent_root(rendered):
    data, md, _, _ = rendered
    rows = [line for line in md.splitlines() if line.startswith("| $") and "(certified)" not in line]
    assert len(rows) == len(data.transitions) == 1
    for row, t in zip(rows, data.transitions, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[0] == f"${t.k}$" and cells[1] == f"${t.alpha:g}$"
        lo, hi = (float(x) for x in re.findall(r"[0-9.]+", cells[2]))
        assert t.certified and lo <= t.lo < t.hi <= hi and hi - lo < 1e-9
        root = _root(t.k, t.alpha)
        assert lo < root < hi
        # the weak-signal column: certified stable from 0.25 up to (below) the root
        w0, w1 = (float(x) for x in re.findall(r"[0-9.]+", cells[3]))
        assert w0 == 0.25 and w1 < root
        assert _tangent(t.k, 0.25, t.alpha) < 0 and _tangent(t.k, w1, t.alpha) < 0
        assert float(cells[4].strip("$")) == pytest.approx(_tangent(t.k, 0.25, t.alpha), rel=1e-2)


def test_outward_rounding_contains_the_bracket():
    lo, hi = 0.8556559364730321, 0.8556559365448985
    a, b = section.outward(lo, hi)
    assert Decimal(a) <= Decimal(lo) and Decimal(hi) <= Decimal(b)
    assert (a, b) == ("0.8556559364730", "0.8556559365449")
    assert section.outward(0.1, 0.2, 3) == ("0.100", "0.201")  # 0.2 is just above 1/5 in binary


def test_full_k3_transition_bracket_contains_the_root():
    t = sub.certify_transition(3, 0.3)
    root = _root(3, 0.3)
    assert t.certified and t.lo < root < t.hi


def _marks(panels, tmp_path, monkeypatch):
    """The equilibrium markers drawn in each panel: ``(x, y, filled, marker)``."""
    captured = []
    monkeypatch.setattr(_subspace_figure, "save", lambda fig, path: captured.append(fig))
    _subspace_figure.plot_subspace_flow(panels, tmp_path / "f.png")
    out = []
    for ax in captured[0].axes:
        marks = []
        for line in ax.lines:
            if line.get_marker() in ("o", "s") and line.get_markersize() > 5:
                x, y = line.get_data()
                marks.append((float(x[0]), float(y[0]), line.get_markerfacecolor() != "white", line.get_marker()))
        out.append(sorted(marks))
    style.pyplot().close(captured[0])
    return out


def test_flow_figure_marks_the_certified_equilibria(rendered, tmp_path, monkeypatch):
    data = rendered[0]
    marks = _marks(data.flow, tmp_path, monkeypatch)
    for panel, drawn in zip(data.flow, marks, strict=True):
        assert panel.complete
        want = sorted((x, y, stable, "o" if where == "circle" else "s") for x, y, stable, where, _ in panel.equilibria)
        assert drawn == want
        # an independent numerical search (float Newton + mpmath, eigenvalues) finds the same set
        found = find_subspace_equilibria(Model(panel.theta, panel.alpha, prior="onehot(k=2)"), n_random=8)
        assert len(found) == len(panel.equilibria)
        for e in found:
            r = np.array([float(x) for x in e.r])
            match = [p for p in panel.equilibria if math.hypot(p[0] - r[0], p[1] - r[1]) < 1e-8]
            assert len(match) == 1 and match[0][2] == e.stable
            # the certified kind is the float one of the independently found point
            assert match[0][4] == e.label, (r, match[0][4], e.label)


def test_flow_panels_straddle_the_transition(rendered):
    data = rendered[0]
    (below, above), tc = data.flow, data.transitions[0]
    mixture = [(x, y, st) for x, y, st, _, kind in below.equilibria if kind == "mixture+" and abs(x - y) < 1e-9]
    assert mixture and mixture[0][2] and sum(e[2] for e in below.equilibria) == 1
    mixture = [(x, y, st) for x, y, st, _, kind in above.equilibria if kind == "mixture+" and abs(x - y) < 1e-9]
    assert mixture and not mixture[0][2] and sum(e[2] for e in above.equilibria) == 2
    assert below.theta < 0.8556559364730 < 0.8556559365449 < above.theta  # theta_c of k = 2, alpha = 0.05
    assert tc.alpha == 0.3  # the reduced data's case


def test_heads_panels_start_at_the_frames_and_name_their_ends(rendered):
    data = rendered[0]
    for p in data.heads:
        for seed, run in zip(p.seeds, p.angles, strict=True):
            assert np.allclose(run[0], principal_angles(sub.start_frame(seed)))
            assert np.all(np.diff(run, axis=1) >= -1e-12)  # ascending angles
    recovery, strong = data.heads
    assert recovery.ends == ("recovered",) and np.all(recovery.angles[0, -1] < 1e-6)
    assert strong.ends == ("shared direction",) and strong.stable == (True,)
    assert abs(strong.angles[0, -1, 1] - math.pi / 2) < 1e-6
    assert sub._end(np.array([0.0, 0.3])) == "other"


def test_the_section_prints_its_rounding_residue_as_a_checked_bound(rendered):
    data, md, latex, _ = rendered
    assert residues(md) == [] and residues(latex) == []
    e = data.extra
    assert max(e.span_error) < e.span_bound.value and f"|MM^{{\\top}}-I|<10^{{{e.span_bound.exponent}}}$" in md


def test_section_labels_evidence_and_includes_the_figures(rendered):
    _, md, latex, out = rendered
    assert "numerical evidence" in md and "(certified)" in md
    for stem in ("subspace_flow", "subspace_heads", "subspace_region"):
        assert f"\\includegraphics[width=1.0\\linewidth]{{{stem}}}" in latex
        assert (out / f"{stem}.png").exists() and (out / f"{stem}.pdf").exists()


def test_region_table_prints_the_certificates_shares_and_claims_nothing_in_the_band(rendered):
    data, md, _, _ = rendered
    cert = data.region
    assert cert.region["prior"] == "onehot(k=2)" and {"mixture", "specialised"} <= {b.status for b in cert.boxes}
    rows = {}
    for m in re.finditer(r"^\| ([^|]+) \| ([^|]+) \| ([^|]*) \| ([\d.]+)% \| ([\d,]+) \|$", md, flags=re.M):
        circle, inside, name = (x.strip() for x in m.groups()[:3])
        counts = [re.fullmatch(r"(\d+) \((\d+)\)", x) for x in (circle, inside)]
        status = name.replace(" (no claim)", "") or "{} on circle ({} stable), {} inside ({} stable)".format(
            *counts[0].groups(), *counts[1].groups())
        rows[status] = (float(m.group(4)), int(m.group(5).replace(",", "")))
    assert set(rows) == {b.status for b in cert.boxes}
    for status, (share, leaves) in rows.items():
        assert leaves == sum(b.status == status for b in cert.boxes)
        # the share is the leaves' area in (theta, log10 alpha), recomputed here from the boxes
        area = sum((b.bounds[0][2] - b.bounds[0][1]) * (math.log10(b.bounds[1][2]) - math.log10(b.bounds[1][1]))
                   for b in cert.boxes if b.status == status)
        assert share == pytest.approx(100 * area / (0.6 * 1.0), abs=0.006), status
    assert "What is *not* proved: anything in $B$" in md


@pytest.mark.slow
def test_full_section_data():
    data = sub.subspace_data()
    assert [(t.k, t.alpha) for t in data.transitions] == list(sub.TRANSITION_CASES)
    for t, w in zip(data.transitions, data.weak, strict=True):
        root = _root(t.k, t.alpha)
        assert t.certified and t.lo < root < t.hi and w.bracket.certified and w.bracket.lo < root
    assert "shared direction" in data.heads[-1].ends and all(e == "recovered" for e in data.heads[0].ends)
    assert max(data.extra.span_error) < 1e-9
    # the CLI's default region: the four phases, at most 1% undecided
    assert data.region.fractions["undecided"] < 0.01
    assert {b.status for b in data.region.boxes} == {"mixture", "specialised", "undecided",
                                                     "4 on circle (2 stable), 1 inside (0 stable)",
                                                     "6 on circle (3 stable), 1 inside (0 stable)"}
