"""The group-sequential rule (verify/checks/_sequential.py): its false-verdict rates, by simulation
of many experiments of the statistics it is used on (means of runs, with and without an allowance or
a floor; a binomial fraction), against what its docstring states."""

import math

import numpy as np
import pytest
from scipy.stats import binom, norm

from sigrec.verify.checks._sequential import (
    FALSE_FAIL,
    FALSE_PASS,
    Statistic,
    curtail_margin,
    interim_verdict,
    look_counts,
)

N = 100
EXPERIMENTS = 20_000


def _run(values: np.ndarray, z: float, allowance: float = 0.0, floor: float = 0.0, target: float = 0.0,
         se_of=None) -> tuple[np.ndarray, np.ndarray]:
    """Sequential and fixed verdicts (True = pass) of experiments whose runs are the rows of ``values``:
    the statistic is the mean of the runs minus ``target``, its SE the runs' (or ``se_of(mean, n)``)
    combined with ``floor``."""
    counts = look_counts(values.shape[1])
    interim = len(counts) - 1
    seq = np.empty(values.shape[0], dtype=object)
    fixed = np.empty(values.shape[0], dtype=bool)
    for i, row in enumerate(values):
        verdict = None
        for n in counts[:-1]:
            x = row[:n]
            se = se_of(x.mean(), n) if se_of else x.std(ddof=1) / math.sqrt(n)
            stat = Statistic("x", float(x.mean() - target), math.hypot(se, floor), z, allowance, floor)
            verdict = interim_verdict((stat,), n, values.shape[1], interim)
            if verdict is not None:
                break
        se_n = se_of(row.mean(), row.size) if se_of else row.std(ddof=1) / math.sqrt(row.size)
        fixed[i] = abs(row.mean() - target) <= allowance + z * math.hypot(se_n, floor)
        seq[i] = (verdict == "pass") if verdict is not None else fixed[i]
    return seq.astype(bool), fixed


def _delta(z: float, se_full: float, allowance: float = 0.0) -> float:
    return allowance + (z + float(norm.isf(FALSE_PASS))) * se_full


def _slack(p: float) -> float:
    """Three binomial standard errors of a rate ``p`` over the experiments."""
    return 3 * math.sqrt(max(p, 1e-3) * (1 - p) / EXPERIMENTS)


def test_looks_are_increasing_and_end_at_the_fixed_count():
    assert look_counts(100) == (50, 75, 100)
    assert look_counts(3)[-1] == 3
    assert list(look_counts(7)) == sorted(set(look_counts(7)))
    with pytest.raises(ValueError, match="`n`"):
        interim_verdict((Statistic("x", 0.0, 1.0, 3.0),), 100, 100, 2)


@pytest.mark.parametrize("allowance, floor", [(0.0, 0.0), (0.05, 0.0), (0.0, 0.02)])
def test_a_right_prediction_fails_at_most_false_fail_more_often_than_the_fixed_count(allowance, floor):
    rng = np.random.default_rng(1)
    values = rng.normal(0.0, 0.3, size=(EXPERIMENTS, N))
    seq, fixed = _run(values, 3.0, allowance, floor)
    fixed_fail = 1 - fixed.mean()
    assert 1 - seq.mean() <= fixed_fail + FALSE_FAIL + _slack(fixed_fail + FALSE_FAIL)
    # and it stops early most of the time: the point of the design
    assert seq.mean() > 0.99


@pytest.mark.parametrize("allowance, floor", [(0.0, 0.0), (0.05, 0.0), (0.0, 0.02)])
def test_a_deviation_the_full_count_detects_passes_at_most_twice_false_pass(allowance, floor):
    rng = np.random.default_rng(2)
    sd = 0.3
    se_full = math.hypot(sd / math.sqrt(N), floor)
    mu = _delta(3.0, se_full, allowance)
    values = rng.normal(mu, sd, size=(EXPERIMENTS, N))
    seq, fixed = _run(values, 3.0, allowance, floor)
    assert fixed.mean() <= FALSE_PASS + _slack(FALSE_PASS)  # the definition of delta
    assert seq.mean() <= 2 * FALSE_PASS + _slack(2 * FALSE_PASS)


def test_a_binomial_fraction_keeps_both_rates():
    """The splitting check's form: runs are Bernoulli(p), the statistic k/n - p0 with the SE of p0."""
    rng = np.random.default_rng(3)
    p0, z = 0.873, float(norm.isf(0.005))
    total = 300

    def se_of(mean, n):  # of the observed fraction, shrunk as Agresti and Coull do (never 0)
        p = (mean * n + 2) / (n + 4)
        return math.sqrt(p * (1 - p) / n)

    right = (rng.random((EXPERIMENTS, total)) < p0).astype(float)
    seq, fixed = _run(right, z, target=p0, se_of=se_of)
    assert 1 - seq.mean() <= (1 - fixed.mean()) + FALSE_FAIL + _slack(0.02)
    for sign in (-1, 1):
        wrong = _detected(p0, z, total, sign, se_of)
        values = (rng.random((EXPERIMENTS, total)) < wrong).astype(float)
        seq, fixed = _run(values, z, target=p0, se_of=se_of)
        assert fixed.mean() <= FALSE_PASS + _slack(FALSE_PASS)
        assert seq.mean() <= 2 * FALSE_PASS + _slack(2 * FALSE_PASS)


def _detected(p0: float, z: float, total: int, sign: int, se_of) -> float:
    """The fraction on the ``sign`` side of ``p0`` that the fixed rule rejects with probability exactly
    ``1 - FALSE_PASS`` (binomial, by bisection): a deviation the full count detects."""
    k = np.arange(total + 1)
    passes = np.array([abs(i / total - p0) <= z * se_of(i / total, total) for i in k])
    lo, hi = p0, (1.0 if sign > 0 else 0.0)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if binom.pmf(k, total, mid)[passes].sum() > FALSE_PASS else (lo, mid)
    return hi


def test_the_rule_can_fail_early_and_can_refuse_to_decide():
    big = Statistic("x", 1.0, 0.1, 3.0)
    assert interim_verdict((big,), 50, 100, 2) == "fail"
    # an interval too wide for the tolerance: go on
    unsure = Statistic("x", 0.2, 0.1, 3.0)
    assert interim_verdict((unsure,), 50, 100, 2) is None
    # every statistic must be decided for a pass
    tight = Statistic("y", 0.0, 0.01, 3.0)
    assert interim_verdict((tight,), 50, 100, 2) == "pass"
    assert interim_verdict((tight, unsure), 50, 100, 2) is None


@pytest.mark.parametrize("n, total, points", [(20, 40, 150), (30, 60, 1), (45, 60, 20)])
def test_the_full_counts_means_stay_within_the_curtailment_margin(n, total, points):
    """curtail_margin: the chance that some mean of the full count leaves the band around the look's
    (which is what an early pass would get wrong) is at most FALSE_PASS, with correlated points."""
    rng = np.random.default_rng(4)
    reps = 4000
    base = rng.normal(size=(reps, total, 1))
    values = 0.3 + 0.05 * (0.6 * base + 0.8 * rng.normal(size=(reps, total, points)))  # correlated along a run
    outside = 0
    for v in values:
        margin = curtail_margin(v[:n], total)
        outside += bool(np.any(np.abs(v.mean(axis=0) - v[:n].mean(axis=0)) > margin))
    assert outside / reps <= FALSE_PASS + 3 * math.sqrt(FALSE_PASS / reps)
    with pytest.raises(ValueError, match="look"):
        curtail_margin(values[0][:total], total)
