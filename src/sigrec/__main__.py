"""``python -m sigrec``: the ``sigrec`` command line."""

from .verify.cli import console_main

console_main()
