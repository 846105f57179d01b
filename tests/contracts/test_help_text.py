"""Every command's --help reads as text: no argparse escapes left in it."""

import argparse

from sigrec.verify.cli import build_parser


def _commands(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def test_no_command_help_prints_a_doubled_percent_sign():
    parser = build_parser()
    pages = {"sigrec": parser.format_help(), **{name: p.format_help() for name, p in _commands(parser)}}
    assert len(pages) > 10
    assert [name for name, text in pages.items() if "%%" in text] == []
