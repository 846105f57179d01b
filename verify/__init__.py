"""Checks, suite runner, reports and the ``sigrec`` command line."""

__all__: list[str] = []
