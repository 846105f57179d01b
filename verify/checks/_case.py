"""The case a check runs on: a limit model and, optionally, a finite instance."""

from __future__ import annotations

from dataclasses import dataclass

from ...numerics import Problem
from ...theory import Model, canonical_prior, validate
from ._registry import select


@dataclass(frozen=True)
class Case:
    """One model the suite checks (docs/design.md section 3).

    ``R, L, d`` give the finite instance that is simulated (``None`` for a theory-only
    case such as the sparse limit, where ``alpha = 0``); ``alpha`` defaults to ``R / L``
    for a finite instance. ``checks`` selects which checks run on it: check ids or
    families (``"field.*"``); ``("*",)`` is every check that applies (see
    :data:`verify.checks.REGISTRY`).

    A case validates itself when it is made (the one place its fields are checked): a
    ``ValueError`` names the field. Numbers are stored as ``int``/``float``, the prior in
    its canonical spelling and ``checks`` as a tuple.
    """

    name: str
    theta: float
    alpha: float | None = None
    beta: float = 1.0
    sigma2: float = 1.0
    prior: str = "fixed"
    R: int | None = None
    L: int | None = None
    d: int | None = None
    description: str = ""
    checks: tuple[str, ...] = ("*",)

    def __post_init__(self):
        sizes = {"R": self.R, "L": self.L, "d": self.d}
        if any(v is not None for v in sizes.values()):
            missing = [k for k, v in sizes.items() if v is None]
            if missing:
                raise ValueError(f"a simulated case needs {', '.join(f'`{k}`' for k in missing)} too")
            R = validate.integer("R", self.R, 0)
            L = validate.integer("L", self.L, 1)
            d = validate.integer("d", self.d, 2)
            if R > L:
                raise ValueError(f"`R` must satisfy R <= L = {L}, got R = {R}")
            self._set(R=R, L=L, d=d)
            if self.alpha is None:
                self._set(alpha=R / L)
        elif self.alpha is None:
            raise ValueError("give `R`, `L` and `d` for a simulated case, or `alpha` for a theory-only case")
        checks = tuple(self.checks)
        select(checks)  # unknown ids are refused here, with the list of known ones
        self._set(checks=checks, theta=float(validate.real("theta", self.theta)),
                  alpha=float(validate.real("alpha", self.alpha)), beta=float(validate.real("beta", self.beta)),
                  sigma2=float(validate.real("sigma2", self.sigma2)), prior=canonical_prior(self.prior))
        self.model  # validates theta, alpha, beta, sigma2, prior together

    def _set(self, **values) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

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
