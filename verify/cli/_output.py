"""Printing helpers shared by the commands: JSON on stdout, humans on stderr/stdout."""

from __future__ import annotations

import sys

from ..render import to_json


def emit_json(obj) -> None:
    """Write ``obj`` as JSON on stdout (and nothing else)."""
    sys.stdout.write(to_json(obj) + "\n")


def stderr_progress():
    """A transient progress display on stderr, shown only when stderr is a terminal
    (so logs and ``--json`` pipelines stay clean)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                    TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal)


def route_text(routed, median_range, what: str) -> str:
    """One line saying which law fed the diffusion, why, and (measured) its Monte Carlo error and
    the range of ``what`` over the law's bootstrap replicates (:class:`sigrec.numerics.RoutedTables`)."""
    head = f"route: {routed.route} ({routed.reason})"
    law = routed.law
    if law is None:
        return head
    steps = f"eta = {law.eta:.4g}" + ("" if law.low is None else f" and {law.low.eta:.4g}")
    text = (f"{head}\n  measured one-step law at {steps}: {law.grid.size} alignments, {int(law.runs.sum()):,} "
            f"draws of the exact step, drift standard error <= {float(law.drift_se.max()):.3g}")
    if law.status != "ok":
        text += f" ({law.status}: {law.reason})"
    if median_range is not None:
        text += (f"\n  {what} from bootstrap replicates of the law, on the same paths: {median_range[0]:.4g} to "
                 f"{median_range[1]:.4g} (the law's Monte Carlo uncertainty)")
    return text
