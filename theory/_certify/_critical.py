"""Thresholds of the landscape: where the alignment field becomes monotone, for any prior.

The question after "is it bistable?" is "how many informative tokens make it monotone?". For
the fixed prior the answer has a closed form, ``alpha_c(theta)`` (:func:`critical_alpha`), and
for every prior the sparse regime has the threshold ``beta theta = c*``
(:func:`sparse_threshold_prior`). Here the answer comes from the certificate itself, so it holds
for any prior: the landscape is certified (:func:`certify`, ball arithmetic) on a grid of
``alpha`` in ``(0, 1)``, and every change of certified status between neighbours is bisected,
each end of its bracket certified, down to a relative width of :data:`BRACKET_RTOL`. What the
certificate proves is the status at the bracket's ends; that the status does not change
between the grid points is numerical evidence (the grid is fine, not a proof), and is said so.
Token counts follow from the bracket: with ``N`` nuisance tokens the fraction is
``R / (R + N)``, and the smallest monotone ``R`` (largest monotone ``N``) is certified at that
count and at its neighbour.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import lru_cache

import numpy as np

from ...core.validate import integer
from .._model import Model
from ._conditions import critical_alpha, pole_alpha, sparse_threshold_prior
from ._scalar import certify

#: the alpha grid: logit-uniform on [1e-6, 1 - 1e-6]
GRID = 1.0 / (1.0 + np.exp(-np.linspace(-math.log(1e6), math.log(1e6), 57)))
#: bisection stops at this relative width of the bracket
BRACKET_RTOL = 1e-9
#: at most this many bisection steps per transition
MAX_BISECTIONS = 80
#: at most this many unit steps from the bracket's count to the certified one
_STEPS = 64
#: the largest ``beta theta``: beyond it the field varies like ``e^{beta theta}`` across ``[-1, 1]``, the
#: certificate needs its whole box budget per point (seconds each, undecided from about 1e6), and the
#: scan would take minutes to say nothing
MAX_BETA_THETA = 1e3


@dataclass(frozen=True)
class Transition:
    """A change of certified status between ``lo`` and ``hi`` (``below`` at ``lo``, ``above`` at ``hi``)."""

    lo: float
    hi: float
    below: str
    above: str

    @property
    def alpha(self) -> float:
        return 0.5 * (self.lo + self.hi)


@dataclass(frozen=True)
class Thresholds:
    """The landscape's thresholds for one ``(theta, beta, sigma2, prior)``.

    Attributes
    ----------
    theta, beta, sigma2 : float
    prior : str
    transitions : tuple of Transition
        Every change of certified status along ``alpha`` found on :data:`GRID`, bisected.
    alpha_c : float or None
        The informative fraction above which the landscape is monotone: the last transition
        into ``monotone`` when the status is monotone at the top of the grid, ``None`` when no
        ``alpha`` on the grid is monotone or every one is (``as_dict`` then leaves it out).
    monotone_everywhere, monotone_nowhere : bool
        The grid's certified statuses are all monotone / none is.
    closed_form : float or None
        The fixed prior's ``alpha_c`` (:func:`critical_alpha`); ``None`` for other priors.
    pole_alphas : tuple of float
        The ``alpha`` where ``F'(-1)`` changes sign (:func:`pole_alpha`), a cross-check.
    sparse_threshold : float
        ``theta* = c* / beta``: the sparse regime (``alpha -> 0``) is monotone iff
        ``theta <= theta*``.
    certified : bool
        Every status the thresholds rest on is certified (no ``undecided`` point).
    message : str
    """

    theta: float
    beta: float
    sigma2: float
    prior: str
    transitions: tuple
    alpha_c: float | None
    monotone_everywhere: bool
    monotone_nowhere: bool
    closed_form: float | None
    pole_alphas: tuple
    sparse_threshold: float
    certified: bool
    message: str

    def _model(self, alpha: float) -> Model:
        return Model(theta=self.theta, alpha=alpha, beta=self.beta, sigma2=self.sigma2, prior=self.prior)

    def smallest_R(self, N: int) -> dict:
        """The smallest informative count ``R`` with a monotone landscape at ``N`` nuisance tokens,
        certified at ``R`` (monotone) and ``R - 1`` (not), or why there is none."""
        N = integer("N", N, 1)
        if self.monotone_everywhere and self._status(1, N) == "monotone":
            return {"N": N, "exists": True, "R": 1, "alpha": 1 / (1 + N), "status_at_R": "monotone",
                    "status_below": "none", "certified": True}
        if self.alpha_c is None:
            return {"N": N, "exists": False, "certified": False, "reason": self.message}
        hi = self.transitions[-1].hi
        R = max(1, math.ceil(hi * N / (1.0 - hi)))
        for _ in range(_STEPS):
            if R > 1 and self._status(R - 1, N) == "monotone":
                R -= 1
            elif self._status(R, N) != "monotone":
                R += 1
            else:
                break
        at, below = self._status(R, N), (self._status(R - 1, N) if R > 1 else "none")
        return {"N": N, "exists": True, "R": R, "alpha": R / (R + N), "status_at_R": at, "status_below": below,
                "certified": at == "monotone" and below not in ("monotone", "undecided")}

    def largest_N(self, R: int) -> dict:
        """The largest nuisance count ``N`` with a monotone landscape at ``R`` informative tokens,
        certified at ``N`` (monotone) and ``N + 1`` (not), or why there is none."""
        R = integer("R", R, 1)
        if self.monotone_everywhere:
            return {"R": R, "exists": False, "certified": False,
                    "reason": "monotone at every alpha of the grid, down to 1e-6: no largest N on it"}
        if self.alpha_c is None:
            return {"R": R, "exists": False, "certified": False, "reason": self.message}
        hi = self.transitions[-1].hi
        N = max(0, math.floor(R * (1.0 - hi) / hi))
        for _ in range(_STEPS):
            if self._status(R, N) != "monotone" and N > 0:
                N -= 1
            elif self._status(R, N + 1) == "monotone":
                N += 1
            else:
                break
        at, above = self._status(R, N), self._status(R, N + 1)
        return {"R": R, "exists": True, "N": N, "alpha": R / (R + N), "status_at_N": at, "status_above": above,
                "certified": at == "monotone" and above not in ("monotone", "undecided")}

    def _status(self, R: int, N: int) -> str:
        return _status(self._model(R / (R + N)))

    def as_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if v is not None}  # numbers are finite or absent
        if not math.isfinite(self.sparse_threshold):  # no finite threshold: the sparse regime is always monotone
            del d["sparse_threshold"]
        d["transitions"] = [{**asdict(t), "alpha": t.alpha} for t in self.transitions]
        d["pole_alphas"] = list(self.pole_alphas)
        return d


@lru_cache(maxsize=4096)
def _status(model: Model) -> str:
    """The certified status of ``model``, or ``undecided``; cached, since ``smallest_R`` and
    ``largest_N`` ask again for counts their search has already certified."""
    cert = certify(model)
    return cert.status if cert.certified else "undecided"


def _bisect(theta, beta, sigma2, prior, lo, hi, s_lo, s_hi) -> Transition:
    def status(a):
        return _status(Model(theta=theta, alpha=a, beta=beta, sigma2=sigma2, prior=prior))

    for _ in range(MAX_BISECTIONS):
        if hi - lo <= BRACKET_RTOL * hi:
            break
        mid = math.sqrt(lo * hi) if hi < 0.5 else 0.5 * (lo + hi)
        s = status(mid)
        if s == s_lo:
            lo = mid
        elif s == s_hi:
            hi = mid
        else:  # a third status (undecided) inside: keep the side toward it
            hi, s_hi = mid, s
    return Transition(lo, hi, s_lo, s_hi)


def thresholds(theta, beta=1.0, sigma2=1.0, prior="fixed") -> Thresholds:
    """The landscape's thresholds along ``alpha`` (module docstring) for any prior."""
    base = Model(theta=theta, alpha=0.5, beta=beta, sigma2=sigma2, prior=prior)  # validates, names the parameter
    if base.k > 1:
        phase = (f"; its certified transition theta_c(alpha) is theory.certify_transition (sigrec phase --prior "
                 f"'{base.law}')" if str(base.law).startswith("onehot") else "")
        raise ValueError(f"`prior` {base.law} is a {base.k}-dimensional signal law: the thresholds along alpha are "
                         f"for one signal direction (k = 1); its equilibria are certified by theory.certify (sigrec "
                         f"certify --prior '{base.law}' --alpha A){phase}")
    theta, beta, sigma2, prior = base.theta, base.beta, base.sigma2, base.as_dict()["prior"]
    if not beta * theta <= MAX_BETA_THETA:
        raise ValueError(f"`theta` x `beta` = {beta * theta:.3g} exceeds {MAX_BETA_THETA:g}: the certificate cannot "
                         "decide such a steep field in reasonable time; use a smaller theta or beta")
    statuses = [_status(Model(theta=theta, alpha=float(a), beta=beta, sigma2=sigma2, prior=prior)) for a in GRID]
    transitions = tuple(_bisect(theta, beta, sigma2, prior, float(GRID[i]), float(GRID[i + 1]), statuses[i],
                                statuses[i + 1])
                        for i in range(len(GRID) - 1) if statuses[i] != statuses[i + 1])
    everywhere = all(s == "monotone" for s in statuses)
    nowhere = all(s != "monotone" for s in statuses)
    alpha_c = None
    if statuses[-1] == "monotone" and transitions and transitions[-1].above == "monotone":
        alpha_c = transitions[-1].alpha
    c_star = sparse_threshold_prior(prior)
    sparse = c_star / beta if math.isfinite(c_star) else math.inf
    closed = critical_alpha(theta, beta, sigma2) if prior == "fixed" else None
    poles = tuple(pole_alpha(prior, theta, beta, sigma2))
    undecided = sum(s == "undecided" for s in statuses)
    if everywhere:
        msg = (f"monotone at every alpha of the grid ({len(GRID)} certified points in [1e-6, 1 - 1e-6]): "
               f"no informative fraction is needed (theta = {theta:g} <= theta* = {sparse:.6g}, the sparse threshold)"
               if theta <= sparse else f"monotone at every alpha of the grid ({len(GRID)} certified points)")
    elif nowhere:
        msg = (f"not monotone at any alpha of the grid ({len(GRID)} points in [1e-6, 1 - 1e-6]"
               + (f", {undecided} undecided" if undecided else "") + "): no token count makes it monotone")
    elif alpha_c is not None:
        t = transitions[-1]
        msg = (f"monotone for alpha above alpha_c = {alpha_c:.10g} (certified {t.below} at {t.lo:.10g} and monotone "
               f"at {t.hi:.10g}; the status between grid points is numerical evidence)")
    else:
        msg = "the status changes along alpha but is not monotone at the top of the grid: see the transitions"
    return Thresholds(theta=theta, beta=beta, sigma2=sigma2, prior=prior, transitions=transitions, alpha_c=alpha_c,
                      monotone_everywhere=everywhere, monotone_nowhere=nowhere, closed_form=closed, pole_alphas=poles,
                      sparse_threshold=sparse, certified=undecided == 0, message=msg)
