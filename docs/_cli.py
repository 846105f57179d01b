"""The ``sigrec`` argument parser for sphinx-argparse (docs/reference/cli.md).

sphinx-argparse parses every description and help string as reStructuredText, but the
parser's texts are plain text (``|rho|``, ``field.*``, a limits table in the epilog).
:func:`parser` returns :func:`sigrec.verify.cli.build_parser`'s parser with those texts
escaped, and each epilog as a literal block, so the page shows what ``--help`` shows.
"""

from __future__ import annotations

import argparse
import re
import textwrap

from sigrec.verify.cli import build_parser

#: characters that start inline markup in reStructuredText
_MARKUP = re.compile(r"([\\`*|_])")


def _plain(text: str) -> str:
    return _MARKUP.sub(r"\\\1", text)


def _literal(text: str) -> str:
    return "::\n\n" + textwrap.indent(text.rstrip(), "   ") + "\n"


def _escape(parser: argparse.ArgumentParser) -> None:
    if parser.description:
        parser.description = _plain(parser.description)
    if parser.epilog:
        parser.epilog = _literal(parser.epilog)
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            action.help = _plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.help:
                    choice.help = _plain(choice.help)
            for sub in dict.fromkeys(action.choices.values()):
                _escape(sub)


def parser() -> argparse.ArgumentParser:
    """The ``sigrec`` parser, its help texts made literal for reStructuredText."""
    root = build_parser()
    _escape(root)
    return root
