"""``finite_size.rate`` tests the ``O(1/L)`` bias only where the bias is ``O(1/L)``.

Its ladder of sizes starts where the softmax normaliser's relative variance ``A2 / L`` is small
and the leading bias at the top is a small part of ``max |F|``; a ladder that starts at ``R ~ 10``
tokens was pre-asymptotic on random models (beta up to 3) and failed its ``1/L`` rate there,
with a correct implementation. Models from the random-model test (root seed 7).
"""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest

from sigrec.theory import effective_drift, evaluate, validity
from sigrec.verify.checks import QUICK, REGISTRY, CheckContext
from sigrec.verify.checks._finite import MAX_LADDER_L, RATE_CONCENTRATION, RATE_TOP_BIAS, sizes

from ..suite.test_random_models import cases

DRAW = cases(7, 11)


def _run(case):
    (rec,) = REGISTRY["finite_size.rate"].run(case, CheckContext(seed=20261201, preset=QUICK))
    return rec


def test_sizes_obey_every_lower_bound():
    """``L_0`` is at least 16, ``10/alpha``, ``A2 / RATE_CONCENTRATION`` and the bias bound; the
    ladder is ``L_0 2^{j/2}``; with no theory given it is the ``R ~ 10`` ladder."""
    case = DRAW[10]  # beta 0.73, sigma2 1.70, alpha 0.435: the R ~ 10 start had A2/L = 0.22
    p = case.problem
    A2 = validity(p.model, p.d, 1, 0.0).concentration
    Fmax = float(np.max(np.abs(evaluate(p.model, np.linspace(-1, 1, 401)).field)))
    C = float(effective_drift(p.model, 0.5, 1e-12, p.d, 1.0).finite_L)
    old, new = sizes(p), sizes(p, A2, C, Fmax)
    assert old[0] == max(16, math.ceil(10 * p.L / p.R))
    assert A2 / old[0] > RATE_CONCENTRATION  # the old start was pre-asymptotic here
    assert A2 / new[0] <= RATE_CONCENTRATION * (1 + 1e-12)
    assert abs(C) / new[-1] <= RATE_TOP_BIAS * Fmax * 1.01
    assert len(new) == 5 and all(b / a == pytest.approx(math.sqrt(2), rel=0.02) for a, b in pairwise(new))


@pytest.mark.parametrize("index", [4, 6, 10])
def test_no_false_failure_where_the_old_ladder_failed(index):
    """Models 4 (gaussian prior, beta 2.38), 6 (discrete prior, beta 2.56) and 10 (gaussian prior,
    beta 0.73) of the draw: the R ~ 10 ladder failed the 1/L rate (chi-square p 2e-7, 2e-25, 5e-4);
    the ladder that starts in the O(1/L) regime passes, or says what budget would decide it."""
    rec = _run(DRAW[index])
    assert rec.status != "fail", rec.message
    if rec.status == "inconclusive":
        assert "normals" in rec.message, rec.message
    plan = next(iter(rec.details["draw_plan"].values()))
    assert plan["A2_over_L0"] <= RATE_CONCENTRATION * (1 + 1e-12)


def test_a_regime_beyond_the_budget_is_inconclusive_at_once():
    """Model 6 (beta 2.56, A2 ~ 1e5): the O(1/L) regime starts near L = 3e6, beyond the ladder's
    size limit; the record draws nothing and says where the regime starts and what it needs."""
    rec = _run(DRAW[6])
    assert rec.status == "inconclusive" and rec.details["points"] == []
    L0 = rec.details["sizes"][0]
    assert rec.details["sizes"][-1] > MAX_LADDER_L and f"starts at L = {L0}" in rec.message
    assert "normals" in rec.message and "limit" in rec.message, rec.message
