"""``sigrec certify --time-to RHO1 --rho0 RHO0``: the certified limit-flow time (point models).

Adds to the point certificate the enclosure of ``T(rho0 -> rho1) = int d rho / F`` of
:func:`theory.certified_time` (JSON key ``"time"``, computed by :func:`verify.studies.certify_study`);
refused with a range model, or when only one of the two alignments is given.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..studies import FlowTime
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


def flow_time(args) -> FlowTime | None:
    """The flow time the flags ask for (``None`` without ``--time-to``)."""
    return None if args.time_to is None else FlowTime(args.rho0, args.time_to, args.time_rtol)


@contextmanager
def time_flags():
    """Errors of :func:`theory.certified_time` name the flags, not the function's parameters."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        for name, flag in _FLAGS.items():
            text = text.replace(f"`{name}`", flag)
        raise ValueError(text) from None


#: parameter of :func:`theory.certified_time` -> the flag that sets it
_FLAGS = {"rho1": "`--time-to` (rho1)", "rho0": "`--rho0`", "rtol": "`--time-rtol`"}
