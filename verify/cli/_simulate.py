"""``sigrec simulate``: run the full or the exact reduced stochastic recursion (one call of
:func:`..studies.simulation`)."""

from __future__ import annotations

import argparse
import sys

from ..render import simulation_text
from ..studies import SimulationRequest, check_overlaps, simulation
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
from ._limits import check_simulation, count, limits_text
from ._output import emit
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


def run(args) -> int:
    problem, schedule = problem_and_schedule(args)
    check_simulation(simulator=args.simulator, runs=args.runs * problem.heads, steps=args.steps,
                     stride=args.stride, L=args.L, d=args.d, batch=args.batch)
    M0 = None if args.r0 is None else check_overlaps("r0", args.r0, problem.k, problem.heads)
    request = SimulationRequest(steps=args.steps, runs=args.runs, simulator=args.simulator, rho0=args.rho0, M0=M0,
                                seed=args.seed, stride=args.stride)
    bar, callback = _progress(args.steps, sys.stderr.isatty() and args.steps * args.runs >= _BAR_MIN_RUN_STEPS)
    try:
        if bar is not None:
            bar.start()
        with executor_from_args(args):
            res = simulation(problem, schedule, request, progress=callback)
    finally:
        if bar is not None:
            bar.stop()
    saved = None
    if args.save is not None:
        with atomic_file(args.save, "--save") as tmp:
            res.sim.save(tmp)
        saved = str(args.save)
    return emit(args, res, simulation_text, saved=saved)
