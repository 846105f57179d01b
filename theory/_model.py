"""Validated, frozen model specification (docs/design.md section 1).

A :class:`Model` fixes the parameters of the limit problem: the signal strength
``theta``, the informative fraction ``alpha = R / L`` (``alpha = 0`` selects the
sparse regime, where the field is rescaled by ``1 / alpha``), the inverse
temperature ``beta``, the noise variance ``sigma2`` and the signal prior.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..core.validate import counts, real
from ._laws import Prior, parse_prior


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
    prior : str or Prior
        Law of the signal strength ``s_i`` of informative tokens, as a prior spec
        (``"fixed"``, ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``, ...; see
        :mod:`theory._laws`) or a :class:`Prior`; parsed once here and held as a
        :class:`Prior` (``str(model.prior)`` is the canonical spec).
    """

    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0
    prior: Prior | str = "fixed"

    def __post_init__(self):
        values = (
            ("theta", real("theta", self.theta, lower=0.0)),
            ("alpha", real("alpha", self.alpha, lower=0.0, upper=1.0)),
            ("beta", real("beta", self.beta, lower=0.0, strict=True)),
            ("sigma2", real("sigma2", self.sigma2, lower=0.0, strict=True)),
        )
        object.__setattr__(self, "prior", parse_prior(self.prior))
        for name, value in values:
            object.__setattr__(self, name, value)

    @classmethod
    def from_counts(cls, theta, R: int, L: int, **kwargs) -> Model:
        """Model with ``alpha = R / L`` from token counts ``0 <= R <= L``, ``L >= 1``."""
        R, L = counts(R, L)
        return cls(theta=theta, alpha=R / L, **kwargs)

    @property
    def sparse(self) -> bool:
        """True in the sparse regime (``alpha = 0``, field rescaled by ``1/alpha``)."""
        return self.alpha == 0.0

    def as_dict(self) -> dict:
        """The parameters, the prior as its canonical spec and the regime (what records print)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["prior"] = self.prior.spec
        out["regime"] = "sparse" if self.sparse else "proportional"
        return out

