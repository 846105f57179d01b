"""Resource limits of the command line, checked before any work starts.

Every size a user can type is bounded here, in one table, with the reason. A value
beyond its limit is refused up front with one ``error:`` line that names the
parameter, the limit and the reason, instead of running for hours or growing until
the machine kills the process. The library (``theory``, ``numerics``) keeps its own,
looser validation; these limits belong to the command line.

Integer flags accept integer-valued scientific notation (``--steps 1e3``); a
fractional value (``--batch 2.5``) is refused.
"""

from __future__ import annotations

import argparse
import math
import re

from ...numerics import available_memory, kernel_floats
from ..suite import MAX_NAME_CHARS

#: ``name: (minimum, maximum, reason)`` for every integer flag of the CLI
INT_LIMITS: dict[str, tuple[int, int, str]] = {
    "L": (1, 10**7, "tokens per sequence; one run holds a few L-vectors per step"),
    "R": (0, 10**7, "informative tokens, at most L"),
    "N": (1, 10**7, "nuisance tokens (L = R + N)"),
    "d": (2, 10**5, "dimension; the full simulator holds an L x d array per run"),
    "steps": (1, 10**7, "iterations; the trajectory holds one value per run and recorded step"),
    "runs": (1, 10**5, "independent runs, simulated side by side"),
    "batch": (1, 10**4, "token collections drawn per step"),
    "stride": (1, 10**7, "record every STRIDE steps"),
    "seed": (0, 2**63 - 1, "a 63-bit seed (SeedSequence entropy)"),
    "workers": (1, 256, "worker processes"),
    "models": (1, 10**4, "random models of `validate`, each a unit of Monte Carlo work"),
    "prec": (53, 4096, "ball-arithmetic precision in bits; the cost grows faster than linearly"),
    "n-theta": (2, 512, "phase grid columns, each certified separately"),
    "n-alpha": (2, 512, "phase grid rows, each certified separately"),
    "max-boxes": (1, 10**6, "leaves of the k = 2 region certificate (phase --region), each a proof attempt of "
                            "up to a second"),
    "L-max": (2, 2**20, "largest size of the `limit` ladder; each size draws a few thousand token collections "
                        "of L tokens per alignment"),
    "horizon": (1, 10**7, "step cap of the diffusion paths of `complexity`; one step size per step is held in "
                          "memory and each path may take every step"),
}

#: ``name: (minimum, maximum, reason)`` for float flags whose size drives the cost
FLOAT_LIMITS: dict[str, tuple[float, float, str]] = {
    "power": (0.0, 10.0, "the exact Robbins-Monro series test (sympy) is slow for large exponents"),
    "k0": (1e-12, 1e12, "the exact Robbins-Monro series test needs a moderate rational offset"),
    "alpha-min": (1e-12, 1.0, "smallest alpha of the log-spaced phase grid (normal floats only)"),
    "theta-max": (1e-6, 1e6, "largest theta of the phase grid"),
    "beta": (1e-6, 1e3, "phase: the closed-form boundary overflows and certification slows at extreme beta"),
    "sigma2": (1e-6, 1e6, "phase: noise variance of the grid"),
}

#: at most this many normal draws in one ``simulate`` call (about 3 hours at 1e8 draws/s)
MAX_DRAWS = 10**12
#: a ``simulate`` call may use at most this fraction of the available memory
MEMORY_FRACTION = 0.5
#: the memory estimate multiplies the arrays' bytes by this factor (temporaries)
MEMORY_FACTOR = 3
#: at most this many points in ``field --rho`` and ``predict`` output rows
MAX_POINTS = 10**6
#: at most this many cells in the phase grid (n_theta x n_alpha)
MAX_GRID_CELLS = 65536
#: seconds a ``--scheduler`` address gets to answer as a dask scheduler (TCP connect, dask
#: handshake, one ``identity`` request) before it is refused: a scheduler answers in
#: milliseconds, a starting one or a slow network within seconds; anything that accepts the
#: connection but does not speak the dask protocol (an HTTP server) would otherwise hang
SCHEDULER_TIMEOUT_S = 10.0

#: ``--cases FILE.toml``: at most this many bytes; the file is read whole and parsed in memory
#: (a ``[[case]]`` table takes a few hundred bytes); devices, pipes and folders are refused
MAX_CASES_BYTES = 2**20
#: ``--cases FILE.toml``: arrays and inline tables nested at most this deep, checked by a scan
#: before parsing (the schema needs 2; Python's TOML parser recurses once per level)
MAX_TOML_DEPTH = 32
#: ``--name`` and a case's ``name``: at most this many characters, the library's rule
#: (``verify.suite.case_name``: the name is part of figure file names, at most 255 bytes)
NAME_CHARS = MAX_NAME_CHARS

_INT_TEXT = re.compile(r"^[-+]?\d+$")


def _fmt(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def count(name: str):
    """argparse type for the integer flag ``name``: an integer (integer-valued
    scientific notation such as ``1e3`` accepted) within :data:`INT_LIMITS`."""
    lo, hi, reason = INT_LIMITS[name]

    def parse(text: str) -> int:
        text = text.strip()
        if _INT_TEXT.match(text):
            value = int(text)
        else:
            try:
                x = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"invalid int value {text!r}: `{name}` must be an integer") from None
            if not math.isfinite(x) or not x.is_integer():
                raise argparse.ArgumentTypeError(f"invalid int value {text!r}: `{name}` must be an integer")
            value = int(x)
        if value < lo:
            raise argparse.ArgumentTypeError(f"`{name}` must be >= {lo}, got {text}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"`{name}` must be <= {hi} ({reason}), got {text}")
        return value

    parse.__name__ = name  # argparse shows it in "invalid <name> value" messages
    return parse


def finite_float(text: str) -> float:
    """argparse type: a finite float (``nan``/``inf`` refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite: {text!r}")
    return value


def bounded(name: str):
    """argparse type for the float flag ``name``: finite and within :data:`FLOAT_LIMITS`."""
    lo, hi, reason = FLOAT_LIMITS[name]

    def parse(text: str) -> float:
        x = finite_float(text)
        if not lo <= x <= hi:
            raise argparse.ArgumentTypeError(f"`{name}` must lie in [{_fmt(lo)}, {_fmt(hi)}] ({reason}), got {text}")
        return x

    parse.__name__ = name
    return parse


def _gib(n: float) -> str:
    return f"{n / 2**30:.3g} GiB"


def check_simulation(*, simulator: str, runs: int, steps: int, stride: int, L: int, d: int, batch: int) -> None:
    """Refuse (``ValueError``) a ``simulate`` call whose arrays cannot fit in memory or
    whose random draws cannot finish in reasonable time; nothing is allocated."""
    recorded = steps // stride + 2
    per_step = L * d if simulator == "full" else 3 * L + 2
    work = runs * kernel_floats(simulator, L, d)
    need = 8 * MEMORY_FACTOR * (work + 3 * runs * recorded + steps)
    budget = MEMORY_FRACTION * available_memory()
    if need > budget:
        raise ValueError(
            f"`runs` x `L`{' x `d`' if simulator == 'full' else ''} and `steps` / `stride` need about {_gib(need)} "
            f"of memory, more than the limit of {_gib(budget)} ({MEMORY_FRACTION:g} of the available memory): "
            f"runs={runs}, L={L}, d={d}, steps={steps}, stride={stride}")
    draws = runs * steps * batch * per_step
    if draws > MAX_DRAWS:
        raise ValueError(
            f"`runs` x `steps` x `batch` x {'L x d' if simulator == 'full' else '4L'} = {draws:.3g} random draws, "
            f"more than the limit of {MAX_DRAWS:.0e} (about 3 hours at 1e8 draws/s)")


def check_prediction(*, steps: int, stride: int) -> None:
    """Refuse a ``predict`` call whose output table is too long."""
    rows = steps // stride + 2
    if rows > MAX_POINTS:
        raise ValueError(f"`steps` / `stride` = {rows - 2} output rows, more than the limit of {MAX_POINTS} "
                         f"(use a larger --stride)")


def check_grid(n_theta: int, n_alpha: int) -> None:
    """Refuse a phase grid with too many cells to certify in reasonable time."""
    if n_theta * n_alpha > MAX_GRID_CELLS:
        raise ValueError(f"`n-theta` x `n-alpha` = {n_theta * n_alpha} grid cells, more than the limit of "
                         f"{MAX_GRID_CELLS} (each cell is certified separately)")


def limits_text() -> str:
    """The limits as text, for ``--help`` epilogs and the README."""
    lines = ["limits (checked before any work; docs: verify/cli/_limits.py):"]
    for name, (lo, hi, reason) in INT_LIMITS.items():
        lines.append(f"  --{name:<10} {lo} .. {hi}: {reason}")
    for name, (flo, fhi, reason) in FLOAT_LIMITS.items():
        lines.append(f"  --{name:<10} {_fmt(flo)} .. {_fmt(fhi)}: {reason}")
    lines.append(f"  simulate: runs x steps x batch x (4L reduced | L x d full) <= {MAX_DRAWS:.0e} random draws; "
                 f"arrays x {MEMORY_FACTOR} <= {MEMORY_FRACTION:g} x MemAvailable")
    lines.append(f"  predict: steps / stride <= {MAX_POINTS} rows; phase: n-theta x n-alpha <= {MAX_GRID_CELLS}")
    lines.append(f"  verify: --name <= {NAME_CHARS} printable characters, none of / \\ : * ? \" < > |; "
                 f"--cases: a regular file of <= {MAX_CASES_BYTES // 2**20} MiB nesting <= {MAX_TOML_DEPTH} deep")
    return "\n".join(lines)
