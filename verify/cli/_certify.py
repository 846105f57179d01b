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
import math

import mpmath
from rich.console import Console
from rich.table import Table

from ...numerics import certify_region_tasks
from ...theory import (
    Certificate,
    ModelBox,
    RangedPrior,
    RegionOptions,
    certify,
    parse_law,
    parse_ranged_prior,
    pole_exponents_mp,
    pole_signs,
)
from ..render import draw_region, figure_path
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
from ._subspace import add_heads_argument, model_line

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
        return _run_region(args)
    for flag in ("min_width", "figure", "scheduler"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} needs a range LO:HI in --theta, --alpha, --beta, --sigma2 "
                             f"or --prior")
    if args.workers != 1:
        raise ValueError("--workers needs a range LO:HI in --theta, --alpha, --beta, --sigma2 or --prior")
    model = model_from_args(args)
    if model.heads > 1:
        return _run_heads(args, model)
    cert = certify(model, prec=args.prec)
    if not isinstance(cert, Certificate):
        return _print_subspace(args, model, cert)
    # the labels come from ball arithmetic (they never contradict the certificate); the
    # values from mpmath, printed at any magnitude (float64 may round them to -0 or -inf)
    signs = pole_signs(model, prec=args.prec)
    values = pole_exponents_mp(model)
    poles = {}
    for key, sign, value in zip(("plus", "minus"), signs, values, strict=True):
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
        cert = certify_region_tasks(ModelBox(args.theta, args.alpha, args.beta, args.sigma2, args.prior),
                                    RegionOptions(min_width=min_width, prec=args.prec))
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


# ----------------------------------------------------------------------------------
# a k-dimensional signal: the certified equilibria of the overlap flow


def _print_subspace(args, model, cert) -> int:
    """The subspace engine's certificate: every equilibrium's box, kind and stability, and completeness."""
    if args.time_to is not None:
        raise ValueError("--time-to and --rho0 certify the flow time of one query on one signal direction "
                         "(a scalar prior)")
    comp = cert.completeness
    equilibria = []
    for b in cert.boxes:
        eq = {"r": [list(x) for x in b.bounds()], "start": list(b.start), "kind": b.classification,
              "label": b.label, "location": b.kind,
              "stability": b.status,
              "certified": b.certified}
        if b.kind == "sphere" and b.certified:
            eq["radial_sign"] = b.radial_sign
            eq["tangent_inertia"] = list(b.tangent_inertia)
            if b.tangent_eigenvalue is not None:
                eq["tangent_eigenvalue"] = list(b.as_dict()["tangent_eigenvalue"])
        elif b.certified:
            eq["hessian_inertia"] = list(b.tangent_inertia)
        if b.reason:
            eq["reason"] = b.reason
        equilibria.append(eq)
    doc = {"model": model.as_dict(), "equilibria": equilibria, "certified": cert.certified,
           "complete": comp.complete, "completeness": comp.as_dict(), "prec": cert.prec,
           "notes": [n for n in cert.notes if not n.startswith("completeness is not certified")] + (
               [] if comp.complete else [f"completeness not proved: {comp.reason}"])}
    if args.json:
        emit_json(doc)
        return 0
    print(f"subspace equilibria: {model_line(model)}")
    n_cert = sum(1 for b in cert.boxes if b.certified)
    print(f"  {len(equilibria)} equilibria found numerically; {n_cert} certified, each in a box holding exactly "
          f"one with its stability ({cert.prec} bits)" + ("" if cert.certified else "; NOT all certified"))
    for b, eq in zip(cert.boxes, equilibria, strict=True):
        box = f"({', '.join(f'{x:+.12f}' for x in b.start)}) (numerical, no certified box)"
        if eq["r"]:
            mid = ", ".join(f"{(lo + hi) / 2:+.12f}" for lo, hi in eq["r"])
            box = f"({mid}) +- {max((hi - lo) / 2 for lo, hi in eq['r']):.0e}"
        extra = ""
        if "tangent_eigenvalue" in eq:
            lo, hi = eq["tangent_eigenvalue"]
            extra = f"  tangent eigenvalue in [{lo:.6g}, {hi:.6g}]"
        elif "tangent_inertia" in eq:
            extra = f"  tangent inertia (neg, pos) {tuple(eq['tangent_inertia'])}"
        elif "hessian_inertia" in eq:
            extra = f"  inertia of H (neg, pos) {tuple(eq['hessian_inertia'])}"
        if "radial_sign" in eq:
            extra += f", radial {'-' if eq['radial_sign'] < 0 else '+'}"
        print(f"  {eq['kind']:<19} {eq['location']:<9} {eq['stability']:<10} r = {box}{extra}")
        if "reason" in eq:
            print(f"      undecided: {eq['reason']}")
    if comp.complete:
        print("  the list is COMPLETE (certified: the circle and disk certificates count the same equilibria)")
    else:
        print(f"  the list is NOT proved complete: {comp.reason}")
    for n in doc["notes"]:
        if not n.startswith("completeness not proved"):
            print(f"  note: {n}")
    return 0


# ----------------------------------------------------------------------------------
# several heads: the certified equilibria of the reduced flow of M = U^T Q


def _matrix(values, shape) -> str:
    k, n = shape
    rows = ("[" + ", ".join(f"{values[i * n + h]:+.10f}" for h in range(n)) + "]" for i in range(k))
    return "[" + ", ".join(rows) + "]"


def _run_heads(args, model) -> int:
    """The heads' certificate: every equilibrium found, its box, kind, stability and angles."""
    if args.time_to is not None:
        raise ValueError("--time-to and --rho0 certify the flow time of one query on one signal direction "
                         "(a scalar prior, one head)")
    cert = certify(model, prec=args.prec)
    doc = cert.as_dict()
    if args.json:
        emit_json(doc)
        return 0
    print(f"heads equilibria: {model_line(model)}, H = {model.heads}")
    n_cert = sum(1 for b in cert.boxes if b.certified)
    print(f"  {len(cert.boxes)} equilibria found numerically from random starts; {n_cert} certified, each in a box "
          f"holding exactly one with its feasibility and stability ({cert.prec} bits, {cert.seconds:.1f} s)"
          + ("" if cert.certified else "; NOT all certified"))
    for b, eq in zip(cert.boxes, doc["boxes"], strict=True):
        if eq["box"]:
            mid = [(lo + hi) / 2 for lo, hi in eq["box"]]
            where = f"M = {_matrix(mid, b.shape)} +- {max(float(x.rad()) for x in b.box):.0e}"
        else:
            where = f"M = {_matrix(list(b.start), b.shape)} (numerical, no certified box)"
        print(f"  {b.status:<10} {b.kind or '-':<17} {where}")
        if b.eigenvalues:
            re = [e["real"] for e in eq["eigenvalues"]]
            angles = ", ".join(f"{(lo + hi) / 2:.6f}" for lo, hi in eq["angles"])
            print(f"      Re(eigenvalues) in [{min(r[0] for r in re):.6g}, {max(r[1] for r in re):.6g}], "
                  f"inertia (neg, pos) {tuple(b.inertia) if b.inertia else None}; {b.feasibility} "
                  f"(unit singular values: {b.unit_singular_values}); principal angles ({angles})")
        if b.reason:
            print(f"      undecided: {b.reason}")
    print("  the list is NOT proved complete: it holds the equilibria found from the starts")
    for n in doc["notes"]:
        if not n.startswith("completeness is not certified"):
            print(f"  note: {n}")
    return 0
