"""The flags of the overlap state shared by the commands (docs/guide/subspace.md).

A model with a k-dimensional signal law (``--prior 'onehot(k=2)'``) or several heads (``--heads H``)
has the overlap matrix ``M = U^T Q`` as its state; ``field``, ``simulate`` and ``predict`` take it
as comma-separated numbers (``--r``, ``--r0``). This module holds the flag types, the reshaping of
those numbers (:func:`verify.studies.check_overlaps` reshapes them into a ``k x H`` matrix).
"""

from __future__ import annotations

import argparse
import math

from ...theory import MAX_HEADS


def overlap_vector(text: str) -> tuple:
    """``argparse`` type of an overlap vector ``0.6,0.3``: comma-separated finite floats."""
    parts = [p.strip() for p in text.split(",")]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated numbers, e.g. 0.6,0.3, got {text!r}") from None
    if not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"must be finite numbers, got {text!r}")
    return values


def add_heads_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--heads", type=heads_count(MAX_HEADS), default=1,
                        help="number H of orthonormal heads (queries), default 1; H > 1 runs the subspace model "
                        "(with a scalar prior: k = 1, at most one head can align)")


def heads_count(limit: int):
    """``argparse`` type of ``--heads``: an integer in ``[1, limit]`` (each command sets its limit)."""

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if not 1 <= value <= limit:
            raise argparse.ArgumentTypeError(f"must be in [1, {limit}], got {value}")
        return value

    return parse
