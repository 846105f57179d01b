"""``sigrec limit``: where the limit describes a finite system, the tokens it needs for a tolerance."""

from __future__ import annotations

import argparse
import time

from ...theory import Model
from ..render import figure_path, plot_limit_map
from ..studies import LIMIT_LABEL, ladder_sizes, limit_distance, limit_map, tokens_needed
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


def _progress(bar, label: str):
    task = bar.add_task(label, total=None)
    return lambda done, total: bar.update(task, completed=done, total=total)


def run(args) -> int:
    t0 = time.perf_counter()
    model = Model(args.theta, args.alpha, args.beta, args.sigma2, args.prior)
    figure = figure_path(args.figure) if args.figure is not None else None
    if args.betas is not None and figure is None:
        raise ValueError("`betas` are the rows of the figure: give --figure PATH with them")
    sizes = ladder_sizes(model, None, args.L_max)  # refuses alpha = 0 and a bad L-max before any work
    doc: dict = {"model": model.as_dict(), "d": args.d, "tol": args.tol, "eta": args.eta, "se": args.se,
                 "evidence": LIMIT_LABEL}
    with stderr_progress() as bar:
        found = tokens_needed(model, args.tol, d=args.d, eta=args.eta, se=args.se, L_max=args.L_max,
                              seed=args.seed, progress=_progress(bar, "tokens needed"))
        if found.status == "beyond":  # numbers or a refusal: no tokens count to print
            raise ValueError(found.reason)
        at = None
        if args.R is not None:
            at = limit_distance(model, args.L, args.d, eta=args.eta, se=args.se, seed=args.seed)
        drawn = None
        if figure is not None:
            lmap = limit_map(model, args.betas or FIGURE_BETAS, sizes, d=args.d, eta=args.eta, se=args.se,
                             seed=args.seed, progress=_progress(bar, "map"))
            drawn = plot_limit_map(lmap, args.tol, lmap.crossing(args.tol), figure)
            doc["map"] = {**lmap.as_dict(), "tokens_needed": [None if x != x else x for x in lmap.crossing(args.tol)]}
    doc["tokens_needed"] = found.as_dict()
    if at is not None:
        doc["distance"] = at.as_dict()
    doc["figure"] = None if figure is None else str(figure)
    doc["wall_s"] = time.perf_counter() - t0
    if args.json:
        emit_json(doc)
        return 0
    _print(model, args, found, at, figure, drawn)
    return 0


def _print(model, args, found, at, figure, drawn) -> None:
    """The human-readable report."""
    what = "the limit field" if args.eta is None else f"the O(eta) expansion at eta = {args.eta:g}"
    print(f"limit: theta={model.theta:g} alpha={model.alpha:g} beta={model.beta:g} sigma2={model.sigma2:g} "
          f"prior={model.law} d={args.d}; {what}")
    print(f"  {LIMIT_LABEL}")
    if at is not None:
        print(f"  distance at L = {at.problem.L} (R = {at.problem.R}): {at.distance:.4f} ± {at.distance_se:.4f} "
              f"of max|F| (largest at rho = {at.at_rho:g})")
        if at.expansion is not None:
            print(f"  expansion's error there: {at.expansion:.4f} ± {at.expansion_se:.4f} "
                  f"(largest at rho = {at.expansion_at_rho:g})")
        if at.status != "ok":
            print(f"    {at.status}: {at.reason}")
    print(f"  tokens needed for tol = {found.tol:g}: L = {found.L} (R = {found.R}), {found.status}"
          + (f": {found.reason}" if found.reason else ""))
    key = "distance" if found.eta is None else "expansion"
    print(f"  {'L':>7} {'R':>6} {key:>10} {'se':>8}  below  stage")
    for row in found.ladder:
        print(f"  {row['L']:>7} {row['R']:>6} {row[key]:>10.4f} {row[key + '_se']:>8.4f}  "
              f"{'yes' if row['below'] else 'no':>5}  {row['stage']}{'' if row['status'] == 'ok' else ' (limited)'}")
    if figure is not None:
        print(f"  wrote {figure} ({drawn['cells']} cells)")
