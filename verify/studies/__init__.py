"""Studies built on the checks and simulators: the paper's reproduction, the
certified phase diagram, resumable parameter sweeps and the appendix's data. They return
data; ``verify.render`` draws and typesets it."""

from ._appendix import AppendixData, appendix_data
from ._phase import PhaseDiagram, phase_diagram
from ._phase import write_csv as write_phase_csv
from ._reproduce import (
    PAPER_MEAN_FINAL_ALIGNMENT,
    PROTOCOL,
    ConfigResult,
    Protocol,
    configurations,
    markdown_table,
    run_config,
    run_configs,
)
from ._reproduce import PRESETS as REPRODUCE_PRESETS
from ._sweep import SweepResult, SweepSpec, make_spec, run_sweep
from ._sweep import load as load_sweep
from ._sweep import plot as plot_sweep

__all__ = [
    "AppendixData",
    "ConfigResult",
    "PAPER_MEAN_FINAL_ALIGNMENT",
    "PROTOCOL",
    "PhaseDiagram",
    "Protocol",
    "REPRODUCE_PRESETS",
    "SweepResult",
    "SweepSpec",
    "appendix_data",
    "configurations",
    "load_sweep",
    "make_spec",
    "markdown_table",
    "phase_diagram",
    "plot_sweep",
    "run_config",
    "run_configs",
    "run_sweep",
    "write_phase_csv",
]
