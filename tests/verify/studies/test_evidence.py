"""The committed evidence a notes folder cites: made from a report folder, saved, loaded."""

import json

import pytest

from sigrec.verify import Case, SuiteConfig, claims, run_suite
from sigrec.verify.render import to_json, write_report
from sigrec.verify.studies import EVIDENCE_FILE, Evidence, appendix_data


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep")
    config = SuiteConfig(checks=("field.*",), cases=(Case("mine", 0.5, 0.1), Case("other", 2.0, 0.02)), seed=7)
    result = run_suite(config)
    write_report(result, out)
    return out, result


def test_evidence_from_a_report_keeps_the_records_and_the_run_identity(report):
    out, result = report
    ev = Evidence.from_report(out)
    assert ev.preset == "quick" and ev.seed == 7
    assert [r.id for r in ev.records] == [r.id for r in result.records]
    assert [r.status for r in ev.records] == [r.status for r in result.records]
    assert [c["name"] for c in ev.cases] == ["mine", "other"]
    assert ev.date[:4].isdigit() and "T" in ev.date
    # the claims judged from the loaded records are those of the run itself
    assert [(c.number, c.status, c.verdict) for c in claims(ev.records)] == \
        [(c.number, c.status, c.verdict) for c in result.claims]


def test_evidence_round_trips_through_its_file(report, tmp_path):
    ev = Evidence.from_report(report[0])
    path = tmp_path / EVIDENCE_FILE
    path.write_text(to_json(ev.as_dict()) + "\n")
    back = Evidence.load(path)
    assert back == ev
    assert json.loads(path.read_text())["figure"] is None and back.figure is None


def _without_theory_sections(monkeypatch):
    """Stub the appendix's theory sections (sympy derivations, landscape certificate, quadrature rows:
    about 20 CPU s), which do not depend on the run; tests/verify/render/test_notes.py computes
    and checks them. What remains is what the run decides."""
    import sigrec.verify.studies._appendix as appendix

    for name in ("derivations", "landscape", "quadrature_rows", "prior_rows", "region_proposition",
                 "subspace_data"):
        monkeypatch.setattr(appendix, name, lambda *a, **k: None)


def test_appendix_data_names_the_run_it_cites(report, monkeypatch):
    _without_theory_sections(monkeypatch)
    ev = Evidence.from_report(report[0])
    data = appendix_data(result=ev)
    assert data.run is ev and data.seed == 7 and set(data.counts) == {"mine", "other"}
    assert {2} <= set(data.claims)


def test_a_folder_without_a_report_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match=r"`evidence`: no report\.json"):
        Evidence.from_report(tmp_path)
    (tmp_path / "report.json").write_text('{"checks": []}')
    with pytest.raises(ValueError, match="not a sigrec report"):
        Evidence.from_report(tmp_path)


@pytest.mark.parametrize("change, word", [
    ({"seed": "7; rm"}, "`seed`"), ({"seed": -1}, "`seed`"), ({"seed": True}, "`seed`"), ({"seed": 1.5}, "`seed`"),
    ({"seconds": "slow"}, "`seconds`"), ({"seconds": float("nan")}, "`seconds`"), ({"seconds": None}, "`seconds`"),
    ({"preset": 3}, "`preset`"), ({"date": None}, "`date`"), ({"packages": []}, "`packages`"),
    ({"cases": "mine"}, "`cases`"), ({"git_commit": 12}, "`git_commit`"), ({"records": 5}, "not a sigrec evidence"),
    ({"records": [{"kind": "x"}]}, "not a sigrec evidence"),
])
def test_a_malformed_evidence_file_is_refused_in_one_line(report, tmp_path, change, word):
    good = Evidence.from_report(report[0]).as_dict()
    path = tmp_path / EVIDENCE_FILE
    path.write_text(json.dumps({**good, **change}))
    with pytest.raises(ValueError, match=word) as info:
        Evidence.load(path)
    assert "\n" not in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize("text", ["", "[1, 2]", "{", '"evidence"'])
def test_an_evidence_file_that_is_not_an_object_is_refused(tmp_path, text):
    path = tmp_path / EVIDENCE_FILE
    path.write_text(text)
    with pytest.raises(ValueError, match="not a sigrec evidence file"):
        Evidence.load(path)


def test_a_report_with_a_malformed_identity_is_refused(report, tmp_path):
    rep = json.loads((report[0] / "report.json").read_text())
    for change in ({"config": {**rep["config"], "seed": "x"}}, {"environment": []}):
        (tmp_path / "report.json").write_text(json.dumps({**rep, **change}))
        with pytest.raises(ValueError, match="not a sigrec report"):
            Evidence.from_report(tmp_path)
