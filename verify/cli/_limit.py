"""``sigrec limit``: where the limit describes a finite system, the tokens it needs for a tolerance
(one call of :func:`..studies.limit_study`)."""

from __future__ import annotations

import argparse

from ...theory import Model
from ..render import figure_path, limit_text, plot_limit_map
from ..studies import LimitRequest, limit_study
from ._args import add_json_flag, add_model_arguments, finite_float
from ._limits import count, limits_text
from ._output import emit_json, stderr_progress

#: the betas of ``--figure`` when ``--betas`` is not given
FIGURE_BETAS = (0.5, 1.0, 1.5, 2.0, 2.5)


def register(sub) -> None:
    p = sub.add_parser(
        "limit",
        help="where the L -> infinity limit describes the finite system: the distance of its field from the "
        "exact chain's and the tokens needed for a tolerance",
        description="The distance max_rho |E<P_q g, xi> - F(rho)| / max|F| between the limit field F and the "
        "field of the exact reduced chain at finite L (Monte Carlo with a control variate, to --se of max|F| at "
        "each alignment), at --L when the counts are given, and the smallest L at which it is below --tol "
        "(a doubling ladder, confirmed at the next size, then bisected in log L; R = round(alpha L) >= 1). "
        "With --eta: the error of the O(eta) expansion (what `sigrec predict` integrates) against the exact "
        "chain's one-step drift at that step. Numerical evidence (Monte Carlo of the exact reduced chain).",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_arguments(p)
    p.add_argument("--d", type=count("d"), required=True, help="dimension (>= 2)")
    p.add_argument("--tol", type=finite_float, default=0.05, help="tolerance, a fraction of max|F|, default 0.05")
    p.add_argument("--eta", type=finite_float, default=None,
                   help="a constant step in (0, 1]: judge the O(eta) expansion's error at it instead")
    p.add_argument("--se", type=finite_float, default=0.01,
                   help="standard error of each field estimate, a fraction of max|F| (tol >= 3 se), default 0.01")
    p.add_argument("--L-max", type=count("L-max"), default=2**14, dest="L_max",
                   help="largest size of the ladder, default 16384")
    p.add_argument("--seed", type=count("seed"), default=0, help="seed of the Monte Carlo draws, default 0")
    p.add_argument("--figure", type=str, default=None, metavar="PATH",
                   help="also draw the distance over (beta, L) (the ladder's sizes) to this .png")
    p.add_argument("--betas", type=finite_float, nargs="+", default=None, metavar="BETA",
                   help=f"the betas of --figure, default {' '.join(map(str, FIGURE_BETAS))}")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    model = Model(args.theta, args.alpha, args.beta, args.sigma2, args.prior)
    figure = figure_path(args.figure) if args.figure is not None else None
    if args.betas is not None and figure is None:
        raise ValueError("`betas` are the rows of the figure: give --figure PATH with them")
    request = LimitRequest(d=args.d, tol=args.tol, eta=args.eta, se=args.se, L_max=args.L_max, seed=args.seed,
                           L=None if args.R is None else args.L,
                           betas=None if figure is None else tuple(args.betas or FIGURE_BETAS))
    with stderr_progress() as bar:
        def progress(label: str):
            task = bar.add_task(label, total=None)
            return lambda done, total: bar.update(task, completed=done, total=total)

        res = limit_study(model, request, progress)
        drawn = None if res.lmap is None else plot_limit_map(res.lmap, args.tol, res.crossing, figure)
    path = None if figure is None else str(figure)
    if args.json:
        emit_json(res.as_dict(path))
    else:
        print(limit_text(res, path, drawn))
    return 0
