"""Shared flags and helpers of the subspace route of the commands (docs/guide/subspace.md).

With a k-dimensional signal law (``--prior 'onehot(k=2)'``, ``k >= 2``) or several heads
(``--heads H``) the commands ``field``, ``certify``, ``simulate``, ``predict`` and ``phase`` run
the subspace model of docs/subspace.md instead of the scalar one. This module holds what they
share: the overlap-vector flag type, the model from the flags, the refusals. The commands'
subspace routes live in ``_subspace_<command>.py``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ...numerics import Schedule
from ...theory import SubspaceModel

#: the most heads a command takes (the reduced flow is k H-dimensional; the simulators need d >= k + H)
MAX_HEADS = 64


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
        shape = f"{k} entries (k = {k})" if heads == 1 else f"k x H = {k * heads} entries (row-major, k = {k}, H = {heads})"
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


def refuse_heads(args, command: str) -> None:
    """One line when ``--heads H > 1`` is given where only one query is meant."""
    if getattr(args, "heads", 1) != 1:
        raise ValueError(f"`heads` must be 1 in `sigrec {command}` (one query); several heads: "
                         "`sigrec simulate` or `sigrec predict` with --heads")


def model_of(args, law, alpha=None) -> SubspaceModel:
    """The :class:`theory.SubspaceModel` of the model flags (``alpha`` given or ``args.alpha``)."""
    return SubspaceModel(law, theta=args.theta, alpha=args.alpha if alpha is None else alpha, beta=args.beta,
                         sigma2=args.sigma2)


def model_doc(model: SubspaceModel) -> dict:
    return {"law": model.law.spec, "k": model.k, "theta": model.theta, "alpha": model.alpha, "beta": model.beta,
            "sigma2": model.sigma2}


def model_line(model: SubspaceModel) -> str:
    return (f"law {model.law.spec} (k = {model.k}), theta={model.theta:g}, alpha={model.alpha:g}, "
            f"beta={model.beta:g}, sigma2={model.sigma2:g}")


def schedule_of(args) -> Schedule:
    """The step schedule of the problem flags (as :func:`._args.problem_and_schedule`)."""
    return Schedule.constant(args.eta0) if args.power == 0 else Schedule(eta0=args.eta0, k0=args.k0, power=args.power)


def vector(x) -> str:
    return "(" + ", ".join(f"{float(v):+.6f}" for v in np.ravel(x)) + ")"
