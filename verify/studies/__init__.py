"""Studies built on the checks and simulators: the paper's reproduction and the
certified phase diagram."""

from ._phase import PhaseDiagram, phase_diagram
from ._phase import plot as plot_phase
from ._phase import write_csv as write_phase_csv
from ._reproduce import (
    PAPER_MEAN_FINAL_ALIGNMENT,
    PROTOCOL,
    ConfigResult,
    Protocol,
    configurations,
    markdown_table,
    run_config,
)
from ._reproduce import PRESETS as REPRODUCE_PRESETS
from ._reproduce import plot as plot_reproduction

__all__ = [
    "PAPER_MEAN_FINAL_ALIGNMENT",
    "PROTOCOL",
    "REPRODUCE_PRESETS",
    "ConfigResult",
    "PhaseDiagram",
    "Protocol",
    "configurations",
    "markdown_table",
    "phase_diagram",
    "plot_phase",
    "plot_reproduction",
    "run_config",
    "write_phase_csv",
]
