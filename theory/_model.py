"""Validated, frozen model specification (docs/design.md section 1).

A :class:`Model` fixes the parameters of the limit problem: the signal strength
``theta``, the informative fraction ``alpha = R / L`` (``alpha = 0`` selects the
sparse regime, where the field is rescaled by ``1 / alpha``), the inverse
temperature ``beta``, the noise variance ``sigma2`` and the signal prior.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ._priors import FAMILIES, Prior, canonical_prior, parse_prior
from .validate import integer, real

#: the prior families (a model's ``prior`` is a spec of one of them, see :mod:`theory._priors`)
PRIORS = FAMILIES


@dataclass(frozen=True)
class Model:
    """Parameters of the softmax-attention signal-recovery model.

    Parameters
    ----------
    theta : float
        Signal strength, ``theta >= 0``.
    alpha : float
        Informative fraction ``R / L`` in ``[0, 1]``; ``0`` is the sparse regime.
    beta : float
        Inverse temperature of the softmax, ``beta > 0``.
    sigma2 : float
        Noise variance of each token coordinate, ``sigma2 > 0``.
    prior : str
        Law of the signal strength ``s_i`` of informative tokens, as a prior spec
        (``"fixed"``, ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``, ...; see
        :mod:`theory._priors`); stored in its canonical form.
    """

    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0
    prior: str = "fixed"

    def __post_init__(self):
        values = (
            ("theta", real("theta", self.theta, lower=0.0)),
            ("alpha", real("alpha", self.alpha, lower=0.0, upper=1.0)),
            ("beta", real("beta", self.beta, lower=0.0, strict=True)),
            ("sigma2", real("sigma2", self.sigma2, lower=0.0, strict=True)),
        )
        object.__setattr__(self, "prior", canonical_prior(self.prior))
        for name, value in values:
            object.__setattr__(self, name, value)

    @classmethod
    def from_counts(cls, theta, R: int, L: int, **kwargs) -> "Model":
        """Model with ``alpha = R / L`` from token counts ``0 <= R <= L``, ``L >= 1``."""
        R = integer("R", R)
        L = integer("L", L, 1)
        if not 0 <= R <= L:
            raise ValueError(f"`R` must satisfy 0 <= R <= L = {L}, got {R!r}")
        return cls(theta=theta, alpha=R / L, **kwargs)

    @property
    def sparse(self) -> bool:
        """True in the sparse regime (``alpha = 0``, field rescaled by ``1/alpha``)."""
        return self.alpha == 0.0

    @property
    def prior_law(self) -> Prior:
        """The parsed :class:`theory._priors.Prior` of ``prior``."""
        return parse_prior(self.prior)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["regime"] = "sparse" if self.sparse else "proportional"
        return out

