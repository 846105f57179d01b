"""``sigrec certify --heads H``: the certified equilibria of the heads' reduced flow.

The JSON is the library's certificate (theory.certify_heads); every box holds the end of the flow
integrated independently from other random frames (another seed) when that end is stable, and
the float Jacobian's stability of the box centre agrees with the printed one."""

import json

import numpy as np
import pytest

from sigrec.theory import Model, certify
from sigrec.theory._field._heads import heads_equilibrium, integrate_heads, random_frame

from ._run import error_line, output

ARGV = ["certify", "--prior", "onehot(k=2)", "--alpha", "0.3", "--heads", "2"]


_run, _error = output, error_line


def _inside(M, box) -> bool:
    return all(lo - 1e-12 <= x <= hi + 1e-12 for x, (lo, hi) in zip(np.ravel(M), box, strict=True))


@pytest.mark.heavy
def test_json_is_the_library_certificate_and_holds_the_flows_ends(capsys):
    doc = json.loads(_run(capsys, [*ARGV, "--theta", "1.5", "--json"]))
    model = Model(1.5, 0.3, prior="onehot(k=2)", heads=2)
    lib = certify(model).as_dict()
    assert doc["model"] == model.as_dict() and doc["complete"] is False and doc["certified"] is True
    assert doc["boxes"] == lib["boxes"] and doc["notes"] == lib["notes"]
    rng = np.random.default_rng(99)  # another route: the flow from other frames ends in a stable box
    for _ in range(3):
        Q, U = random_frame(2, 2, 6, rng)
        end = integrate_heads(model, U.T @ Q).M
        hits = [b for b in doc["boxes"] if _inside(end, b["box"]) or np.max(np.abs(end - np.reshape(
            [(lo + hi) / 2 for lo, hi in b["box"]], (2, 2)))) < 1e-7]
        assert len(hits) == 1 and hits[0]["status"] == "stable"
    for b in doc["boxes"]:
        centre = np.reshape([(lo + hi) / 2 for lo, hi in b["box"]], (2, 2))
        assert heads_equilibrium(model, centre).stable == (b["status"] == "stable")
        assert b["feasibility"] == "boundary" and len(b["angles"]) == 2


@pytest.mark.heavy
def test_human_output_lists_the_boxes_and_says_not_complete(capsys):
    out = _run(capsys, [*ARGV, "--theta", "3"])
    assert out.startswith("heads equilibria: law onehot(k=2) (k = 2), theta=3, alpha=0.3")
    assert "NOT proved complete" in out and "NOT all certified" not in out
    assert out.count(" stable ") >= 3  # two specialised and two shared-direction states are stable
    assert "shared-direction" in out and "principal angles (0.000000, 1.570796)" in out


def test_two_heads_on_one_direction_share_it_half_and_half(capsys):
    """A scalar prior (k = 1) with two heads: the stable state puts both heads at overlap 1/sqrt 2
    (``m_1^2 + m_2^2 = 1``: the direction is in span Q); the float Jacobian agrees on stability."""
    doc = json.loads(_run(capsys, ["certify", "--theta", "1.5", "--alpha", "0.3", "--heads", "2", "--json"]))
    model = Model(1.5, 0.3, heads=2)
    stable = [b for b in doc["boxes"] if b["status"] == "stable"]
    assert doc["certified"] and len(stable) == 1 and stable[0]["kind"] == "recovered-shared"
    assert _inside([2 ** -0.5, 2 ** -0.5], [[lo - 1e-15, hi + 1e-15] for lo, hi in stable[0]["box"]])
    for b in doc["boxes"]:
        centre = np.reshape([(lo + hi) / 2 for lo, hi in b["box"]], (1, 2))
        assert heads_equilibrium(model, centre).stable == (b["status"] == "stable")


@pytest.mark.parametrize("argv,word", [
    (["--theta", "0.8:1"], "ranges LO:HI (in --theta) are for scalar priors"),
    (["--theta", "1", "--time-to", "0.5", "--rho0", "0.1"], "--time-to and --rho0 certify the flow time"),
    (["--theta", "1", "--heads", "0"], "--heads"),
])
def test_heads_refusals(capsys, argv, word):
    assert word in _error(capsys, [*ARGV, *argv])


def test_a_scalar_range_with_heads_is_refused(capsys):
    line = _error(capsys, ["certify", "--theta", "0.8:1", "--alpha", "0.3", "--heads", "2"])
    assert "`heads` > 1 certifies the equilibria of the heads' reduced flow at one model" in line
