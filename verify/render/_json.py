"""Strict JSON for reports and the command line (NaN and infinities become null)."""

from __future__ import annotations

import json
import math

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
