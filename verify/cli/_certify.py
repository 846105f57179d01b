"""``sigrec certify``: certified sign of the alignment field and its interior equilibria."""

from __future__ import annotations

import argparse

from rich.console import Console

import math

import mpmath

from ...theory import certify, pole_exponents_mp, pole_signs

from ._args import add_json_flag, add_model_arguments, model_from_args
from ._limits import count, limits_text
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "certify",
        help="certify monotonicity of the field by interval arithmetic",
        description="Certify the sign of j' on [-1, 1] with python-flint ball arithmetic; "
        "isolate interior equilibria in certified brackets with their stability.",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_arguments(p)
    p.add_argument("--prec", type=count("prec"), default=128, help="working precision in bits (default 128)")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
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
    doc = {"model": model.as_dict(), **cert.as_dict(), "poles": poles}
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
    return 0


#: certified sign of a pole exponent -> label (0: zero or not decided at MAX_PREC bits)
_LABEL = {-1: "stable", 1: "unstable", 0: "neutral or undecided"}
