"""Rendering: the report (JSON and Markdown), the appendix notes, the figures and
their one plot style. Nothing here decides a verdict; it renders records and claims."""

from . import figures, style
from ._document import Document
from ._json import to_json
from ._notes import compare as compare_notes
from ._notes import write_notes
from ._report import markdown, report_dict, write_report
from ._reproduce_text import reproduce_markdown, reproduce_summary
from ._sweep_figure import plot_sweep

__all__ = ["Document", "compare_notes", "figures", "markdown", "plot_sweep", "report_dict", "reproduce_markdown",
           "reproduce_summary", "style", "to_json", "write_notes", "write_report"]
