"""``sigrec predict``: plain and step-size-corrected ODE predictions of the mean alignment."""

from __future__ import annotations

import argparse
from typing import Any

from ...numerics import band, predict, route_tables
from ...theory import HeadsEquilibrium, SubspaceBox, principal_angles
from ._args import (
    add_executor_arguments,
    add_json_flag,
    add_method_arguments,
    add_problem_arguments,
    executor_from_args,
    finite_float,
    problem_and_schedule,
)
from ._guard import quiet_numerics, require_finite
from ._limits import check_prediction, count, limits_text
from ._output import emit_json, route_text
from ._subspace import add_heads_argument, check_overlaps, model_line, overlap_vector


def register(sub) -> None:
    p = sub.add_parser(
        "predict",
        help="predict the mean alignment of the recursion: limit ODE and finite-step corrected ODE",
        description="Integrate the limit ODE d rho/dt = F and the corrected ODE "
        "d rho/dt = F + F_1/L - (eta(t)/2) rho E|P g|^2 on the time axis t_k = sum_{j<k} eta_j of the "
        "recursion (same schedule conventions as `sigrec simulate`, k from 0) and report both at "
        "iterations 0, S, 2S, ..., K, with the 10-90% band of rho_k from the diffusion approximation "
        "(docs/design.md section 1.1). With a k-dimensional law (--prior 'onehot(k=2)') or --heads H > 1: "
        "the limit ODE of the overlaps M = U^T Q from --r0 and the equilibrium it settles at (one head: "
        "certified with its stability); no finite-step corrections there (derived for k = 1 only).",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_problem_arguments(p)
    p.add_argument("--rho0", type=finite_float, default=None, help="start alignment in [-1, 1] (scalar prior)")
    add_heads_argument(p)
    p.add_argument("--r0", type=overlap_vector, default=None, metavar="M11,..,MkH",
                   help="subspace model: start overlaps U^T Q_0, k x H numbers row-major (one head: r0 = U^T q_0)")
    p.add_argument("--stride", type=count("stride"), default=1, help="report every S steps (and the last), default 1")
    p.add_argument("--band-runs", type=count("runs"), default=None,
                   help="diffusion paths for the 10-90%% band (>= 10), default 2000")
    p.add_argument("--seed", type=count("seed"), default=None, help="seed of the band's diffusion paths, default 0")
    add_method_arguments(p)
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    problem, schedule = problem_and_schedule(args)
    check_prediction(steps=args.steps, stride=args.stride)
    if not problem.model.scalar:
        return _run_subspace(args, problem, schedule)
    if args.r0 is not None:
        raise ValueError("`r0` is the start of the subspace model (a k-dimensional law or --heads > 1); "
                         "a scalar prior starts at `rho0`")
    args.band_runs = 2000 if args.band_runs is None else args.band_runs
    args.seed = 0 if args.seed is None else args.seed
    with quiet_numerics():
        pred = predict(problem, schedule, args.steps, args.rho0, args.stride, engine="scalar")
    if not pred.success:
        raise ValueError(f"`eta0`, `k0`, `power` and the model flags: the ODE integration failed ({pred.message})")
    require_finite("`eta0`, `k0`, `power` and the model flags", pred.time, pred.eta, pred.rho_plain,
                   pred.rho_corrected)
    if args.band_runs < 10:
        raise ValueError(f"`band-runs` must be >= 10, got {args.band_runs!r}")
    with executor_from_args(args), quiet_numerics():
        routed = route_tables(problem, schedule, args.steps, method=args.method, drift_se=args.drift_se,
                              seed=args.seed)
        bd = band(problem, schedule, args.steps, args.rho0, stride=args.stride, runs=args.band_runs, seed=args.seed,
                  route=routed)
    require_finite("`eta0`, `k0`, `power` and the model flags (diffusion band)", bd.q10, bd.q50, bd.q90, bd.mean)
    out = {
        "model": problem.model.as_dict(),
        "problem": problem.as_dict(),
        "schedule": schedule.as_dict(),
        "rho0": pred.rho0,
        "step": pred.step.tolist(),
        "time": pred.time.tolist(),
        "eta": pred.eta.tolist(),
        "rho_plain": pred.rho_plain.tolist(),
        "rho_corrected": pred.rho_corrected.tolist(),
        "rho_q10": bd.q10.tolist(),
        "rho_median": bd.q50.tolist(),
        "rho_q90": bd.q90.tolist(),
        "rho_mean_diffusion": bd.mean.tolist(),
        "band": {"runs": bd.runs, "method": bd.method, "route": bd.route,
                 **({} if bd.median_range is None else {"median_range": list(bd.median_range)})},
        "route": routed.as_dict(),
        "validity": pred.validity.as_dict(),
    }
    if args.json:
        emit_json(out)
        return 0
    print(f"theta={problem.theta} R={problem.R} L={problem.L} d={problem.d} beta={problem.beta} "
          f"sigma2={problem.sigma2} prior={problem.prior} batch={problem.batch}; schedule {schedule.as_dict()}")
    print(f"{'step':>8} {'t_k':>10} {'rho_plain':>10} {'rho_corrected':>14} {'q10':>9} {'median':>9} {'q90':>9}")
    rows = zip(pred.step, pred.time, pred.rho_plain, pred.rho_corrected, bd.q10, bd.q50, bd.q90, strict=True)
    for k, t, a, b, lo, me, hi in rows:
        print(f"{int(k):>8} {t:>10.4f} {a:>10.6f} {b:>14.6f} {lo:>9.5f} {me:>9.5f} {hi:>9.5f}")
    print(f"(q10/median/q90: {bd.runs} diffusion paths, {bd.method})")
    print(route_text(routed, bd.median_range, "last-step median"))
    print(f"validity: {pred.validity.message}")
    return 0


def _run_subspace(args, problem, schedule) -> int:
    """The limit ODE of the overlaps ``M = U^T Q`` from ``--r0`` and the equilibrium it settles at
    (a :class:`numerics.predict` of the subspace engine)."""
    if args.rho0 is not None:
        raise ValueError("`rho0` is the scalar start; with a k-dimensional law or heads give the start overlaps "
                         "`r0` (k x H numbers, row-major)")
    for flag in ("band_runs", "seed"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is for the diffusion band of a scalar prior; "
                             "the subspace prediction is the limit ODE only")
    if args.r0 is None:
        raise ValueError("`r0` is required: the start overlaps U^T Q_0 (k x H numbers, row-major)")
    model, H = problem.model, problem.heads
    M0 = check_overlaps("r0", args.r0, model.k, H)
    with quiet_numerics():
        pred = predict(problem, schedule, args.steps, M0=M0, stride=args.stride, engine="subspace")
    path = pred.path
    require_finite("`eta0`, `k0`, `power` and the model flags", path.M, path.M_limit)
    limit: dict[str, Any] = {"t_max": path.t_limit, "speed": path.speed, "settled": pred.settled}
    eq = pred.equilibrium
    doc_eq: dict[str, Any] | None = None
    if H == 1:
        limit["r"] = path.M_limit[:, 0].tolist()
        if pred.reason:
            limit["not_certified"] = pred.reason
        if isinstance(eq, SubspaceBox):
            doc_eq = {"r": [list(x) for x in eq.bounds()], "kind": eq.classification, "location": eq.kind,
                      "stability": eq.status, "certified": eq.certified, "distance": pred.distance()}
            if eq.reason:
                doc_eq["reason"] = eq.reason
    else:
        limit["M"] = path.M_limit.tolist()
        limit["principal_angles"] = principal_angles(path.M_limit).tolist()
        if isinstance(eq, HeadsEquilibrium):
            doc_eq = {"M": eq.M.tolist(), "stability": "stable" if eq.stable else (
                "neutral" if eq.neutral else "unstable"), "certified": False,
                "largest_eigenvalue": float(eq.eigenvalues[0].real), "principal_angles": eq.angles.tolist(),
                "objective": eq.objective, "evidence": "numerical (Jacobian eigenvalues; no interval certificate "
                "for heads)"}
    if doc_eq is not None:
        limit["equilibrium"] = doc_eq
    out = {"model": model.as_dict(), "problem": {"R": problem.R, "L": problem.L, "d": problem.d}, "heads": H,
           "schedule": schedule.as_dict(), "r0": M0.tolist(), "step": pred.step.tolist(), "time": pred.time.tolist(),
           ("r" if H == 1 else "M"): (path.M[:, :, 0] if H == 1 else path.M).tolist(),
           "limit": limit, "note": pred.note}
    if H > 1:
        out["principal_angles"] = [principal_angles(M).tolist() for M in path.M]
    if args.json:
        emit_json(out)
        return 0
    print(f"limit ODE of the overlaps, {H} head{'s' if H > 1 else ''}: {model_line(model)}; schedule "
          f"{schedule.as_dict()}")
    name = "r = U^T q" if H == 1 else "M = U^T Q (rows: directions xi_j; columns: heads)"
    print(f"{'step':>8} {'t_k':>10}  {name}")
    for k, t, M in zip(pred.step, pred.time, path.M, strict=True):
        text = _vec(M[:, 0]) if H == 1 else "[" + "; ".join(_vec(row) for row in M) + "]"
        if H > 1:
            text += "  angles " + _vec(principal_angles(M))
        print(f"{int(k):>8} {t:>10.4f}  {text}")
    end = _vec(path.M_limit[:, 0]) if H == 1 else "[" + "; ".join(_vec(row) for row in path.M_limit) + "]"
    print(f"long-time limit (t <= {path.t_limit:g}): {end}, |dM/dt| = {path.speed:.2g}"
          + ("" if pred.settled else " -- NOT settled"))
    if "not_certified" in limit:
        print(f"  no certified equilibrium: {limit['not_certified']}")
    if doc_eq is not None and H == 1:
        word = "certified" if doc_eq["certified"] else "NOT certified"
        print(f"  equilibrium: {doc_eq['kind']} ({doc_eq['location']}), {doc_eq['stability']} ({word}: a box of radius "
              f"<= {max((hi - lo) / 2 for lo, hi in doc_eq['r']) if doc_eq['r'] else float('nan'):.0e} holding exactly "
              f"one, at distance {doc_eq['distance']:.1e} from the end of the flow)")
    elif doc_eq is not None:
        print(f"  equilibrium: {doc_eq['stability']} (numerical: largest eigenvalue "
              f"{doc_eq['largest_eigenvalue']:.4g}), "
              f"principal angles {_vec(doc_eq['principal_angles'])}, objective {doc_eq['objective']:.6g}")
    print(f"note: {pred.note}")
    return 0


def _vec(x) -> str:
    return "(" + ", ".join(f"{float(v):+.6f}" for v in x) + ")"
