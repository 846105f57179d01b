"""The checks (docs/design.md section 3): one function per check, one call signature
``fn(case, ctx) -> list[CheckRecord]``, and a registry keyed by check id."""

from ._case import Case
from ._common import loglog_fit, one_step, one_step_increments, order_se, scaled_problem
from ._context import CheckContext, certificate, derive_seed, equilibria
from ._figures import (
    EffectiveDriftFigure,
    FieldFigure,
    FigureSpec,
    FiniteSizeFigure,
    NuisanceFigure,
    TrackingFigure,
    TrajectoriesFigure,
    effective_drift_figure,
    field_figure,
    finite_size_figure,
    nuisance_figure,
    tracking_figure,
    trajectories_figure,
)
from ._finite import controlled_draws, rate_plan
from ._preset import PAPER, PRESETS, QUICK, Preset, preset_named
from ._record import KINDS, STATUSES, CheckRecord
from ._registry import MODELS, REGISTRY, SCOPES, Check, select
from ._schedule import RECOVERY_LEVEL, default_schedule
from ._sga import RECOVERY_FRACTION
from ._subspace import subspace_certificate

__all__ = ["KINDS", "MODELS", "PAPER", "PRESETS", "QUICK", "RECOVERY_FRACTION", "RECOVERY_LEVEL", "REGISTRY", "SCOPES",
           "STATUSES", "Case", "Check", "CheckContext", "CheckRecord", "EffectiveDriftFigure", "FieldFigure",
           "FigureSpec", "FiniteSizeFigure", "NuisanceFigure", "TrackingFigure", "TrajectoriesFigure", "Preset",
           "certificate", "controlled_draws", "default_schedule", "derive_seed", "effective_drift_figure",
           "equilibria", "field_figure", "finite_size_figure", "loglog_fit", "nuisance_figure", "one_step", "order_se",
           "one_step_increments", "preset_named", "rate_plan", "scaled_problem", "select", "subspace_certificate",
           "tracking_figure", "trajectories_figure"]
