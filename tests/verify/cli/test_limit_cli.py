"""``sigrec limit`` through the command line: refusals, and the library's numbers in text and JSON."""

from __future__ import annotations

import json
import math

import pytest

from sigrec.theory import Model
from sigrec.verify.cli import main
from sigrec.verify.studies import limit_distance, limit_map, tokens_needed

from ...contracts.test_hostile_input import _refused

#: a cheap instance: alpha = 1/2 starts the ladder at L = 20 (R = 10), the precision is coarse
SMALL = ["limit", "--theta", "1", "--d", "4", "--tol", "0.3", "--se", "0.08", "--L-max", "40"]


@pytest.mark.parametrize(("extra", "names"), [
    (["--alpha", "0.5", "--tol", "0.02", "--se", "0.01"], ("`tol`", "`se`")),
    (["--alpha", "0"], ("`alpha`",)),
    (["--alpha", "0.5", "--eta", "2"], ("`eta`",)),
    (["--alpha", "0.5", "--betas", "1", "2"], ("`betas`", "--figure")),
    (["--alpha", "0.5", "--figure", "map.txt"], ("`figure`",)),
    (["--alpha", "0.5", "--prior", "onehot(k=2)"], ("`prior`",)),
    (["--theta", "0", "--alpha", "0.5"], ("`theta`",)),
    (["--alpha", "0.5", "--L-max", "1"], ("L-max",)),
    (["--alpha", "0.5", "--R", "3", "--L", "9"], ("`alpha`", "`R`")),
])
def test_bad_input_is_one_line(capsys, extra, names):
    _refused(capsys, SMALL + extra, *names)


@pytest.mark.heavy
def test_a_ladder_that_is_not_enough_is_the_librarys_reason(capsys):
    argv = ["limit", "--theta", "1", "--alpha", "0.5", "--beta", "2.5", "--d", "4", "--tol", "0.15", "--se",
            "0.05", "--L-max", "20"]
    line = _refused(capsys, argv, "L = 20", "tol = 0.15")
    expected = tokens_needed(Model(1, 0.5, 2.5), 0.15, d=4, se=0.05, L_max=20)
    assert expected.status == "beyond" and line == f"error: {expected.reason}"


@pytest.mark.heavy
def test_json_and_text_are_the_library_call(capsys):
    argv = [*SMALL, "--R", "10", "--L", "20"]
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    doc = json.loads(captured.out)
    model = Model(1, 0.5)
    found = tokens_needed(model, 0.3, d=4, se=0.08, L_max=40)
    at = limit_distance(model, 20, 4, se=0.08)
    assert doc["tokens_needed"]["L"] == found.L and doc["tokens_needed"]["status"] == found.status
    assert [r["distance"] for r in doc["tokens_needed"]["ladder"]] == [r["distance"] for r in found.ladder]
    assert doc["distance"]["distance"] == at.distance and doc["distance"]["distance_se"] == at.distance_se
    assert doc["distance"]["finite"]["mean"] == at.finite.mean.tolist()
    assert doc["evidence"] == "numerical evidence (Monte Carlo of the exact reduced chain)"
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "numerical evidence (Monte Carlo of the exact reduced chain)" in text
    assert f"L = {found.L} (R = {found.R})" in text
    assert f"{at.distance:.4f} ± {at.distance_se:.4f}" in text
    for row in found.ladder:
        assert f"{row['distance']:.4f}" in text


@pytest.mark.heavy
def test_the_figure_draws_the_librarys_map(capsys, tmp_path):
    path = tmp_path / "map.png"
    argv = [*SMALL, "--alpha", "0.5", "--figure", str(path), "--betas", "0.5", "1.5", "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert path.is_file() and path.stat().st_size > 10_000 and doc["figure"] == str(path)
    lmap = limit_map(Model(1, 0.5), [0.5, 1.5], [20, 40], d=4, se=0.08)
    assert doc["map"]["distance"] == lmap.distance.tolist()
    assert doc["map"]["tokens_needed"] == [None if math.isnan(x) else x for x in lmap.crossing(0.3)]
