"""Validated, frozen model specification (docs/design.md section 1 and docs/subspace.md).

A :class:`Model` fixes the parameters of the limit problem: the signal strength ``theta``,
the informative fraction ``alpha = R / L`` (``alpha = 0`` selects the sparse regime, where the
field is rescaled by ``1 / alpha``), the inverse temperature ``beta``, the noise variance
``sigma2``, the law of the signal ``s`` in ``R^k`` (a scalar prior is ``k = 1``) and the number
``H`` of orthonormal heads. The paper's model is ``k = 1``, ``H = 1``: one signal direction, one
query, whose alignment ``rho`` obeys the scalar ODE. Every operation of the library (derive,
evaluate, certify, simulate, predict) takes this one model and picks its engine from ``k`` and
``H`` (:attr:`Model.engine`). A :class:`ModelBox` is the same model over parameter ranges (what
a region certificate proves at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..core.validate import choice, counts, integer, real
from ._laws import Prior, RangedPrior, parse_ranged_prior
from ._laws._vector import SignalLaw, parse_law

#: the most heads a model may have (the reduced flow is k H-dimensional)
MAX_HEADS = 64


class Params(NamedTuple):
    """The numeric parameters of a model in the derivations' order (:meth:`Model.params`)."""

    theta: float
    alpha: float
    beta: float
    sigma2: float


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

    def params(self) -> Params:
        """``(theta, alpha, beta, sigma2)``, the numeric parameters in the derivations' order."""
        return Params(self.theta, self.alpha, self.beta, self.sigma2)

    def as_dict(self) -> dict:
        """The parameters, the law as its canonical spec, ``k``, ``H`` and the regime (what
        records print)."""
        return {"theta": self.theta, "alpha": self.alpha, "beta": self.beta, "sigma2": self.sigma2,
                "prior": self.law.spec, "k": self.k, "heads": self.heads,
                "regime": "sparse" if self.sparse else "proportional"}


#: the parameters that may be given as ranges, in this order
RANGED = ("theta", "alpha", "beta", "sigma2")


def parse_side(name: str, value, domain) -> tuple[float, float] | float:
    """A fixed value (float) or a range ``(lo, hi)`` inside the parameter's domain."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"`{name}` range must be a pair (lo, hi), got {value!r}")
        lo, hi = (real(name, v) for v in value)
        if not lo < hi:
            raise ValueError(f"`{name}` range must have lo < hi, got {lo!r}:{hi!r} (give one value to fix it)")
        low, high, text = domain
        if lo < low[0] or (lo == low[0] and not low[1]) or (high is not None and (hi > high[0] or (
                hi == high[0] and not high[1]))):
            raise ValueError(f"`{name}` range must lie in {text}, got {lo!r}:{hi!r}")
        if name in RANGE_MAX and hi > RANGE_MAX[name]:
            raise ValueError(f"`{name}` range must end at most at {RANGE_MAX[name]:g}, got {lo!r}:{hi!r} (a bound "
                             "of the region certificate, as of `phase`'s grid; give a narrower range)")
        return lo, hi
    return value


#: the domain of a ranged parameter: ``((lower, closed), (upper, closed) or None, text)``.
#: ``theta = 0`` may start a box (the claim is then for ``theta > 0``: the field vanishes at
#: 0) and ``alpha = 1`` may end one (``m = 1``, continuous); ``alpha = 0`` is another regime
#: (the sparse field, ``alpha = 0`` as a fixed value), not part of a box
_DOMAIN = {"theta": ((0.0, True), None, "[0, inf)"), "alpha": ((0.0, False), (1.0, True), "(0, 1]"),
           "beta": ((0.0, False), None, "(0, inf)"), "sigma2": ((0.0, False), None, "(0, inf)")}


#: the largest end of a ranged parameter (a box's width relative to its range is what the
#: walk splits by, so a range of 1e308 would be a thousand splits from any finite scale)
RANGE_MAX = {"theta": 1e6, "beta": 1e3, "sigma2": 1e6}


@dataclass(frozen=True, init=False)
class ModelBox:
    """A :class:`Model` over parameter ranges: each of ``theta``, ``alpha``, ``beta``, ``sigma2`` a
    fixed value or a closed range ``(lo, hi)``, and the numbers of a scalar prior may be ranges
    ``LO:HI`` (``"gaussian(mu=0.5:1, tau=0.2)"``, :func:`theory.parse_ranged_prior`).
    :func:`theory.certify` proves a status on every leaf of an adaptive split of the box.

    Parameters
    ----------
    theta, alpha, beta, sigma2 : float or (float, float)
        A fixed value (validated as by :class:`Model`), or a range ``(lo, hi)``, ``lo < hi``,
        inside the domain (``theta >= 0``, ``0 < alpha <= 1``, ``beta, sigma2 > 0``; a box
        starting at ``theta = 0`` makes its claim for ``theta > 0``).
    prior : str, Prior, RangedPrior or SignalLaw
        A scalar prior spec whose numbers may be ranges, or a k-dimensional law (point values).
    heads : int
        Number ``H`` of heads, as for :class:`Model`.

    Attributes
    ----------
    theta, alpha, beta, sigma2 : float or (float, float)
        As given (validated).
    prior : str
        The canonical spec of the law, ranges included.
    heads : int
    """

    theta: float | tuple[float, float]
    alpha: float | tuple[float, float]
    beta: float | tuple[float, float]
    sigma2: float | tuple[float, float]
    prior: str
    heads: int

    def __init__(self, theta, alpha, beta=1.0, sigma2=1.0, prior: str | Prior | RangedPrior | SignalLaw = "fixed",
                 heads: int = 1):
        values = {k: parse_side(k, v, _DOMAIN[k]) for k, v in
                  (("theta", theta), ("alpha", alpha), ("beta", beta), ("sigma2", sigma2))}
        ranged = isinstance(prior, RangedPrior) or (isinstance(prior, str) and ":" in prior)
        law = parse_ranged_prior(prior) if ranged else parse_law(prior)
        corner = {k: (v[0] if isinstance(v, tuple) else v) for k, v in values.items()}
        probe = Model(**corner, prior=law.at() if isinstance(law, RangedPrior) else law, heads=heads)
        for name, value in values.items():
            object.__setattr__(self, name, value if isinstance(value, tuple) else getattr(probe, name))
        object.__setattr__(self, "prior", str(law.spec))
        object.__setattr__(self, "heads", probe.heads)

    @property
    def k(self) -> int:
        """Dimension of the signal subspace (a ranged prior is scalar, ``k = 1``)."""
        return 1 if ":" in self.prior else parse_law(self.prior).k


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
