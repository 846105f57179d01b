"""The flags of the overlap state shared by the commands (docs/guide/subspace.md).

A model with a k-dimensional signal law (``--prior 'onehot(k=2)'``) or several heads (``--heads H``)
has the overlap matrix ``M = U^T Q`` as its state; ``field``, ``simulate`` and ``predict`` take it
as comma-separated numbers (``--r``, ``--r0``). This module holds the flag types, the reshaping of
those numbers into a ``k x H`` matrix, and the one-line description of a model the commands print.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ...theory import MAX_HEADS
from ..render import model_line as model_line  # the one-line model the commands print


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


def check_overlaps(name: str, r, k: int, heads: int = 1) -> np.ndarray:
    """``r`` (a flat tuple) as a ``k x heads`` array (row-major) with operator norm ``<= 1``
    (``|r| <= 1`` for one head); else ``ValueError`` naming ``name``."""
    if len(r) != k * heads:
        shape = (f"{k} entries (k = {k})" if heads == 1
                 else f"k x H = {k * heads} entries (row-major, k = {k}, H = {heads})")
        raise ValueError(f"`{name}` must have {shape}, got {len(r)}: {','.join(f'{x:g}' for x in r)}")
    M = np.array(r, dtype=float).reshape(k, heads)
    norm = float(np.linalg.norm(M, 2))
    if norm > 1 + 1e-12:
        what = "|r| <= 1" if heads == 1 else "operator norm <= 1 (U^T Q for an orthonormal frame Q)"
        raise ValueError(f"`{name}` must satisfy {what}, got {norm:.6g} for {','.join(f'{x:g}' for x in r)}")
    return M


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


def vector(x) -> str:
    return "(" + ", ".join(f"{float(v):+.6f}" for v in np.ravel(x)) + ")"
