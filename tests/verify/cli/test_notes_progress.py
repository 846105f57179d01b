"""``sigrec notes`` reports progress: the suite's checks, then each reproduction configuration."""

from __future__ import annotations

import contextlib

import sigrec.verify.cli._notes as notes


class _Bar:
    def __init__(self):
        self.updates = []

    def add_task(self, description, total=None):
        self.updates.append((description, None, total))
        return 0

    def update(self, task, description=None, completed=None, total=None):
        self.updates.append((description, completed, total))


def test_generate_reports_the_suite_and_each_configuration(monkeypatch, tmp_path):
    bar = _Bar()
    monkeypatch.setattr(notes, "stderr_progress", lambda: contextlib.nullcontext(bar))

    def suite(config, progress=None, figure_dir=None):
        for i in range(3):
            progress(f"check {i}", i, 3)
        return "result"

    monkeypatch.setattr(notes, "run_suite", suite)
    monkeypatch.setattr(notes, "configurations", lambda preset: [(1,), (2,)])
    monkeypatch.setattr(notes, "run_config", lambda *cfg: cfg)
    written = []
    monkeypatch.setattr(notes, "appendix_data", lambda **kw: kw)
    monkeypatch.setattr(notes, "write_notes", lambda out, data: written.append(data))
    notes._generate(tmp_path, None)
    labels = [d for d, _, _ in bar.updates]
    assert "notes: check 2" in labels
    assert labels.index("notes: reproduction 1/2") < labels.index("notes: reproduction 2/2") \
        < labels.index("notes: writing the appendix")
    assert written and written[0]["result"] == "result" and written[0]["reproduction"] == [(1,), (2,)]


def test_generate_from_committed_evidence_runs_no_suite_and_saves_it(monkeypatch, tmp_path):
    from sigrec.verify.checks import CheckRecord
    from sigrec.verify.studies import EVIDENCE_FILE, Evidence

    monkeypatch.setattr(notes, "stderr_progress", lambda: contextlib.nullcontext(_Bar()))

    def no_suite(*a, **k):
        raise AssertionError("the suite must not run when evidence is given")

    monkeypatch.setattr(notes, "run_suite", no_suite)
    monkeypatch.setattr(notes, "configurations", lambda preset: [])
    from ..studies.test_evidence import _without_theory_sections

    _without_theory_sections(monkeypatch)  # the theory sections do not depend on the evidence
    written = []
    monkeypatch.setattr(notes, "write_notes", lambda out, data: written.append(data))
    rec = CheckRecord("field.endpoints", "consistency", "pass", None, None, True, "ok")
    ev = Evidence("paper", 5, "2026-12-01T00:00:00+00:00", "abc", {}, (rec,), (), 12.5)
    bar = _Bar()
    monkeypatch.setattr(notes, "stderr_progress", lambda: contextlib.nullcontext(bar))
    notes._generate(tmp_path, ev)
    assert written and written[0].run is ev
    # the appendix's sections (minutes in all) are each reported before they start, in order
    labels = [d for d, _, _ in bar.updates]
    sections = [label for label in labels if label and label.startswith("notes: appendix: ")]
    assert sections[0] == "notes: appendix: derivations" and sections[-1] == "notes: appendix: subspace", sections
    assert any("landscape certificate" in x for x in sections) and any("region proposition 1/" in x for x in sections)
    done = [c for d, c, _ in bar.updates if d in sections]
    assert done == sorted(done) and len(set(done)) == len(done)
    assert Evidence.load(tmp_path / EVIDENCE_FILE) == ev
