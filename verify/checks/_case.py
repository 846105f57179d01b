"""The case a check runs on: a limit model and, optionally, a finite instance."""

from __future__ import annotations

from dataclasses import dataclass

from ...core import validate
from ...numerics import Problem
from ...theory import Model, canonical_prior, parse_law
from ._registry import select


@dataclass(frozen=True)
class Case:
    """One model the suite checks (docs/design.md section 3).

    ``R, L, d`` give the finite instance that is simulated (``None`` for a theory-only
    case such as the sparse limit, where ``alpha = 0``); ``alpha`` defaults to ``R / L``
    for a finite instance. ``checks`` selects which checks run on it: check ids or
    families (``"field.*"``); ``("*",)`` is every check that applies (see
    :data:`verify.checks.REGISTRY`).

    A **subspace case** (docs/subspace.md) is one whose ``prior`` is a k-dimensional signal law
    (``"onehot(k=2)"``, ``k >= 2``) or that asks for ``heads >= 2`` orthonormal queries: its
    :attr:`model` (a :class:`theory.Model` with ``k`` and ``H``, proportional regime,
    ``alpha > 0``) runs on the subspace engines, and only the checks registered for the subspace
    model (``subspace.*``, ``heads.*``) apply to it; the scalar checks apply only to scalar cases
    (``heads = 1`` and a scalar prior).

    A case validates itself when it is made (the one place its fields are checked): a
    ``ValueError`` names the field. Numbers are stored as ``int``/``float``, the prior in
    its canonical spelling and ``checks`` as a tuple.

    Attributes
    ----------
    name : str
        The case's name: how records (``details["case"]``), figures and reports refer to it.
    theta : float
        Signal strength.
    alpha : float
        Informative fraction; ``R / L`` when not given for a finite instance, ``0`` for the sparse limit.
    beta, sigma2 : float
        Inverse temperature of the softmax and noise variance.
    prior : str
        The signal law in its canonical spelling: a scalar prior (``"fixed"``, ``"rademacher"``, ...) or
        a k-dimensional law (``"onehot(k=2)"``).
    R, L, d : int or None
        Informative tokens, tokens and dimension of the finite instance that is simulated; all ``None``
        for a theory-only case.
    description : str
        Free text for a reader, printed beside the case in the report's list of cases; empty by default.
    checks : tuple of str
        Check ids or families (``"field.*"``) to run on the case; ``("*",)`` is every check that applies.
    heads : int
        Number ``H`` of orthonormal queries (``>= 2`` makes a subspace case).
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
    heads: int = 1

    def __post_init__(self):
        heads = validate.integer("heads", self.heads, 1)
        try:
            law = parse_law(self.prior)
        except ValueError:  # not a law the subspace model reads: the scalar prior's own message
            law = None
        prior = law.spec if law is not None and law.k > 1 else canonical_prior(self.prior)
        self._set(heads=heads, prior=prior)
        k = law.k if law is not None else 1
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
                  sigma2=float(validate.real("sigma2", self.sigma2)))
        if self.subspace and self.d is not None and self.d < k + 2 * heads:
            raise ValueError(f"`d` must be >= k + 2 heads = {k + 2 * heads} for a subspace case (the exact "
                             f"reduced chain), got d = {self.d}")
        _ = self.model  # validates theta, alpha, beta, sigma2, prior together

    def _set(self, **values) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_counts(cls, name: str, theta: float, R: int, N: int, d: int, description: str = "", **kw) -> Case:
        """A finite instance with ``R`` informative and ``N`` nuisance tokens (``alpha = R / (R + N)``)."""
        return cls(name, theta, R / (R + N), R=R, L=R + N, d=d, description=description, **kw)

    @property
    def subspace(self) -> bool:
        """True for a subspace case: a k-dimensional law (``k >= 2``) or ``heads >= 2``."""
        return self.heads > 1 or parse_law(self.prior).k > 1

    @property
    def model(self) -> Model:
        """The limit model ``(theta, alpha, beta, sigma2, prior, heads)``."""
        return Model(self.theta, self.alpha, self.beta, self.sigma2, self.prior, self.heads)

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
                       prior=self.prior).with_heads(self.heads)
