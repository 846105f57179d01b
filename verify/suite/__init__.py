"""The verification suite: cases and presets, the runner, and the claim verdicts."""

from ._cases import CASES, PRESETS, SuiteConfig
from ._claims import Claim, claims
from ._environment import environment
from ._runner import SuiteResult, plan, run_suite, summarize

__all__ = ["CASES", "PRESETS", "Claim", "SuiteConfig", "SuiteResult", "claims", "environment", "plan",
           "run_suite", "summarize"]
