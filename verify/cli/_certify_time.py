"""``sigrec certify --time-to RHO1 --rho0 RHO0``: the certified limit-flow time (point models).

Adds to the point certificate the enclosure of ``T(rho0 -> rho1) = int d rho / F`` of
:func:`theory.certified_time` (JSON key ``"time"``); refused with a range model, or when
only one of the two alignments is given.
"""

from __future__ import annotations

import math

from ...theory import certified_time
from ._limits import finite_float


def add_time_arguments(p) -> None:
    """The flags of the time enclosure on the ``certify`` parser."""
    p.add_argument("--time-to", type=finite_float, default=None, metavar="RHO1",
                   help="points only: also enclose the limit-flow time from --rho0 to RHO1 (both in (-1, 1), "
                   "in one basin, RHO1 reached by the flow; sparse regime: the 1/alpha-rescaled time)")
    p.add_argument("--rho0", type=finite_float, default=None, metavar="RHO0", help="start of --time-to")
    p.add_argument("--time-rtol", type=finite_float, default=1e-6,
                   help="relative width of the --time-to enclosure (default 1e-6; 1e-15 .. 0.1)")


def check_time_flags(args, ranges) -> None:
    """Refuse the time flags where they do not apply (ranges; one alignment without the other)."""
    if ranges and (args.time_to is not None or args.rho0 is not None):
        raise ValueError("--time-to and --rho0 need a point model (no range LO:HI)")
    if (args.time_to is None) != (args.rho0 is None):
        raise ValueError("--time-to RHO1 and --rho0 RHO0 go together (the time from RHO0 to RHO1)")


def time_doc(args, model, cert) -> dict:
    """``{"time": {...}}`` when asked (the enclosure, its rho0/rho1 and where the flow tends), else ``{}``."""
    if args.time_to is None:
        return {}
    try:
        enc = certified_time(model, args.rho0, args.time_to, rtol=args.time_rtol, prec=args.prec, certificate=cert)
    except ValueError as exc:  # name the flags, not the function's parameters
        text = str(exc)
        for name, flag in _FLAGS.items():
            text = text.replace(f"`{name}`", flag)
        raise ValueError(text) from None
    if not math.isfinite(enc.hi):
        raise ValueError(f"`model`: the time from rho0 = {args.rho0!r} to rho1 = {args.time_to!r} exceeds the float "
                         f"range")
    return {"time": enc.as_dict()}


#: parameter of :func:`theory.certified_time` -> the flag that sets it
_FLAGS = {"rho1": "`--time-to` (rho1)", "rho0": "`--rho0`", "rtol": "`--time-rtol`"}


def print_time(out, doc: dict) -> None:
    """One line of the text output for ``doc["time"]`` (nothing when absent)."""
    t = doc.get("time")
    if t is None:
        return
    limit = t["basin"]["limit"]
    toward = f"rho = {limit['lo']:g}" if limit["lo"] == limit["hi"] else f"[{limit['lo']:.12g}, {limit['hi']:.12g}]"
    out.print(f"  time rho0 = {t['rho0']:g} -> rho1 = {t['rho1']:g}: T in [{t['lo']:.12g}, {t['hi']:.12g}] "
              f"(relative width {t['relative_width']:.2g}, {t['pieces']} pieces; the flow tends to {toward})")
