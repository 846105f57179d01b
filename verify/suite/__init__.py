"""The verification suite: cases and presets, the runner, and the claim verdicts."""

from ._cases import CASES, PRESETS, SuiteConfig
from ._claims import PAPER_MEAN_FINAL_ALIGNMENT, Claim, claims
from ._cost import preset_cost
from ._environment import environment
from ._plan import PlanStep, RunPlan, run_plan
from ._runner import SuiteResult, check_costs, not_applicable, plan, run_suite, summarize
from ._store import ResultStore, moved
from ._user import MAX_NAME_CHARS, case_name, cases_from_toml, check_selection, make_case

__all__ = ["CASES", "MAX_NAME_CHARS", "PAPER_MEAN_FINAL_ALIGNMENT", "PRESETS", "Claim", "SuiteConfig", "SuiteResult",
           "case_name", "cases_from_toml", "check_costs", "check_selection", "claims", "environment", "make_case",
           "moved", "not_applicable", "plan", "preset_cost", "run_plan", "run_suite", "summarize", "PlanStep",
           "ResultStore", "RunPlan"]
