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


def print_text(text) -> None:
    """Print a renderer's text on stdout (a ``rich`` renderable through a console)."""
    if isinstance(text, str):
        print(text)
    else:
        from rich.console import Console

        Console().print(text)


def emit(args, result, text, **kw) -> int:
    """``result.as_dict(**kw)`` as JSON with ``--json``, else ``text(result, **kw)``, the command's renderer."""
    if args.json:
        emit_json(result.as_dict(**kw))
    else:
        print_text(text(result, **kw))
    return 0
