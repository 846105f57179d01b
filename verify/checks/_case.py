"""The case a check runs on: a limit model and, optionally, a finite instance."""

from __future__ import annotations

from dataclasses import dataclass

from ...numerics import Problem
from ...theory import Model


@dataclass(frozen=True)
class Case:
    """One model the suite checks (docs/design.md section 3).

    ``R, L, d`` give the finite instance that is simulated (``None`` for a theory-only
    case such as the sparse limit, where ``alpha = 0``). ``checks`` selects which
    checks run on it: check ids or families (``"field.*"``); ``("*",)`` is every check
    that applies (see :data:`verify.checks.REGISTRY`).
    """

    name: str
    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0
    prior: str = "fixed"
    R: int | None = None
    L: int | None = None
    d: int | None = None
    description: str = ""
    checks: tuple[str, ...] = ("*",)

    @classmethod
    def from_counts(cls, name: str, theta: float, R: int, N: int, d: int, description: str = "", **kw) -> "Case":
        """A finite instance with ``R`` informative and ``N`` nuisance tokens (``alpha = R / (R + N)``)."""
        return cls(name, theta, R / (R + N), R=R, L=R + N, d=d, description=description, **kw)

    @property
    def model(self) -> Model:
        """The limit model ``(theta, alpha, beta, sigma2, prior)``."""
        return Model(self.theta, self.alpha, self.beta, self.sigma2, self.prior)

    @property
    def simulated(self) -> bool:
        """True when the case has a finite instance to simulate."""
        return self.R is not None

    @property
    def problem(self) -> Problem:
        """The finite instance (``ValueError`` for a theory-only case)."""
        if not self.simulated:
            raise ValueError(f"case {self.name!r} is theory-only: it has no finite instance (R, L, d)")
        return Problem(theta=self.theta, R=self.R, L=self.L, d=self.d, beta=self.beta, sigma2=self.sigma2,
                       prior=self.prior)
