"""The ``sigrec`` command line: one module per command, a thin layer over the API."""

from ._main import COMMANDS, build_parser, console_main, main

__all__ = ["COMMANDS", "build_parser", "console_main", "main"]
