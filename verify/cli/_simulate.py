"""``sigrec simulate``: run the full or the exact reduced stochastic recursion."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ...numerics import SimulationOptions, simulate
from ._args import (
    add_executor_arguments,
    add_json_flag,
    add_problem_arguments,
    executor_from_args,
    finite_float,
    npz_file,
    problem_and_schedule,
)
from ._atomic import atomic_file
from ._guard import quiet_numerics, require_finite
from ._limits import check_simulation, count, limits_text
from ._output import emit_json
from ._subspace import add_heads_argument, check_overlaps, model_line, overlap_vector

#: show a progress bar (stderr, TTY only) when a run has at least this many run-steps
_BAR_MIN_RUN_STEPS = 2000


def register(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate projected stochastic gradient ascent (full or exact reduced chain)",
        description="Run independent copies of the projected SGA recursion of docs/design.md section 1, "
        "with the full d-dimensional simulator or the exact reduced alignment chain (section 2). With a "
        "k-dimensional law (--prior 'onehot(k=2)') or --heads H > 1: the H-head recursion on the Stiefel "
        "manifold (docs/subspace-simulation.md), reporting the overlaps M = U^T Q and the principal angles.",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--simulator", choices=("reduced", "full"), default="reduced", help="default reduced")
    add_problem_arguments(p)
    p.add_argument("--runs", type=count("runs"), default=30, help="independent runs, default 30")
    p.add_argument("--rho0", type=finite_float, default=None, help="fixed start; default uniform on the sphere")
    add_heads_argument(p)
    p.add_argument("--r0", type=overlap_vector, default=None, metavar="M11,..,MkH",
                   help="subspace model: fixed start overlaps U^T Q_0, k x H numbers row-major "
                   "(one head: r0 = U^T q_0); "
                   "default Q_0 uniform on the Stiefel manifold")
    p.add_argument("--seed", type=count("seed"), default=None, help="seed (default: fresh entropy, reported)")
    p.add_argument("--stride", type=count("stride"), default=1, help="record rho every STRIDE steps, default 1")
    p.add_argument("--save", metavar="FILE", type=npz_file, default=None,
                   help="write the trajectories to FILE (.npz; the suffix is added if missing)")
    add_executor_arguments(p, default_workers=1)
    add_json_flag(p)
    p.set_defaults(run=run)


def _progress(total: int, show: bool):
    """A transient rich progress bar on stderr, or ``(None, None)``."""
    if not show:
        return None, None
    from rich.console import Console
    from rich.progress import Progress

    bar = Progress(console=Console(stderr=True), transient=True)
    task = bar.add_task("simulating", total=total)
    return bar, (lambda k: bar.update(task, completed=k))


def _fresh_seed() -> int:
    """A 63-bit seed from fresh OS entropy (reported, so the run can be repeated)."""
    entropy = np.random.SeedSequence().entropy  # an int when no entropy is given
    assert isinstance(entropy, int)
    return entropy % 2**63


def run(args) -> int:
    problem, schedule = problem_and_schedule(args)
    check_simulation(simulator=args.simulator, runs=args.runs * problem.heads, steps=args.steps,
                     stride=args.stride, L=args.L, d=args.d, batch=args.batch)
    M0 = None if args.r0 is None else check_overlaps("r0", args.r0, problem.k, problem.heads)
    if problem.model.scalar and M0 is not None:
        raise ValueError("`r0` is the start of the subspace model (a k-dimensional law or --heads > 1); "
                         "a scalar prior starts at `rho0`")
    seed = args.seed if args.seed is not None else _fresh_seed()
    show = sys.stderr.isatty() and args.steps * args.runs >= _BAR_MIN_RUN_STEPS
    bar, callback = _progress(args.steps, show)
    try:
        if bar is not None:
            bar.start()
        with executor_from_args(args), quiet_numerics():
            sim = simulate(problem, schedule, steps=args.steps, runs=args.runs, rho0=args.rho0, seed=seed,
                           stride=args.stride,
                           options=SimulationOptions(simulator=args.simulator, M0=M0, progress=callback))
    finally:
        if bar is not None:
            bar.stop()
    require_finite("`eta0`, `k0`, `power` and the model flags", sim.overlaps, sim.times)
    saved = None
    if args.save is not None:
        with atomic_file(args.save, "--save") as tmp:
            sim.save(tmp)
        saved = str(args.save)
    if sim.engine == "scalar":
        return _print_scalar(args, sim, seed, saved)
    return _print_subspace(args, sim, seed, M0, saved)


def _print_scalar(args, sim, seed: int, saved) -> int:
    problem, schedule, final = sim.problem, sim.schedule, sim.final_rho
    out = {
        "simulator": sim.simulator,
        "model": problem.model.as_dict(),
        "problem": problem.as_dict(),
        "schedule": {**schedule.as_dict(), "robbins_monro": schedule.robbins_monro().as_dict(),
                     "t_final": float(sim.times[-1])},
        "steps": sim.steps,
        "runs": sim.runs,
        "seed": seed,
        "rho0": args.rho0,
        "initial_rho": sim.initial_rho.tolist(),
        "final_rho": final.tolist(),
        "mean_abs_final_rho": float(np.mean(np.abs(final))),
        "fraction_aligned_0.99": float(np.mean(np.abs(final) >= 0.99)),
        "wall_s": sim.wall_s,
        "run_steps_per_s": sim.steps * sim.runs / sim.wall_s if sim.wall_s > 0 else None,
        "saved": saved,
    }
    if args.json:
        emit_json(out)
        return 0
    print(f"{sim.simulator} simulator: {sim.runs} runs x {sim.steps} steps, d={problem.d}, "
          f"R={problem.R}, L={problem.L}, seed={seed}, {sim.wall_s:.3g} s")
    print(f"schedule {schedule.as_dict()}: {out['schedule']['robbins_monro']['reason']}")
    print(f"final rho: mean |rho| = {out['mean_abs_final_rho']:.6f}, "
          f"fraction |rho| >= 0.99: {out['fraction_aligned_0.99']:.3f}")
    print("final rho per run: " + " ".join(f"{r:+.4f}" for r in final))
    if saved:
        print(f"trajectories written to {saved}")
    return 0


def _print_subspace(args, sim, seed: int, M0, saved) -> int:
    """The overlaps ``M = U^T Q`` (``final_r`` for one head, ``final_M`` and the principal angles
    between ``span Q`` and ``span U`` for several)."""
    problem, schedule, H = sim.problem, sim.schedule, sim.heads
    angles = sim.principal_angles()
    final = sim.final_overlaps  # runs x k x H
    out = {
        "simulator": sim.simulator, "model": problem.model.as_dict(), "problem": problem.as_dict(),
        "heads": H, "schedule": {**schedule.as_dict(), "t_final": float(sim.times[-1])},
        "steps": sim.steps, "runs": sim.runs, "seed": seed,
        "r0": None if M0 is None else M0.tolist(),
    }
    if H == 1:
        out["initial_r"] = sim.overlaps[:, 0, :, 0].tolist()
        out["final_r"] = final[:, :, 0].tolist()
        out["mean_final_norm"] = float(np.mean(np.linalg.norm(final[:, :, 0], axis=1)))
    else:
        out["initial_M"] = sim.overlaps[:, 0].tolist()
        out["final_M"] = final.tolist()
        out["final_principal_angles"] = angles[:, -1].tolist()
        out["mean_final_principal_angles"] = np.mean(angles[:, -1], axis=0).tolist()
    out.update({"wall_s": sim.wall_s, "saved": saved})
    if args.json:
        emit_json(out)
        return 0
    print(f"{sim.simulator} subspace simulator, {H} head{'s' if H > 1 else ''}: {sim.runs} runs x {sim.steps} steps, "
          f"d={problem.d}, R={problem.R}, L={problem.L}, seed={seed}, {sim.wall_s:.3g} s")
    print(f"  {model_line(problem.model)}; schedule {schedule.as_dict()}, t_final = {out['schedule']['t_final']:.6g}")
    if H == 1:
        print(f"  final overlaps r = U^T q (mean |r| = {out['mean_final_norm']:.6f}):")
        for r in out["final_r"]:
            print("    (" + ", ".join(f"{x:+.4f}" for x in r) + ")")
    else:
        mean = ", ".join(f"{a:.4f}" for a in out["mean_final_principal_angles"])
        print(f"  mean final principal angles between span Q and span U (radians): {mean}")
        for M, a in zip(final, angles[:, -1], strict=True):
            rows = "; ".join(", ".join(f"{x:+.4f}" for x in row) for row in M)
            print(f"    M = [{rows}]  angles ({', '.join(f'{x:.4f}' for x in a)})")
    if saved:
        print(f"  trajectories written to {saved}")
    return 0
