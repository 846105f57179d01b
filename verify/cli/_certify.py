"""``sigrec certify``: certified sign of the alignment field and its interior equilibria.

With a point value for every model flag it certifies one model (:func:`theory.certify`).
Any of ``--theta``, ``--alpha``, ``--beta``, ``--sigma2`` given as a range ``LO:HI``
certifies a parameter box instead (:func:`theory.certify` of a :class:`theory.ModelBox`), and so does a prior
whose numeric parameters are ranges (``--prior 'gaussian(mu=0.5:1, tau=0.2)'``): a table
of the fractions proved monotone, bistable or undecided, and with ``--figure`` the leaf
boxes coloured by status under the closed-form boundary. The subtrees of the box run on
the executor (``--workers``, ``--scheduler``; :func:`numerics.certify_region_tasks`): the
same certificate either way. With a k-dimensional law (``--prior 'onehot(k=2)'``) the same call
certifies the equilibria of the subspace flow and whether their list is complete (a
:class:`theory.SubspaceCertificate`; point values only). With ``--heads H > 1`` it certifies the
equilibria of the heads' reduced flow found from random starts (a :class:`theory.HeadsCertificate`:
each in a Krawczyk box with its feasibility, stability and kind; the list is not proved complete).
"""

from __future__ import annotations

import argparse

from rich.console import Console

from ...theory import ModelBox, RangedPrior, parse_law, parse_ranged_prior
from ..render import certify_text, draw_region, figure_path
from ..studies import certify_study
from ._args import (
    PRIOR_HELP,
    add_executor_arguments,
    add_json_flag,
    add_size_arguments,
    executor_from_args,
    model_from_args,
    prior_arg,
)
from ._certify_time import add_time_arguments, check_time_flags, flow_time, time_flags
from ._limits import count, finite_float, limits_text
from ._output import emit_json
from ._subspace import add_heads_argument

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
        "stability, and for k = 2 whether the list is proved complete. With --heads H > 1: the equilibria of the "
        "heads' reduced flow found from random starts, each in a certified box with its stability (not a complete "
        "list).",
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
    target, min_width, figure = _target(args)
    with executor_from_args(args), time_flags():
        result = certify_study(target, args.prec, min_width, flow_time(args), figure)
    if figure is not None:
        draw_region(result.certificate, figure, result.lines)
    if args.json:
        emit_json(result.as_dict())
        return 0
    text = certify_text(result)
    show = Console().print if text.rich else print
    for line in text.lines:
        show(line)
    return 0


def _target(args) -> tuple:
    """The model or box the flags give (checked together), its ``--min-width`` and ``--figure``."""
    ranges = [name for name in RANGED if isinstance(getattr(args, name), tuple)]
    if ":" not in args.prior and parse_law(args.prior).k > 1 and ranges:
        raise ValueError(f"ranges LO:HI (in --{ranges[0].replace('_', '-')}) are for scalar priors (the region "
                         "certificate of one signal direction); with a k-dimensional law give point values")
    ranged_prior = ":" in args.prior and isinstance(parse_ranged_prior(args.prior), RangedPrior)
    if (ranges or ranged_prior) and args.heads > 1:
        raise ValueError("`heads` > 1 certifies the equilibria of the heads' reduced flow at one model: give point "
                         "values (ranges LO:HI are for one query on one signal direction)")
    check_time_flags(args, ranges + (["prior"] if ranged_prior else []))
    if ranges or ranged_prior:
        min_width = MIN_WIDTH if args.min_width is None else args.min_width
        lo, hi = MIN_WIDTH_LIMITS
        if not lo <= min_width <= hi:
            raise ValueError(f"`min-width` must lie in [{lo:g}, {hi:g}] (relative width of a box), got {min_width!r}")
        figure = figure_path(args.figure) if args.figure is not None else None
        return ModelBox(args.theta, args.alpha, args.beta, args.sigma2, args.prior), min_width, figure
    for flag in ("min_width", "figure", "scheduler"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} needs a range LO:HI in --theta, --alpha, --beta, --sigma2 "
                             f"or --prior")
    if args.workers != 1:
        raise ValueError("--workers needs a range LO:HI in --theta, --alpha, --beta, --sigma2 or --prior")
    return model_from_args(args), None, None
