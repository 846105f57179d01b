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
  standard errors (:data:`TOL_OVER_SE`).
* **The expansion's error at a step** ``eta`` (``limit_distance(..., eta=)``): the same maximum of
  ``|drift_eta - F_eta| / max|F|``, with ``drift_eta`` the exact chain's one-step drift at that
  step (:func:`sigrec.numerics.measured_law`) and ``F_eta`` the ``O(eta)`` expansion's drift
  ``F + F_1/L - (eta/2) rho E|P g|^2`` (:func:`sigrec.theory.effective_drift`), what ``sigrec
  predict`` integrates.
* **Tokens needed** (:func:`tokens_needed`) for a tolerance, and the **map** over ``(beta, L)``
  (:func:`limit_map`).

Everything here is numerical evidence (Monte Carlo of the exact reduced chain), never a certificate.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

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
#: the most normals drawn at one alignment by default (three per token and draw; ~6 s of one core)
MAX_NORMALS = 10**8
#: the most draws at one alignment by default (small ``L``: a draw's features cost more than its normals)
MAX_DRAWS = 50_000
#: planning passes after the pilot at one alignment
PASSES = 3
#: the fewest draws at one alignment that ``max_normals`` must allow
MIN_DRAWS = 100
#: the ladder of :func:`tokens_needed`: its smallest size and its largest
L_MIN, L_MAX = 16, 2**14
#: ... and the informative tokens at its smallest size (below ``R ~ 10`` the error is pre-asymptotic,
#: as ``finite_size.rate`` found, and a draw's variance is large: tens of thousands of draws per alignment)
MIN_INFORMATIVE = 10
#: bisection steps in ``log L`` between the last ladder size above the tolerance and the first below
REFINE = 2
#: a tolerance of at least this many standard errors (the noise floor of a maximum over the grid)
TOL_OVER_SE = 3.0
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


def _point(problem: Problem, rho: float, target: float, seed: int, cap: int) -> tuple[float, float, int, bool]:
    """``(mean, se, draws, controlled)`` at one alignment, aiming at the standard error ``target``
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
        return r.mean, r.se, acc.count, True
    return r.plain_mean, r.plain_se, acc.count, False


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
    mean, err = (np.array([p[i] for p in points]) for i in (0, 1))
    draws = np.array([p[2] for p in points])
    controlled = np.array([p[3] for p in points])
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


@dataclass(frozen=True)
class TokensNeeded:
    """The smallest ``L`` at which the distance is below ``tol`` (:func:`tokens_needed`).

    Attributes
    ----------
    model : theory.Model
    d : int
    tol : float
    eta : float or None
        With a step, the criterion is the ``O(eta)`` expansion's error at it, else the limit's distance.
    criterion : {"limit", "expansion"}
    L, R : int or None
        The tokens needed and the informative ones among them (``None`` unless ``status`` is ``ok``
        or ``limited``).
    ladder : tuple of dict
        Every size evaluated, in order: ``L``, ``R``, ``distance``, ``distance_se`` (and
        ``expansion``, ``expansion_se`` with ``eta``), ``below`` (the criterion under ``tol``),
        ``stage`` (``ladder``, ``confirm`` or ``bisect``), ``status``.
    status : {"ok", "limited", "beyond"}
        ``beyond``: the largest size tried is not enough (``reason``); ``limited``: found, but an
        evaluation fell short of its requested error (``reason``).
    reason : str
    se : float
        The requested standard error of each distance (relative to ``max|F|``).
    seconds : float
    evidence : str
        ``"numerical"``.
    """

    model: Model
    d: int
    tol: float
    eta: float | None
    criterion: str
    L: int | None
    R: int | None
    ladder: tuple
    status: str
    reason: str
    se: float
    seconds: float
    evidence: str = EVIDENCE

    def as_dict(self) -> dict:
        return {"model": self.model.as_dict(), "d": self.d, "tol": self.tol, "eta": self.eta,
                "criterion": self.criterion, "L": self.L, "R": self.R, "ladder": list(self.ladder),
                "status": self.status, "reason": self.reason, "se": self.se, "seconds": self.seconds,
                "evidence": self.evidence}


def _row(res: LimitDistance, tol: float, stage: str) -> dict:
    row: dict[str, Any] = {"L": res.problem.L, "R": res.problem.R, "distance": res.distance,
                           "distance_se": res.distance_se}
    if res.eta is not None:
        row.update(expansion=res.expansion, expansion_se=res.expansion_se)
    row.update(below=bool(res.value() < tol), stage=stage, status=res.status)
    return row


def ladder_sizes(model: Model, L_min: int | None, L_max: int) -> list[int]:
    """The doubling ladder ``L_min 2^j <= L_max``; ``L_min`` defaults to ``max(16, ceil(10 / alpha))``
    (:data:`MIN_INFORMATIVE`)."""
    instance("model", model, Model, "theory.Model")
    if model.alpha <= 0:
        raise ValueError(f"`alpha` must be > 0: a finite instance has R >= 1 informative tokens, got {model.alpha!r}")
    lo = integer("L_min", max(L_MIN, math.ceil(MIN_INFORMATIVE / model.alpha - 1e-9)) if L_min is None else L_min, 2)
    hi = integer("L_max", L_max, lo)
    return [lo * 2**j for j in range(int(math.log2(hi / lo)) + 1)]


def tokens_needed(model: Model, tol: float = 0.05, *, d: int, eta: float | None = None, se: float = SE,
                  L_min: int | None = None, L_max: int = L_MAX, refine: int = REFINE, rho_grid=RHO_GRID,
                  seed: int = 0, max_normals: int = MAX_NORMALS,
                  progress: Callable[[int, int], None] | None = None) -> TokensNeeded:
    """The smallest ``L`` at which the limit's distance (with ``eta``: the expansion's error) is below ``tol``.

    A doubling ladder from ``L_min`` climbs to the first size below ``tol`` whose double is below
    too (at large ``beta`` the finite-size error changes sign in ``L``, so one size below ``tol``
    can be a node); then ``refine`` bisections in ``log L`` between it and the size before it.
    Each size's distance has its own seed (``seed`` and ``L``), so it does not depend on the path
    that reached it, and the answer is monotone in ``tol``. Numerical evidence: each comparison
    with ``tol`` is at the Monte Carlo error ``se``, and the bisection takes the distance as
    decreasing between the two ladder sizes.

    Parameters
    ----------
    model : theory.Model
        ``k = H = 1``, ``alpha > 0``, ``theta > 0``; ``R = max(1, round(alpha L))``.
    tol : float
        The tolerance, relative to ``max|F|``, at least :data:`TOL_OVER_SE` times ``se``.
    d : int
    eta : float, optional
        Judge the ``O(eta)`` expansion's error at this step instead (:func:`limit_distance`).
    se, rho_grid, seed, max_normals
        As in :func:`limit_distance`.
    L_min, L_max : int
        The ladder (:func:`ladder_sizes`).
    refine : int
        Bisection steps (each halves ``log L`` of the bracket).
    progress : callable, optional
        ``progress(done, total)`` after each size (``total`` an estimate).
    """
    t0 = time.perf_counter()
    tol = real("tol", tol, lower=0.0, strict=True)
    se = real("se", se, lower=0.0, strict=True)
    if tol < TOL_OVER_SE * se * (1 - 1e-12):  # (3 x 0.05 is 0.15000000000000002 in floats)
        raise ValueError(f"`tol` must be at least {TOL_OVER_SE:g} times `se` (the Monte Carlo error of each "
                         f"distance), got tol = {tol!r} with se = {se!r}")
    refine = integer("refine", refine, 0, 20)
    eta = None if eta is None else real("eta", eta, lower=0.0, upper=1.0, strict=True)
    sizes = ladder_sizes(model, L_min, L_max)
    instance_of(model, sizes[0], d)  # refuses the model and d before any draw
    seen: dict[int, LimitDistance] = {}
    rows: list[dict] = []

    def below(L: int, stage: str) -> bool:
        if L not in seen:
            seen[L] = limit_distance(model, L, d, eta=eta, rho_grid=rho_grid, se=se, seed=seed,
                                     max_normals=max_normals)
            rows.append(_row(seen[L], tol, stage))
            if progress is not None:
                progress(len(rows), len(rows) + refine + 1)
        return seen[L].value() < tol

    found = next((j for j, L in enumerate(sizes)
                  if below(L, "ladder") and (j + 1 == len(sizes) or below(sizes[j + 1], "confirm"))), None)
    criterion = "limit" if eta is None else "expansion"

    def result(**kw: Any) -> TokensNeeded:
        return TokensNeeded(model=model, d=d, tol=tol, eta=eta, criterion=criterion, se=se, ladder=tuple(rows),
                            seconds=time.perf_counter() - t0, **kw)

    if found is None:
        top = seen[sizes[-1]]
        reason = (f"the {criterion} distance at the largest size tried, L = {sizes[-1]}, is "
                  f"{top.value():.3g} ± {top.value_se():.2g} >= tol = {tol:g}: more tokens are needed "
                  f"(raise `L_max`)")
        return result(L=None, R=None, status="beyond", reason=reason)
    hi = sizes[found]
    lo = sizes[found - 1] if found else None
    for _ in range(refine if lo is not None else 0):
        assert lo is not None
        mid = round(math.sqrt(lo * hi))
        if mid in (lo, hi):
            break
        if below(mid, "bisect"):
            hi = mid
        else:
            lo = mid
    return result(L=hi, R=seen[hi].problem.R, **_verdict(seen, sizes, found, hi, lo, tol))


def _verdict(seen: dict, sizes: list[int], found: int, hi: int, lo: int | None, tol: float) -> dict:
    """``status`` and ``reason`` of a found size ``hi`` (``lo`` the largest size above ``tol``)."""
    notes = []
    if lo is None:
        notes.append(f"already below tol = {tol:g} at the smallest size tried, L = {hi} (fewer may do)")
    if found + 1 == len(sizes):
        notes.append(f"not confirmed at 2L: L = {hi} is the largest ladder size")
    limited = sorted(L for L, res in seen.items() if res.status != "ok")
    if limited:
        notes.append(f"short of the requested error at L = {', '.join(map(str, limited))}: "
                     + seen[limited[0]].reason)
    return {"status": "limited" if limited else "ok", "reason": "; ".join(notes)}


@dataclass(frozen=True)
class LimitMap:
    """The distance on a ``(beta, L)`` grid (:func:`limit_map`).

    Attributes
    ----------
    model : theory.Model
        The model whose ``beta`` is replaced (``theta``, ``alpha``, ``sigma2``, prior kept).
    d : int
    betas, Ls : ndarray, shapes (nb,), (nL,)
    R : ndarray of int, shape (nL,)
        ``max(1, round(alpha L))``.
    distance, distance_se : ndarray, shape (nb, nL)
    at_rho : ndarray, shape (nb, nL)
    status : ndarray of str, shape (nb, nL)
    eta : float or None
    expansion, expansion_se : ndarray or None, shape (nb, nL)
    se : float
    seconds : float
    evidence : str
    """

    model: Model
    d: int
    betas: np.ndarray = field(repr=False)
    Ls: np.ndarray = field(repr=False)
    R: np.ndarray = field(repr=False)
    distance: np.ndarray = field(repr=False)
    distance_se: np.ndarray = field(repr=False)
    at_rho: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)
    se: float
    seconds: float
    eta: float | None = None
    expansion: np.ndarray | None = field(default=None, repr=False)
    expansion_se: np.ndarray | None = field(default=None, repr=False)
    evidence: str = EVIDENCE

    def crossing(self, tol: float) -> np.ndarray:
        """Per ``beta``, the ``L`` from which on every grid size is below ``tol``, interpolated
        linearly in ``(log L, log distance)`` from the size before it (``nan`` when the largest is
        above; the smallest grid size when all are below: an upper bound)."""
        tol = real("tol", tol, lower=0.0, strict=True)
        D = self.distance if self.expansion is None else self.expansion
        logL = np.log(self.Ls.astype(float))
        out = np.full(self.betas.size, math.nan)
        for b, row in enumerate(D):
            above = np.flatnonzero(row >= tol)
            k = 0 if above.size == 0 else int(above[-1]) + 1
            if k == row.size:
                continue
            if k == 0:
                out[b] = float(self.Ls[0])
                continue
            y0, y1 = math.log(row[k - 1]), math.log(max(row[k], 1e-300))
            f = (math.log(tol) - y0) / (y1 - y0)
            out[b] = float(np.exp(logL[k - 1] + f * (logL[k] - logL[k - 1])))
        return out

    def dataset(self):
        """The map as an ``xarray.Dataset`` (dimensions ``beta`` and ``L``)."""
        import xarray as xr  # xarray loads only when asked for

        data = {"distance": (("beta", "L"), self.distance), "distance_se": (("beta", "L"), self.distance_se),
                "at_rho": (("beta", "L"), self.at_rho), "status": (("beta", "L"), self.status.astype(str))}
        if self.expansion is not None and self.expansion_se is not None:
            data.update(expansion=(("beta", "L"), self.expansion), expansion_se=(("beta", "L"), self.expansion_se))
        return xr.Dataset(data, coords={"beta": self.betas, "L": self.Ls, "R": ("L", self.R)},
                          attrs={"model": str(self.model.as_dict()), "d": self.d, "se": self.se,
                                 "eta": "none" if self.eta is None else self.eta, "evidence": LABEL})

    def as_dict(self) -> dict:
        out = {"model": self.model.as_dict(), "d": self.d, "betas": self.betas.tolist(), "Ls": self.Ls.tolist(),
               "R": self.R.tolist(), "distance": self.distance.tolist(), "distance_se": self.distance_se.tolist(),
               "at_rho": self.at_rho.tolist(), "status": self.status.tolist(), "se": self.se, "eta": self.eta,
               "seconds": self.seconds, "evidence": self.evidence}
        if self.expansion is not None and self.expansion_se is not None:
            out.update(expansion=self.expansion.tolist(), expansion_se=self.expansion_se.tolist())
        return out


def limit_map(model: Model, betas, Ls, *, d: int, eta: float | None = None, se: float = SE, rho_grid=RHO_GRID,
              seed: int = 0, max_normals: int = MAX_NORMALS,
              progress: Callable[[int, int], None] | None = None) -> LimitMap:
    """The distance (:func:`limit_distance`) at every ``(beta, L)`` of a grid: ``model`` with its
    ``beta`` replaced, ``alpha`` fixed, ``R = max(1, round(alpha L))``. ``progress(done, total)``
    after each cell."""
    t0 = time.perf_counter()
    instance("model", model, Model, "theory.Model")
    b = np.asarray(betas, dtype=float)
    if b.ndim != 1 or b.size < 1 or not np.all(np.isfinite(b)) or np.any(b <= 0) or np.any(np.diff(b) <= 0):
        raise ValueError(f"`betas` must be increasing numbers > 0, got {betas!r}")
    sizes = np.asarray(Ls)
    if sizes.ndim != 1 or sizes.size < 1 or np.any(np.diff(sizes) <= 0):
        raise ValueError(f"`Ls` must be increasing token counts, got {Ls!r}")
    sizes = np.array([integer("Ls", L, 2) for L in sizes.tolist()])
    cells = []
    for beta in b:
        m = Model(model.theta, model.alpha, float(beta), model.sigma2, model.law, model.heads)
        for L in sizes:
            cells.append(limit_distance(m, int(L), d, eta=eta, rho_grid=rho_grid, se=se, seed=seed,
                                        max_normals=max_normals))
            if progress is not None:
                progress(len(cells), b.size * sizes.size)
    shape = (b.size, sizes.size)

    def grid(get) -> np.ndarray:
        return np.array([get(c) for c in cells]).reshape(shape)

    exp = None if eta is None else (grid(lambda c: c.expansion), grid(lambda c: c.expansion_se))
    return LimitMap(model=model, d=cells[0].problem.d, betas=b, Ls=sizes,
                    R=np.array([c.problem.R for c in cells[: sizes.size]]), distance=grid(lambda c: c.distance),
                    distance_se=grid(lambda c: c.distance_se), at_rho=grid(lambda c: c.at_rho),
                    status=grid(lambda c: c.status), se=se, seconds=time.perf_counter() - t0, eta=cells[0].eta,
                    expansion=None if exp is None else exp[0], expansion_se=None if exp is None else exp[1])
