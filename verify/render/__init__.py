"""Rendering: the report (JSON and Markdown), the appendix notes, the figures and
their one plot style. Nothing here computes or decides: it draws the figure specs the
checks' records carry and the studies' results, and typesets records, claims and the
appendix's data (``verify.studies.appendix_data``)."""

from . import figures, style
from ._certify_text import Printout, certify_text, model_line
from ._commands_text import (
    complexity_text,
    field_text,
    limit_text,
    prediction_text,
    route_text,
    simulation_text,
)
from ._document import Document
from ._heads_phase_figure import plot_heads_phase
from ._json import to_json
from ._limit_figure import plot_limit_map
from ._notes import compare as compare_notes
from ._notes import write_notes
from ._phase_figure import plot_phase
from ._region_figure import draw_region, draw_region_k2, figure_path
from ._report import markdown, report_dict, write_report
from ._reproduce_figure import plot_reproduction
from ._reproduce_text import reproduce_markdown, reproduce_summary
from ._subspace_phase_figure import plot_subspace_phase
from ._sweep_figure import plot_sweep
from ._validate_text import pass_table as validate_pass_table
from ._validate_text import validate_markdown

__all__ = ["Document", "Printout", "certify_text", "compare_notes", "draw_region", "draw_region_k2", "figure_path",
           "figures", "markdown", "model_line",
           "plot_heads_phase", "plot_limit_map", "plot_phase", "plot_reproduction", "plot_subspace_phase", "plot_sweep",
           "report_dict", "reproduce_markdown", "reproduce_summary", "style", "to_json", "validate_markdown",
           "validate_pass_table", "write_notes", "write_report",
           "complexity_text", "field_text", "limit_text", "prediction_text", "route_text",
           "simulation_text"]
