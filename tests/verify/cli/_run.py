"""Running a ``sigrec`` command inside a test: its output when it succeeds, its one error line when
it refuses (exit status 2, nothing on stdout, no traceback)."""

from __future__ import annotations

from sigrec.verify.cli._main import main


def output(capsys, argv) -> str:
    """stdout of a successful run (exit 0, nothing on stderr)."""
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert out.err == ""
    return out.out


def error_line(capsys, argv) -> str:
    """The one ``error: ...`` line of a refused run."""
    rc = main(argv)
    out = capsys.readouterr()
    assert rc == 2 and out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.err
    return lines[0]
