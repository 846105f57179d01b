"""``sigrec complexity``: steps (and token collections) to reach ``|rho| >= target``, from the diffusion."""

from __future__ import annotations

import math
import time

from ...numerics import SearchBudget, certified_crossing, complexity, optimize_schedule, route_tables, scaling_exponents
from ._args import (
    add_executor_arguments,
    add_json_flag,
    add_method_arguments,
    add_model_arguments,
    add_size_arguments,
    executor_from_args,
    finite_float,
    problem_and_schedule,
)
from ._guard import quiet_numerics
from ._limits import bounded, count
from ._output import emit_json, route_text, stderr_progress


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
    add_method_arguments(p)
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def _num(x):
    return None if x is None or not math.isfinite(x) else x


def _refuse(result) -> None:
    """Raise the library's refusal of ``result`` (its ``reason``) as the command's one error line."""
    if result.status != "ok":
        raise ValueError(result.reason)


def _routed_complexity(args, problem, schedule):
    """The route of ``--method`` over the horizon and the given schedule's complexity on it."""
    with executor_from_args(args), quiet_numerics():
        routed = route_tables(problem, schedule, args.horizon, method=args.method, drift_se=args.drift_se,
                              seed=args.seed)
        return routed, complexity(problem, schedule, args.rho0, args.target, runs=args.runs, horizon=args.horizon,
                                  seed=args.seed, route=routed)


def run(args) -> int:
    t0 = time.perf_counter()
    problem, schedule = problem_and_schedule(args)
    if args.optimize and args.method == "measured":
        raise ValueError("`method` measured is for a given schedule: the schedule search (--optimize) runs the "
                         "diffusion of the expansion for every candidate; drop --optimize to measure the given one")
    if args.optimize:
        search = _search(args, problem, schedule)
        _refuse(search)
        given, reported = search.start, search.best
        routed = None
    else:
        routed, given = _routed_complexity(args, problem, schedule)
        reported = given
    _refuse(reported)  # numbers or a refusal: the reported schedule's quantiles and plain-ODE step are finite
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
        "route": routed.as_dict() if routed is not None else {
            "route": "expansion", "method": args.method,
            "reason": "the schedule search runs on the expansion's diffusion tables"},
    }
    if args.optimize:
        out["given"] = given.as_dict()
        out.update(search.best.as_dict())
        out["token_collections_median"] = _num(search.best.median_steps * problem.batch)
        out["token_collections_q90"] = _num(search.best.q90_steps * problem.batch)
        out["search"] = search.as_dict()
    out["certified_ode_steps"] = certified_crossing(problem.model, reported.schedule, args.rho0,
                                                    args.target).as_dict()
    if args.scaling:
        sc = scaling_exponents(problem, reported.schedule, args.rho0, args.target,
                               runs=max(200, args.runs // 2), horizon=args.horizon, seed=args.seed)
        for s in sc:
            _refuse(s)
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
    for name, r in rows:
        print(f"plateau ({name}): {r['plateau_note']}")
    cert = out["certified_ode_steps"]
    if cert["status"] == "ok":
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
            pairs = ", ".join(f"{v}: {_fmt(m)}" for v, m in zip(s["values"], s["median_steps"], strict=True))
            print(f"median steps vs {key}: {pairs}; exponent {s['exponent']:.3f}")
    _print_tail(args, out, given, routed, search if args.optimize else None)
    return 0


def _search(args, problem, schedule):
    """The schedule search with a progress bar: it evaluates the given schedule on the paths of
    ``complexity(seed=args.seed, runs=args.runs)`` and the winner on the same paths."""
    with stderr_progress() as bar:
        task = bar.add_task("schedule search", total=None)

        def progress(stage, done, total):
            bar.update(task, description=f"schedule search: {stage}", completed=done, total=total)

        return optimize_schedule(problem, args.rho0, args.target, start=schedule,
                                 budget=SearchBudget(final_runs=args.runs, horizon=args.horizon), seed=args.seed,
                                 progress=progress)


def _print_tail(args, out, given, routed, search) -> None:
    """The route, the validity and the wall time, below the table."""
    if routed is not None:
        print(route_text(routed, given.median_range, "median passage step"))
    else:
        print("route: expansion (the schedule search runs on the expansion's diffusion tables)")
    print(f"validity: {given.validity.message}")
    if search is not None and search.improved:
        print(f"validity of the optimized schedule: {search.best.validity.message}")
    print(f"({out['wall_s']:.1f} s" + ("; a given schedule's quantile beyond the horizon prints as 'inf')"
                                        if search is not None else ")"))


def _fmt(x):
    return "inf" if x is None else f"{x:.0f}"
