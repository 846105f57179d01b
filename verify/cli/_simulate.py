"""``sigrec simulate``: run the full or the exact reduced stochastic recursion."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ...numerics import simulate
from . import _subspace_simulate
from ._args import (
    add_executor_arguments,
    add_json_flag,
    add_problem_arguments,
    executor_from_args,
    finite_float,
    npz_file,
    problem_and_schedule,
    subspace_route,
)
from ._atomic import atomic_file
from ._guard import quiet_numerics, require_finite
from ._limits import check_simulation, count, limits_text
from ._output import emit_json
from ._subspace import add_heads_argument, overlap_vector

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
                   help="subspace model: fixed start overlaps U^T Q_0, k x H numbers row-major (one head: r0 = U^T q_0); "
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


def run(args) -> int:
    routed = subspace_route(args, _subspace_simulate.run)
    if routed is not None:
        return routed
    problem, schedule = problem_and_schedule(args)
    check_simulation(simulator=args.simulator, runs=args.runs, steps=args.steps, stride=args.stride,
                     L=args.L, d=args.d, batch=args.batch)
    if args.steps < 1:
        raise ValueError(f"`steps` must be >= 1, got {args.steps}")
    if args.runs < 1:
        raise ValueError(f"`runs` must be >= 1, got {args.runs}")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    if seed < 0:
        raise ValueError(f"`seed` must be >= 0, got {seed}")
    show = sys.stderr.isatty() and args.steps * args.runs >= _BAR_MIN_RUN_STEPS
    bar, callback = _progress(args.steps, show)
    try:
        if bar is not None:
            bar.start()
        with executor_from_args(args), quiet_numerics():
            sim = simulate(problem, schedule, steps=args.steps, runs=args.runs, simulator=args.simulator,
                           rho0=args.rho0, seed=seed, stride=args.stride, progress=callback)
    finally:
        if bar is not None:
            bar.stop()
    require_finite("`eta0`, `k0`, `power` and the model flags", sim.final_rho, sim.initial_rho, sim.times)
    saved = None
    if args.save is not None:
        with atomic_file(args.save, "--save") as tmp:
            sim.save(tmp)
        saved = str(args.save)
    final = sim.final_rho
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
