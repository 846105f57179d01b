"""Pole exponents whose size float64 cannot hold: the label comes from ball arithmetic and never
contradicts the certificate; the value is printed at any magnitude; JSON stays finite."""

from __future__ import annotations

import json

import mpmath
import pytest

from sigrec.theory import Model, certify, evaluate_mp, pole_exponents, pole_exponents_mp, pole_signs
from sigrec.verify.cli import main


def _json(capsys, argv):
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return json.loads(out)


def test_a_tiny_stable_exponent_is_labelled_stable(capsys):
    """theta = 50, alpha = 1e-12, beta = 20: F'(-1) is about -2e-440; float64 says -0.0."""
    model = Model(50, 1e-12, 20, 1)
    assert pole_exponents(model)[1] == 0.0  # what float64 can say
    value = pole_exponents_mp(model)[1]
    with mpmath.workdps(40):  # an independent route: twice the slope of the stable mp evaluator
        other = 2 * evaluate_mp(model, -1, dps=40)["slope"]
    assert value < 0 and abs(value - other) < abs(other) * mpmath.mpf(10) ** -20
    assert pole_signs(model) == (-1, -1)
    doc = _json(capsys, ["certify", "--theta", "50", "--alpha", "1e-12", "--beta", "20"])
    assert doc["status"] == "bistable"
    assert doc["poles"]["minus"]["stability"] == "stable"
    assert doc["poles"]["minus"]["exponent_text"].startswith("-2.028")
    assert "e-440" in doc["poles"]["minus"]["exponent_text"]
    assert "exponent" not in doc["poles"]["minus"]  # float64 would print -0.0


def test_a_huge_exponent_is_printed_not_infinite(capsys):
    """theta = 200, alpha = 0, beta = 20: F'(+1) ~ -9.6e1744 (float64: -inf)."""
    doc = _json(capsys, ["certify", "--theta", "200", "--alpha", "0", "--beta", "20"])
    plus = doc["poles"]["plus"]
    assert plus["stability"] == "stable" and "exponent" not in plus
    assert plus["exponent_text"].startswith("-9.643") and "e+1744" in plus["exponent_text"]
    main(["certify", "--theta", "200", "--alpha", "0", "--beta", "20"])
    out, err = capsys.readouterr()
    assert err == "" and "inf" not in out and "(stable)" in out


@pytest.mark.parametrize("theta, alpha, beta", [(2.0, 0.047619, 1.0), (3.0, 0.9, 1.0), (0.5, 0.0, 1.0),
                                                 (2.0, 0.0, 1.0), (8.0, 1e-6, 3.0)])
def test_labels_agree_with_the_certificate_and_the_float(theta, alpha, beta):
    model = Model(theta, alpha, beta)
    plus, minus = pole_exponents(model)
    s_plus, s_minus = pole_signs(model)
    # where the float is clearly nonzero it has the certified sign
    for value, sign in ((plus, s_plus), (minus, s_minus)):
        if abs(value) > 1e-300:
            assert (value > 0) - (value < 0) == sign
    cert = certify(model)
    if cert.status == "monotone":
        assert s_plus == -1 and s_minus == 1  # +xi the only attractor, -xi repels
    if s_minus < 0:
        assert cert.status == "bistable"  # -xi attracts: +xi's basin is not everything


def test_an_exact_zero_at_the_pole_is_not_labelled():
    """Sparse fixed prior at beta theta = 1: j' vanishes at rho = -1 (double root): no sign."""
    assert pole_signs(Model(1.0, 0.0, 1.0))[1] == 0
    assert pole_signs(Model(0.0, 0.5)) == (0, 0)
