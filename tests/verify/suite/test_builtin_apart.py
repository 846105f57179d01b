"""On the user's cases, the model-independent checks (built-in instances) are listed and counted apart,
and every record says what it ran on."""

from __future__ import annotations

import json
from dataclasses import replace

from sigrec.verify import markdown
from sigrec.verify.suite import SuiteConfig, make_case, run_suite
from sigrec.verify.suite._runner import builtin_apart


def _report(result) -> dict:
    return {"checks": [r.as_dict() for r in result.records], "claims": [],
            "summary": {**result.summary, "seconds": result.seconds},
            "config": {"preset": "quick", "seed": 1, "cases": []},
            "environment": {"python": "3", "platform": "x", "git_commit": None, "packages": {}}}


def test_a_users_run_counts_the_built_in_checks_apart():
    mine = make_case("mine", theta=0.6, alpha=0.3, beta=2.0)
    config = replace(SuiteConfig.preset_config("quick"), cases=(mine,), checks=("field.endpoints", "field.monotone"))
    assert builtin_apart(config) and not builtin_apart(SuiteConfig.preset_config("quick"))
    result = run_suite(config)
    by_id = {r.id: r for r in result.records}
    assert by_id["field.endpoints"].details["ran_on"] == "built-in: the symbolic field of every prior family"
    assert by_id["field.monotone"].details["ran_on"] == "mine: the limit model"
    s = result.summary
    # the user's counts hold the user's case alone; the built-in check is counted under "builtin"
    assert s["checks"] == 1 and s["conditions_holding"] + s["conditions_failing"] + s["conditions_undecided"] == 1
    assert s["builtin"]["checks"] == 1 and s["builtin"]["consistency_passed"] == 1
    assert s["consistency_passed"] == 0
    md = markdown(json.loads(json.dumps(_report(result))))
    assert "1 checks on your cases and 1 built-in in" in md
    own, builtin = md.split("### Built-in checks")
    assert "`field.monotone`" in own and "`field.endpoints`" not in own
    assert "`field.endpoints`" in builtin and "built-in: the symbolic field" in builtin


def test_the_presets_own_run_keeps_one_count():
    config = replace(SuiteConfig.preset_config("quick"), checks=("field.endpoints",))
    result = run_suite(config)
    assert "builtin" not in result.summary and result.summary["consistency_passed"] == 1
    assert "### Built-in checks" not in markdown(json.loads(json.dumps(_report(result))))
