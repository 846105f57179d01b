"""The suite's plan, the claim verdicts computed from records, and the report rendering."""

import json

import pytest

from sigrec.verify import CASES, Case, CheckRecord, SuiteConfig, claims, markdown
from sigrec.verify.suite import not_applicable, plan


def _rec(id_, kind, status, case=None, value=None, certified=False, **details):
    if case is not None:
        details["case"] = case
    return CheckRecord(id=id_, kind=kind, status=status, value=value, threshold=None, certified=certified,
                       message=f"{id_} says |rho| = 0.5", details=details)


def _by_number(cs):
    return {c.number: c for c in cs}


def test_monotone_claim_is_partial_when_cases_disagree_and_lists_them():
    recs = [_rec("field.monotone", "condition", "holds", "a", certified=True),
            _rec("field.monotone", "condition", "fails", "b", certified=True),
            _rec("field.monotone", "condition", "fails", "c", certified=True)]
    c = _by_number(claims(recs))[2]
    assert c.status == "partial"
    assert "b, c" in c.regime and "a" in c.regime and "certified" in c.evidence
    only_fail = _by_number(claims(recs[1:]))[2]
    assert only_fail.status == "fails"
    undecided = _by_number(claims([_rec("field.monotone", "condition", "undecided", "u")]))[2]
    assert undecided.status == "undecided" and "u" in undecided.verdict


def test_recovery_claim_follows_certified_stability():
    ok = _rec("field.stability", "consistency", "pass", "a", interior=[{"stability": "unstable"}])
    bad = _rec("field.stability", "consistency", "pass", "b", interior=[{"stability": "stable"}])
    assert _by_number(claims([ok]))[4].status == "holds"
    assert _by_number(claims([ok, bad]))[4].status == "fails"


def test_a_claim_that_holds_beside_an_undecided_run_says_why_both_are_true():
    ok = _rec("field.stability", "consistency", "pass", "a", interior=[{"stability": "unstable"}])
    run = _rec("sga.convergence.recovery", "condition", "undecided", "a", value=0.0)
    c = _by_number(claims([ok, run]))[4]
    assert c.status == "holds"
    assert "sga.convergence.recovery on a: undecided" in c.caveat and "t -> infinity" in c.caveat
    report = {"checks": [], "claims": [x.as_dict() for x in claims([ok, run])],
              "summary": {"checks": 2, "seconds": 0.1, "ok": True},
              "config": {"preset": "quick", "seed": 1, "cases": []},
              "environment": {"python": "3", "platform": "x", "git_commit": None, "packages": {}}}
    assert "* Claim 4 holds although sga.convergence.recovery on a: undecided" in markdown(report)
    decided = _rec("sga.convergence.recovery", "condition", "holds", "a", value=1.0)
    assert _by_number(claims([ok, decided]))[4].caveat == ""
    # an undecided claim needs no caveat: it says so itself
    und = _by_number(claims([_rec("field.monotone", "condition", "undecided", "u")]))[2]
    assert und.caveat == ""


def test_recovery_verdict_separates_the_limit_from_the_finite_runs():
    """On a user's model where no simulated run recovered, the table's verdict says both: the claim holds
    in the limit (certified stability) and 0 of 16 runs recovered within the budget."""
    ok = _rec("field.stability", "consistency", "pass", "mine", interior=[])
    run = _rec("sga.convergence.recovery", "condition", "undecided", "mine", value=0.0, runs=16)
    c = _by_number(claims([ok, run]))[4]
    assert c.status == "holds"
    assert c.verdict.startswith("holds in the limit: every interior equilibrium is unstable (certified)")
    assert "finite runs: mine 0/16 recovered within the budget (undecided)" in c.verdict
    full = _rec("sga.convergence.recovery", "condition", "holds", "mine", value=1.0, runs=10)
    assert "finite runs: mine 10/10 recovered (holds)" in _by_number(claims([ok, full]))[4].verdict
    trap = _rec("field.stability", "consistency", "pass", "b", interior=[{"stability": "stable"}])
    assert _by_number(claims([trap, run]))[4].verdict.startswith("in the limit: a stable interior equilibrium")


def test_filtering_claim_quotes_the_recorded_value_not_typed_prose():
    rec = _rec("sga.filtering.vanishes", "condition", "fails", "weak", value=0.123456)
    c = _by_number(claims([rec]))[5]
    assert c.status == "fails" and "0.123" in c.verdict and "weak" in c.verdict


def test_no_records_no_claims_and_limit_claim_needs_passing_checks():
    assert claims([]) == ()
    good = [_rec("derivation.quadrature", "consistency", "pass", value=1e-60),
            _rec("field.endpoints", "consistency", "pass")]
    assert _by_number(claims(good))[1].status == "holds"
    bad = [*good[:1], _rec("field.endpoints", "consistency", "fail")]
    assert _by_number(claims(bad))[1].status == "fails"


def test_plan_runs_model_independent_checks_once_and_respects_case_selection():
    config = SuiteConfig.preset_config("quick")
    steps = plan(config)
    labels = [label for label, _, _ in steps]
    assert labels[:2] == ["derivation.quadrature", "field.endpoints"]
    assert labels[-1] == "sga.effective_drift"
    assert labels.count("derivation.quadrature") == 1
    # theory-only cases get no simulation checks
    sparse = [label for label in labels if label.endswith(": sparse-bistable")]
    assert sparse and all(label.split(":")[0].startswith(("field.", "ode.")) for label in sparse)
    # the finite-size case selects only its checks, and every one of them runs
    finite = {label.split(":")[0] for label in labels if label.endswith(": finite-size")}
    assert finite == {"field.monotone", "field.stability", "field.phase_boundary", "ode.lyapunov", "finite_size.rate"}
    assert not [na for na in not_applicable(config) if na["case"] == "finite-size"]
    only_field = plan(SuiteConfig(checks=("field.*",), cases=(Case("mine", 0.5, 0.1),)))
    assert [label for label, _, _ in only_field] == ["field.endpoints", "field.monotone: mine",
                                                      "field.stability: mine", "field.phase_boundary: mine"]


def test_report_markdown_keeps_absolute_value_bars_and_renders_claims():
    recs = [_rec("field.monotone", "condition", "holds", "a", certified=True)]
    report = {"checks": [r.as_dict() for r in recs], "claims": [c.as_dict() for c in claims(recs)],
              "summary": {"checks": 1, "seconds": 0.1, "ok": True},
              "config": {"preset": "quick", "seed": 1, "cases": []},
              "environment": {"python": "3", "platform": "x", "git_commit": None, "packages": {}}}
    md = markdown(json.loads(json.dumps(report)))
    assert "/rho/" not in md and r"\|rho\| = 0.5" in md
    assert "## The paper's claims" in md and "| 2. " in md


def test_report_cases_list_heads_and_escape_dollars_in_user_text():
    from dataclasses import asdict

    cases = [Case("cost $5", 1.3, R=500, L=10500, d=10, prior="onehot(k=2)", heads=2, description="a $x$ case"),
             Case("plain", 0.5, 0.1)]
    report = {"checks": [], "claims": [], "summary": {"checks": 0, "seconds": 0.1, "ok": True},
              "config": {"preset": "quick", "seed": 1, "cases": [asdict(c) for c in cases]},
              "environment": {"python": "3", "platform": "x", "git_commit": None, "packages": {}}}
    md = markdown(json.loads(json.dumps(report)))
    line = next(x for x in md.splitlines() if x.startswith("* **cost"))
    assert line.startswith("* **cost \\$5** (onehot(k=2) prior") and ", 2 heads)" in line and "a \\$x\\$ case" in line
    plain = next(x for x in md.splitlines() if x.startswith("* **plain"))
    assert "heads" not in plain


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_builtin_cases_are_valid(case):
    assert case.model is not None
    if case.simulated:
        assert case.problem.L == case.L
    else:
        with pytest.raises(ValueError, match="theory-only"):
            case.problem  # noqa: B018 - reading the property raises


def test_inconclusive_is_neither_a_pass_nor_a_failure():
    from sigrec.verify.suite import summarize

    recs = [_rec("sga.convergence", "consistency", "inconclusive", "a"),
            _rec("sga.convergence.recovery", "condition", "inconclusive", "a"),
            _rec("field.endpoints", "consistency", "pass")]
    s = summarize(recs)
    assert s["ok"] and not recs[0].failed
    assert s["consistency_inconclusive"] == 1 and s["conditions_inconclusive"] == 1
    assert s["consistency_passed"] == 1 and s["consistency_failed"] == 0
    assert _rec("x", "consistency", "fail").failed
    with pytest.raises(ValueError, match="status"):
        _rec("x", "consistency", "holds")


def test_evidence_class_is_decided_by_the_claim():
    cert = [_rec("field.monotone", "condition", "holds", "a", certified=True),
            _rec("field.monotone", "condition", "fails", "b", certified=True)]
    c = _by_number(claims(cert))[2]
    assert c.evidence_class == "certified" and c.check_evidence("field.monotone") == "certified"
    mixed = [*cert, _rec("field.monotone", "condition", "undecided", "u", certified=False)]
    c = _by_number(claims(mixed))[2]
    assert c.evidence_class == "numerical evidence" and c.check_evidence("field.monotone") == "mixed"
    num = _by_number(claims([_rec("sga.filtering.vanishes", "condition", "fails", "w", value=0.5)]))[5]
    assert num.evidence_class == "numerical evidence" and num.check_evidence("sga.filtering.vanishes") == "numerical"
    good = [_rec("derivation.quadrature", "consistency", "pass", value=1e-60),
            _rec("field.endpoints", "consistency", "pass", certified=True)]
    assert _by_number(claims(good))[1].evidence_class.startswith("certified derivation; lemmas by quadrature")
    # the class is not part of the report's claim (report.json keeps its fields)
    assert "evidence_class" not in _by_number(claims(good))[1].as_dict()


def test_claims_module_imports_no_study():
    import ast
    from pathlib import Path

    import sigrec.verify.suite as suite

    for path in Path(suite.__path__[0]).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                assert node.module.split(".")[0] not in ("studies", "render", "cli"), (path.name, node.module)
