"""Argument helpers shared by the commands (model flags, finite floats)."""

from __future__ import annotations

import argparse
import math

from theory import PRIORS, Model


def finite_float(text: str) -> float:
    """argparse type: a finite float (``nan``/``inf`` refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite: {text!r}")
    return value


def add_model_arguments(parser: argparse.ArgumentParser, need_alpha: bool = True) -> None:
    parser.add_argument("--theta", type=finite_float, required=True, help="signal strength (>= 0)")
    if need_alpha:
        parser.add_argument(
            "--alpha", type=finite_float, required=True,
            help="informative fraction R/L in [0, 1]; 0 = sparse regime (field rescaled by 1/alpha)",
        )
    parser.add_argument("--beta", type=finite_float, default=1.0, help="inverse temperature (> 0), default 1")
    parser.add_argument("--sigma2", type=finite_float, default=1.0, help="noise variance (> 0), default 1")
    parser.add_argument("--prior", choices=PRIORS, default="fixed", help="signal prior, default fixed")


def model_from_args(args) -> Model:
    return Model(theta=args.theta, alpha=args.alpha, beta=args.beta, sigma2=args.sigma2, prior=args.prior)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout (nothing else)")
