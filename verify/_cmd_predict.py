"""``sigrec predict``: plain and step-size-corrected ODE predictions of the mean alignment (issue 6)."""

from __future__ import annotations

from numerics import Problem, Schedule
from numerics._corrected import predict

from ._args import add_json_flag, add_model_arguments, finite_float
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "predict",
        help="predict the mean alignment of the recursion: limit ODE and finite-step corrected ODE",
        description="Integrate the limit ODE d rho/dt = F and the corrected ODE "
        "d rho/dt = F + F_1/L - (eta(t)/2) rho E|P g|^2 on the time axis t_k = sum_{j<k} eta_j of the "
        "recursion (same schedule conventions as `sigrec simulate`, k from 0) and report both at "
        "iterations 0, S, 2S, ..., K.",
    )
    add_model_arguments(p, need_alpha=False)
    p.add_argument("--R", type=int, required=True, help="number of informative tokens (>= 1)")
    p.add_argument("--L", type=int, required=True, help="number of tokens (R <= L)")
    p.add_argument("--d", type=int, required=True, help="dimension (>= 2)")
    p.add_argument("--steps", type=int, required=True, help="number of steps K (>= 1)")
    p.add_argument("--rho0", type=finite_float, required=True, help="start alignment in [-1, 1]")
    p.add_argument("--eta0", type=finite_float, default=0.5, help="step scale, default 0.5")
    p.add_argument("--k0", type=finite_float, default=10.0, help="step offset (> 0), default 10")
    p.add_argument("--power", type=finite_float, default=0.75,
                   help="eta_k = eta0/(k+k0)^power, k from 0; 0 = constant step; default 0.75")
    p.add_argument("--batch", type=int, default=1, help="token collections averaged per step, default 1")
    p.add_argument("--stride", type=int, default=1, help="report every S steps (and the last), default 1")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    problem = Problem(theta=args.theta, R=args.R, L=args.L, d=args.d, beta=args.beta,
                      sigma2=args.sigma2, prior=args.prior, batch=args.batch)
    if args.power == 0:
        schedule = Schedule.constant(args.eta0)
    else:
        schedule = Schedule(eta0=args.eta0, k0=args.k0, power=args.power)
    pred = predict(problem, schedule, args.steps, args.rho0, args.stride)
    if not pred.success:
        raise ValueError(f"integration failed: {pred.message}")
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
    }
    if args.json:
        emit_json(out)
        return 0
    print(f"theta={problem.theta} R={problem.R} L={problem.L} d={problem.d} beta={problem.beta} "
          f"sigma2={problem.sigma2} prior={problem.prior} batch={problem.batch}; schedule {schedule.as_dict()}")
    print(f"{'step':>8} {'t_k':>10} {'rho_plain':>10} {'rho_corrected':>14}")
    for k, t, a, b in zip(pred.step, pred.time, pred.rho_plain, pred.rho_corrected):
        print(f"{int(k):>8} {t:>10.4f} {a:>10.6f} {b:>14.6f}")
    return 0
