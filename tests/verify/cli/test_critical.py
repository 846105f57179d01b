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


def test_a_k_dimensional_law_is_refused_with_the_commands_that_answer(capsys):
    """critical's thresholds are for one signal direction; a k-dimensional law is refused with where its
    equilibria (certify) and, for onehot laws, its transition theta_c(alpha) (phase) are certified."""
    assert main(["critical", "--theta", "1", "--prior", "onehot(k=2)"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "2-dimensional signal law" in err
    assert "sigrec certify --prior 'onehot(k=2)'" in err and "sigrec phase --prior 'onehot(k=2)'" in err
    assert main(["critical", "--theta", "1", "--prior", "gaussian(k=2, tau=1)"]) == 2
    err = capsys.readouterr().err
    assert "sigrec certify" in err and "sigrec phase" not in err


def test_a_finite_instance_flag_on_a_limit_command_says_why_and_where(capsys):
    """``certify --d 20``: d does not enter the limit; the refusal names the commands that take --d (read
    from the parser, so a command that gains --d is listed). A command that is not of the limit, or an
    unknown flag of another kind, keeps argparse's plain refusal."""
    for cmd in (["certify", "--theta", "1", "--alpha", "0.5", "--d", "20"],
                ["field", "--theta", "1", "--alpha", "0.5", "--rho", "0.1", "--d=3"]):
        assert main(cmd) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "unrecognized arguments" in err and "d does not enter the limit" in err
        assert f"`sigrec {cmd[0]}` decides the limit" in err and "`simulate`" in err and "`verify`" in err
    assert main(["bench", "--d", "3"]) == 2
    assert "does not enter" not in capsys.readouterr().err
    assert main(["certify", "--theta", "1", "--alpha", "0.5", "--bogus", "1"]) == 2
    assert "does not enter" not in capsys.readouterr().err
