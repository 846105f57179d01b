"""``sigrec field``: the limit objective, slope, field and nuisance mass at given alignments."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ...theory import evaluate

from ._args import add_json_flag, add_model_arguments, finite_float, model_from_args
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "field",
        help="evaluate j(rho), j'(rho), F(rho) and the nuisance mass",
        description="Evaluate the limit objective j, its slope j', the alignment field "
        "F = (1 - rho^2) j' and the limit nuisance attention mass at the given alignments.",
    )
    add_model_arguments(p)
    p.add_argument("--rho", type=finite_float, nargs="+", required=True, help="alignments in [-1, 1]")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    model = model_from_args(args)
    bad = [r for r in args.rho if not -1.0 <= r <= 1.0]
    if bad:
        raise ValueError(f"`rho` must lie in [-1, 1], got {bad[0]!r}")
    vals = evaluate(model, args.rho)
    points = [
        {
            "rho": float(vals.rho[i]),
            "objective": float(vals.objective[i]),
            "slope": float(vals.slope[i]),
            "field": float(vals.field[i]),
            "noise_mass": float(vals.noise_mass[i]),
        }
        for i in range(len(args.rho))
    ]
    if args.json:
        emit_json({"model": model.as_dict(), "points": points})
        return 0
    t = Table(title=f"limit field, {model.prior} prior, theta={model.theta:g}, alpha={model.alpha:g}"
              + (" (sparse regime: rescaled by 1/alpha)" if model.sparse else "")
              + f", beta={model.beta:g}, sigma2={model.sigma2:g}")
    for col in ("rho", "objective j", "slope j'", "field F", "nuisance mass"):
        t.add_column(col, justify="right")
    for pt in points:
        t.add_row(*(f"{pt[k]:.8g}" for k in ("rho", "objective", "slope", "field", "noise_mass")))
    Console().print(t)
    return 0
