"""A finite instance of the model: what the simulators, the planner and the diffusion take.

The limit :class:`theory.Model` fixes ``theta``, ``alpha = R / L``, ``beta``, ``sigma2``, the
signal law (``k`` directions) and the number ``H`` of heads; a :class:`Problem` adds what only
a finite instance has: the token counts ``R`` and ``L``, the dimension ``d`` and the mini-batch
size ``B``. The paper's model is ``k = 1``, ``H = 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.validate import counts, instance, integer
from ...theory import Model, SignalLaw, parse_law


@dataclass(frozen=True, init=False)
class Problem:
    """A finite-size instance of the model of docs/design.md section 1 (and docs/subspace.md).

    Parameters
    ----------
    theta : float
        Signal strength ``>= 0``.
    R : int
        Number of informative tokens, ``0 <= R <= L`` (``R >= 1`` for a k-dimensional law or
        several heads, which have no sparse limit).
    L : int
        Number of tokens, ``L >= 1``.
    d : int
        Dimension: ``d >= 2`` for one query on one signal direction, ``d >= k + H`` otherwise.
    beta : float
        Inverse temperature ``> 0``.
    sigma2 : float
        Noise variance ``> 0``.
    prior : str, theory.Prior or theory.SignalLaw
        Signal law: a scalar prior (``"fixed"``, ``"rademacher"``, ``"gaussian(mu=1, tau=0.5)"``,
        ...) or a k-dimensional law (``"onehot(k=2)"``, ...), held parsed by the model.
    batch : int
        Mini-batch size ``B >= 1`` (token collections averaged per step).

    One query; :meth:`with_heads` gives the instance with ``H`` orthonormal queries (and
    :meth:`from_model` the instance of a model with any number of heads). ``theta``, ``beta``,
    ``sigma2``, the law and ``heads`` are read from :attr:`model`, which validates them; ``R``,
    ``L`` are checked by :func:`core.validate.counts`.

    Attributes
    ----------
    model : theory.Model
        The limit model of this instance: ``theta``, ``alpha = R / L``, ``beta``, ``sigma2``, the
        parsed law and ``heads``.
    R, L, d, batch : int
        Informative tokens, tokens, dimension and mini-batch size, as given (validated).
    """

    model: Model
    R: int
    L: int
    d: int
    batch: int = 1

    def __init__(self, theta, R, L, d, beta=1.0, sigma2=1.0, prior="fixed", batch=1):
        self._build(dict(theta=theta, beta=beta, sigma2=sigma2, prior=prior), (R, L, d, batch), 1)

    def _build(self, limit: dict, sizes: tuple, heads) -> None:
        """Validate and set the fields: ``limit`` the model's ``theta, beta, sigma2, prior``,
        ``sizes = (R, L, d, batch)``."""
        R, L, d, batch = sizes
        R, L = counts(R, L)
        law = parse_law(limit["prior"])
        heads = integer("heads", heads, 1)
        if law.k > 1 or heads > 1:
            R = integer("R", R, 1)  # before the model's own words about alpha = 0
        model = Model(theta=limit["theta"], alpha=R / L, beta=limit["beta"], sigma2=limit["sigma2"], prior=law,
                      heads=heads)
        d_min = 2 if model.scalar else model.k + model.heads
        values = dict(model=model, R=R, L=L, d=integer("d", d, d_min), batch=integer("batch", batch, 1))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def from_model(cls, model: Model, L: int, d: int, batch: int = 1) -> Problem:
        """The instance of ``model`` with ``L`` tokens, ``R = alpha L`` of them informative
        (``alpha L`` must be an integer up to rounding)."""
        instance("model", model, Model, "theory.Model")
        L = integer("L", L, 1)
        R = round(model.alpha * L)
        if abs(R - model.alpha * L) > 1e-9 * L:
            raise ValueError(f"`L` must make alpha L an integer (alpha = {model.alpha}), got L = {L}")
        return cls(model.theta, R, L, d, model.beta, model.sigma2, model.law, batch).with_heads(model.heads)

    @classmethod
    def from_dict(cls, doc: dict) -> Problem:
        """The instance :meth:`as_dict` describes (``k`` is read from the law; a ``doc`` without
        ``k`` and ``heads``, as written before models had them, is one query on its law)."""
        doc = dict(doc)
        k, heads = doc.pop("k", None), doc.pop("heads", 1)
        problem = cls(**doc).with_heads(heads)
        if k is not None and k != problem.k:
            raise ValueError(f"`k` must be the dimension of the law {problem.law} ({problem.k}), got {k!r}")
        return problem

    def with_heads(self, heads: int) -> Problem:
        """The same instance with ``heads`` orthonormal queries."""
        problem = object.__new__(Problem)
        limit = dict(theta=self.theta, beta=self.beta, sigma2=self.sigma2, prior=self.law)
        problem._build(limit, (self.R, self.L, self.d, self.batch), heads)
        return problem

    theta = property(lambda self: self.model.theta, doc="signal strength (of :attr:`model`)")
    beta = property(lambda self: self.model.beta, doc="inverse temperature (of :attr:`model`)")
    sigma2 = property(lambda self: self.model.sigma2, doc="noise variance (of :attr:`model`)")
    prior = property(lambda self: self.model.prior, doc="the scalar :class:`theory.Prior` (of :attr:`model`, k = 1)")
    k = property(lambda self: self.model.k, doc="dimension of the signal subspace (of :attr:`model`)")
    heads = property(lambda self: self.model.heads, doc="number of heads (of :attr:`model`)")

    @property
    def law(self) -> SignalLaw:
        """The :class:`theory.SignalLaw` of the signal (of :attr:`model`)."""
        return self.model.law

    def as_dict(self) -> dict:
        return {"theta": self.theta, "R": self.R, "L": self.L, "d": self.d, "beta": self.beta,
                "sigma2": self.sigma2, "prior": self.law.spec, "k": self.k, "heads": self.heads,
                "batch": self.batch}
