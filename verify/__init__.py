"""Judging theory against numerics: the checks, the suite, reports, studies, the CLI.

Public API::

    from sigrec.verify import Case, SuiteConfig, run_suite, write_report

    result = run_suite(SuiteConfig(cases=(Case.from_counts("mine", 0.5, 300, 3000, 30),)))
    write_report(result, Path("report"))

Subpackages: :mod:`.checks` (one module per family, a registry keyed by check id),
:mod:`.suite` (cases, runner, claim verdicts), :mod:`.render` (report, notes, figures),
:mod:`.studies` (reproduction, phase diagram), :mod:`.cli` (one module per command).
"""

from .checks import REGISTRY, Case, Check, CheckContext, CheckRecord, select
from .render import markdown, report_dict, write_notes, write_report
from .suite import CASES, PRESETS, Claim, SuiteConfig, SuiteResult, claims, run_suite

__all__ = [
    "CASES",
    "PRESETS",
    "REGISTRY",
    "Case",
    "Check",
    "CheckContext",
    "CheckRecord",
    "Claim",
    "SuiteConfig",
    "SuiteResult",
    "claims",
    "markdown",
    "report_dict",
    "run_suite",
    "select",
    "write_notes",
    "write_report",
]
