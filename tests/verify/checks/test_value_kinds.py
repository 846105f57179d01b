"""Every record says what its value and threshold are (a p-value is read the other way from an error)."""

from __future__ import annotations

import json

from sigrec.verify import CheckRecord, markdown
from sigrec.verify.checks import REGISTRY
from sigrec.verify.checks._record import VALUE_KINDS


def test_every_record_id_of_the_registry_has_its_kinds_and_no_other():
    emitted = {rid for check in REGISTRY.values() for rid in check.records}
    assert emitted == set(VALUE_KINDS)
    # a record with a number says what it is; its threshold too, or it has none
    for rid, (value, threshold) in VALUE_KINDS.items():
        assert value is None or 0 < len(value) <= 42, rid
        assert threshold is None or 0 < len(threshold) <= 42, rid


def _record(rid, value, threshold):
    return CheckRecord(rid, "consistency", "pass", value, threshold, False, "m", {"case": "mine"})


def test_json_and_report_table_carry_the_kinds():
    rec = _record("simulator.reduced_exact", 0.0366, 0.0025)
    d = rec.as_dict()
    assert d["value_kind"].startswith("least KS p-value") and d["threshold_kind"].startswith("Bonferroni level")
    report = {"checks": [json.loads(json.dumps(d)), _record("field.phase_boundary", None, None).as_dict()],
              "claims": [], "summary": {"checks": 2, "seconds": 0.1, "ok": True},
              "config": {"preset": "quick", "seed": 1, "cases": []},
              "environment": {"python": "3", "platform": "x", "git_commit": None, "packages": {}}}
    md = markdown(report)
    assert "| 0.0366 (least KS p-value (4 tests)) | 0.0025 (Bonferroni level (p must be above)) |" in md
    assert "| **pass** | — | — |" in md  # no number, no kind
    unknown = _record("not.registered", 1.0, 2.0)
    assert unknown.value_kind is None and unknown.as_dict()["threshold_kind"] is None
