"""Printing helpers shared by the commands: JSON on stdout, humans on stderr/stdout."""

from __future__ import annotations

import json
import math
import sys

import numpy as np


def _default(obj):
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if hasattr(obj, "as_dict"):
        return obj.as_dict()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _clean(obj):
    """Replace non-finite floats by None so that the output is strict JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def to_json(obj, indent=2) -> str:
    """Strict JSON text (NaN/inf become null)."""
    plain = json.loads(json.dumps(obj, default=_default))
    return json.dumps(_clean(plain), indent=indent, allow_nan=False)


def emit_json(obj) -> None:
    """Write ``obj`` as JSON on stdout (and nothing else)."""
    sys.stdout.write(to_json(obj) + "\n")


def stderr_progress():
    """A transient progress display on stderr, shown only when stderr is a terminal
    (so logs and ``--json`` pipelines stay clean)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                    TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)
