"""The verdict of finite_size.rate on synthetic ladders whose truth is known: the errors of a
correct implementation follow C/L + D/L^2 (the expansion to next order), and the check must not
fail on them (a stated false-alarm rate, measured here by simulation); errors of another rate
must fail it."""

from __future__ import annotations

import numpy as np
import pytest

from sigrec.verify.checks._finite_fit import _fit_rate, rate_criteria

#: the ladder of the random model whose pre-asymptotic errors the one-term model rejected
#: (L_0 = 46, five sizes over 0.6 decades; err * L was 4.97 at L = 46 and 7.05 at L = 184, C = 7.27)
LADDER = 46 * 2.0 ** (np.arange(5) / 2)
C19, D19 = 7.27, (4.97 - 7.27) * 46
#: the false-alarm rate the tests allow (the model test alone is at 1e-3 by construction)
FALSE_ALARM = 0.01


def _rows(err, se, Ls=LADDER, rho=0.5):
    return [{"rho": rho, "L": float(L), "err": float(e), "se": float(s)} for L, e, s in zip(Ls, err, se, strict=True)]


def _verdict(err, se) -> tuple[bool, str]:
    fit = _fit_rate(_rows(err, se), [0.5])
    crit = rate_criteria(fit, [0.5])
    return crit["model_ok"] and crit["rate"] != "bad", crit["rate"]


def test_the_two_term_model_accepts_the_pre_asymptotic_ladder_the_one_term_model_rejected():
    truth = C19 / LADDER + D19 / LADDER**2
    se = np.abs(truth) / 30  # resolved at 30 SE, as precision rises: the curvature is visible
    fit = _fit_rate(_rows(truth, se), [0.5])
    assert fit.p_value < 1e-3  # the one-term model (the old criterion) rejects the exact truth
    crit = rate_criteria(fit, [0.5])
    assert crit["model_ok"] and crit["rate"] == "ok", crit
    c = fit.C_over_L["0.5"]
    assert c["C2"] == pytest.approx(C19, rel=1e-9) and c["D"] == pytest.approx(D19, rel=1e-9)


@pytest.mark.parametrize("D_scale", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("resolution", [4.5, 12.0, 30.0])
def test_a_correct_implementation_fails_at_most_at_the_stated_rate(D_scale, resolution):
    """Errors drawn around C/L + D/L^2 with Gaussian noise: the share of ladders the verdict fails
    (model rejected or rate bad) stays below FALSE_ALARM."""
    rng = np.random.default_rng(int(100 * D_scale + resolution))
    truth = C19 / LADDER + D_scale * D19 / LADDER**2
    se = np.abs(C19 / LADDER) / resolution
    n = 4000
    fails = sum(not _verdict(truth + se * rng.standard_normal(LADDER.size), se)[0] for _ in range(n))
    assert fails / n <= FALSE_ALARM, f"{fails}/{n} false fails"


@pytest.mark.parametrize("power", [0.5, 0.0, 2.0])
def test_errors_of_another_rate_fail(power):
    """``err = c L^-power`` (a 1/sqrt(L) bias, a constant one, a 1/L^2 one) measured at 30 SE:
    neither C/L + D/L^2 with a leading term that dominates nor a slope of -1 describes them."""
    err = 3.0 * LADDER ** -power
    se = np.abs(err) / 30
    ok, rate = _verdict(err, se)
    assert not ok or rate == "untested", rate
