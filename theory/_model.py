"""Validated, frozen model specification (DESIGN.md section 1).

A :class:`Model` fixes the parameters of the limit problem: the signal strength
``theta``, the informative fraction ``alpha = R / L`` (``alpha = 0`` selects the
sparse regime, where the field is rescaled by ``1 / alpha``), the inverse
temperature ``beta``, the noise variance ``sigma2`` and the signal prior.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from numbers import Real

import numpy as np

PRIORS = ("fixed", "rademacher")


def _finite_real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"`{name}` must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"`{name}` must be finite, got {value!r}")
    return value


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
    prior : {"fixed", "rademacher"}
        Law of the signal sign ``s_i``.
    """

    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0
    prior: str = "fixed"

    def __post_init__(self):
        theta = _finite_real("theta", self.theta)
        alpha = _finite_real("alpha", self.alpha)
        beta = _finite_real("beta", self.beta)
        sigma2 = _finite_real("sigma2", self.sigma2)
        if theta < 0:
            raise ValueError(f"`theta` must be >= 0, got {theta!r}")
        if not 0.0 <= alpha <= 1.0:
            raise ValueError(f"`alpha` must lie in [0, 1], got {alpha!r}")
        if beta <= 0:
            raise ValueError(f"`beta` must be > 0, got {beta!r}")
        if sigma2 <= 0:
            raise ValueError(f"`sigma2` must be > 0, got {sigma2!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"`prior` must be one of {PRIORS}, got {self.prior!r}")
        for name, value in (("theta", theta), ("alpha", alpha), ("beta", beta), ("sigma2", sigma2)):
            object.__setattr__(self, name, value)

    @classmethod
    def from_counts(cls, theta, R: int, L: int, **kwargs) -> "Model":
        """Model with ``alpha = R / L`` from token counts ``0 <= R <= L``, ``L >= 1``."""
        for name, value in (("R", R), ("L", L)):
            if isinstance(value, bool) or not isinstance(value, int) and not (
                isinstance(value, Real) and float(value).is_integer()
            ):
                raise ValueError(f"`{name}` must be an integer, got {value!r}")
        R, L = int(R), int(L)
        if L < 1:
            raise ValueError(f"`L` must be >= 1, got {L!r}")
        if not 0 <= R <= L:
            raise ValueError(f"`R` must satisfy 0 <= R <= L = {L}, got {R!r}")
        return cls(theta=theta, alpha=R / L, **kwargs)

    @property
    def sparse(self) -> bool:
        """True in the sparse regime (``alpha = 0``, field rescaled by ``1/alpha``)."""
        return self.alpha == 0.0

    def as_dict(self) -> dict:
        d = asdict(self)
        d["regime"] = "sparse" if self.sparse else "proportional"
        return d


def alignments(name: str, value) -> np.ndarray:
    """``value`` as a float array of alignments in ``[-1, 1]`` (refused otherwise,
    naming the parameter)."""
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)) or np.any(np.abs(arr) > 1):
        raise ValueError(f"`{name}` must lie in [-1, 1], got {value!r}")
    return arr
