"""What the README, the docs and the command line say in common is one statement: the README's claims
table and the user guide's sample output agree with the verdicts computed from the committed evidence
(notes/evidence.json, the run the appendix cites), so that neither can drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigrec.verify import claims
from sigrec.verify.studies import Evidence

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def evidence():
    return Evidence.load(REPO / "notes" / "evidence.json")


@pytest.fixture(scope="module")
def verdicts(evidence):
    return {c.number: c for c in claims(evidence.records)}


def _readme_rows() -> dict[int, list[str]]:
    rows = {}
    for line in (REPO / "README.md").read_text().splitlines():
        m = re.match(r"^\| ([1-6]) \|", line)
        if m:
            rows[int(m.group(1))] = [c.strip() for c in line.strip("|").split(" | ")]
    return rows


def test_the_readme_claims_table_has_the_computed_statuses(verdicts):
    rows = _readme_rows()
    assert sorted(rows) == [1, 2, 3, 4, 5, 6]
    for number, claim in verdicts.items():
        status = re.match(r"\*\*(\w+)\*\*", rows[number][2]).group(1)
        assert status == claim.status, (number, rows[number][2], claim.verdict)


def test_the_readme_numbers_are_the_evidences(evidence):
    rows = _readme_rows()
    by = {}
    for r in evidence.records:
        by.setdefault(r.id, []).append(r)
    # claim 5: the limit nuisance mass at perfect alignment of the weak-signal case
    weak = next(r for r in by["sga.filtering.vanishes"] if r.details["case"] == "paper-weak")
    assert f"{weak.value:.2f} at perfect alignment for `theta = 0.25`" in rows[5][2]
    # claim 4: the decisive runs of the paper preset, at the dimensions it runs
    for case, words in (("paper-weak", "the weak-signal case at the paper's `d = {d}`"),
                        ("paper-bistable", "the bistable case at `d = {d}`")):
        rec = next(r for r in by["sga.convergence.recovery"] if r.details["case"] == case)
        runs, d = rec.details["runs"], rec.details["problem"]["d"]
        assert f"{round(rec.value * runs)}/{runs} on " + words.format(d=d) in rows[4][3], rows[4][3]
    # claim 1: the quadrature agreement quoted is an upper bound of the recorded one
    quoted = float(re.search(r"to (1e-\d+)", rows[1][3]).group(1))
    assert by["derivation.quadrature"][0].value < 10 * quoted


def test_the_guides_sample_output_reads_the_claims_as_the_code_words_them(verdicts):
    guide = (REPO / "docs" / "guide" / "verify.md").read_text()
    head = verdicts[4].verdict.split(";")[0]  # "holds in the limit: every interior equilibrium is unstable ..."
    assert head in " ".join(guide.split()), head
