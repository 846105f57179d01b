"""The checks (docs/design.md section 3): one function per check, one call signature
``fn(case, ctx) -> list[CheckRecord]``, and a registry keyed by check id."""

from ._case import Case
from ._common import loglog_fit, one_step, one_step_increments, scaled_problem
from ._context import CheckContext, certificate, derive_seed, equilibria
from ._preset import PAPER, PRESETS, QUICK, Preset, preset_named
from ._record import KINDS, STATUSES, CheckRecord
from ._registry import REGISTRY, SCOPES, Check, select
from ._sga import RECOVERY_FRACTION, RECOVERY_LEVEL, default_schedule

__all__ = [
    "KINDS",
    "PAPER",
    "PRESETS",
    "QUICK",
    "RECOVERY_FRACTION",
    "RECOVERY_LEVEL",
    "REGISTRY",
    "SCOPES",
    "STATUSES",
    "Case",
    "Check",
    "CheckContext",
    "CheckRecord",
    "Preset",
    "certificate",
    "default_schedule",
    "derive_seed",
    "equilibria",
    "loglog_fit",
    "one_step",
    "one_step_increments",
    "preset_named",
    "scaled_problem",
    "select",
]
