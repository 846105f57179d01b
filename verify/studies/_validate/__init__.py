"""``sigrec validate``: every derived finite-size and finite-step quantity against the exact
chain on random models.

One concept per module: :mod:`._models` (the law of the random models, their seeds and
their region: ``theory.validity``), :mod:`._profile` (budgets, tolerances and the pass
rule), :mod:`._quantities` (each quantity of one model against Monte Carlo) and
:mod:`._run` (one executor unit per model, the summary).
"""

from ._models import BETA_SPLIT, PRIORS, RANGES, DrawnModel, draw_model, draw_models
from ._profile import PROFILES, QUANTITIES, SIGMAS, TOLERANCES, Profile
from ._quantities import Comparison, judge
from ._run import Validation, run_validation, summarize

__all__ = ["BETA_SPLIT", "PRIORS", "PROFILES", "QUANTITIES", "RANGES", "SIGMAS", "TOLERANCES", "Comparison",
           "DrawnModel", "Profile", "Validation", "draw_model", "draw_models", "judge", "run_validation", "summarize"]
