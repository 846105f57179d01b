"""Validated, frozen model specification (docs/design.md section 1 and docs/subspace.md).

A :class:`Model` fixes the parameters of the limit problem: the signal strength ``theta``,
the informative fraction ``alpha = R / L`` (``alpha = 0`` selects the sparse regime, where the
field is rescaled by ``1 / alpha``), the inverse temperature ``beta``, the noise variance
``sigma2``, the law of the signal ``s`` in ``R^k`` (a scalar prior is ``k = 1``) and the number
``H`` of orthonormal heads. The paper's model is ``k = 1``, ``H = 1``: one signal direction, one
query, whose alignment ``rho`` obeys the scalar ODE. Every operation of the library (derive,
evaluate, certify, simulate, predict) takes this one model and picks its engine from ``k`` and
``H`` (:attr:`Model.engine`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.validate import choice, counts, integer, real
from ._laws import Prior
from ._laws._vector import SignalLaw, parse_law

#: the most heads a model may have (the reduced flow is k H-dimensional)
MAX_HEADS = 64


@dataclass(frozen=True, init=False)
class Model:
    """Parameters of the softmax-attention signal-recovery model.

    Parameters
    ----------
    theta : float
        Signal strength, ``theta >= 0``.
    alpha : float
        Informative fraction ``R / L`` in ``[0, 1]``; ``0`` is the sparse regime (one query on
        one signal direction only: the subspace and heads models have no sparse limit).
    beta : float
        Inverse temperature of the softmax, ``beta > 0``.
    sigma2 : float
        Noise variance of each token coordinate, ``sigma2 > 0``.
    prior : str, Prior or SignalLaw
        Law of the signal ``s`` of informative tokens: a scalar prior spec (``"fixed"``,
        ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``, ...; ``k = 1``) or a k-dimensional law
        (``"onehot(k=2)"``, ``"gaussian(k=2, tau=1)"``, ``"discrete(vectors=[...], probs=[...])"``);
        parsed once here and held as a :class:`SignalLaw` (:attr:`law`; a ``k = 1`` law always in
        its scalar form, so ``onehot(k=1)`` is ``fixed``).
    heads : int
        Number ``H`` of orthonormal queries (heads), ``1 <= H <= 64``; the objective is the sum
        over heads.

    ``str(model.law)`` is the canonical spec of the law; for ``k = 1`` :attr:`prior` is its
    :class:`Prior`.

    Attributes
    ----------
    theta, alpha, beta, sigma2 : float
        As given (validated), see Parameters.
    law : SignalLaw
        The law of the signal parsed from ``prior``; its ``k`` is the signal dimension :attr:`k`
        (a ``k = 1`` law in its scalar form, holding a :class:`Prior`).
    heads : int
        Number ``H`` of heads, as given.
    """

    theta: float
    alpha: float
    beta: float
    sigma2: float
    law: SignalLaw
    heads: int

    def __init__(self, theta, alpha, beta=1.0, sigma2=1.0, prior: SignalLaw | Prior | str = "fixed",
                 heads: int = 1):
        values = {
            "theta": real("theta", theta, lower=0.0),
            "alpha": real("alpha", alpha, lower=0.0, upper=1.0),
            "beta": real("beta", beta, lower=0.0, strict=True),
            "sigma2": real("sigma2", sigma2, lower=0.0, strict=True),
        }
        law, heads = parse_law(prior), integer("heads", heads, 1, MAX_HEADS)
        if values["alpha"] == 0.0 and (law.k > 1 or heads > 1):
            raise ValueError("`alpha` must be > 0 (the subspace model has no sparse limit yet), got 0.0")
        for name, value in {**values, "law": law, "heads": heads}.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_counts(cls, theta, R: int, L: int, **kwargs) -> Model:
        """Model with ``alpha = R / L`` from token counts ``0 <= R <= L``, ``L >= 1``."""
        R, L = counts(R, L)
        return cls(theta=theta, alpha=R / L, **kwargs)

    def with_heads(self, heads: int) -> Model:
        """The same model with ``heads`` orthonormal queries."""
        return Model(self.theta, self.alpha, self.beta, self.sigma2, self.law, heads)

    @property
    def k(self) -> int:
        """Dimension of the signal subspace (1: one signal direction)."""
        return self.law.k

    @property
    def scalar(self) -> bool:
        """True for one query on one signal direction (``k = 1``, ``H = 1``): the alignment
        ``rho`` is the whole state and the scalar engines (closed forms, 1-D certificates, the
        reduced alignment chain) apply."""
        return self.law.k == 1 and self.heads == 1

    @property
    def engine(self) -> str:
        """``"scalar"`` (:attr:`scalar`) or ``"subspace"``: the engine the library's entries
        choose for this model by default."""
        return "scalar" if self.scalar else "subspace"

    @property
    def prior(self) -> Prior:
        """The scalar :class:`Prior` of one query on one signal direction (:attr:`scalar`), what
        the scalar engines read; ``ValueError`` otherwise (the subspace engines read :attr:`law`),
        so that no scalar engine answers for a model it does not describe."""
        if self.law.prior is None:
            raise ValueError(f"`prior` {self.law.spec} is a {self.law.k}-dimensional signal law, "
                             "not a scalar prior (k = 1): this takes one query on one signal direction")
        if self.heads != 1:
            raise ValueError(f"`heads` must be 1 here (one query on one signal direction), got {self.heads}")
        return self.law.prior

    @property
    def sparse(self) -> bool:
        """True in the sparse regime (``alpha = 0``, field rescaled by ``1/alpha``)."""
        return self.alpha == 0.0

    def params(self) -> tuple[float, float, float, float]:
        """``(theta, alpha, beta, sigma2)``, the numeric parameters in the derivations' order."""
        return (self.theta, self.alpha, self.beta, self.sigma2)

    def as_dict(self) -> dict:
        """The parameters, the law as its canonical spec, ``k``, ``H`` and the regime (what
        records print)."""
        return {"theta": self.theta, "alpha": self.alpha, "beta": self.beta, "sigma2": self.sigma2,
                "prior": self.law.spec, "k": self.k, "heads": self.heads,
                "regime": "sparse" if self.sparse else "proportional"}


#: the engines every operation chooses from (``"auto"``: :attr:`Model.engine`)
ENGINES = ("scalar", "subspace")


def engine_for(model: Model, engine: str, operation: str, available: tuple[str, ...] = ENGINES) -> str:
    """The engine that runs ``operation`` on ``model``: ``engine`` itself, or the model's own
    (:attr:`Model.engine`) for ``"auto"``; ``ValueError`` naming ``engine`` when the model or the
    operation does not admit it. The scalar engines (closed forms, 1-D certificates, the reduced
    alignment chain) take one query on one signal direction; the subspace engines take every
    model, ``k = 1`` included, by the generic k-dimensional expressions."""
    choice("engine", engine, ("auto", *ENGINES))
    if not isinstance(model, Model):
        raise ValueError(f"`model` must be a theory.Model, got {type(model).__name__}")
    chosen = model.engine if engine == "auto" else engine
    if chosen == "scalar" and not model.scalar:
        raise ValueError(f"`engine` 'scalar' takes one query on one signal direction (k = 1, H = 1); "
                         f"this model has k = {model.k}, H = {model.heads}")
    if chosen not in available:
        raise ValueError(f"`engine` {chosen!r}: {operation} has only the {' and '.join(available)} engine"
                         + ("s" if len(available) > 1 else "") + f" (k = {model.k}, H = {model.heads})")
    return chosen
