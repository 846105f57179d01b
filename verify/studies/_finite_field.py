r"""Where the limit describes a finite system: the limit field against the exact chain at finite ``L``.

The theorem is a statement at ``L -> inf``. At finite ``L`` and moderate ``beta`` the softmax
normaliser is heavy-tailed (docs/design.md section 1, "Self-normalised token weights") and the
finite system's drift is not the limit field ``F(rho)``. This study measures how far apart they are.

* **The finite field** (:func:`finite_field`): ``E[x | rho]`` with ``x = <P_q g, xi>``, the
  ``eta -> 0`` one-step drift of the exact reduced chain at ``(R, L, d)``, at each alignment of a
  grid. Monte Carlo with the control variate of ``finite_size.rate``: the draws ``(x, h)`` of
  :func:`..checks.controlled_draws` (``E h = 0`` exactly) averaged by
  :class:`sigrec.numerics.CrossFitMean` (unbiased by cross-fitting). A pilot of :data:`PILOT` draws
  measures the per-draw variance (of the controlled mean, or of the plain mean where the heavy
  tails make the control variate worse), and ``error ~ 1/sqrt(draws)`` chooses the rest, at most
  ``max_normals / (3 L)`` and :data:`MAX_DRAWS` draws; every alignment uses the same seed (common random numbers).
* **The distance** (:func:`limit_distance`)

      D(L) = max_{rho in grid} |E[x | rho] - F(rho)| / max_{[-1, 1]} |F|,

  with ``F`` the limit field of the instance's own ``alpha = R / L`` (rounding ``R = alpha L`` is
  not counted as a finite-size error). Its standard error is the estimate's at the maximising
  alignment. The maximum of noisy estimates is biased upwards: where the true distance is below
  the noise, ``D`` reads about ``se sqrt(2 ln G)`` on ``G`` alignments, so a tolerance must be a few
  standard errors (``._limit_map.TOL_OVER_SE``).
* **The expansion's error at a step** ``eta`` (``limit_distance(..., eta=)``): the same maximum of
  ``|drift_eta - F_eta| / max|F|``, with ``drift_eta`` the exact chain's one-step drift at that
  step (:func:`sigrec.numerics.measured_law`) and ``F_eta`` the ``O(eta)`` expansion's drift
  ``F + F_1/L - (eta/2) rho E|P g|^2`` (:func:`sigrec.theory.effective_drift`), what ``sigrec
  predict`` integrates.

The tokens a tolerance needs and the map over ``(beta, L)`` are in :mod:`._limit_map`. Everything here
is numerical evidence (Monte Carlo of the exact reduced chain), never a certificate.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ...core.validate import instance, integer, real
from ...numerics import CrossFitMean, MeasureOptions, Problem, feature_names, measured_law, usable_features
from ...theory import Model, effective_drift, evaluate
from ..checks import controlled_draws, derive_seed

#: the default alignments (the field and the finite field vanish at the poles)
RHO_GRID = (-0.9, -0.6, -0.3, 0.0, 0.3, 0.6, 0.9)
#: the default requested standard error of the finite field, as a fraction of ``max|F|``
SE = 0.01
#: draws of the pilot at each alignment: each fold of the cross-fit then holds the 20 draws per
#: feature (29 features at ``d >= 3``) that ``CrossFitMean`` needs to use the control variate
PILOT = 1200
#: the most normals drawn at one alignment by default (three per token and draw)
MAX_NORMALS = 10**8
#: the most draws at one alignment by default (small ``L``: a draw's features cost more than its normals)
MAX_DRAWS = 50_000
#: planning passes after the pilot at one alignment
PASSES = 3
#: the fewest draws at one alignment that ``max_normals`` must allow
MIN_DRAWS = 100
#: what every result here is
EVIDENCE = "numerical"
#: how the CLI and the documents label it
LABEL = "numerical evidence (Monte Carlo of the exact reduced chain)"


def instance_of(model: Model, L: int, d: int) -> Problem:
    """The finite instance of ``model`` with ``L`` tokens, ``R = max(1, round(alpha L))`` of them
    informative, in dimension ``d`` (one query on one signal direction: ``k = H = 1``)."""
    instance("model", model, Model, "theory.Model")
    model.prior  # noqa: B018 - refuses a k > 1 or H > 1 model, whose state is not rho
    if model.alpha <= 0:
        raise ValueError(f"`alpha` must be > 0: a finite instance has R >= 1 informative tokens, got {model.alpha!r}")
    L = integer("L", L, 2)
    R = min(L, max(1, round(model.alpha * L)))
    return Problem(model.theta, R, L, d, model.beta, model.sigma2, model.law)


def field_scale(model: Model) -> float:
    """``max |F|`` over ``[-1, 1]`` (401 points): the scale the distances are relative to."""
    scale = float(np.max(np.abs(evaluate(model, np.linspace(-1, 1, 401), engine="scalar").field)))
    if not scale > 0:
        raise ValueError(f"`theta` must be > 0: the limit field vanishes (max|F| = {scale}), so no distance "
                         f"relative to it exists, got theta = {model.theta!r}")
    return scale


@dataclass(frozen=True)
class FiniteField:
    """The exact chain's field at finite ``L`` on a grid of alignments (module docstring).

    Attributes
    ----------
    problem : numerics.Problem
    rho : ndarray, shape (n,)
    mean, se : ndarray, shape (n,)
        ``E[<P_q g, xi> | rho]`` and its standard error.
    limit : ndarray, shape (n,)
        The limit field ``F(rho)`` at the instance's ``alpha = R / L``.
    scale : float
        ``max |F|`` over ``[-1, 1]``.
    draws : ndarray of int, shape (n,)
    controlled : ndarray of bool, shape (n,)
        Whether the control variate was used (else the plain mean: the pilot found it worse).
    target_se : float
        The requested standard error, as a fraction of ``scale``.
    seed : int
    status : {"ok", "limited"}
        ``limited``: the cap on the draws stopped the requested error at some alignment (``reason``).
    reason : str
    evidence : str
        ``"numerical"``.
    """

    problem: Problem
    rho: np.ndarray = field(repr=False)
    mean: np.ndarray = field(repr=False)
    se: np.ndarray = field(repr=False)
    limit: np.ndarray = field(repr=False)
    scale: float
    draws: np.ndarray = field(repr=False)
    controlled: np.ndarray = field(repr=False)
    target_se: float
    seed: int
    status: str = "ok"
    reason: str = ""
    evidence: str = EVIDENCE

    def as_dict(self) -> dict:
        return {"problem": self.problem.as_dict(), "rho": self.rho.tolist(), "mean": self.mean.tolist(),
                "se": self.se.tolist(), "limit": self.limit.tolist(), "scale": self.scale,
                "draws": self.draws.tolist(), "controlled": self.controlled.tolist(), "target_se": self.target_se,
                "seed": self.seed, "status": self.status, "reason": self.reason, "evidence": self.evidence}


def _grid(rho_grid) -> np.ndarray:
    g = np.asarray(rho_grid, dtype=float)
    if g.ndim != 1 or g.size < 1 or not np.all(np.isfinite(g)) or np.any(np.abs(g) > 1) or np.any(np.diff(g) <= 0):
        raise ValueError(f"`rho_grid` must be increasing alignments in [-1, 1], got {rho_grid!r}")
    return g


class _Estimate(NamedTuple):
    """The finite field at one alignment: its mean, standard error, draws, and whether the control
    variate was used."""

    mean: float
    se: float
    draws: int
    controlled: bool


def _point(problem: Problem, rho: float, target: float, seed: int, cap: int) -> _Estimate:
    """The :class:`_Estimate` at one alignment, aiming at the standard error ``target``
    (absolute) with at most ``cap`` draws: a pilot, then what its per-draw variance needs, re-planned
    up to :data:`PASSES` times from the variance of all draws so far (heavy tails make a pilot's
    variance low)."""
    pilot = min(PILOT, cap)
    # the features whose variance the draws can see (numerics.usable_features: at beta = 2 the e2
    # features made two seeds differ by 0.1 against a claimed error of 0.009)
    keep = usable_features(problem, feature_names(problem), pilot)
    x, h = controlled_draws(problem, rho, pilot, derive_seed(seed, "limit", problem.L, 0))
    h = h[:, keep]
    acc = CrossFitMean(max(1, h.shape[1]))
    if not keep.any():
        h = np.zeros((x.size, 1))
    acc.add(x, h)
    r = acc.result()
    # chosen on the pilot, before the rest is drawn: the control variate unless heavy tails make it worse
    controlled = r.controlled and r.variance < r.plain_variance
    for stage in range(1, PASSES + 1):
        variance, err = (r.variance, r.se) if controlled and r.controlled else (r.plain_variance, r.plain_se)
        n = min(cap, math.ceil(1.1 * variance / target**2))  # aim 5% below the target
        if err <= target or n <= acc.count:
            break
        x, h = controlled_draws(problem, rho, n - acc.count, derive_seed(seed, "limit", problem.L, stage))
        h = h[:, keep] if keep.any() else np.zeros((x.size, 1))
        acc.add(x, h)
        r = acc.result()
    if controlled and r.controlled:
        return _Estimate(r.mean, r.se, acc.count, True)
    return _Estimate(r.plain_mean, r.plain_se, acc.count, False)


def finite_field(problem: Problem, rho_grid=RHO_GRID, *, se: float = SE, seed: int = 0,
                 max_normals: int = MAX_NORMALS) -> FiniteField:
    """The exact chain's field ``E[<P_q g, xi> | rho]`` at finite ``L`` with its standard errors.

    Parameters
    ----------
    problem : numerics.Problem
        One query on one signal direction (``k = H = 1``), ``theta > 0``.
    rho_grid : array_like
        Increasing alignments in ``[-1, 1]`` (default :data:`RHO_GRID`).
    se : float
        The requested standard error at every alignment, as a fraction of ``max |F|``: a pilot of
        :data:`PILOT` draws measures the per-draw variance and the draws are scaled by
        ``(se_pilot / se)^2`` (module docstring).
    seed : int
        The seed of every alignment (common random numbers).
    max_normals : int
        The most normals drawn at one alignment (``3 L`` per draw; and at most :data:`MAX_DRAWS`
        draws); when the cap stops the request the result is ``limited``, with the reason.
    """
    instance("problem", problem, Problem, "numerics.Problem")
    problem.model.prior  # noqa: B018 - refuses a k > 1 or H > 1 model
    g = _grid(rho_grid)
    target = real("se", se, lower=0.0, strict=True)
    seed = integer("seed", seed, 0)
    max_normals = integer("max_normals", max_normals, 1)
    cap = min(MAX_DRAWS, max_normals // (3 * problem.L * problem.batch))
    if cap < MIN_DRAWS:
        raise ValueError(f"`max_normals` must allow {MIN_DRAWS} draws at L = {problem.L} "
                         f"(>= {3 * problem.L * problem.batch * MIN_DRAWS:,}), got {max_normals:,}")
    scale = field_scale(problem.model)
    points = [_point(problem, float(r), target * scale, seed, cap) for r in g]
    mean, err, draws, controlled = (np.array(column) for column in zip(*points, strict=True))
    short = err > 1.1 * target * scale
    status, reason = "ok", ""
    if short.any():
        i = int(np.argmax(err))
        status = "limited"
        reason = (f"the requested standard error {target:.3g} of max|F| was not reached at L = {problem.L}: "
                  f"{err[i] / scale:.3g} at rho = {g[i]:g} with {draws[i]:,} draws (at most {cap:,}: "
                  f"`max_normals` = {max_normals:,} and {MAX_DRAWS:,} draws per alignment)")
    limit = evaluate(problem.model, g, engine="scalar").field
    return FiniteField(problem=problem, rho=g, mean=mean, se=err, limit=np.asarray(limit, float), scale=scale,
                       draws=draws, controlled=controlled, target_se=target, seed=seed, status=status,
                       reason=reason)


def _worst(diff: np.ndarray, se: np.ndarray, rho: np.ndarray, scale: float) -> tuple[float, float, float]:
    """``(max |diff| / scale, its se / scale, the alignment)``."""
    i = int(np.argmax(np.abs(diff)))
    return float(abs(diff[i]) / scale), float(se[i] / scale), float(rho[i])


@dataclass(frozen=True)
class LimitDistance:
    """How far the limit field is from the finite system at one ``L`` (module docstring).

    Attributes
    ----------
    problem : numerics.Problem
        The instance: ``R = max(1, round(alpha L))``.
    distance, distance_se : float
        ``max_rho |E x - F| / max|F|`` and its standard error (at the maximising alignment).
    at_rho : float
        The alignment of the maximum.
    finite : FiniteField
    eta : float or None
    expansion, expansion_se, expansion_at_rho : float or None
        With ``eta``: ``max_rho |drift_eta - F_eta| / max|F|``, its standard error and alignment.
    drift, drift_se, expansion_drift : ndarray or None
        With ``eta``: the exact chain's measured one-step drift at ``eta``, its error, and the
        expansion's ``F_eta`` on the same grid.
    status : {"ok", "limited"}
    reason : str
    seconds : float
    evidence : str
        ``"numerical"``.
    """

    problem: Problem
    distance: float
    distance_se: float
    at_rho: float
    finite: FiniteField = field(repr=False)
    eta: float | None = None
    expansion: float | None = None
    expansion_se: float | None = None
    expansion_at_rho: float | None = None
    drift: np.ndarray | None = field(default=None, repr=False)
    drift_se: np.ndarray | None = field(default=None, repr=False)
    expansion_drift: np.ndarray | None = field(default=None, repr=False)
    status: str = "ok"
    reason: str = ""
    seconds: float = 0.0
    evidence: str = EVIDENCE

    def value(self) -> float:
        """The distance a tolerance is judged on: the expansion's error with ``eta``, else the limit's."""
        return self.distance if self.expansion is None else self.expansion

    def value_se(self) -> float:
        """The standard error of :meth:`value`."""
        return self.distance_se if self.expansion_se is None else self.expansion_se

    def as_dict(self) -> dict:
        out = {"L": self.problem.L, "R": self.problem.R, "d": self.problem.d, "distance": self.distance,
               "distance_se": self.distance_se, "at_rho": self.at_rho, "status": self.status,
               "reason": self.reason, "seconds": self.seconds, "evidence": self.evidence,
               "finite": self.finite.as_dict()}
        if self.eta is not None:
            assert self.drift is not None and self.drift_se is not None and self.expansion_drift is not None
            out.update(eta=self.eta, expansion=self.expansion, expansion_se=self.expansion_se,
                       expansion_at_rho=self.expansion_at_rho, drift=self.drift.tolist(),
                       drift_se=self.drift_se.tolist(), expansion_drift=self.expansion_drift.tolist())
        return out


@dataclass(frozen=True)
class Measurement:
    """How each distance of :func:`._limit_map.tokens_needed` and :func:`._limit_map.limit_map` is measured.

    Attributes
    ----------
    eta, rho_grid, se, seed, max_normals : object
        As in :func:`limit_distance`.
    """

    eta: float | None = None
    rho_grid: Any = RHO_GRID
    se: float = SE
    seed: int = 0
    max_normals: int = MAX_NORMALS

    def distance(self, model: Model, L: int, d: int) -> LimitDistance:
        return limit_distance(model, L, d, eta=self.eta, rho_grid=self.rho_grid, se=self.se, seed=self.seed,
                              max_normals=self.max_normals)


def limit_distance(model: Model, L: int, d: int, *, eta: float | None = None, rho_grid=RHO_GRID, se: float = SE,
                   seed: int = 0, max_normals: int = MAX_NORMALS) -> LimitDistance:
    """The distance between the limit field and the exact chain's at ``L`` tokens (module docstring).

    ``D(L) = max_{rho in rho_grid} |E[<P_q g, xi> | rho] - F(rho)| / max_{[-1, 1]} |F|``, ``F`` the
    limit field at the instance's ``alpha = R / L`` (``R = max(1, round(alpha L))``); its standard
    error is the Monte Carlo error at the maximising alignment (the maximum reads about
    ``se sqrt(2 ln G)`` where the true distance is below the noise).

    Parameters
    ----------
    model : theory.Model
        ``k = H = 1``, ``alpha > 0``, ``theta > 0``.
    L, d : int
        Tokens and dimension of the instance.
    eta : float, optional
        A constant step in ``(0, 1]``: also the error of the ``O(eta)`` expansion at that step,
        ``max_rho |drift_eta - F_eta| / max|F|`` (the exact chain's one-step drift at ``eta``,
        :func:`sigrec.numerics.measured_law`, against :func:`sigrec.theory.effective_drift`), its
        drift measured to ``se`` (relative) with at most ``max_normals`` normals per alignment.
    rho_grid, se, seed, max_normals
        As in :func:`finite_field`.
    """
    t0 = time.perf_counter()
    problem = instance_of(model, L, d)
    eta = None if eta is None else real("eta", eta, lower=0.0, upper=1.0, strict=True)  # before any draw
    ff = finite_field(problem, rho_grid, se=se, seed=seed, max_normals=max_normals)
    dist, dist_se, at = _worst(ff.mean - ff.limit, ff.se, ff.rho, ff.scale)
    out = LimitDistance(problem=problem, distance=dist, distance_se=dist_se, at_rho=at, finite=ff,
                        status=ff.status, reason=ff.reason)
    if eta is not None:
        out = _with_expansion(out, eta, seed, max_normals)
    return dataclasses.replace(out, seconds=time.perf_counter() - t0)


def _with_expansion(out: LimitDistance, eta: float, seed: int, max_normals: int) -> LimitDistance:
    """``out`` with the error of the ``O(eta)`` expansion at the step ``eta``."""
    problem, ff = out.problem, out.finite
    target = ff.target_se * ff.scale
    max_runs = max(1000, max_normals // (3 * problem.L))
    law = measured_law(problem, eta, grid=ff.rho, drift_se=target, seed=seed, options=MeasureOptions(max_runs=max_runs))
    drift, drift_se = np.asarray(law.drift, float), np.asarray(law.drift_se, float)
    expected = np.asarray(effective_drift(problem.model, ff.rho, eta, problem.d, problem.L).drift, float)
    err, err_se, at = _worst(drift - expected, drift_se, ff.rho, ff.scale)
    status, reason = out.status, out.reason
    if float(np.max(drift_se)) > 1.1 * target:
        status = "limited"
        reason = "; ".join(filter(None, [reason, (
            f"the measured drift at eta = {eta:g} reached a standard error of {np.max(drift_se) / ff.scale:.3g} "
            f"of max|F| (requested {ff.target_se:.3g}) within {max_runs:,} runs per alignment")]))
    return dataclasses.replace(out, eta=eta, expansion=err, expansion_se=err_se, expansion_at_rho=at, drift=drift,
                               drift_se=drift_se, expansion_drift=expected, status=status, reason=reason)
