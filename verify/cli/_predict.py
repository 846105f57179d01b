"""``sigrec predict``: plain and step-size-corrected ODE predictions of the mean alignment
(one call of :func:`..studies.prediction`)."""

from __future__ import annotations

import argparse

from ..render import prediction_text
from ..studies import PredictionRequest, check_overlaps, prediction
from ._args import (
    add_executor_arguments,
    add_json_flag,
    add_method_arguments,
    add_problem_arguments,
    executor_from_args,
    finite_float,
    problem_and_schedule,
)
from ._limits import check_prediction, count, limits_text
from ._output import emit
from ._subspace import add_heads_argument, overlap_vector


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
    # the overlaps as a k x H matrix where the model has them; with a scalar prior the study refuses `r0`
    M0 = args.r0 if args.r0 is None or problem.model.scalar else check_overlaps("r0", args.r0, problem.k, problem.heads)
    request = PredictionRequest(steps=args.steps, stride=args.stride, rho0=args.rho0, M0=M0, band_runs=args.band_runs,
                                seed=args.seed, method=args.method, drift_se=args.drift_se)
    with executor_from_args(args):
        return emit(args, prediction(problem, schedule, request), prediction_text)
