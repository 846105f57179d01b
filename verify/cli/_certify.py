"""``sigrec certify``: certified sign of the alignment field and its interior equilibria.

With a point value for every model flag it certifies one model (:func:`theory.certify`).
Any of ``--theta``, ``--alpha``, ``--beta``, ``--sigma2`` given as a range ``LO:HI``
certifies a parameter box instead (:func:`theory.certify_region`), and so does a prior
whose numeric parameters are ranges (``--prior 'gaussian(mu=0.5:1, tau=0.2)'``): a table
of the fractions proved monotone, bistable or undecided, and with ``--figure`` the leaf
boxes coloured by status under the closed-form boundary. The subtrees of the box run on
the executor (``--workers``, ``--scheduler``; :func:`numerics.certify_region_tasks`): the
same certificate either way. With a k-dimensional law (``--prior 'onehot(k=2)'``) it certifies
the equilibria of the subspace flow instead (:mod:`._subspace_certify`; point values only).
"""

from __future__ import annotations

import argparse
import math

import mpmath
from rich.console import Console
from rich.table import Table

from ...numerics import certify_region_tasks
from ...theory import RangedPrior, certify, parse_ranged_prior, parse_subspace_law, pole_exponents_mp, pole_signs
from ..render import draw_region, figure_path
from . import _subspace_certify
from ._args import (
    PRIOR_HELP,
    add_executor_arguments,
    add_json_flag,
    add_size_arguments,
    executor_from_args,
    model_from_args,
    prior_arg,
)
from ._certify_time import add_time_arguments, check_time_flags, print_time, time_doc
from ._limits import count, finite_float, limits_text
from ._output import emit_json
from ._subspace import add_heads_argument, refuse_heads

#: the model flags that take a range ``LO:HI``
RANGED = ("theta", "alpha", "beta", "sigma2")
#: default and limits of ``--min-width`` (relative to each range; below 1e-4 a run reaches
#: the box budget of certify_region near a boundary and takes tens of seconds)
MIN_WIDTH, MIN_WIDTH_LIMITS = 2.0 ** -10, (1e-4, 0.5)


def register(sub) -> None:
    p = sub.add_parser(
        "certify",
        help="certify monotonicity of the field by interval arithmetic",
        description="Certify the sign of j' on [-1, 1] with python-flint ball arithmetic; "
        "isolate interior equilibria in certified brackets with their stability. With a k-dimensional "
        "law (--prior 'onehot(k=2)'): every equilibrium of the overlap flow in a certified box with its "
        "stability, and for k = 2 whether the list is proved complete.",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--theta", type=_point_or_range, required=True, help="signal strength (>= 0), or a range LO:HI")
    add_size_arguments(p, fraction=True, alpha_type=_point_or_range, alpha_help="; or a range LO:HI inside (0, 1)")
    p.add_argument("--beta", type=_point_or_range, default=1.0, help="inverse temperature (> 0), default 1; or LO:HI")
    p.add_argument("--sigma2", type=_point_or_range, default=1.0, help="noise variance (> 0), default 1; or LO:HI")
    p.add_argument("--prior", type=_prior_or_range, default="fixed", metavar="PRIOR",
                   help=PRIOR_HELP + "; numbers may be ranges LO:HI, e.g. 'gaussian(mu=0.5:1, tau=0.2)' (region mode)")
    p.add_argument("--prec", type=count("prec"), default=128, help="working precision in bits (default 128)")
    p.add_argument("--min-width", type=finite_float, default=None,
                   help=f"ranges only: boxes narrower than this fraction of every range (alpha in log scale when "
                   f"its range spans a decade) are not split further (default 2^-10 = {MIN_WIDTH:.6g}; "
                   f"{MIN_WIDTH_LIMITS[0]:g} .. {MIN_WIDTH_LIMITS[1]:g})")
    p.add_argument("--figure", type=str, default=None, metavar="PATH",
                   help="ranges only: draw the leaf boxes coloured by status (PNG, and a PDF next to it)")
    add_heads_argument(p)
    add_executor_arguments(p, default_workers=1)
    add_time_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def _point_or_range(text: str):
    """argparse type: a finite float (as every model flag), or ``LO:HI`` as a pair of them."""
    if ":" not in text:
        return finite_float(text)
    parts = text.split(":")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"a range is LO:HI, got {text!r}")
    lo, hi = (finite_float(x) for x in parts)
    if not lo < hi:
        raise argparse.ArgumentTypeError(f"range LO:HI needs LO < HI (one value fixes the parameter), got {text!r}")
    return lo, hi


def _prior_or_range(text: str) -> str:
    """argparse type of ``--prior``: the canonical spec, ranges ``LO:HI`` allowed, a k-dimensional
    law (``onehot(k=2)``), or one clear message."""
    if ":" not in text:
        return prior_arg(text)
    try:
        return parse_ranged_prior(text).spec
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args) -> int:
    refuse_heads(args, "certify")
    ranges = [name for name in RANGED if isinstance(getattr(args, name), tuple)]
    if ":" not in args.prior and parse_subspace_law(args.prior).k > 1:
        _subspace_certify.refuse_flags(args, ranges)
        return _subspace_certify.run(args, args.prior)
    ranged_prior = isinstance(parse_ranged_prior(args.prior), RangedPrior)
    check_time_flags(args, ranges + (["prior"] if ranged_prior else []))
    if ranges or ranged_prior:
        return _run_region(args)
    for flag in ("min_width", "figure", "scheduler"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} needs a range LO:HI in --theta, --alpha, --beta, --sigma2 "
                             f"or --prior")
    if args.workers != 1:
        raise ValueError("--workers needs a range LO:HI in --theta, --alpha, --beta, --sigma2 or --prior")
    model = model_from_args(args)
    cert = certify(model, prec=args.prec)
    # the labels come from ball arithmetic (they never contradict the certificate); the
    # values from mpmath, printed at any magnitude (float64 may round them to -0 or -inf)
    signs = pole_signs(model, prec=args.prec)
    values = pole_exponents_mp(model)
    poles = {}
    for key, sign, value in zip(("plus", "minus"), signs, values):
        as_float = float(value)
        poles[key] = {"stability": _LABEL[sign], "exponent_text": mpmath.nstr(value, 6)}
        if math.isfinite(as_float) and (as_float != 0 or value == 0):
            poles[key]["exponent"] = as_float
    doc = {"model": model.as_dict(), **cert.as_dict(), "poles": poles, **time_doc(args, model, cert)}
    if args.json:
        emit_json(doc)
        return 0
    out = Console()
    word = {"monotone": "[green]monotone[/]", "bistable": "[yellow]bistable[/]",
            "undecided": "[magenta]undecided[/]", "degenerate": "[red]degenerate[/]"}[cert.status]
    out.print(f"{word} ({'certified' if cert.certified else 'NOT certified'}; {cert.boxes} boxes at {cert.prec} bits)")
    out.print(f"  certified sign of: {cert.sign_function}")
    for e in cert.equilibria:
        where = f"rho* = {e.lo:g} (exact)" if e.exact else f"rho* in [{e.lo:.12f}, {e.hi:.12f}]"
        out.print(f"  interior equilibrium {where}: {e.stability}")
    for lo, hi in cert.undecided:
        out.print(f"  undecided on [{lo:.12g}, {hi:.12g}]")
    out.print(f"  F'(+1) = {poles['plus']['exponent_text']} ({poles['plus']['stability']}),  "
              f"F'(-1) = {poles['minus']['exponent_text']} ({poles['minus']['stability']})")
    for n in cert.notes:
        out.print(f"  note: {n}")
    print_time(out, doc)
    return 0


#: certified sign of a pole exponent -> label (0: zero or not decided at MAX_PREC bits)
_LABEL = {-1: "stable", 1: "unstable", 0: "neutral or undecided"}


# ----------------------------------------------------------------------------------
# a box of parameters


def _run_region(args) -> int:
    min_width = MIN_WIDTH if args.min_width is None else args.min_width
    lo, hi = MIN_WIDTH_LIMITS
    if not lo <= min_width <= hi:
        raise ValueError(f"`min-width` must lie in [{lo:g}, {hi:g}] (relative width of a box), got {min_width!r}")
    figure = figure_path(args.figure) if args.figure is not None else None
    with executor_from_args(args):
        cert = certify_region_tasks(args.theta, args.alpha, args.beta, args.sigma2, args.prior, min_width=min_width,
                                    prec=args.prec)
    if figure is not None:
        draw_region(cert, figure)
    doc = cert.as_dict()
    if figure is not None:
        doc["figure"] = str(figure)
    if args.json:
        emit_json(doc)
        return 0
    region = cert.region
    out = Console()
    ranges = ", ".join(f"{k} in [{a:g}, {b:g}]" for k, (a, b) in region["ranges"].items())
    fixed = ", ".join(f"{k} = {v:g}" for k, v in region["fixed"].items())
    measure = ", ".join(f"{k} {s}" for k, s in region["scale"].items())
    out.print(f"region {ranges} ({fixed}, prior {region['prior']}); measure: {measure}")
    table = Table("status", "fraction", "boxes")
    for status in ("monotone", "bistable", "undecided"):
        n = sum(1 for b in cert.boxes if b.status == status)
        table.add_row(status, f"{cert.fractions[status]:.4%}", str(n))
    out.print(table)
    word = "certified" if cert.certified else "NOT certified (a proof failed its audit: a bug)"
    out.print(f"{cert.boxes_count} boxes, {cert.seconds:.2f} s, min width {region['min_width']:.3g}: {word}")
    if region["ranges"].get("theta", [1.0])[0] == 0:
        out.print("  theta = 0: the field vanishes there; each box's claim starting at theta = 0 is for theta > 0")
    if cert.fractions["undecided"]:
        out.print("  undecided: boxes down to the min width where no status holds on the whole box "
                  "(a phase boundary crosses them, or a root sits at a pole)")
    if figure is not None:
        out.print(f"  wrote {figure}")
    return 0
