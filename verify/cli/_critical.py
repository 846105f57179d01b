"""``sigrec critical``: how many informative tokens make the landscape monotone (any prior)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape

from ...theory import thresholds
from ._args import add_json_flag, add_model_arguments
from ._limits import count, limits_text
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "critical",
        help="the thresholds: alpha_c, the smallest monotone R at given N, the largest N at given R",
        description="The informative fraction alpha_c above which the alignment field is monotone, for any "
        "prior, from the certificate (ball arithmetic) on a grid of alpha with every change of status "
        "bisected; the fixed prior's closed form alongside; the sparse threshold theta* = c*/beta. "
        "With --N: the smallest R that makes the landscape monotone; with --R: the largest N; both "
        "certified at the count and its neighbour.",
        epilog=limits_text(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_arguments(p, need_alpha=False)
    p.add_argument("--N", type=count("N"), default=None, help="nuisance tokens: report the smallest monotone R")
    p.add_argument("--R", type=count("R"), default=None, help="informative tokens: report the largest monotone N")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    th = thresholds(args.theta, args.beta, args.sigma2, args.prior)
    model = ("theta", "beta", "sigma2", "prior")
    doc = {"model": {k: getattr(th, k) for k in model},
           **{k: v for k, v in th.as_dict().items() if k not in model}}
    if args.N is not None:
        doc["smallest_R"] = th.smallest_R(args.N)
    if args.R is not None:
        doc["largest_N"] = th.largest_N(args.R)
    if args.json:
        emit_json(doc)
        return 0
    out = Console(highlight=False, soft_wrap=True)
    out.print(f"critical: theta={th.theta:g}, beta={th.beta:g}, sigma2={th.sigma2:g}, prior={escape(th.prior)}")
    out.print(f"  {th.message}")
    if th.closed_form is not None:
        out.print(f"  closed form (fixed prior): alpha_c = {th.closed_form:.10g}")
    for t in th.transitions:
        out.print(f"  {t.below} -> {t.above} between alpha = {t.lo:.10g} and {t.hi:.10g} (both ends certified)")
    if th.pole_alphas:
        out.print("  F'(-1) changes sign at alpha = " + ", ".join(f"{a:.10g}" for a in th.pole_alphas))
    out.print(f"  sparse threshold theta* = {th.sparse_threshold:.6g} (alpha -> 0 is monotone iff theta <= theta*)")
    for key, other in (("smallest_R", "N"), ("largest_N", "R")):
        if key in doc:
            r = doc[key]
            if not r["exists"]:
                out.print(f"  {key.replace('_', ' ')} at {other} = {r[other]}: none ({r['reason']})")
            else:
                name = key.split("_")[1]
                out.print(f"  {key.replace('_', ' ')} at {other} = {r[other]}: {name} = {r[name]} "
                          f"(alpha = {r['alpha']:.6g}; {'certified' if r['certified'] else 'NOT certified'})")
    return 0
