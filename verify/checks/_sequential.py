"""Stopping a counted experiment once its verdict is decided: a group-sequential design over runs.

A check that averages or counts runs (``sga.fluctuations`` with ``sga.hitting_time``, which share
their runs, and ``sga.splitting``) has a *fixed design*: ``N`` runs (the preset's count) and a
final rule for each statistic, ``|x_N| <= a + z S_N`` (``x`` the deviation of the measured value
from the prediction, ``S_N`` its standard error at ``N`` runs, ``a`` an allowance that does not
shrink with runs, ``z`` the rule's multiple). The sequential design simulates the ``N`` runs in
:data:`LOOKS` blocks and looks at the statistics after each block but the last:

* **pass early** when every statistic's interval lies inside the deviation the full count
  detects with probability ``1 - FALSE_PASS``:
  ``|x_n| + c S_n <= delta = a + (z + z_p) S_N``, with ``z_p = Phi^-1(1 - FALSE_PASS)`` and
  ``c = Phi^-1(1 - FALSE_PASS / J)`` (``J`` interim looks, Bonferroni);
* **fail early** when a statistic lies beyond ``a + c_f S_n`` with
  ``c_f = Phi^-1(1 - FALSE_FAIL / (2 J))``;
* otherwise go on; at the last look the fixed design's own rule decides.

``S_N`` is read from the interim sample (``S_n sqrt(n / N)`` for the part that shrinks with
runs, plus the part that does not, e.g. the prediction's own Monte Carlo error).

**Error rates** (normal approximation of each statistic; checked by simulation in
``tests/verify/checks/test_sequential.py``): stopping adds at most ``FALSE_FAIL`` to the fixed
design's chance of a false ``fail`` when the prediction is right (its final rule at ``|z| <= 3``
has 0.27%), and against any deviation ``|mu| >= delta`` (one the full count detects with
probability ``1 - FALSE_PASS``) the sequential rule passes with probability at most
``2 FALSE_PASS``: ``FALSE_PASS`` from the interim looks, ``FALSE_PASS`` from the last.
A deviation smaller than ``delta`` is one the full count itself often misses.

A statistic with no interval of this form (the Kolmogorov–Smirnov test of ``sga.hitting_time``)
is *not* protected this way: an early pass requires its own final rule to hold at the look,
so against a deviation only it detects, the sequential rule has the power of the test at the
look's run count, not at ``N`` (said in the check's docstring).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student_t

from ._context import derive_seed

#: the looks, as fractions of the preset's run count (the last is the fixed design)
LOOKS = (0.5, 0.75, 1.0)
#: the chance of an early pass against a deviation the full count detects with 1 - FALSE_PASS
FALSE_PASS = 0.01
#: the chance of an early fail when the prediction is right, added to the fixed design's
FALSE_FAIL = 0.001


@lru_cache(maxsize=64)
def _quantile(tail: float) -> float:
    """``Phi^-1(1 - tail)`` (cached: the rule asks for the same few at every look)."""
    return float(norm.isf(tail))


@dataclass(frozen=True)
class Statistic:
    """One statistic of a check at one look: the deviation ``x`` of the measured value from the
    prediction, its standard error ``se`` at this look's ``n`` runs, the part of ``se`` that does
    not shrink with runs (``floor``), and the fixed design's final rule ``|x| <= allowance + z S_N``.

    Attributes
    ----------
    name : str
    deviation : float
        ``x``.
    se : float
        Standard error of ``x`` at this look.
    z : float
        The final rule's multiple of the standard error.
    allowance : float
        The final rule's allowance ``a`` (does not shrink with runs).
    floor : float
        The part of ``se`` that does not shrink with runs (added in quadrature).
    """

    name: str
    deviation: float
    se: float
    z: float
    allowance: float = 0.0
    floor: float = 0.0

    def se_at(self, n: int, total: int) -> float:
        """The standard error at ``total`` runs, from this look's ``n``."""
        runs = math.sqrt(max(self.se**2 - self.floor**2, 0.0))
        return math.hypot(runs * math.sqrt(n / total), self.floor)

    def detectable(self, n: int, total: int) -> float:
        """``delta``: the deviation the full count detects with probability ``1 - FALSE_PASS``."""
        return self.allowance + (self.z + _quantile(FALSE_PASS)) * self.se_at(n, total)


def interim_verdict(stats, n: int, total: int, interim_looks: int) -> str | None:
    """``"pass"``, ``"fail"`` or ``None`` (go on) for the statistics ``stats`` at a look of ``n`` of
    ``total`` runs, in a design of ``interim_looks`` looks before the last (module docstring)."""
    if n >= total:
        raise ValueError(f"`n` ({n}) must be below `total` ({total}): the last look is the fixed design's")
    c_pass = _quantile(FALSE_PASS / interim_looks)
    c_fail = _quantile(FALSE_FAIL / (2 * interim_looks))
    stats = tuple(stats)
    if any(abs(s.deviation) - s.allowance > c_fail * s.se for s in stats):
        return "fail"
    if all(abs(s.deviation) + c_pass * s.se <= s.detectable(n, total) for s in stats):
        return "pass"
    return None


def block_seed(seed: int, look: int) -> int:
    """The seed of the runs a look adds: the fixed design's own ``seed`` for the first look (its runs are
    the fixed design's first runs), ``derive_seed(seed, "look", j)`` for look ``j >= 1``."""
    return seed if look == 0 else derive_seed(seed, "look", look)


def look_counts(total: int, looks=LOOKS) -> tuple[int, ...]:
    """The cumulative run counts of the looks of a design of ``total`` runs (distinct, increasing,
    the last ``total``)."""
    counts = sorted({max(2, min(total, math.ceil(f * total))) for f in looks} | {total})
    return tuple(counts)


@dataclass(frozen=True)
class Stopping:
    """Where a sequential experiment stopped, and why.

    Attributes
    ----------
    runs : int
        Runs simulated.
    planned : int
        The fixed design's count.
    looks : tuple of int
        The cumulative counts looked at.
    verdict : str or None
        The interim verdict it stopped on (``None``: it ran to the last look).
    statistics : tuple of dict
        At the look it stopped on: each statistic's deviation, standard error and ``delta``.
    """

    runs: int
    planned: int
    looks: tuple
    verdict: str | None
    statistics: tuple = ()

    def as_dict(self) -> dict:
        return {"runs": self.runs, "planned": self.planned, "looks": list(self.looks), "stopped_on": self.verdict,
                "statistics": list(self.statistics), "false_pass": FALSE_PASS, "false_fail": FALSE_FAIL}

    def describe(self) -> str:
        if self.verdict is None:
            return f"all {self.planned} runs (no earlier look decided)"
        return (f"stopped at {self.runs} of {self.planned} runs: {self.verdict} decided (sequential rule, false pass "
                f"<= {2 * FALSE_PASS:g} against a deviation the full count detects, false fail + {FALSE_FAIL:g})")


def stats_table(stats, n: int, total: int) -> tuple:
    """What :class:`Stopping` records of each statistic at a look."""
    return tuple({"name": s.name, "deviation": s.deviation, "se": s.se, "delta": s.detectable(n, total)}
                 for s in stats)


def curtail_margin(values: np.ndarray, total: int, points: int | None = None) -> np.ndarray:
    """How far the means of ``values`` (runs x points) over all ``total`` runs may lie from their
    means over these ``n`` runs, at every point at once with probability ``1 - FALSE_PASS``
    (Student's t with ``n - 1`` degrees of freedom for the estimated ``s_k``, Bonferroni over the points):
    ``Delta_k = ((N - n) / N) c s_k sqrt(1/(N - n) + 1/n)``, ``c = t_{n-1}^-1(1 - FALSE_PASS / (2 K))``.

    The full count's mean is ``m_N = m_n + ((N - n) / N) (m_rest - m_n)``, and ``m_rest - m_n`` has
    standard deviation ``s sqrt(1/(N - n) + 1/n)`` under the runs' common law. An interim rule that
    passes only when the final rule holds for every mean within ``Delta`` of the interim one then
    disagrees with the full count's verdict with probability at most ``FALSE_PASS`` (curtailment:
    the early verdict is the one the full count would give).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    if not 2 <= n < total:
        raise ValueError(f"the look's run count ({n}) must be in [2, total = {total})")
    k = values.shape[1] if points is None else points
    c = float(student_t.isf(FALSE_PASS / (2 * k), n - 1))
    return (total - n) / total * c * values.std(axis=0, ddof=1) * math.sqrt(1 / (total - n) + 1 / n)


def concat(sims):
    """One :class:`numerics.Simulation` of the runs of several blocks of the same protocol (the
    first block's seed is kept; later blocks drew from their own seeds)."""
    if len(sims) == 1:
        return sims[0]
    return replace(sims[0], overlaps=np.concatenate([s.overlaps for s in sims]),
                   out_gram=np.concatenate([s.out_gram for s in sims]),
                   noise_mass=np.concatenate([s.noise_mass for s in sims]),
                   objective=np.concatenate([s.objective for s in sims]), wall_s=sum(s.wall_s for s in sims))
