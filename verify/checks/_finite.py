"""Finite-size checks: ``finite_size.rate`` and ``simulator.reduced_exact`` (docs/design.md sections 2, 3).

Signature ``check_xxx(case, ctx) -> list[CheckRecord]``; the finite instance is
``case.problem``. Numerical evidence only (``certified=False``). The ladder of sizes and its draws
are here, the fit of the rate and the verdict in :mod:`._finite_fit`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.stats import ks_2samp

from ...numerics import (
    CrossFitMean,
    Problem,
    Schedule,
    SimulationOptions,
    gradient_features,
    simulate,
    spawn_generators,
)
from ...theory import effective_drift, evaluate, validity
from ._common import _CHUNK_NORMALS, one_step_increments, scaled_problem
from ._context import CheckContext, derive_seed
from ._finite_fit import RESOLVED_SE, _fit_rate, _judge
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case
    from ._preset import Preset



#: standard errors at which the draws are planned (a bias counts as resolved at RESOLVED_SE)
SIGMAS = 3.5
#: ... and the second pass, planned from measured values, aims higher (a bias expected at 3.5
#: standard errors stays below 3 in a third of the draws; at 4.5 in one in fifteen)
SIGMAS_MEASURED = 4.5
#: alignments among which the check picks the one where the bias is cheapest to resolve
RHO_GRID = (-0.7, -0.5, -0.3, 0.3, 0.5, 0.7, 0.9)


#: the ladder starts where the softmax normaliser's relative variance ``A2 / L`` is at most this:
#: the next term of the bias, ``O(A2 / L^2)``, is then a few percent of ``C / L`` (at ``A2/L`` of
#: 0.2 and more, random models failed the ``1/L`` rate: docs/validation.md)
RATE_CONCENTRATION = 0.05
#: ... and where the leading-order bias at the ladder's top, ``|C| / (4 L_0)``, is at most this
#: fraction of ``max |F|`` (four fifths of the verdict's 5% allowance at the largest ``L``)
RATE_TOP_BIAS = 0.04
#: draws per size in the first pass, at least
MIN_DRAWS = 200
#: draws per size of the pilot that measures the controlled variance (each fold of the cross-fit
#: then has the 20 draws per feature that numerics.CrossFitMean needs to use the control variate),
#: when the budget allows (else MIN_DRAWS, and the plain mean until enough draws are in)
PILOT_DRAWS = 1200
#: the largest size the ladder draws at (one draw holds a few L-vectors in memory)
MAX_LADDER_L = 10**6


def controlled_draws(cfg: Problem, rho: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` draws of ``x = <P_q g, xi>`` and of its centred token features ``h`` (``E h = 0``).

    The token collections are those of :func:`._common.one_step_increments` with the same
    ``seed`` (same chunks, same streams); ``x`` is its ``eta -> 0`` limit, exactly
    (:func:`sigrec.numerics.gradient_features`). Returns ``x`` (n,) and ``h`` (n, K).
    """
    xs, hs = [], []
    chunk = int(max(1, min(n, _CHUNK_NORMALS // (3 * cfg.L))))
    for i, lo in enumerate(range(0, n, chunk)):
        gens = spawn_generators(derive_seed(seed, "one-step", i), min(chunk, n - lo))
        x, h, _ = gradient_features(cfg, rho, gens)
        xs.append(x)
        hs.append(h)
    return np.concatenate(xs), np.concatenate(hs)


def sizes(problem: Problem, A2: float = 0.0, C: float = 0.0, Fmax: float = math.inf) -> list[int]:
    """The token counts ``L`` of ``finite_size.rate``: ``L_0 2^{j/2}``, ``j = 0..4``.

    ``L_0`` is the smallest count at which the ``O(1/L)`` regime can be tested: at least 16, at
    least ``10 / alpha`` (``R ~ 10`` informative tokens: below that the error is pre-asymptotic,
    flat in ``L``), at least ``A2 / RATE_CONCENTRATION`` (``A2 = max_rho L x`` the normaliser's
    relative variance, :func:`theory.validity`) and at least ``|C| / (4 RATE_TOP_BIAS max|F|)``
    (``C`` the leading-order bias coefficient at the tested alignment).
    """
    alpha = problem.R / problem.L
    # sizes a factor sqrt(2) apart (resolving a point costs ~ L^2 normals, so the three smallest
    # sizes cost a third of what doubling would)
    L0 = max(16.0, 10 / alpha if alpha > 0 else 16.0, A2 / RATE_CONCENTRATION,
             abs(C) / (4 * RATE_TOP_BIAS * Fmax) if Fmax > 0 else 16.0)
    L0 = math.ceil(min(L0, 1e15))
    return sorted({round(L0 * 2 ** (j / 2)) for j in range(5)})


@dataclass(frozen=True)
class RatePlan:
    """The leading-order plan of ``finite_size.rate`` (:func:`rate_plan`): the alignment ``rho``, the
    ladder ``sizes``, the plain-mean ``draws`` per size and ``plan = {rho: {...}}``, what the record
    reports."""

    rho: float
    sizes: list[int]
    draws: list[float]
    plan: dict


def rate_plan(problem: Problem) -> RatePlan:
    """The leading-order :class:`RatePlan` of ``finite_size.rate`` on ``problem``, before anything is
    drawn.

    ``rho`` is the alignment of :data:`RHO_GRID` where the theory makes the bias easiest to
    resolve (largest ``C^2 / v1``: ``E X = F + C(rho)/L``, per-draw variance ``v1(rho)/L``),
    ``sizes`` the ladder (:func:`sizes`), ``draws`` the plain-mean draws per size that resolve
    the bias at :data:`SIGMAS` standard errors, and ``plan = {rho: {...}}`` what the record
    reports (``C_predicted``, ``variance_times_L``, ``normals_to_resolve_3``, ...).
    """
    m0 = problem.model
    theory = {}
    for r in RHO_GRID:
        eff = effective_drift(m0, r, 1e-12, problem.d, 1.0)
        theory[r] = (float(eff.finite_L), float(eff.noise))
    rho = max(RHO_GRID, key=lambda r: theory[r][0] ** 2 / max(theory[r][1], 1e-300))
    C_pred, v1 = theory[rho]
    Fmax = float(np.max(np.abs(evaluate(m0, np.linspace(-1, 1, 401), engine="scalar").field)))
    try:
        A2 = validity(m0, problem.d, 1, 0.0).concentration  # max_rho A2 (the concentration at L = 1)
    except ValueError:  # the moments overflow float64: the regime starts beyond any ladder
        A2 = math.inf
    Ls = sizes(problem, A2, C_pred, Fmax)
    desired = [SIGMAS**2 * v1 * L / max(C_pred**2, 1e-300) for L in Ls]
    plan = {rho: {"C_predicted": C_pred, "variance_times_L": v1, "chosen_from": sorted(RHO_GRID),
                  "normalizer_variance_A2": A2, "A2_over_L0": A2 / Ls[0],
                  "normals_to_resolve_3": 3 * sum(L * n for L, n in zip(Ls[:3], desired[:3], strict=True)),
                  "max_abs_F": Fmax}}
    return RatePlan(rho, Ls, desired, plan)


@dataclass
class _SizeDraws:
    """What has been drawn at one size ``L`` of the ladder.

    ``controlled`` is fixed before anything is drawn (the control variate, or the plain mean);
    ``mean`` accumulates the draws (created by the first :meth:`add`), ``seconds`` is the time
    spent drawing them.
    """

    controlled: bool
    mean: CrossFitMean | None = None
    seconds: float = 0.0

    @property
    def count(self) -> int:
        """Draws so far."""
        return 0 if self.mean is None else self.mean.count

    def add(self, x: np.ndarray, h: np.ndarray, seconds: float) -> None:
        """Add draws ``x`` (n,) with their centred features ``h`` (n, K) that took ``seconds``."""
        if self.mean is None:
            # a plain size never reaches the control variate's fold size
            self.mean = CrossFitMean(h.shape[1], min_fold=None if self.controlled else 2**62)
        self.mean.add(x, h)
        self.seconds += seconds

    def result(self):
        """The cross-fitted mean of the draws so far (``CrossFitMean.result``)."""
        assert self.mean is not None, "nothing drawn yet"
        return self.mean.result()


@dataclass
class _Ladder:
    """The sizes of ``finite_size.rate`` at the alignment ``rho`` and what was drawn at each."""

    case: Case
    ctx: CheckContext
    rho: float
    Ls: list[int]
    problems: dict[int, Problem]
    draws: dict[int, _SizeDraws]

    @classmethod
    def start(cls, case: Case, ctx: CheckContext, rho: float, Ls: list[int], desired: list[float]) -> _Ladder:
        """Nothing drawn yet; the control variate at the sizes where the theory's plan for the plain
        mean needs more than a pilot.

        Where it needs less, the plain mean and the draws the plan asks for (the power is then the
        plain plan's: a pilot of controlled draws would resolve such a size far beyond it, and
        resolve the O(1/L^2) curvature of a ladder that starts pre-asymptotically). Decided from
        the theory only, before anything is drawn, so the choice cannot bias the mean.
        """
        return cls(case, ctx, rho, Ls, {L: scaled_problem(case.problem, L) for L in Ls},
                   {L: _SizeDraws(controlled=n > PILOT_DRAWS) for L, n in zip(Ls, desired, strict=True)})

    def draw(self, L: int, n: float, stage: int) -> None:
        """``n`` more draws at ``L`` (none when ``n <= 0``), seeded by the size and the pass."""
        n = int(n)
        if n <= 0:
            return
        t1 = time.perf_counter()
        seed = self.ctx.seed_for(self.case.name, "finite_size.rate", L, repr(self.rho), stage)
        if self.draws[L].controlled:
            x, h = controlled_draws(self.problems[L], self.rho, n, seed)
        else:  # the plain mean: no features to compute
            x, _ = one_step_increments(self.problems[L], self.rho, n, seed)
            h = np.zeros((n, 0))
        self.draws[L].add(x, h, time.perf_counter() - t1)

    def spend(self, wanted: list[float], left: float) -> list[int]:
        """Draws per L: ``wanted`` in order (smallest L first) while ``left`` normals last."""
        out = []
        for L, n in zip(self.Ls, wanted, strict=True):
            k = int(max(0, min(n, left / (3 * L))))
            out.append(k)
            left -= 3 * L * k
        return out

    def normals(self) -> int:
        """Normals drawn so far (three per token)."""
        return sum(3 * L * self.draws[L].count for L in self.Ls)


def check_finite_size(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``finite_size.rate``: Monte Carlo mean of ``<P_q g, xi>`` at finite ``(R, L, d)`` vs ``F(rho)``.

    Uses ``(theta, alpha = R/L, beta, sigma2, prior, d)`` of the case; ``L`` runs over the ladder of
    :func:`sizes` at (as nearly as integers allow) the same ``alpha``, at the ``rho`` of
    :data:`RHO_GRID` where the leading-order theory makes the bias cheapest to resolve (largest
    ``C^2/v1``, :func:`rate_plan`). Samples: ``X = <P_q g, xi>`` on token collections of the exact
    reduced chain (:func:`controlled_draws`), averaged with a control variate: the token features of
    :func:`sigrec.theory.token_feature_means` minus their exact means (``E h = 0``), whose linear
    span holds the linear influence term of ``X``; the mean ``mean(X - c h)`` is cross-fitted
    (``c`` fitted on the other half of the draws, :class:`sigrec.numerics.CrossFitMean`), so it
    estimates ``E X`` without bias, with the per-draw variance divided by the measured
    ``variance_reduction``. Draws are planned first from the leading-order theory of the bias
    (``theory.effective_drift``: ``E X = F + C/L``, per-draw variance ``v1/L`` without the control
    variate, so ``n_L = 3.5^2 v1 L / C^2`` resolves it at 3.5 standard errors: the budget gate and
    what an undrawn ladder would need) and a pilot of the controlled variance, with at most a third
    of the budget (``Preset.finite_budget``; :func:`_planned_pass`), then in up to three more passes
    from what was measured, aiming at 4.5 standard errors, until three sizes resolve the bias or the
    budget is spent (:func:`_measured_passes`).
    (Coupling the sizes by common random numbers does not help here: ``X_L`` fluctuates
    mainly through the linear term of its own ``L`` tokens, so nested prefixes share little
    of the noise of ``X_L - X_{2L}`` while halving its signal.)

    Verdict. The error ``err(L) = mean - F`` is fitted by ``err = C / L + D / L^2`` (the
    expansion to next order, weighted by the standard errors; ``C / L`` alone is reported too)
    and, on the ``L`` where ``|err| > 3 SE`` (bias resolved), by a free log-log slope with
    standard error. Pass iff the two-term model is not rejected (chi-square p-value
    ``> 1e-3``), the rate is consistent (:func:`rate_criteria`: the free slope within
    ``2 se + 0.3`` of ``-1`` where ``D`` is not resolved; where it is, the resolved leading
    term at least twice the next at the largest ``L``), and the error at the largest ``L`` is
    below ``5%`` of ``max |F|`` plus ``3 SE``. With the rate untested (fewer than three
    resolved points, or a pre-asymptotic ladder) the status is ``inconclusive`` (unless
    another criterion already fails); the message gives the normals and CPU time that would
    resolve it. The fitted ``C`` is reported next to the leading-order theory.
    """
    t0 = time.perf_counter()
    problem = case.problem
    budget = ctx.preset.finite_budget
    rp = rate_plan(problem)
    rho, Ls, desired, plan = rp.rho, rp.sizes, rp.draws, rp.plan
    if 3 * MIN_DRAWS * sum(Ls) > budget or Ls[-1] > MAX_LADDER_L:
        return [_unresolvable(problem, ctx.preset, rho, Ls, plan[rho], t0)]
    ladder = _Ladder.start(case, ctx, rho, Ls, desired)
    first = _planned_pass(ladder, desired, plan[rho], budget)
    Fs = {L: float(evaluate(ladder.problems[L].model, rho, engine="scalar").field) for L in Ls}
    C_meas = _measured_passes(ladder, Fs, plan[rho]["C_predicted"], budget)
    C_first = max(abs(C_meas), 0.25 * abs(plan[rho]["C_predicted"]))  # what pass 1 said, for the budget message
    plan[rho]["C_measured_pass1"] = C_meas
    plan[rho]["normals_pass1"] = sum(3 * L * n for L, n in zip(Ls, first, strict=True))
    plan[rho]["normals_total"] = ladder.normals()
    plan[rho]["normals_to_resolve_3_measured"] = 3 * sum(
        L * SIGMAS**2 * ladder.draws[L].result().variance / max((C_first / L) ** 2, 1e-300) for L in Ls[:3])
    rows = []
    for L in Ls:
        r = ladder.draws[L].result()
        rows.append({"rho": rho, "L": L, "R": ladder.problems[L].R, "n": ladder.draws[L].count, "mean": r.mean,
                     "F": Fs[L], "err": r.mean - Fs[L], "se": r.se, "predicted_err": plan[rho]["C_predicted"] / L,
                     "seconds": ladder.draws[L].seconds, "plain_mean": r.plain_mean, "plain_se": r.plain_se,
                     "variance_reduction": r.reduction})
    rhos = [rho]
    return [_judge(case, ctx, rows, rhos, plan, _fit_rate(rows, rhos), t0)]


def _unresolvable(problem: Problem, preset: Preset, rho: float, Ls: list[int], plan: dict, t0: float) -> CheckRecord:
    """The inconclusive record of a ladder the budget cannot draw.

    The ladder must start where the bias is O(1/L) (A2/L small); at large beta^2 sigma2 that is
    far beyond what the budget can resolve: say so instead of fitting a pre-asymptotic bias.
    """
    budget = preset.finite_budget
    need = max(3 * MIN_DRAWS * sum(Ls), plan["normals_to_resolve_3"])
    if Ls[-1] > MAX_LADDER_L:
        why = f"its largest size exceeds the ladder's limit L <= {MAX_LADDER_L:.0e}"
    else:
        why = (f"beyond this preset's budget of {budget:.2g}"
               + (" (within the paper preset's)" if preset.larger_fits("finite_budget", need) else ""))
    return CheckRecord(
        id="finite_size.rate", kind="consistency", status="inconclusive", value=None, threshold=-1.0,
        certified=False,
        message=(f"the O(1/L) regime starts at L = {Ls[0]} (A2/L <= {RATE_CONCENTRATION} with "
                 f"A2 = {plan['normalizer_variance_A2']:.3g}, leading bias at L = {Ls[-1]} <= {RATE_TOP_BIAS:.0%} "
                 f"of max|F|); resolving the rate on L = {Ls[0]}..{Ls[-1]} needs ~{need:.2g} normals: {why}"),
        details={"sizes": Ls, "draw_plan": {str(rho): plan}, "budget_normals": budget,
                 "normals_needed": need, "d": problem.d, "points": [], "figures": []},
        model=problem.model.as_dict(), seconds=time.perf_counter() - t0)


def _planned_pass(ladder: _Ladder, desired: list[float], plan: dict, budget: float) -> list[int]:
    """Pass 1, the plan, with at most a third of the budget (at least 200 draws per L); the draws
    per L it planned.

    At the controlled sizes a pilot first (pass 1a), then what the controlled variance it
    measured needs (pass 1b); at the others the theory's plain plan. (Where the budget allows only
    a 200-draw pilot, a controlled size keeps the plain mean until its folds hold 20 draws per
    feature.) Records the pilot in ``plan``.
    """
    Ls, C_pred = ladder.Ls, plan["C_predicted"]
    cv = [L for L in Ls if ladder.draws[L].controlled]
    pilot = PILOT_DRAWS if 3 * PILOT_DRAWS * sum(cv) <= budget / 3 else MIN_DRAWS
    for L in cv:
        ladder.draw(L, pilot, 1)
    # the pilot's controlled per-draw variance replaces the theory's v1 / L (the variance of the
    # plain mean, and at d ~ L an overestimate)
    pilots = {L: ladder.draws[L].result() for L in cv}
    plan["controlled_sizes"] = cv
    plan["variance_reduction_pilot"] = {str(L): pilots[L].reduction for L in cv}
    planned = [SIGMAS**2 * pilots[L].variance * L**2 / max(C_pred**2, 1e-300) if ladder.draws[L].controlled else n
               for L, n in zip(Ls, desired, strict=True)]
    plan["normals_to_resolve_3_controlled"] = 3 * sum(L * n for L, n in zip(Ls[:3], planned[:3], strict=True))
    first = [max(MIN_DRAWS, n) for n in ladder.spend([max(float(MIN_DRAWS), n) for n in planned], budget / 3)]
    for L, n in zip(Ls, first, strict=True):
        if ladder.draws[L].controlled:
            ladder.draw(L, n - pilot, 11)
        else:
            ladder.draw(L, n, 1)  # the plain plan's first pass, draw for draw
    return first


def _measured_passes(ladder: _Ladder, Fs: dict, C_pred: float, budget: float) -> float:
    """Passes 2-4, re-planned from what was measured; the ``C`` fitted after pass 1.

    The leading-order theory is only asymptotic (at d/L of order one the measured bias can be
    half of it): re-plan from what was measured (C at one standard error below its estimate, so
    that a high first estimate does not starve the sizes) and spend on the smallest sizes whose
    bias is not yet resolved, half of what is left per pass, all of it in the last.
    """
    Ls = ladder.Ls
    C_meas = None
    for stage in (2, 3, 4):
        results = {L: ladder.draws[L].result() for L in Ls}
        errs = {L: results[L].mean - Fs[L] for L in Ls}
        se_L = {L: results[L].se for L in Ls}
        resolved_now = {L for L in Ls if abs(errs[L]) > RESOLVED_SE * se_L[L]}
        w = {L: 1 / se_L[L] ** 2 for L in Ls}
        norm = sum(w[L] / L**2 for L in Ls)
        C_fit = sum(w[L] * errs[L] / L for L in Ls) / norm
        if C_meas is None:
            C_meas = C_fit
        if len(resolved_now) >= 3:
            break
        C_use = max(abs(C_fit) - 1 / math.sqrt(norm), 0.25 * abs(C_pred))  # never plan for a bias ~0
        wanted = [0.0 if L in resolved_now else
                  max(0.0, SIGMAS_MEASURED**2 * results[L].variance / (C_use / L) ** 2 - ladder.draws[L].count)
                  for L in Ls]
        left = budget - ladder.normals()
        for L, n in zip(Ls, ladder.spend(wanted, left if stage == 4 else left / 2), strict=True):
            ladder.draw(L, n, stage)
    assert C_meas is not None  # the first pass of the loop sets it
    return C_meas


def check_reduced_exact(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``simulator.reduced_exact``: two-sample KS of ``rho_k`` laws, reduced vs full simulator.

    Parameter sets: the case's ``(theta, alpha, beta, sigma2, prior)`` scaled to
    ``L ~ 60`` tokens in ``d = 5``, and a fixed strong-signal Rademacher set
    (``theta = 2, R = 10, L = 40, d = 4``). From ``rho_0 = 0.3`` with constant step
    ``0.2``, after ``1`` and ``5`` steps; ``400`` (quick) / ``2000`` runs per simulator,
    independent seeds. Pass iff every p-value exceeds ``0.01 / (number of tests)``
    (Bonferroni).
    """
    t0 = time.perf_counter()
    runs = ctx.preset.reduced_exact_runs
    sets = [scaled_problem(case.problem, 60, d=5),
            Problem(theta=2.0, R=10, L=40, d=4, prior="rademacher")]
    tests: list[dict[str, Any]] = []
    for i, cfg in enumerate(sets):
        sims = [simulate(cfg, Schedule.constant(0.2), steps=5, runs=runs, rho0=0.3,
                         seed=ctx.seed_for(case.name, "simulator.reduced_exact", i, sim),
                         options=SimulationOptions(simulator=sim))
                for sim in ("reduced", "full")]
        for k in (1, 5):
            a, b = sims[0].rho[:, k], sims[1].rho[:, k]
            res = ks_2samp(a, b)
            tests.append({"problem": cfg.as_dict(), "step": k, "ks": float(res.statistic), "p": float(res.pvalue),
                          "mean_reduced": float(a.mean()), "mean_full": float(b.mean())})
    level = 0.01 / len(tests)
    pmin = min(t["p"] for t in tests)
    ok = pmin > level
    return [CheckRecord(
        id="simulator.reduced_exact", kind="consistency", status="pass" if ok else "fail",
        value=pmin, threshold=level, certified=False,
        message=(f"{len(tests)} two-sample KS tests (reduced vs full, {runs} runs each, steps 1 and 5): "
                 f"smallest p = {pmin:.3g} (Bonferroni level {level:.1e})"),
        details={"tests": tests, "runs": runs,
                 "ran_on": f"{case.name}'s model scaled to R {sets[0].R}, L {sets[0].L}, d {sets[0].d}, and a fixed "
                           f"Rademacher set (theta 2, R 10, L 40, d 4)"},
        model=case.model.as_dict(), seconds=time.perf_counter() - t0)]
