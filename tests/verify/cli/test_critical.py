"""``sigrec critical`` through the command line: text, JSON and refusals."""

from __future__ import annotations

import json
import math

from sigrec.theory import critical_alpha
from sigrec.verify.cli import main


def _numbers(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield x


def test_json_gives_the_certified_threshold_and_token_counts(capsys):
    assert main(["critical", "--theta", "2", "--beta", "1.2", "--N", "3000", "--R", "200", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert all(math.isfinite(v) for v in _numbers(doc))
    ac = critical_alpha(2.0, 1.2)
    t = doc["transitions"][-1]
    assert t["lo"] <= ac <= t["hi"] and doc["closed_form"] == ac
    R, N = doc["smallest_R"]["R"], doc["largest_N"]["N"]
    assert (R - 1) / (R - 1 + 3000) < ac <= R / (R + 3000) and 200 / (200 + N) >= ac > 200 / (201 + N)
    assert doc["smallest_R"]["certified"] and doc["largest_N"]["certified"]


def test_text_names_the_answer_and_what_is_proved(capsys):
    assert main(["critical", "--theta", "2", "--N", "3000"]) == 0
    out = capsys.readouterr().out
    assert "alpha_c = 0.63561094" in out and "smallest R at N = 3000: R = 5233" in out and "certified" in out
    assert "numerical evidence" in out  # what the grid does not prove


def test_no_answer_is_said_not_printed_as_null(capsys):
    assert main(["critical", "--theta", "2", "--prior", "rademacher", "--N", "10", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["monotone_nowhere"] and doc["smallest_R"]["exists"] is False and "R" not in doc["smallest_R"]
    assert "alpha_c" not in doc and None not in doc.values()


def test_bad_input_is_one_error_line(capsys):
    assert main(["critical", "--theta", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error:") and "theta" in err
    assert main(["critical", "--theta", "2", "--N", "0"]) == 2
    assert "`N`" in capsys.readouterr().err


def test_a_field_too_steep_to_certify_is_refused_at_once(capsys):
    """theta = 1e308 (found by the slow CLI fuzz): each certificate would spend its whole box budget
    and the scan minutes; it is refused up front naming theta and beta."""
    assert main(["critical", "--theta", "1e308"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`theta` x `beta`" in err
