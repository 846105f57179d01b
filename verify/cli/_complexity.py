"""``sigrec complexity``: steps (and token collections) to reach ``|rho| >= target``, from the diffusion."""

from __future__ import annotations

import math
import time
import warnings
from contextlib import contextmanager

import numpy as np

from ...numerics import (
    Schedule,
    basins,
    complexity,
    corrected_drift,
    crossing_step,
    diffusion_tables,
    optimize_schedule,
    scaling_exponents,
    start_law,
    time_to_alignment,
)
from ...theory import certified_basin, certified_time, certify
from ._args import (
    add_json_flag,
    add_model_arguments,
    add_size_arguments,
    finite_float,
    problem_and_schedule,
    scalar_only,
)
from ._guard import quiet_numerics
from ._limits import bounded, count
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "complexity",
        help="predicted steps to reach |rho| >= target (median, 90%%) from the diffusion approximation",
        description="Sample complexity of a finite instance from the diffusion d rho = F_eta dt + "
        "sqrt(eta Sigma) dW (docs/design.md section 1.1), simulated on the step grid: the median and "
        "10%/90% quantiles of the first step with |rho| >= target, with the plain-ODE crossing step beside "
        "them. Token collections = steps x batch. Schedule conventions as in `sigrec simulate`.",
    )
    add_model_arguments(p, need_alpha=False)
    add_size_arguments(p, fraction=False)
    p.add_argument("--d", type=count("d"), required=True, help="dimension (>= 2)")
    p.add_argument("--eta0", type=finite_float, default=0.5, help="step scale, default 0.5")
    p.add_argument("--k0", type=bounded("k0"), default=10.0, help="step offset (> 0), default 10")
    p.add_argument("--power", type=bounded("power"), default=0.75,
                   help="eta_k = eta0/(k+k0)^power, k from 0; 0 = constant step; default 0.75")
    p.add_argument("--batch", type=count("batch"), default=1, help="token collections averaged per step, default 1")
    p.add_argument("--rho0", type=finite_float, default=None, help="start alignment in [-1, 1] (default: "
                   "uniform on the sphere)")
    p.add_argument("--target", type=finite_float, default=0.99, help="alignment level in (0, 1), default 0.99")
    p.add_argument("--runs", type=count("runs"), default=2000, help="diffusion paths, default 2000")
    p.add_argument("--horizon", type=count("horizon"), default=200_000, help="step cap, default 200000")
    p.add_argument("--seed", type=count("seed"), default=0, help="seed of the diffusion paths, default 0")
    p.add_argument("--optimize", action="store_true",
                   help="search (eta0, k0, power) minimising the 90%% step, plateau above the target: a grid "
                   "and the given schedule, then Nelder-Mead, on common random numbers; the given schedule is "
                   "kept unless the winner is better on the same --runs paths")
    p.add_argument("--scaling", action="store_true",
                   help="fit exponents of the median step in d and in L (alpha fixed) over x0.5, x1, x2")
    add_json_flag(p)
    p.set_defaults(run=run)


def _num(x):
    return None if x is None or not math.isfinite(x) else x


#: ``(key, label, quantile of the starts)`` a result must have as finite numbers, in the order a
#: refusal names them (the plain ODE runs from one start: the fixed one, or the median ``|rho0|``)
_QUANTITIES = (("median_steps", "median (50% quantile)", 0.5), ("q10_steps", "10% quantile", 0.1),
               ("q90_steps", "90% quantile", 0.9), ("plain_ode_steps", "plain limit ODE's crossing step", None))
#: start quantiles on which a refusal estimates the limit ODE's passage law (equal masses)
_START_POINTS = 100


def require_reached(result, problem, rho0, target: float, horizon: int) -> None:
    """Refuse (``ValueError``) a :class:`Complexity` with a quantile or a plain-ODE step that is not
    a finite number, saying why the target is not reached and what would reach it.

    The missing quantile ``q`` of the first-passage step is compared with the same quantile
    of the limit ODE over the starts (``_START_POINTS`` equal-mass start quantiles, or the
    fixed start), in this order: no signal; a start the limit ODE never takes to the target
    (an equilibrium, the basin of an interior stable point); more than ``1 - q`` of the
    starts held below the target by the finite-step drift at the step size of the horizon
    (its stable zeros, the plateaus); a schedule whose steps never add up to the ODE time;
    else the horizon is too short, with the ODE's step count for that quantile as a guide.
    """
    missing = [(label, q) for key, label, q in _QUANTITIES if not math.isfinite(getattr(result, key))]
    if result.schedule.power == 0 and problem.theta > 0:
        above_plateau(result, problem, rho0, target)
    if not missing:
        return
    # the most demanding missing quantile: reaching it reaches the others
    label, q = max(missing, key=lambda m: -1.0 if m[1] is None else m[1])
    what = f"the {label}"
    paths = f"{100 * result.reached:.3g}% of the {result.runs} paths reach |rho| >= {target:g}"
    median_start = float(rho0) if rho0 is not None else float(start_law(problem.d).quantile(0.75))
    where = f"`rho0` = {median_start:g}" if rho0 is not None else "the uniform starts"
    start = where if rho0 is not None else f"the median start |rho0| = {median_start:.3g}"
    if problem.theta == 0:
        raise ValueError(f"`target` = {target:g} is not reached: at `theta` = 0 the limit ODE has no drift "
                         f"(no signal), only noise moves rho ({paths}); raise --theta")
    if rho0 is not None or q is None:
        starts = np.array([median_start])
    else:
        starts = start_law(problem.d).quantile((np.arange(_START_POINTS) + 0.5) / _START_POINTS)
    share = 1.0 if q is None or rho0 is not None else q  # of the starts that must reach the target
    times = np.asarray(time_to_alignment(problem.model, starts, target).time, dtype=float)
    never = float(np.mean(~np.isfinite(times)))
    if never > 1 - share:
        if rho0 is not None or q is None:
            limit = float(basins(problem.model, median_start).limit)
            if limit == median_start:
                raise ValueError(f"`target` = {target:g}: {what} is not a number, since {start} is an "
                                 f"equilibrium of the limit ODE, which never leaves it "
                                 f"({paths}); start away from it (e.g. --rho0 {median_start + 0.01:g}) or omit "
                                 f"--rho0 (uniform starts on the sphere)")
            raise ValueError(f"`target` = {target:g} is not reached by the limit ODE from {start}: it settles "
                             f"at the stable equilibrium rho = {limit:.4g} ({paths}); "
                             f"lower --target below {abs(limit):.4g}, start in the aligned basin, or raise --theta")
        raise ValueError(f"`target` = {target:g}: {what} is out of reach, since the limit ODE takes "
                         f"{100 * never:.3g}% of the uniform starts to a stable point below the target ({paths}); "
                         f"fix a start in the aligned basin (--rho0), lower --target, or raise --theta")
    eta = float(result.schedule.eta(np.array(horizon)))
    held, below = _held(problem, eta, target, starts)
    t_q = float(np.quantile(times, share, method="inverted_cdf"))
    need = _ode_steps(result.schedule, t_q)
    if held > 1 - share and result.schedule.power == 0:
        raise ValueError(f"`target` = {target:g} lies above the plateau {below:.6g} of this constant step (the "
                         f"stable alignment of the finite-step drift), which holds {100 * held:.3g}% of the starts "
                         f"below it: {what} is not reached within `horizon` = {horizon} ({paths}; only "
                         f"fluctuations carry a path above the plateau); lower --target below {below:.6g}, use a "
                         f"decaying step (--power > 0) or a smaller --eta0, or raise --horizon")
    if need is None or not need < MAX_GUIDE_STEPS:
        raise ValueError(f"`target` = {target:g} is out of reach of this schedule: for {what} the plain limit ODE "
                         f"from {where} needs the time {t_q:.3g}, and the steps sum_k eta_k "
                         f"{'never add up to it' if need is None else f'reach it only after more than {MAX_GUIDE_STEPS:.0e} steps'}"
                         f" ({paths}); use a slower-decaying step (a smaller --power) or a larger --eta0")
    guide = f"the plain limit ODE from {where} needs about {_steps(need)} steps for it"
    if held > 1 - share:
        raise ValueError(f"`horizon` = {horizon} is too short for `target` = {target:g}: at the step size of step "
                         f"{horizon} the finite-step drift holds {100 * held:.3g}% of the starts below its plateau "
                         f"{below:.6g}, and {what} is not reached ({paths}); raise --horizon (the plateau rises as "
                         f"the step decays; {guide}) or lower --target below {below:.6g}")
    raise ValueError(f"`horizon` = {horizon} is too short: {what} of the first step with |rho| >= {target:g} is "
                     f"not reached within it ({paths}); {guide}; raise --horizon above that")


def above_plateau(result, problem, rho0, target: float) -> None:
    """Refuse (``ValueError``) a constant step whose plateau (the stable zero of the finite-step
    drift each start is carried to) lies below ``target`` for at least half of the starts: the
    median passage is then an excursion of the noise above the plateau, which the diffusion does
    not model (its Gaussian steps are not held below ``|rho| = 1`` as the chain's renormalised
    steps are). Example: theta 0.5, R 100, L 900, d 5, eta 0.5, target 0.999: plateau 0.85, the
    diffusion's median 57 steps, while 2% of 200 exact-chain runs touch 0.999 within 300 steps."""
    if rho0 is not None:
        starts = np.array([float(rho0)])
    else:
        starts = start_law(problem.d).quantile((np.arange(_START_POINTS) + 0.5) / _START_POINTS)
    held, below = _held(problem, float(result.schedule.eta0), target, starts)
    if held >= 0.5:
        raise ValueError(f"`target` = {target:g} lies above the plateau {below:.6g} of this constant step (the "
                         f"stable alignment of the finite-step drift) for {100 * held:.3g}% of the starts: a median "
                         "passage there is an excursion of the noise above the plateau, which the diffusion "
                         "approximation does not model; lower --target below the plateau, or use a decaying step "
                         "(--power > 0) or a smaller --eta0, whose plateau lies above the target")


def _held(problem, eta: float, target: float, starts):
    """``(fraction, plateau)``: the fraction of ``starts`` that the finite-step drift
    ``F_eta = A - eta B`` (``numerics.corrected_drift``) carries to a stable zero with
    ``|rho| < target``, and the largest such ``|rho|`` (0 when none)."""
    grid = np.linspace(-1.0, 1.0, 4001)
    with quiet_numerics():
        f = np.asarray(corrected_drift(problem)(grid, eta), dtype=float)
    up = np.flatnonzero((f[:-1] > 0) & (f[1:] <= 0))  # stable zeros, between grid[i] and grid[i + 1]
    zeros = grid[up] + (grid[up + 1] - grid[up]) * f[up] / (f[up] - f[up + 1])
    i = np.clip(np.searchsorted(grid, starts) - 1, 0, grid.size - 2)
    # moving up: the first stable zero above the start, moving down: the last one below it, else a pole
    nxt = np.searchsorted(up, i)  # stable zeros up[nxt:] lie at or above the start's cell
    padded = np.concatenate([[-1.0], zeros, [1.0]])
    end = np.where(f[i] > 0, padded[nxt + 1], padded[nxt])
    stuck = np.abs(end) < target
    return float(stuck.mean()), float(np.abs(end[stuck]).max()) if stuck.any() else 0.0


def _steps(n: float) -> str:
    return f"{math.ceil(n)}" if n < 1e6 else f"{n:.3g}"


#: a step count beyond this is reported as out of reach rather than as a horizon to raise
MAX_GUIDE_STEPS = 1e15


def certified_steps(problem, schedule, rho0, target: float) -> dict:
    """The plain limit ODE's crossing step from a fixed start, certified: the time to ``|rho| = target``
    enclosed by :func:`theory.certified_time` (towards the certified limit of the start) and the
    step of ``schedule`` that crosses it (:func:`numerics.crossing_step`); or only ``reason``, why not."""
    if rho0 is None:
        return {"reason": "uniform starts: the crossing step depends on the start"}
    try:
        cert = certify(problem.model)  # one certificate for the basin and the time
        basin = certified_basin(problem.model, rho0, certificate=cert)
        rho1 = math.copysign(target, basin.direction if basin.direction else rho0)
        if abs(rho0) >= target:
            return {"k_lo": 0, "k_hi": 0, "time_lo": 0.0, "time_hi": 0.0, "rho1": rho0}
        enclosure = certified_time(problem.model, rho0, rho1, certificate=cert)
        step = crossing_step(schedule, enclosure)
    except ValueError as exc:
        return {"reason": str(exc)}
    return {**step.as_dict(), "rho1": rho1}


def _ode_steps(schedule, t: float):
    """About how many steps ``k`` make ``t_k = sum_{j<k} eta_j >= t`` (the integral of the step
    sizes, ``(k + k0)^(1-p) - k0^(1-p) = t (1 - p) / eta0``); ``None`` when the schedule's total
    time is shorter than ``t``, ``inf`` beyond float range."""
    eta0, k0, p = schedule.eta0, schedule.k0, schedule.power
    try:
        if p == 0:
            return t / eta0
        if p == 1:
            return k0 * math.expm1(t / eta0)
        base = k0 ** (1 - p) + t * (1 - p) / eta0  # (k + k0)^(1-p) at the crossing
        if base <= 0:
            return None  # p > 1: the total time eta0 k0^(1-p) / (p-1) is shorter than t
        return max(1.0, base ** (1 / (1 - p)) - k0)
    except (OverflowError, ZeroDivisionError):
        return math.inf


def run(args) -> int:
    scalar_only(args, "complexity")
    with _converged_quadrature(args):
        return _run(args)


@contextmanager
def _converged_quadrature(args):
    """Refuse (``ValueError``) when a quadrature of the limit ODE's crossing time does not
    converge (scipy's ``IntegrationWarning``, made an error here): its value is then wrong,
    not merely imprecise. From a start next to an unstable equilibrium (a rademacher prior,
    ``--rho0 1e-20``: the time grows like ``log(1 / rho0)``) it came out several times too
    small, and smaller for 0.99 than for 0.5."""
    from scipy.integrate import IntegrationWarning

    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrationWarning)
        try:
            yield
        except IntegrationWarning:
            where = (f"`rho0` = {args.rho0!r}" if args.rho0 is not None else "the uniform starts")
            raise ValueError(f"{where}, `target` = {args.target!r}: the limit ODE's crossing time cannot be "
                             f"computed (its quadrature does not converge: the start lies next to an equilibrium "
                             f"of the field, where the time grows like log(1 / distance)); start farther from "
                             f"the equilibrium (e.g. |--rho0| >= 1e-8) or omit --rho0") from None


def _run(args) -> int:
    t0 = time.perf_counter()
    # what numerics.complexity does not check itself (it checks target, runs, horizon
    # before its first derivation)
    if args.rho0 is not None and not -1 <= args.rho0 <= 1:
        raise ValueError(f"`rho0` must lie in [-1, 1], got {args.rho0!r}")
    problem, schedule = problem_and_schedule(args)
    if problem.R < 1:
        raise ValueError("`R` must be >= 1 (the diffusion needs informative tokens)")
    if args.optimize:
        # the search evaluates the given schedule on the paths of complexity(seed=args.seed, runs=args.runs)
        # and the winner on the same paths; the tables are the ones complexity builds (cached derivation)
        search = optimize_schedule(problem, args.rho0, args.target, start=schedule, final_runs=args.runs,
                                   horizon=args.horizon, seed=args.seed, tables=diffusion_tables(problem))
        given = search.start
    else:
        given = complexity(problem, schedule, args.rho0, args.target, runs=args.runs, horizon=args.horizon,
                           seed=args.seed)
    # numbers or a refusal: the reported schedule's quantiles and plain-ODE step are finite
    require_reached(search.best if args.optimize else given, problem, args.rho0, args.target, args.horizon)
    out = {
        "model": problem.model.as_dict(),
        "problem": problem.as_dict(),
        "rho0": args.rho0,
        "starts": "fixed" if args.rho0 is not None else "uniform on the sphere",
        "target": args.target,
        **given.as_dict(),
        "token_collections_median": _num(given.median_steps * problem.batch),
        "token_collections_q90": _num(given.q90_steps * problem.batch),
        "method": "diffusion d rho = F_eta dt + sqrt(eta Sigma) dW sampled on the step grid (docs/design.md "
                  "section 1.1)",
    }
    if args.optimize:
        out["given"] = given.as_dict()
        out.update(search.best.as_dict())
        out["token_collections_median"] = _num(search.best.median_steps * problem.batch)
        out["token_collections_q90"] = _num(search.best.q90_steps * problem.batch)
        out["search"] = search.as_dict()
    out["certified_ode_steps"] = certified_steps(problem, out_schedule(out, schedule), args.rho0, args.target)
    if args.scaling:
        sc = scaling_exponents(problem, out_schedule(out, schedule), args.rho0, args.target,
                               runs=max(200, args.runs // 2), horizon=args.horizon, seed=args.seed)
        for s in sc:
            beyond = [v for v, m in zip(s.values, s.median_steps) if not math.isfinite(m)]
            if beyond or not math.isfinite(s.exponent):
                raise ValueError(f"`horizon` = {args.horizon}: with --scaling the median step at "
                                 f"{s.parameter} = {beyond[0] if beyond else s.values} is not reached within it "
                                 f"(the {s.parameter} x0.5, x1, x2 instances run on the same --horizon); "
                                 f"raise --horizon")
        out["scaling"] = {s.parameter: s.as_dict() for s in sc}
    out["wall_s"] = time.perf_counter() - t0
    if args.json:
        emit_json(out)
        return 0
    print(f"theta={problem.theta} R={problem.R} L={problem.L} d={problem.d} batch={problem.batch} "
          f"prior={problem.prior}; start {out['starts']}{'' if args.rho0 is None else f' rho0={args.rho0}'}; "
          f"target |rho| >= {args.target}")
    rows = [("given", given.as_dict())]
    if args.optimize:
        rows.append(("optimized", search.best.as_dict()))
    print(f"{'schedule':>10} {'eta0':>9} {'k0':>8} {'power':>6} {'median':>9} {'q10':>9} {'q90':>9} "
          f"{'plain ODE':>10} {'plateau':>8}")
    for name, r in rows:
        s = r["schedule"]
        print(f"{name:>10} {s['eta0']:>9.4g} {s['k0']:>8.4g} {s['power']:>6.3g} {_fmt(r['median_steps']):>9} "
              f"{_fmt(r['q10_steps']):>9} {_fmt(r['q90_steps']):>9} {_fmt(r['plain_ode_steps']):>10} "
              f"{r['plateau']:>8.4f}")
    cert = out["certified_ode_steps"]
    if "k_lo" in cert:
        print(f"plain limit ODE from rho0 = {args.rho0:g}, certified (ball arithmetic): the ODE time "
              f"T in [{cert['time_lo']:.10g}, {cert['time_hi']:.10g}] is crossed at step k in "
              f"[{cert['k_lo']}, {cert['k_hi']}] of the {'optimized' if args.optimize else 'given'} schedule")
    if args.optimize:
        verdict = ("better than the given schedule" if search.improved else
                   "not better than the given schedule, which is kept")
        print(f"search: {search.candidates} candidates on {search.runs} common paths (grid, then Nelder-Mead); "
              f"the winner's q90 {_fmt(search.winner.as_dict()['q90_steps'])} against the given "
              f"{_fmt(given.as_dict()['q90_steps'])} on the same {search.final_runs} paths: {verdict}")
    if args.scaling:
        for key, s in out["scaling"].items():
            pairs = ", ".join(f"{v}: {_fmt(m)}" for v, m in zip(s["values"], s["median_steps"]))
            print(f"median steps vs {key}: {pairs}; exponent {s['exponent']:.3f}")
    print(f"validity: {given.validity.message}")
    if args.optimize and search.improved:
        print(f"validity of the optimized schedule: {search.best.validity.message}")
    print(f"({out['wall_s']:.1f} s" + ("; a given schedule's quantile beyond the horizon prints as 'inf')"
                                        if args.optimize else ")"))
    return 0


def out_schedule(out, schedule):
    """The schedule the reported numbers refer to (the optimized one with ``--optimize``)."""

    s = out["schedule"]
    if s["kind"] == "constant" or s["power"] == 0:
        return Schedule.constant(s["eta0"])
    return Schedule(eta0=s["eta0"], k0=s["k0"], power=s["power"]) if s != schedule.as_dict() else schedule


def _fmt(x):
    return "inf" if x is None else f"{x:.0f}"
