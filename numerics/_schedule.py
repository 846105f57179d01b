"""Step-size schedules and the Robbins–Monro test (docs/design.md section 1).

``eta_k = eta0 / (k + k0)^power`` with ``k`` counting from 0, so the first step uses
``eta0 / k0^power``; ``power = 0`` (or ``kind="constant"``) is the constant step
``eta0``. The ODE time attached to step ``k`` is ``t_k = sum_{j<k} eta_j``
(``t_0 = 0``), the time scale of the asymptotic-pseudotrajectory comparison
(docs/design.md section 3, ``sga.tracking``).

Whether the schedule satisfies the Robbins–Monro conditions
(``sum eta_k = inf`` and ``sum eta_k^2 < inf``) is decided by sympy's series
convergence tests (``Sum.is_convergent``) on the exact rational form of the
schedule, never by a hard-coded rule; the answer is ``1/2 < power <= 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from ..core.validate import choice, integer, real

SCHEDULE_KINDS = ("polynomial", "constant")


@dataclass(frozen=True)
class RobbinsMonro:
    """Verdict of the symbolic Robbins–Monro test for one schedule.

    Attributes
    ----------
    holds : bool
        True iff ``sum eta_k`` diverges and ``sum eta_k^2`` converges.
    sum_diverges : bool
        sympy's verdict that ``sum_k eta_k = inf``.
    sum_squares_converges : bool
        sympy's verdict that ``sum_k eta_k^2 < inf``.
    reason : str
        Human-readable explanation naming the failing condition, if any.
    """

    holds: bool
    sum_diverges: bool
    sum_squares_converges: bool
    reason: str

    def as_dict(self) -> dict:
        return {
            "holds": self.holds,
            "sum_diverges": self.sum_diverges,
            "sum_squares_converges": self.sum_squares_converges,
            "reason": self.reason,
        }


@lru_cache(maxsize=64)
def _series_verdicts(power: sp.Rational, k0: sp.Rational) -> tuple[bool, bool]:
    """sympy convergence tests of ``sum 1/(k+k0)^power`` and of its square series."""
    k = sp.Symbol("k", integer=True, nonnegative=True)
    term = 1 / (k + k0) ** power
    first = sp.Sum(term, (k, 0, sp.oo)).is_convergent()
    second = sp.Sum(term**2, (k, 0, sp.oo)).is_convergent()
    if first not in (sp.true, sp.false, True, False) or second not in (sp.true, sp.false, True, False):
        raise ValueError(f"sympy could not decide convergence for power={power}, k0={k0}")
    return bool(first), bool(second)


@dataclass(frozen=True)
class Schedule:
    """Step sizes ``eta_k = eta0 / (k + k0)^power`` (``k = 0, 1, ...``) or constant.

    Parameters
    ----------
    eta0 : float
        Scale, ``eta0 > 0``.
    k0 : float
        Offset, ``k0 > 0`` (the first step is ``eta0 / k0^power``).
    power : float
        Decay exponent, ``power >= 0``; ``0`` is a constant step.
    kind : {"polynomial", "constant"}
        ``"constant"`` forces ``power = 0`` (and ``k0`` is then irrelevant).
    """

    eta0: float = 0.5
    k0: float = 10.0
    power: float = 0.75
    kind: str = "polynomial"

    def __post_init__(self):
        choice("kind", self.kind, SCHEDULE_KINDS)
        object.__setattr__(self, "eta0", real("eta0", self.eta0, lower=0.0, strict=True))
        object.__setattr__(self, "k0", real("k0", self.k0, lower=0.0, strict=True))
        power = real("power", self.power, lower=0.0)
        if self.kind == "constant":
            power = 0.0
        object.__setattr__(self, "power", power)

    @classmethod
    def constant(cls, eta: float) -> Schedule:
        """The constant schedule ``eta_k = eta``."""
        return cls(eta0=eta, k0=1.0, power=0.0, kind="constant")

    def eta(self, k) -> np.ndarray:
        """Step sizes ``eta_k`` at integer indices ``k >= 0`` (array of the shape of ``k``)."""
        k = np.asarray(k, dtype=float)
        if np.any(k < 0):
            raise ValueError("step indices `k` must be >= 0")
        if self.power == 0.0:
            return np.full_like(k, self.eta0)
        return self.eta0 / (k + self.k0) ** self.power

    def times(self, steps: int) -> np.ndarray:
        """ODE times ``t_k = sum_{j<k} eta_j`` for ``k = 0..steps`` (length ``steps + 1``)."""
        steps = integer("steps", steps, 0)
        t = np.zeros(steps + 1)
        np.cumsum(self.eta(np.arange(steps)), out=t[1:])
        return t

    def robbins_monro(self) -> RobbinsMonro:
        """Decide ``sum eta = inf`` and ``sum eta^2 < inf`` with sympy series tests.

        ``power`` and ``k0`` are converted to exact rationals (``nsimplify`` of the
        float, so ``0.75`` is ``3/4``); ``eta0 > 0`` is a constant factor and does not
        affect convergence.
        """
        power = sp.nsimplify(self.power, rational=True)
        k0 = sp.nsimplify(self.k0, rational=True)
        diverges_not, squares = _series_verdicts(power, k0)
        diverges = not diverges_not
        holds = diverges and squares
        series = f"eta_k = eta0/(k + {k0})^{power}"
        if holds:
            reason = f"{series}: sum eta_k diverges and sum eta_k^2 converges (1/2 < power <= 1)"
        elif not diverges:
            reason = f"{series}: sum eta_k converges (power > 1), the iterates stop short of the ODE time axis"
        else:
            reason = f"{series}: sum eta_k^2 diverges (power <= 1/2), the noise does not average out"
        return RobbinsMonro(holds, diverges, squares, reason)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "eta0": self.eta0, "k0": self.k0, "power": self.power}
