"""``sigrec complexity``: steps (and token collections) to reach ``|rho| >= target``, from the diffusion
(one call of :func:`..studies.complexity_study`)."""

from __future__ import annotations

from contextlib import contextmanager

from ..render import complexity_text
from ..studies import ComplexityRequest, complexity_study
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
from ._limits import bounded, count
from ._output import emit, stderr_progress


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


@contextmanager
def _search_progress(show: bool):
    """``progress(stage, done, total)`` of the schedule search on a bar on stderr, or ``None``."""
    if not show:
        yield None
        return
    with stderr_progress() as bar:
        task = bar.add_task("schedule search", total=None)
        yield lambda stage, done, total: bar.update(task, description=f"schedule search: {stage}", completed=done,
                                                    total=total)


def run(args) -> int:
    problem, schedule = problem_and_schedule(args)
    request = ComplexityRequest(rho0=args.rho0, target=args.target, runs=args.runs, horizon=args.horizon,
                                seed=args.seed, method=args.method, drift_se=args.drift_se, optimize=args.optimize,
                                scaling=args.scaling)
    with _search_progress(args.optimize) as progress, executor_from_args(args):
        return emit(args, complexity_study(problem, schedule, request, progress=progress), complexity_text)
