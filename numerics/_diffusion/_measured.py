"""The measured one-step law of the exact chain: drift and variance of ``rho`` at a constant step.

Outside the stated validity of the ``O(eta)`` expansion (large ``beta`` at a few thousand
tokens, large steps) its drift ``A - eta B`` and variance ``Sigma`` are wrong, and the finite
system's answer is the exact reduced chain's own. :func:`measured_law` estimates, at each
alignment of a grid and for the step ``eta`` itself (not a tiny one), the one-step conditional

    drift(rho)    = E[rho' - rho | rho] / eta,
    variance(rho) = Var[rho' - rho | rho] / eta^2,

by Monte Carlo of one step of the exact reduced chain from ``rho``, each with its standard error.

*Draws.* Run ``i`` of a grid point draws from stream ``i`` of ``SeedSequence(seed)``, the same
streams at every point: common random numbers across the grid, so neighbouring estimates share
their noise, which keeps the drift's sign changes where the law puts them. One draw is one token
collection (:func:`numerics._gradient._influence.step_features`): the exact transition's
in-plane coefficient ``c`` and out-of-plane norm ``G``, which give ``rho'`` for any step, and the
collection's token features ``h`` with ``E h = 0`` exactly.

*Control variate.* The increment is a smooth function of the token averages that ``h`` centres,
so most of its variance is linear in ``h``: the drift is the cross-fitted regression estimate
(:class:`numerics.CrossFitMean`, unbiased for every sample size) and the second moment the same
for the squared increment; the variance is ``E[dx^2] - drift^2`` with the drift's own ``se^2``
added back, its error by the delta method on the residuals. Heavy-tailed features (the ``e2``
weights at large ``beta``) are left out (:func:`usable_features`). ``reduction`` reports the
plain variance over the controlled one at each point. With ``MeasureOptions(control=False)`` the
plain means.

These are the coefficients of the diffusion ``rho' = rho + eta drift + eta sqrt(variance) z``
that :mod:`._paths` runs.

The result is a :class:`._law.MeasuredLaw` (its plateau, replicates and tables).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from ...core.validate import instance, integer, real
from .._cost import add_token_steps
from .._gradient._crossfit import MIN_FOLD_PER_FEATURE, CrossFitMean
from .._gradient._influence import StepFeatures, feature_names, step_features
from .._parallel._executor import current_executor
from .._simulate._init import spawn_generators
from .._simulate._problem import Problem
from ._law import MeasuredLaw

#: the grid of a measured law with a fixed ``runs``: this many uniform points on [-0.96, 0.96]
POINTS = 25
#: the default grid starts with this many uniform points on [-0.96, 0.96] and the ten of
#: :data:`POLES` ...
COARSE_POINTS = 13
#: ... beyond them: where a passage to |rho| >= 0.99 ends, and closer to the poles, where a path
#: near its plateau sits at small steps (the draws of 0.99 used at 0.9995 push it to the pole with
#: the in-plane force of 0.99, about three times too strong: deficits of 1e-3 came out 2 to 10 times
#: too small)
POLES = (-0.9999, -0.9995, -0.999, -0.995, -0.99, 0.99, 0.995, 0.999, 0.9995, 0.9999)
#: ... and halves the cells where the drift's interpolation error exceeds the requested error,
#: this many times at most, never below this width
REFINE_ROUNDS = 2
MIN_CELL = 0.02
#: batches of runs whose drift means the bootstrap resamples (rows shared by the grid)
BATCHES = 50
#: runs per point of the pilot that measures the error when a precision is requested is enough for
#: the control variate (:func:`pilot_runs`), and at least this ...
MIN_PILOT = 500
#: ... and the features are chosen as if it were this (:func:`usable_features`)
PILOT = 1200
#: the drift's standard error requested when neither ``runs`` nor ``drift_se`` is given, relative
#: to the drift's scale ``max(1, max |drift|)`` on the coarse pilot grid (a model whose drift is in
#: the thousands, ``theta = 50``, moves as much in a thousandth of the time: the error that matters
#: is the drift's error over its own size)
DRIFT_SE = 0.02
#: a token feature enters the control variate while the tokens drawn hold this many of those that
#: carry its variance (:func:`usable_features`)
FEATURE_TAIL = 100
#: runs of one grid point per unit of work
CHUNK_RUNS = 600
#: rounds of more runs at the points whose error is still above the request
TOP_UP_ROUNDS = 4
#: the most runs per point a requested precision chooses by default
MAX_RUNS = 400_000
#: the most work the top-up rounds may add, in token-draws: one run of one grid point costs
#: ``L + RUN_OVERHEAD`` (its tokens and the fixed cost of a draw, as much as 2,500 tokens)
MAX_WORK = 6e8
RUN_OVERHEAD = 2500


@dataclass(frozen=True)
class MeasureOptions:
    """The caps, processes and estimator of :func:`measured_law`.

    Attributes
    ----------
    max_runs : int
        The most runs per point ``drift_se`` may choose; and the runs added after the pilot cost
        at most ``max_work`` token-draws in all (``L + RUN_OVERHEAD`` a run), shared out in
        proportion to what each point needs.
    max_work : float
        Default :data:`MAX_WORK`.
    workers : int
        Processes of the simulator (bit-identical for any count).
    control : bool
        The control-variate estimator (module docstring); ``False``: the plain means.
    """

    max_runs: int = MAX_RUNS
    max_work: float = MAX_WORK
    workers: int = 1
    control: bool = True


def measured_law(problem: Problem, eta: float, *, eta_low: float | None = None, grid=None, runs: int | None = None,
                 drift_se: float | None = None, seed: int = 0, options: MeasureOptions | None = None) -> MeasuredLaw:
    """The exact chain's one-step drift and variance of ``rho`` at the constant step ``eta``.

    Parameters
    ----------
    problem : Problem
        One query on one signal direction (``k = H = 1``).
    eta : float
        The step, in ``(0, 1]``.
    eta_low : float, optional
        A smaller step in ``(0, eta)``: the law there too, from the same draws (:attr:`MeasuredLaw.low`),
        so that :meth:`MeasuredLaw.tables` describe every step between the two (a decaying schedule).
    grid : array_like, optional
        Increasing alignments in ``[-1, 1]``. Default: chosen from the requested error,
        :data:`COARSE_POINTS` uniform on ``[-0.96, 0.96]`` with the cells where the drift's linear
        interpolation errs by more than ``drift_se`` halved (:func:`refine_cells`, at most
        :data:`REFINE_ROUNDS` rounds); with ``runs``, :data:`POINTS` uniform points.
    runs : int, optional
        One-step samples per grid point (``>= 500``: :data:`BATCHES` batches of at least 10).
    drift_se : float, optional
        The requested standard error of the drift at every grid point, instead of ``runs``: a
        pilot (:func:`pilot_runs` runs per point) measures the error, and each point's runs are chosen
        from its own (``error ~ 1 / sqrt(runs)``), at most ``options.max_runs``; a result that could not
        reach the request says so (``status = "limited"`` and its ``reason``). Neither given:
        ``drift_se = 0.02`` times the drift's scale ``max(1, max |drift|)`` on the pilot's
        coarse grid (:data:`DRIFT_SE`).
    seed : int
        The seed of every grid point (common random numbers).
    options : MeasureOptions, optional
        The caps on the runs and the work, the processes and the estimator.
    """
    instance("problem", problem, Problem)
    problem.model.prior  # noqa: B018 - refuses a k > 1 or H > 1 model, whose state is not rho
    eta = real("eta", eta, lower=0.0, upper=1.0, strict=True)
    if eta_low is not None:
        eta_low = real("eta_low", eta_low, lower=0.0, upper=eta, strict=True)
        if eta_low >= eta:
            raise ValueError(f"`eta_low` must be below `eta` = {eta!r}, got {eta_low!r}")
    seed = integer("seed", seed, 0)
    opts = MeasureOptions() if options is None else instance("options", options, MeasureOptions)
    workers, control = opts.workers, opts.control
    max_runs = integer("max_runs", opts.max_runs, PILOT)
    max_work = real("max_work", opts.max_work, lower=0.0)
    g = np.linspace(-0.96, 0.96, POINTS) if grid is None else np.asarray(grid, dtype=float)
    if g.ndim != 1 or g.size < 2 or not np.all(np.isfinite(g)) or np.any(np.abs(g) > 1) or np.any(np.diff(g) <= 0):
        raise ValueError("`grid` must be at least 2 increasing alignments in [-1, 1]")
    etas = (eta, eta_low)
    if runs is not None:
        if drift_se is not None:
            raise ValueError("give `runs` or `drift_se`, not both")
        runs = integer("runs", runs, 10 * BATCHES)
        return _estimate(problem, etas, g, _draw(problem, g, seed, 0, runs, workers), seed, control)
    target = None if drift_se is None else real("drift_se", drift_se, lower=0.0, strict=True)
    n0 = pilot_runs(problem) if control else MIN_PILOT
    g, pilot_draws, target = _pilot(problem, etas, g, grid is None, target, seed, opts, n0)
    draws, cap = pilot_draws, max_runs - max_runs % BATCHES
    law = _estimate(problem, etas, g, draws, seed, control)
    need, work, budget = law.runs, 0.0, False
    for _ in range(TOP_UP_ROUNDS):  # each point's error from its runs so far (~ 1 / sqrt(runs)); a heavy tail
        # seen late raises it, so the count is chosen again from the larger sample
        need = law.runs * (law.drift_se / target) ** 2
        chosen = np.minimum(np.maximum(law.runs, BATCHES * np.ceil(1.05 * need / BATCHES)), cap).astype(int)
        chosen, cut = _within_budget(law.runs, chosen, (max_work - work) / (problem.L + RUN_OVERHEAD))
        budget |= cut
        if not np.any(chosen > law.runs):
            break
        work += float(np.sum(chosen - law.runs)) * (problem.L + RUN_OVERHEAD)
        more = _draw(problem, g, seed, law.runs, chosen, workers)  # runs already drawn are kept, not redrawn
        draws = [a if b is None else _join([a, b]) for a, b in zip(draws, more, strict=True)]
        law = _estimate(problem, etas, g, draws, seed, control)
    reached = float(np.max(law.drift_se))
    if reached <= 1.1 * target:
        return dataclasses.replace(law, target_se=target)
    limit = (f"`max_work` = {max_work:.3g} token-draws after the pilot" if budget
             else f"`max_runs` = {max_runs:,}")
    reason = (f"the requested drift standard error {target:.3g} needs about {float(np.max(need)):,.0f} runs at "
              f"the hardest point; {limit} gives {reached:.3g}")
    return dataclasses.replace(law, target_se=target, status="limited", reason=reason)


def pilot_runs(problem: Problem) -> int:
    """Runs per point of the pilot: enough for the control variate to be used (each fold of
    :class:`numerics.CrossFitMean` needs 20 draws per feature of :func:`usable_features`), at
    least :data:`MIN_PILOT`, a multiple of :data:`BATCHES`."""
    names = feature_names(problem)
    k = int(usable_features(problem, names, PILOT).sum())
    return max(MIN_PILOT, BATCHES * math.ceil(2 * MIN_FOLD_PER_FEATURE * (k + 1) / BATCHES))


def _pilot(problem: Problem, etas: tuple, g: np.ndarray, adaptive: bool, target: float | None, seed: int,
           opts: MeasureOptions, n0: int) -> tuple[np.ndarray, list[StepFeatures], float]:
    """The pilot's grid, draws and target error: ``g`` as given, or (``adaptive``) the coarse
    default grid with the cells where the drift's linear interpolation errs by more than the target
    halved, at most :data:`REFINE_ROUNDS` times (:func:`refine_cells`); the target is ``target``,
    or (``None``) :data:`DRIFT_SE` times the drift's scale on the first grid."""
    workers, control = opts.workers, opts.control
    if adaptive:
        g = np.sort(np.concatenate([POLES, np.linspace(-0.96, 0.96, COARSE_POINTS)]))
    draws = dict(zip(g.tolist(), _draw(problem, g, seed, 0, n0, workers), strict=True))
    if target is None:
        law = _estimate(problem, (etas[0], None), g, list(draws.values()), seed, control)
        target = DRIFT_SE * max(1.0, float(np.max(np.abs(law.drift))))
    for _ in range(REFINE_ROUNDS if adaptive else 0):
        law = _estimate(problem, (etas[0], None), g, [draws[r] for r in g.tolist()], seed, control)
        new = refine_cells(g, law.drift, target)
        if new.size == 0:
            break
        draws.update(zip(new.tolist(), _draw(problem, new, seed, 0, n0, workers), strict=True))
        g = np.array(sorted(draws))
    return g, [draws[r] for r in g.tolist()], target


def _within_budget(runs: np.ndarray, chosen: np.ndarray, budget: float) -> tuple[np.ndarray, bool]:
    """``chosen`` runs per point, the additions scaled down together (in whole batches) when they
    exceed ``budget`` runs in all; and whether they were."""
    more = (chosen - runs).astype(float)
    if float(more.sum()) <= budget:
        return chosen, False
    scaled = BATCHES * np.floor(more * max(budget, 0.0) / float(more.sum()) / BATCHES)
    return (runs + scaled).astype(int), True


def refine_cells(grid: np.ndarray, drift: np.ndarray, tol: float) -> np.ndarray:
    """Midpoints of the cells of ``grid`` where linear interpolation of ``drift`` errs by more than
    ``tol``: the error in a cell of width ``h`` is ``|D''| h^2 / 8``, ``D''`` the three-point divided
    difference at either end of the cell. Cells narrower than :data:`MIN_CELL` are kept."""
    x0, x1, x2 = grid[:-2], grid[1:-1], grid[2:]
    d0, d1, d2 = drift[:-2], drift[1:-1], drift[2:]
    curv = np.abs(2.0 * ((d2 - d1) / (x2 - x1) - (d1 - d0) / (x1 - x0)) / (x2 - x0))
    width = np.diff(grid)
    bad = np.zeros(width.size, bool)
    bad[:-1] |= curv * width[:-1] ** 2 / 8 > tol  # the cell left of each interior point
    bad[1:] |= curv * width[1:] ** 2 / 8 > tol  # and the one right of it
    bad &= width >= 2 * MIN_CELL
    return 0.5 * (grid[:-1] + grid[1:])[bad]


def _draw_unit(unit) -> tuple[StepFeatures, float]:
    """Runs ``lo..hi-1`` of one grid point: their exact steps and features (a unit of work), and the
    CPU seconds of its thread (counted by the caller when the unit ran elsewhere)."""
    problem, rho, seed, lo, hi = unit
    cpu0 = time.thread_time()
    out = step_features(problem, rho, spawn_generators(seed, hi, lo))  # run i's stream whatever the chunking
    return out, time.thread_time() - cpu0


def _draw(problem: Problem, g: np.ndarray, seed: int, lo, hi, workers: int) -> list:
    """Runs ``lo..hi-1`` at every point of ``g`` (``lo``, ``hi`` one count each, or one per point),
    in units of :data:`CHUNK_RUNS` runs; ``None`` for a point with no run in its range."""
    los, his = (np.broadcast_to(np.asarray(v, dtype=int), g.shape).tolist() for v in (lo, hi))
    units = [(i, (problem, float(r), seed, a, min(a + CHUNK_RUNS, h)))
             for i, (r, l0, h) in enumerate(zip(g.tolist(), los, his, strict=True)) for a in range(l0, h, CHUNK_RUNS)]
    ex = current_executor(workers)
    done = ex.map(_draw_unit, [u for _, u in units])
    # one exact step per draw; the units' CPU is the caller's own when they ran in its thread
    add_token_steps("measured_law", sum(f.c.size for f, _ in done) * problem.L * problem.batch,
                    cpu_elsewhere=0.0 if ex.backend == "inline" else sum(c for _, c in done))
    parts: list[list[StepFeatures]] = [[] for _ in range(g.size)]
    for (i, _), (f, _) in zip(units, done, strict=True):
        parts[i].append(f)
    return [_join(p) if p else None for p in parts]


def _join(parts: list[StepFeatures]) -> StepFeatures:
    first = parts[0]
    return StepFeatures(rho=first.rho, c=np.concatenate([p.c for p in parts]),
                        G=np.concatenate([p.G for p in parts]), h=np.concatenate([p.h for p in parts]),
                        names=first.names)


def _estimate(problem: Problem, etas: tuple, g: np.ndarray, draws: list[StepFeatures], seed: int,
              control: bool) -> MeasuredLaw:
    """The law at ``etas[0]`` (and at ``etas[1]``, if not ``None``, as its :attr:`MeasuredLaw.low`)."""
    eta, eta_low = etas
    law = _estimate_at(problem, eta, g, draws, seed, control)
    if eta_low is None:
        return law
    return dataclasses.replace(law, low=_estimate_at(problem, eta_low, g, draws, seed, control))


def _estimate_at(problem: Problem, eta: float, g: np.ndarray, draws: list[StepFeatures], seed: int,
                 control: bool) -> MeasuredLaw:
    """The law at ``eta`` from each point's draws: the drift and the second moment of the
    increment, each the cross-fitted control-variate mean (:class:`numerics.CrossFitMean`) of its
    draws against the token features when ``control``, else the plain mean (module docstring)."""
    n = g.size
    runs = np.array([f.c.size for f in draws])
    drift, drift_se, var, var_se, reduction, plain = (np.empty(n) for _ in range(6))
    batch_means = np.empty((BATCHES, n))
    keep = usable_features(problem, draws[0].names, int(runs.min())) if control else np.zeros(0, bool)
    for i, f in enumerate(draws):
        x = f.increment(eta)
        plain[i] = float(x.mean())
        y, y2 = x, x * x
        if control and keep.any():
            y, y2 = (_controlled(v, f.h[:, keep]) for v in (x, x * x))
        m = float(y.mean())
        se2 = float(y.var(ddof=1)) / runs[i]
        drift[i], drift_se[i] = m, math.sqrt(se2)
        var[i] = float(y2.mean()) - m * m + se2  # E[(mean y)^2] = m^2 + se^2
        var_se[i] = float(np.std(y2 - 2.0 * m * y, ddof=1)) / math.sqrt(runs[i])  # delta method
        reduction[i] = float(x.var()) / max(float(y.var()), 1e-300)
        k = BATCHES * (runs[i] // BATCHES)
        batch_means[:, i] = y[:k].reshape(-1, BATCHES).mean(axis=0)  # batch b: the runs i = b mod BATCHES
    c, G = np.zeros((n, runs.max())), np.zeros((n, runs.max()))
    for i, f in enumerate(draws):
        c[i, :runs[i]], G[i, :runs[i]] = f.c, f.G
    for a in (g, drift, drift_se, var, var_se, batch_means, reduction, runs, plain, c, G):
        a.setflags(write=False)
    return MeasuredLaw(problem=problem, eta=float(eta), grid=g, drift=drift, drift_se=drift_se, variance=var,
                       variance_se=var_se, runs=runs, seed=seed, batch_means=batch_means, reduction=reduction,
                       control=control, plain_drift=plain, samples=(c, G, runs))


def usable_features(problem: Problem, names: tuple, runs: int) -> np.ndarray:
    """Which token features a control variate of ``runs`` draws can use (boolean mask on ``names``).

    A feature of tilt ``j`` (weight ``w = exp(j u)``, ``u ~ N(., lambda^2)`` with ``lambda^2 =
    beta^2 sigma2``) is a log-normal average over the ``n`` tokens of its kind. The regression
    and the residuals' standard error need its *variance*, ``E w^2``, which is carried by the
    tokens whose log-weight sits ``2 j^2 lambda^2`` above the mean: about one token in
    ``exp(2 j^2 lambda^2)``. Where the ``runs n`` tokens drawn hold few of them, the sample misses
    the feature's tail: the regression carries the resulting shift into the estimate while the
    residuals' spread understates the error (at ``beta = 2``, ``L = 10^4`` the ``e2`` features moved the
    drift by 0.1 where the plain mean's error was 0.05; at ``beta = 2``, ``L = 5381`` two seeds of a
    controlled mean with all features differed by 0.1 against a claimed error of 0.009). A feature
    is used when ``exp(2 j^2 lambda^2) <= runs n / FEATURE_TAIL``; ``chi`` always.
    """
    lam2 = problem.beta**2 * problem.sigma2
    count = {"signal": problem.R, "noise": problem.L - problem.R}
    keep = []
    for name in names:
        if name == "chi":
            keep.append(True)
            continue
        kind, feature = name.split(":")
        j = int(feature.split()[0][1:])  # "e1 c1" -> 1
        keep.append(math.exp(min(2 * j * j * lam2, 700.0)) <= runs * count[kind] / FEATURE_TAIL)
    return np.array(keep)


def _controlled(x: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The cross-fitted residuals of ``x`` against the centred features ``h`` (their mean is
    unbiased for ``E x``: :mod:`numerics._gradient._crossfit`), or ``x`` itself where they vary
    more than ``x`` does: with features heavier-tailed than :func:`usable_features` can tell
    (``e1 c1^2`` at ``beta = 2``, ``L = 4000``) one fold's coefficients can add the other fold's
    outliers (a variance 3 times the plain one was seen). The choice reads the sample variances,
    not the means; its bias is below the standard error (checked against plain means of many more
    runs on random models, tests/numerics/test_step_features.py)."""
    acc = CrossFitMean(h.shape[1])
    acc.add(x, h)
    y = acc.residuals(x, h)
    return y if float(y.var()) < float(x.var()) else x
