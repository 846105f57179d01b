"""``sigrec certify``: certified sign of the alignment field and its interior equilibria."""

from __future__ import annotations

import argparse
import math

from rich.console import Console

from ...theory import certify, pole_exponents

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
    exact = pole_exponents(model, exact=True)
    plus, minus = (_representable(model, x, pole) for x, pole in zip(exact, ("+1", "-1")))
    cert = certify(model, prec=args.prec)
    doc = {
        "model": model.as_dict(),
        **cert.as_dict(),
        "poles": {
            "plus": {"exponent": plus, "stability": _classify(exact[0])},
            "minus": {"exponent": minus, "stability": _classify(exact[1])},
        },
    }
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
    out.print(f"  F'(+1) = {plus:.6g} ({_classify(exact[0])}),  F'(-1) = {minus:.6g} ({_classify(exact[1])})")
    for n in cert.notes:
        out.print(f"  note: {n}")
    return 0


def _representable(model, exponent, pole: str) -> float:
    """``exponent`` (mpmath) as a float; refused (``ValueError``) when it overflows float64."""
    x = float(exponent)
    if not math.isfinite(x):
        raise ValueError(f"`theta`, `beta` or `sigma2` is too large for float64: the pole exponent F'({pole}) "
                         f"overflows; got theta={model.theta!r}, beta={model.beta!r}, sigma2={model.sigma2!r}")
    return x


def _classify(exponent) -> str:
    """Stability of a pole from the sign of its exponent (the exact one: a float can
    underflow to ``-0.0``)."""
    if exponent < 0:
        return "stable"
    if exponent > 0:
        return "unstable"
    return "neutral"
