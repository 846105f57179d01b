"""``sigrec phase``: the certified phase diagram over ``(theta, alpha)``."""

from __future__ import annotations


import argparse
import math

from rich.console import Console


from ._args import PRIOR_HELP, add_executor_arguments, add_json_flag, add_out_argument, executor_from_args, prior_arg
from ._atomic import atomic_folder
from ._limits import bounded, check_grid, count, limits_text
from ._output import emit_json, stderr_progress
from ...theory import sparse_threshold_prior
from ..render import plot_phase as plot
from ..studies import phase_diagram, write_phase_csv as write_csv


def register(sub) -> None:
    p = sub.add_parser(
        "phase",
        help="certified monotone/bistable phase diagram over (theta, alpha)",
        description="Certify the landscape on a (theta, alpha) grid (alpha log-spaced down to "
        "--alpha-min) and draw it with the closed-form boundary and the sparse threshold.",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--beta", type=bounded("beta"), default=1.0)
    p.add_argument("--sigma2", type=bounded("sigma2"), default=1.0)
    p.add_argument("--prior", type=prior_arg, default="fixed", metavar="PRIOR", help=PRIOR_HELP)
    p.add_argument("--theta-max", type=bounded("theta-max"), default=4.0)
    p.add_argument("--alpha-min", type=bounded("alpha-min"), default=1e-4)
    p.add_argument("--n-theta", type=count("n-theta"), default=48)
    p.add_argument("--n-alpha", type=count("n-alpha"), default=48)
    add_out_argument(p, "sigrec-report", "output folder")
    add_executor_arguments(p, default_workers=1)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    check_grid(args.n_theta, args.n_alpha)
    with executor_from_args(args), stderr_progress() as bar:
        task = bar.add_task("certifying", total=None)
        pd = phase_diagram(args.beta, args.sigma2, args.prior, args.n_theta, args.n_alpha,
                           args.theta_max, args.alpha_min,
                           progress=lambda d, t: bar.update(task, completed=d, total=t))
    csv_path, png_path = args.out / "phase.csv", args.out / "phase.png"
    with atomic_folder(args.out) as tmp:
        write_csv(pd, tmp / csv_path.name)
        plot(pd, tmp / png_path.name)
    # over every row of the CSV, the sparse row (alpha = 0) included
    counts = pd.counts()
    doc = {
        "beta": pd.beta, "sigma2": pd.sigma2, "prior": pd.prior,
        "grid": {"n_theta": len(pd.thetas), "n_alpha": len(pd.alphas),
                 "theta_max": float(pd.thetas[-1]), "alpha_min": float(pd.alphas[0])},
        "counts": counts,
        "all_certified": pd.all_certified,
        "disagreements_with_closed_form": pd.disagreements,
        # c*/beta; null when the sparse field is monotone for every theta (no zero of (t M')')
        "sparse_threshold_theta": _finite_or_none(sparse_threshold_prior(pd.prior) / pd.beta),
        "boxes": pd.boxes,
        "csv": str(csv_path), "figure": str(png_path),
    }
    if args.json:
        emit_json(doc)
    else:
        degenerate = f", {counts['degenerate']} degenerate" if counts["degenerate"] else ""
        certified = "all certified" if doc["all_certified"] else "NOT all certified"
        Console().print(
            f"{counts['monotone']} monotone, {counts['bistable']} bistable, {counts['undecided']} undecided"
            f"{degenerate} grid points, alpha = 0 row included ({certified}); "
            f"{pd.disagreements} disagreements with the closed-form boundary alpha_c(theta). "
            f"Wrote {csv_path} and {png_path}."
        )
    return 0


def _finite_or_none(x: float):
    return x if math.isfinite(x) else None
