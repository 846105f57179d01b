"""Command-line entry point ``sigrec`` (docs/design.md section 4).

The CLI only parses and prints. Each command lives in its own module ``_<command>.py``
exposing ``register(subparsers)``, which adds a parser and sets ``run=<callable>``;
the callable takes the parsed namespace and returns the exit code. A ``ValueError``
(bad input) becomes ``error: <message>`` on stderr with exit code 2, never a
traceback; nothing is printed on stdout in that case. Any other exception escaping a
command is a bug, reported the same way as one line ``error: internal error in
<command>: <type>: <message> (please report ...)`` with exit code 2 (:func:`main`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading
import warnings
from contextlib import contextmanager

from ._args import resolve_sizes

#: command modules, in the order they appear in ``sigrec --help``
COMMANDS = ("field", "certify", "critical", "phase", "simulate", "predict", "complexity", "limit", "bench", "reproduce",
            "sweep",
            "notes",
            "verify", "validate")


#: argument strings that are values, not options: negative numbers (also ``-1e-3``,
#: ``-.5``, ``-5.``), ``-inf``/``-nan``, so that a type check can refuse them by name, and
#: comma-separated vectors starting with a negative number (``--r -0.5,0.4``)
_NUM = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
_NEGATIVE_NUMBER = re.compile(
    rf"^-{_NUM}(,\s*[-+]?{_NUM})*$|^-(inf|infinity|nan)$", re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one ``error:`` line (exit 2) and reads
    negative numbers (``--rho -1e-3``) as values."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def error(self, message):
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sigrec",
        description="Verify the softmax-attention signal-recovery theorem end to end.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"._{name}", __package__).register(sub)
    return parser


def _quiet_worker_interrupts() -> None:
    """Worker processes forked by a command (``--workers``) exit at once and silently
    on Ctrl-C (which the terminal sends to the whole process group); the parent alone
    reports the interrupt, as one line. Registered once per process."""
    global _HOOKED
    if not _HOOKED and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_child_handlers)
        _HOOKED = True


_HOOKED = False


def _child_handlers() -> None:
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker dies as a process, not as a command


#: exit code after SIGTERM: 128 + 15, the shell's convention (130 = 128 + 2 is SIGINT's)
TERMINATED = 143


class Terminated(KeyboardInterrupt):
    """Raised in the main thread on SIGTERM. A ``KeyboardInterrupt``, so that everything
    that cleans up after Ctrl-C (temporary folders, dask clients, fan-out units) does
    the same after SIGTERM, and no ``except Exception`` swallows it."""


def _quiet_finalizers(process: bool) -> None:
    """After an interrupt of a command that is the whole ``process``, the rest of the process
    reports no failing finalizer. The interrupt may have stopped a library halfway through building
    an object (numba compiling in llvmlite), whose ``__del__`` then fails when it is collected;
    Python would print "Exception ignored in ..." and a traceback after the command's one
    ``error:`` line. The process is ending; those objects were abandoned by the interrupt, not by a
    bug of the command. Inside another program (``process`` false) nothing changes."""
    if process:
        sys.unraisablehook = lambda unraisable: None


@contextmanager
def _sigterm_as_interrupt(process: bool):
    """SIGTERM raises :class:`Terminated` in the main thread while the block runs (the
    previous handler is restored afterwards: ``main`` may run inside another program), after
    :func:`_quiet_finalizers` (``process``), before anything the interrupt abandons is collected."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame):
        _quiet_finalizers(process)
        raise Terminated()

    old = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines included) as one space."""
    return " ".join(str(text).split())


def _command_of(args, argv) -> str:
    """The command being run: from the parsed namespace, else the first known command
    name in ``argv`` (an exception while parsing), else ``sigrec``."""
    command = getattr(args, "command", None)
    if command:
        return command
    words = sys.argv[1:] if argv is None else list(argv)
    return next((w for w in words if w in COMMANDS), "sigrec")


def internal_error(command: str, exc: BaseException) -> str:
    """The one ``error:`` line for an unexpected exception ``exc`` in ``command``."""
    message = _one_line(exc) or "(no message)"
    return (f"error: internal error in {command}: {type(exc).__name__}: {message} "
            f"(please report this with the command line)")


def _warning_line(message, category, filename, lineno, file=None, line=None):
    """A warning as the CLI prints it: ``warning: <message>`` on one line of stderr, without the
    source line and file a Python warning shows (the library's wording, not a traceback's)."""
    print(f"warning: {_one_line(message)}", file=file or sys.stderr)


#: the commands that decide the limit ODE (no finite instance)
_LIMIT_COMMANDS = ("field", "certify", "critical", "phase")
#: flags of a finite instance that a command of the limit does not take, and why
_INSTANCE_FLAGS = {"--d": "d does not enter the limit (L -> infinity at fixed d: the limit field depends on theta, "
                          "alpha, beta, sigma2 and the prior only)"}


def _unknown_flag_hint(exc: BaseException, argv) -> str:
    """``"; <why>: ..."`` when ``exc`` refuses a flag of a finite instance (``--d``) that the command
    does not take because it decides the limit; which commands take it instead. Else ``""``."""
    if not isinstance(exc, _UsageError) or "unrecognized arguments" not in str(exc):
        return ""
    argv = sys.argv[1:] if argv is None else list(argv)
    unknown = str(exc).split("unrecognized arguments:", 1)[1].split()
    flags = [f for f in _INSTANCE_FLAGS if f in unknown or any(u.startswith(f + "=") for u in unknown)]
    command = next((a for a in argv if a in COMMANDS), None)
    if not flags or command not in _LIMIT_COMMANDS:
        return ""
    subs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    takers = [name for name in COMMANDS if flags[0] in subs[name]._option_string_actions]
    return (f"; `sigrec {command}` decides the limit: {_INSTANCE_FLAGS[flags[0]]}; a finite instance with "
            f"{flags[0]} is what " + ", ".join(f"`{t}`" for t in takers) + " take")


def main(argv=None, *, _process: bool = False) -> int:
    """Run the CLI; returns the process exit code.

    0 (or the command's own code) on success; 2 with one ``error:`` line on stderr for
    a usage error, a refused value (``ValueError``) or any other exception (a bug:
    ``error: internal error in <command>: ...``); 130 with ``error: interrupted`` on
    ``KeyboardInterrupt`` (SIGINT); 143 with ``error: terminated`` on SIGTERM. A warning
    (e.g. numba's cache off for the process) is one ``warning:`` line on stderr. Never a
    traceback; the atomic outputs leave no temporary folder either way. ``_process``: the
    command is the whole process (:func:`console_main`), which ends after an interrupt.
    """
    _quiet_worker_interrupts()
    args = None
    try:
        with _sigterm_as_interrupt(_process), warnings.catch_warnings():
            warnings.showwarning = _warning_line
            args = build_parser().parse_args(argv)
            resolve_sizes(args)
            return int(args.run(args) or 0)
    except Terminated:
        _quiet_finalizers(_process)
        print("error: terminated", file=sys.stderr)
        return TERMINATED
    except KeyboardInterrupt:
        _quiet_finalizers(_process)
        print("error: interrupted", file=sys.stderr)
        return 130
    except (_UsageError, ValueError) as exc:
        print(f"error: {_one_line(exc)}{_unknown_flag_hint(exc, argv)}", file=sys.stderr)
        return 2
    except Exception as exc:
        print(internal_error(_command_of(args, argv), exc), file=sys.stderr)
        return 2


def console_main():  # pragma: no cover - exercised through the installed script
    code = main(_process=True)
    # the command's local dask cluster is closed here, while the interpreter is whole,
    # not by atexit during its shutdown (where a worker's last heartbeat could log)
    from ...numerics import shutdown_local

    shutdown_local()
    sys.exit(code)
