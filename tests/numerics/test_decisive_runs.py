"""``numerics.decisive_runs``: the runs a recovery verdict needs, against an independent route.

The implementation uses scipy's beta quantile (Clopper–Pearson) and binomial CDF; here both
are recomputed from their definitions with exact integer arithmetic (``math.comb``): the lower
bound ``p`` solves ``P(Bin(paths, p) >= k) = 0.05`` (bisection), and the false-"fails" chance is
the binomial sum. A Monte Carlo run of the verdict then checks the claimed error rate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from sigrec.numerics import Problem, decisive_runs, plan_recovery


def _tail_at_least(k: int, n: int, p: float) -> float:
    """P(Bin(n, p) >= k) by summing the mass function (exact binomials, float powers)."""
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


def _cp_lower(k: int, n: int) -> float:
    """One-sided 95% Clopper–Pearson lower bound by bisection on its definition."""
    if k == 0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _tail_at_least(k, n, mid) < 0.05 else (lo, mid)
    return lo


def _independent(predicted: float, fraction: float, alpha: float, most: int, paths: int) -> int:
    k = round(predicted * paths)
    p = _cp_lower(k, paths)
    fewest = math.ceil(1 / (1 - Fraction(fraction).limit_denominator(1000)))
    chances = {}
    for n in range(min(fewest, most), most + 1):
        need = math.ceil(Fraction(fraction).limit_denominator(1000) * n)
        chances[n] = 1 - _tail_at_least(need, n, p)
        if chances[n] <= alpha:
            return n
    return min(chances, key=lambda n: (round(chances[n], 10), n))  # the least chance, fewest runs on ties


@pytest.mark.parametrize("predicted", [1.0, 0.999, 0.99, 0.98, 0.975, 0.97, 0.95, 0.9, 0.5])
@pytest.mark.parametrize("fraction, alpha, most", [(0.9, 0.05, 20), (0.9, 0.05, 16), (0.8, 0.01, 40),
                                                   (0.75, 0.1, 12)])
def test_matches_the_definition(predicted, fraction, alpha, most):
    paths = 400  # small enough for the exact sums above
    got = decisive_runs(predicted, fraction=fraction, false_fails=alpha, most=most, paths=paths)
    assert got == _independent(predicted, fraction, alpha, most, paths)


def test_the_stated_cases():
    # every diffusion path recovered: one miss is tolerated from 10 runs on, and 10 suffice
    assert decisive_runs(1.0, most=20) == 10
    # the planner's least accepted fraction (97%): 20 runs (two misses tolerated)
    assert decisive_runs(0.97, most=20) == 20
    # no count keeps the error rate: the one with the least chance of a false "fails" (10 here:
    # at p ~ 0.89, tolerating 2 misses of 20 is worse than 1 of 10)
    assert decisive_runs(0.9, most=20) == 10
    # never more than the preset's runs, and a cap below the floor is the cap
    assert decisive_runs(1.0, most=6) == 6


def test_the_chosen_count_keeps_the_rate_or_is_the_best_there_is():
    fr = np.linspace(0.9, 1.0, 41)
    n = [decisive_runs(float(f), most=40) for f in fr]
    # not monotone in general (the threshold ceil(0.9 n) jumps), but the chosen n keeps its error rate
    for f, k in zip(fr, n, strict=True):
        p = _cp_lower(round(f * 2000), 2000) if f < 1 else 0.05 ** (1 / 2000)
        chance = {m: 1 - _tail_at_least(math.ceil(0.9 * m - 1e-9), m, p) for m in range(10, 41)}
        assert chance[k] <= 0.05 or chance[k] <= min(chance.values()) + 1e-9


def test_monte_carlo_false_fails_stay_below_the_bound():
    """Runs that recover with the bound's probability: the 90% verdict fails at most 5% of the time."""
    rng = np.random.default_rng(7)
    for predicted in (1.0, 0.98, 0.97):
        n = decisive_runs(predicted, most=20)
        p = _cp_lower(round(predicted * 2000), 2000) if predicted < 1 else 0.05 ** (1 / 2000)
        fails = (rng.binomial(n, p, size=200_000) < math.ceil(0.9 * n - 1e-9)).mean()
        assert fails <= 0.05 + 4 * math.sqrt(0.05 * 0.95 / 200_000), (predicted, n, fails)


def test_with_runs_restates_the_cost_only():
    problem = Problem(theta=1.0, R=100, L=600, d=10, batch=2)
    plan = plan_recovery(problem, target=0.99, runs=16, seconds_per_token_step=1e-8)
    small = plan.with_runs(10)
    assert small.runs == 10 and small.steps == plan.steps and small.schedule == plan.schedule
    assert small.run_steps == 10 * plan.steps
    assert small.token_steps == 10 * plan.steps * 600 * 2
    assert small.seconds == pytest.approx(plan.seconds * 10 / 16, rel=1e-12)
    assert "x 10 runs" in small.describe()
    with pytest.raises(ValueError, match="runs"):
        plan.with_runs(0)


@pytest.mark.parametrize("kw, name", [(dict(predicted_fraction=1.2), "predicted_fraction"),
                                      (dict(predicted_fraction=0.9, fraction=1.0), "fraction"),
                                      (dict(predicted_fraction=0.9, false_fails=0.0), "false_fails"),
                                      (dict(predicted_fraction=0.9, most=0), "most"),
                                      (dict(predicted_fraction=0.9, paths=0), "paths")])
def test_bad_arguments_are_named(kw, name):
    with pytest.raises(ValueError, match=name):
        decisive_runs(**kw)
