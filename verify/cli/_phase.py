"""``sigrec phase``: the certified phase diagram over ``(theta, alpha)``.

:func:`verify.studies.phase_mode` picks what it computes. By default the region certificate
(:func:`verify.studies.phase_region`: its subtrees on the executor) of ``theta in [0, theta_max]``
(default 5) by ``alpha in [alpha_min, 1]`` (log): every box proved monotone or bistable
for all its parameters, drawn coloured by status with the closed-form boundary, and
checked box by box against the closed-form criterion (:func:`theory.region_proposition`).
``--grid`` (or giving ``--n-theta`` / ``--n-alpha``) certifies a grid of points instead
(:func:`verify.studies.phase_diagram`, a CSV), as before. With a k-dimensional law
(``--prior 'onehot(k=2)'``) it certifies the mixture/specialisation transition
``theta_c(alpha)`` of one query instead (:func:`verify.studies.transition_diagram`), or with
``--region`` the k = 2 region certificate (:func:`verify.studies.phase_region_k2`, leaves drawn by
the structure proved on them); with
``--heads H`` (H >= 2, a k-dimensional law) it maps where each certified state of the H heads exists
on a ``(theta, alpha)`` grid (:func:`verify.studies.heads_diagram`).
"""

from __future__ import annotations

import argparse
import json
import math

from rich.console import Console

from ...theory import Model, sparse_threshold_prior
from ..render import draw_region, draw_region_k2, plot_heads_phase, plot_subspace_phase
from ..render import plot_phase as plot
from ..studies import (
    heads_diagram,
    heads_grid,
    phase_diagram,
    phase_mode,
    phase_region,
    phase_region_k2,
    transition_diagram,
)
from ..studies import write_phase_csv as write_csv
from ._args import (
    PRIOR_HELP,
    add_executor_arguments,
    add_json_flag,
    add_out_argument,
    executor_from_args,
    prior_arg,
)
from ._atomic import atomic_folder
from ._certify import MIN_WIDTH, MIN_WIDTH_LIMITS
from ._limits import bounded, check_grid, count, finite_float, limits_text
from ._output import emit_json, stderr_progress
from ._subspace import add_heads_argument


def register(sub) -> None:
    p = sub.add_parser(
        "phase",
        help="certified monotone/bistable phase diagram over (theta, alpha)",
        description="Certify the landscape on a (theta, alpha) grid (alpha log-spaced down to "
        "--alpha-min) and draw it with the closed-form boundary and the sparse threshold. With "
        "--prior 'onehot(k=2)': the certified transition theta_c(alpha) of one query from the mixture "
        "to a specialised state, on --n-alpha values of alpha (default 8) in [--alpha-min, 1]. With --heads H "
        "(H >= 2) and a k-dimensional --prior: the certified stable states of the H heads at each point of a "
        "--n-theta x --n-alpha grid (default 6 x 4, theta up to --theta-max, default 4; alpha down to 0.05).",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--beta", type=bounded("beta"), default=1.0)
    p.add_argument("--sigma2", type=bounded("sigma2"), default=1.0)
    p.add_argument("--prior", type=prior_arg, default="fixed", metavar="PRIOR", help=PRIOR_HELP)
    p.add_argument("--theta-max", type=bounded("theta-max"), default=None,
                   help="largest theta (default 5 for the region, 4 for --grid and --heads >= 2)")
    p.add_argument("--alpha-min", type=bounded("alpha-min"), default=None,
                   help=f"smallest alpha (default {ALPHA_MIN:g}; {HEADS_ALPHA_MIN:g} with --heads >= 2: at smaller "
                   "alpha the heads' flow is so slow that the search from the starts ends short of most equilibria)")
    p.add_argument("--grid", action="store_true",
                   help="certify a grid of points (--n-theta x --n-alpha, written as phase.csv) instead of the "
                   "region certificate; giving --n-theta or --n-alpha selects it")
    p.add_argument("--n-theta", type=count("n-theta"), default=None,
                   help="grid only: theta columns (default 48; 6 with --heads >= 2)")
    p.add_argument("--n-alpha", type=count("n-alpha"), default=None,
                   help="grid only: alpha rows (default 48); onehot(k): alphas of the transition (default 8); "
                   "--heads >= 2: alpha rows (default 4)")
    p.add_argument("--min-width", type=finite_float, default=None,
                   help="region only: boxes narrower than this fraction of both ranges are not split further "
                   f"(default 2^-10; --region with a k = 2 law: 2^-{K2_MIN_WIDTH_BITS})")
    p.add_argument("--region", action="store_true",
                   help="k = 2 laws (--prior 'onehot(k=2)'): the region certificate of theta in [0, --theta-max] "
                   "(default 5) x alpha in [--alpha-min, 1] (log): the equilibria on the circle and in the disk proved "
                   f"on every leaf, split down to --min-width (default 2^-{K2_MIN_WIDTH_BITS}) within --max-boxes "
                   "leaves, instead of the transition theta_c(alpha)")
    p.add_argument("--max-boxes", type=count("max-boxes"), default=None,
                   help=f"--region with a k = 2 law: the leaves examined (default {K2_MAX_BOXES}); those left when "
                   "it runs out are undecided")
    add_heads_argument(p)
    add_out_argument(p, "sigrec-report", "output folder")
    add_executor_arguments(p, default_workers=1)
    add_json_flag(p)
    p.set_defaults(run=run)


#: region mode: the largest beta * theta_max (boxes at large beta theta need ever finer splits)
MAX_BETA_THETA = 50.0
#: the default smallest alpha; with --heads >= 2 the heads' flow at alpha = 1e-4 is so slow that the search's
#: integrations (to t = 500) end far from the equilibria (speed ~1e-3 at theta = 2, H = k = 2): few are found
ALPHA_MIN, HEADS_ALPHA_MIN = 1e-4, 0.05
#: --region with a k = 2 law: the default relative width (2^-bits) and budget of leaves
K2_MIN_WIDTH_BITS, K2_MAX_BOXES = 7, 4000
#: --heads >= 2: the default grid (each point: a search from 8 + 2k starts and its certificates, 3 to 15 s of a core)
HEADS_N_THETA, HEADS_N_ALPHA, HEADS_THETA_MAX = 6, 4, 4.0


def run(args) -> int:
    model = Model(1.0, 0.5, args.beta, args.sigma2, args.prior, args.heads)  # the flags, validated together
    mode = phase_mode(model, args.region, args.max_boxes, args.grid or args.n_theta is not None
                      or args.n_alpha is not None)
    if mode != "heads":
        args.alpha_min = ALPHA_MIN if args.alpha_min is None else args.alpha_min
    return _RUN[mode](args, model)


def _run_grid(args, model: Model) -> int:
    """The certified point grid of a scalar prior (:func:`verify.studies.phase_diagram`)."""
    args.n_theta = 48 if args.n_theta is None else args.n_theta
    args.n_alpha = 48 if args.n_alpha is None else args.n_alpha
    args.theta_max = 4.0 if args.theta_max is None else args.theta_max
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


def _save_json_and_figure(out, json_name: str, payload: dict, png_name: str, draw):
    """Write ``payload`` as ``json_name`` and ``draw(path)``'s figure as ``png_name`` into ``out``
    together (:func:`atomic_folder`); the two paths and what ``draw`` returned."""
    json_path, png_path = out / json_name, out / png_name
    with atomic_folder(out) as tmp:
        (tmp / json_name).write_text(json.dumps(payload) + "\n")
        drawn = draw(tmp / png_name)
    return json_path, png_path, drawn


def _finite_or_none(x: float):
    return x if math.isfinite(x) else None


def _region_theta_max(args, beyond: str = "") -> float:
    """``--theta-max`` of a region certificate (default 5), with ``beta theta_max`` and ``--alpha-min``
    checked (``beyond``: what the error adds about larger values)."""
    theta_max = 5.0 if args.theta_max is None else args.theta_max
    if args.beta * theta_max > MAX_BETA_THETA:
        raise ValueError(f"`theta-max` times `beta` must be <= {MAX_BETA_THETA:g} for the region certificate, got "
                         f"{args.beta * theta_max:g}{beyond}")
    if not args.alpha_min < 1:
        raise ValueError(f"`alpha-min` must be < 1 for the region alpha in [alpha-min, 1], got {args.alpha_min!r}")
    return theta_max


def _run_region(args, model: Model) -> int:
    """The region certificate of a scalar prior and its proposition (:func:`verify.studies.phase_region`)."""
    theta_max = _region_theta_max(args, " (use --grid for points beyond)")
    lo, hi = MIN_WIDTH_LIMITS
    min_width = MIN_WIDTH if args.min_width is None else args.min_width
    if not lo <= min_width <= hi:
        raise ValueError(f"`min-width` must lie in [{lo:g}, {hi:g}] (relative width of a box), got {min_width!r}")
    with executor_from_args(args), stderr_progress() as bar:
        task = bar.add_task("certifying", total=None)
        found = phase_region(model, theta_max, args.alpha_min, min_width,
                             progress=lambda d, t: bar.update(task, completed=d, total=t))
    cert, prop = found.certificate, found.proposition
    json_path, png_path, drawn = _save_json_and_figure(args.out, "phase-region.json", cert.as_dict(), "phase.png",
                                                       lambda path: draw_region(cert, path, found.lines))
    doc = {
        "mode": "region", "beta": args.beta, "sigma2": args.sigma2, "prior": args.prior,
        "region": cert.region, "fractions": cert.fractions, "boxes_count": cert.boxes_count,
        "certified": cert.certified, "undecided_area": prop.undecided_area, "area": prop.area,
        "criterion": prop.criterion, "contradictions_with_criterion": len(prop.contradictions),
        "sparse_threshold_theta": _finite_or_none(sparse_threshold_prior(args.prior) / args.beta),
        "drawn": drawn, "seconds": cert.seconds, "certificate": str(json_path), "figure": str(png_path),
    }
    if args.json:
        emit_json(doc)
    else:
        f = cert.fractions
        Console().print(
            f"region theta in [0, {theta_max:g}] x alpha in [{args.alpha_min:g}, 1] (log), prior {args.prior}: "
            f"{f['monotone']:.2%} monotone, {f['bistable']:.2%} bistable, {f['undecided']:.2%} undecided "
            f"({cert.boxes_count} boxes, {'certified' if cert.certified else 'NOT certified'}, {cert.seconds:.1f} s); "
            f"{len(prop.contradictions)} boxes contradict the criterion ({prop.criterion}). "
            f"Wrote {json_path} and {png_path}."
        )
    return 0


def _run_region_k2(args, model: Model) -> int:
    """The region certificate of a k = 2 law (:func:`verify.studies.phase_region_k2`)."""
    if args.grid or args.n_theta is not None or args.n_alpha is not None:
        raise ValueError("--grid, --n-theta and --n-alpha are not options of --region (the leaves are split "
                         "adaptively: --min-width, --max-boxes)")
    theta_max = _region_theta_max(args)
    min_width = 2.0 ** -K2_MIN_WIDTH_BITS if args.min_width is None else args.min_width
    lo, hi = MIN_WIDTH_LIMITS
    if not lo <= min_width <= hi:
        raise ValueError(f"`min-width` must lie in [{lo:g}, {hi:g}] (relative width of a leaf), got {min_width!r}")
    max_boxes = K2_MAX_BOXES if args.max_boxes is None else args.max_boxes
    with executor_from_args(args), stderr_progress() as bar:
        task = bar.add_task("certifying the k = 2 region", total=None)
        cert = phase_region_k2(model, theta_max, args.alpha_min, min_width, max_boxes,
                               progress=lambda d, t: bar.update(task, completed=d, total=t))
    json_path, png_path, drawn = _save_json_and_figure(args.out, "phase-region-k2.json", cert.as_dict(), "phase.png",
                                                       lambda path: draw_region_k2(cert, path))
    doc = {"mode": "region-k2", "beta": args.beta, "sigma2": args.sigma2, "prior": args.prior, "region": cert.region,
           "fractions": cert.fractions, "boxes_count": len(cert.boxes), "max_boxes": max_boxes, "drawn": drawn,
           "seconds": cert.seconds, "certificate": str(json_path), "figure": str(png_path)}
    if args.json:
        emit_json(doc)
    else:
        parts = ", ".join(f"{v:.2%} {k}" for k, v in sorted(cert.fractions.items(), key=lambda kv: -kv[1]))
        Console().print(f"region theta in [0, {theta_max:g}] x alpha in [{args.alpha_min:g}, 1] (log), prior "
                        f"{args.prior}: {parts} ({len(cert.boxes)} leaves, {cert.seconds:.1f} s). Wrote {json_path} "
                        f"and {png_path}.")
    return 0


def _run_transition(args, model: Model) -> int:
    """The certified transition theta_c(alpha) of onehot(k) (:func:`verify.studies.transition_diagram`)."""
    if args.grid or args.n_theta is not None:
        raise ValueError("--grid and --n-theta are for scalar priors; with onehot(k) the transition is certified "
                         "per alpha (--n-alpha)")
    if args.workers != 1 or args.scheduler is not None:
        raise ValueError("--workers and --scheduler are for scalar priors; the transition is certified in-process")
    with stderr_progress() as bar:
        task = bar.add_task("certifying theta_c(alpha)", total=None)
        diagram = transition_diagram(args.prior, args.beta, args.sigma2, args.alpha_min, args.n_alpha, args.theta_max,
                                     progress=lambda done, total: bar.update(task, completed=done, total=total))
    doc = diagram.as_dict()
    brackets = doc["brackets"]
    json_path, png_path, _ = _save_json_and_figure(args.out, "phase-subspace.json", doc, "phase.png",
                                                   lambda path: plot_subspace_phase(doc, path))
    doc.update({"brackets_file": str(json_path), "figure": str(png_path)})
    if args.json:
        emit_json(doc)
        return 0
    print(f"certified transition of one query, {diagram.law}, beta={args.beta:g}, sigma2={args.sigma2:g}: the mixture "
          "is certified stable for every theta in [theta_min, lo], unstable in [hi, theta_max]")
    print(f"{'alpha':>12} {'theta_c in [lo, hi]':>38}  {'[theta_min, theta_max]':>22}  certified")
    for b in brackets:
        if b["certified"]:
            lo, hi = b["theta_range"]
            print(f"{b['alpha']:>12.6g}   [{b['lo']:.13f}, {b['hi']:.13f}]  [{lo:.4f}, {hi:.4f}]  yes")
        else:
            print(f"{b['alpha']:>12.6g}   {'-':>38}  NO {b.get('reason', '')}")
    print(f"Wrote {json_path} and {png_path}.")
    return 0


def _run_heads(args, model: Model) -> int:
    """The certified states of H >= 2 heads on a (theta, alpha) grid (:func:`verify.studies.heads_diagram`)."""
    if model.scalar:
        raise ValueError(f"`--heads {model.heads}` in `sigrec phase` maps the states of heads on a k-dimensional "
                         f"signal: give a law such as --prior 'onehot(k=2)' (the prior {args.prior!r} has k = 1)")
    if args.grid or args.min_width is not None:
        raise ValueError("--grid and --min-width are for one query (the region certificate and its point grid); "
                         "with --heads the grid is always certified point by point (--n-theta, --n-alpha)")
    n_theta = HEADS_N_THETA if args.n_theta is None else args.n_theta
    n_alpha = HEADS_N_ALPHA if args.n_alpha is None else args.n_alpha
    theta_max = HEADS_THETA_MAX if args.theta_max is None else args.theta_max
    alpha_min = HEADS_ALPHA_MIN if args.alpha_min is None else args.alpha_min
    check_grid(n_theta, n_alpha)
    thetas, alphas = heads_grid(theta_max, alpha_min, n_theta, n_alpha)
    with executor_from_args(args) as ex, stderr_progress() as bar:
        task = bar.add_task(f"certifying the states of {model.heads} heads", total=None)
        diagram = heads_diagram(model, thetas, alphas, executor=ex,
                                progress=lambda done, total: bar.update(task, completed=done, total=total))
    doc = diagram.as_dict()
    json_path, png_path, _ = _save_json_and_figure(args.out, "heads_phase.json", doc, "heads_phase.png",
                                                   lambda path: plot_heads_phase(doc, path))
    doc.update({"diagram_file": str(json_path), "figure": str(png_path)})
    if args.json:
        emit_json(doc)
    else:
        print("\n".join(_heads_table(diagram)))
        print(f"Wrote {json_path} and {png_path}.")
    return 0


#: the kinds as the table prints them
SHORT_KINDS = {"specialised": "spec", "mixture": "mix", "shared-direction": "shared",
               "recovered-shared": "rec-shared", "tilted": "tilted"}


def _heads_table(diagram) -> list:
    """The stable kinds per grid point: a row per theta, a column per alpha."""
    lines = [f"stable states of {diagram.heads} heads, {diagram.law}, beta={diagram.beta:g}, "
             f"sigma2={diagram.sigma2:g}: the kinds certified stable at each point (searched from "
             f"{diagram.n_random} random frames and {2 * diagram.k} rank-one starts; not proved complete)"]
    width = max([14] + [len(_heads_entry(c)) + 2 for c in diagram.cells])
    corner = "theta \\ alpha"
    lines.append(f"{corner:>14}" + "".join(f"{a:>{width}.4g}" for a in diagram.alphas))
    for t in diagram.thetas:
        lines.append(f"{t:>14.4g}" + "".join(f"{_heads_entry(diagram.cell(t, a)):>{width}}" for a in diagram.alphas))
    lines.append("spec = specialised, mix = mixture, shared = shared-direction (heads share a direction, some "
                 "direction is missed), rec-shared = recovered-shared (heads share a direction, every direction is "
                 "covered);")
    lines.append("'?n': n of the equilibria found there are undecided (neither stable, saddle nor unstable is proved)")
    lines.append(f"{sum(c.undecided for c in diagram.cells)} undecided boxes over {len(diagram.cells)} points; "
                 f"{diagram.seconds:.1f} s of certification")
    return lines


#: the runner of each mode of :func:`verify.studies.phase_mode`
_RUN = {"heads": _run_heads, "region-k2": _run_region_k2, "transition": _run_transition, "region": _run_region,
        "grid": _run_grid}


def _heads_entry(cell) -> str:
    text = "+".join(SHORT_KINDS.get(k, k) for k in cell.stable_kinds) or "none"
    return text + (f" ?{cell.undecided}" if cell.undecided else "")
