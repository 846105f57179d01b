"""Regressions of sigrec issue 22, item 2: every user string has one sanitizer.

Case names (``--name``, a TOML ``name``, :func:`make_case`) follow one rule
(:func:`sigrec.verify.suite.case_name`) and are refused before any work starts; figures
draw user strings as plain text (:func:`sigrec.verify.render.style.plain`) without glyph
warnings; ``--cases`` reads only a regular file within the size and nesting limits of
``verify/cli/_limits.py``; an empty check selection is refused from TOML as from
``--checks``. Every verify run here is theory-only with ``--checks field.monotone`` (one
certificate, under a second).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from sigrec.theory import Model
from sigrec.verify.cli import main
from sigrec.verify.cli._limits import MAX_CASES_BYTES, MAX_TOML_DEPTH, NAME_CHARS
from sigrec.verify.render import style
from sigrec.verify.suite import MAX_NAME_CHARS, case_name, cases_from_toml, make_case

from .test_fuzz import run_cli

CHEAP = ["--theta", "0.5", "--alpha", "0.1", "--checks", "field.monotone", "--workers", "1"]


def _one_error(argv, *needles):
    """Exit 2, nothing on stdout, one ``error:`` line holding every needle, no warning."""
    code, out, err, caught = run_cli(argv)
    assert code == 2 and out == "" and not caught, (code, out, err, caught)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "internal error" not in lines[0], err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def _ran(argv):
    """Exit 0 with no warning and nothing but JSON; the report."""
    code, out, err, caught = run_cli([*argv, "--json"])
    assert code == 0 and not caught and err.strip() == "", (code, err, caught)
    return json.loads(out)


@pytest.fixture(scope="module", autouse=True)
def warm(tmp_path_factory):
    """One verify run outside the hang guard: the first in a process derives the model's
    polynomials (sympy, tens of seconds on a loaded machine); the runs timed by
    ``run_cli`` then take about a second."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["verify", *CHEAP, "--out", str(tmp_path_factory.mktemp("warm") / "r")]) == 0


@pytest.fixture
def no_work(monkeypatch):
    """``run_suite`` fails the test if it is reached: a refusal must come before any work."""
    def refuse(*a, **k):
        raise AssertionError("the suite started")
    monkeypatch.setattr("sigrec.verify.cli._verify.run_suite", refuse)


# names: one rule, refused up front naming `name` ----------------------------------------

@pytest.mark.parametrize("name, needle", [
    ("a/b", "'/'"), ("../../x", "'/'"), ("n" * 300, f"at most {MAX_NAME_CHARS} characters"),
    ("a\\b", "'\\\\'"), ("", "empty"), (" x", "space"), ("..", "dots"), ("a:b", "':'"), ("a|b", "'|'"),
    ("a\x00b", "U+0000"), ("a\nb", "U+000A"), ("a\u202eb", "U+202E"), ("a\udcffb", "U+DCFF"),
])
def test_bad_names_are_refused_before_any_work(tmp_path, no_work, name, needle):
    out = tmp_path / "r"
    line = _one_error(["verify", *CHEAP, "--name", name, "--out", str(out)], "`name`", needle)
    assert not out.exists(), line
    with pytest.raises(ValueError, match="`name`"):
        make_case(name, theta=0.5, alpha=0.1)


def test_name_limit_is_in_the_limits_table_and_fits_a_file_name(tmp_path):
    assert NAME_CHARS == MAX_NAME_CHARS
    longest = "\U0001F600" * MAX_NAME_CHARS  # 4 bytes each in UTF-8
    assert case_name(longest) == longest
    for stem in ("field", "sga_vs_ode_tracking", "tracking_error", "nuisance_mass", "finite_size"):
        for suffix in (".png", ".pdf"):
            (tmp_path / f"{stem}-{longest}{suffix}").write_bytes(b"")  # OSError if too long
    with pytest.raises(ValueError, match="`name`"):
        case_name(longest + "x")


def test_long_name_refused_from_toml_naming_the_case(tmp_path, no_work):
    f = tmp_path / "c.toml"
    f.write_text(f'[[case]]\nname = "{"n" * 300}"\ntheta = 0.5\nalpha = 0.1\n')
    _one_error(["verify", "--cases", str(f), "--checks", "field.monotone", "--out", str(tmp_path / "r")],
               "c.toml: case 1: `name`", "at most")


def test_nul_in_a_toml_name_is_one_error_line_naming_name(tmp_path, no_work):
    f = tmp_path / "nul.toml"
    f.write_text('[[case]]\nname = "a\\u0000b"\ntheta = 0.5\nalpha = 0.1\nchecks = ["field.monotone"]\n')
    line = _one_error(["verify", "--cases", str(f), "--out", str(tmp_path / "r")], "`name`", "U+0000")
    assert "null byte" not in line


def test_names_equal_up_to_case_are_duplicates(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[[case]]\nname = "Weak"\ntheta = 1\nalpha = 0.1\n[[case]]\nname = "weak"\ntheta = 1\nalpha = 0.2\n')
    with pytest.raises(ValueError, match="case 2: duplicate case name 'weak'"):
        cases_from_toml(f)


# names drawn as plain text ------------------------------------------------------------

def test_dollar_name_draws_as_text(tmp_path):
    """`--name '$\\frac{$'` raised matplotlib's ParseSyntaxException after the whole run.
    The backslash is now refused up front (a path separator on Windows); a name with
    ``$``, braces and carets runs and its figure is drawn."""
    _one_error(["verify", *CHEAP, "--name", "$\\frac{$", "--out", str(tmp_path / "a")], "`name`", "'\\\\'")
    doc = _ran(["verify", *CHEAP, "--name", "$x^{$ 5$", "--out", str(tmp_path / "b")])
    assert doc["config"]["cases"][0]["name"] == "$x^{$ 5$"
    assert (tmp_path / "b" / "figures" / "field-$x^{$ 5$.png").stat().st_size > 0


def _pixels(text: str, parse_math: bool) -> np.ndarray:
    plt = style.pyplot()
    fig, ax = plt.subplots(figsize=(3, 1))
    ax.set_axis_off()
    ax.set_title(text, parse_math=parse_math)
    fig.canvas.draw()
    rgba = np.asarray(fig.canvas.buffer_rgba()).copy()
    plt.close(fig)
    return rgba


@pytest.mark.parametrize("text", ["$\\frac{$", "$x$", "a\\$b", "\\", "$$", "cost: $5 and $6", "a_b^c {x}"])
def test_plain_draws_exactly_what_math_off_draws(text):
    """The independent route: matplotlib with math parsing off draws ``text`` itself; the
    escaped string drawn with math parsing on gives the same pixels."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(_pixels(style.plain(text), True), _pixels(text, False))


@pytest.mark.parametrize("text", ["$\\frac{$", "中文名字😀", "a\x00b", "👨\u200d👩\u200d👧", "\U0010fffd x"])
def test_user_strings_in_math_titles_draw_without_warnings(text):
    """A title mixing a user's string with math text (as the report's figures do): no
    exception, no warning, in PNG and PDF."""
    draw_user_string(text)


def draw_user_string(text: str, dpi: int = 100) -> str:
    """Draw ``text`` through :func:`style.plain` as a legend label and in a title with math
    parts, to PNG and PDF, any warning an error; the legend's text."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig, ax = style.figure()
        ax.plot([0, 1], [0, 1], label=style.plain(text))
        legend = ax.legend()
        style.title(ax, style.plain(text) + ": bistable", style.params(Model(2.0, 0.1, prior="bernoulli(p=1/3)")))
        for fmt in ("png", "pdf"):
            fig.savefig(io.BytesIO(), format=fmt, dpi=dpi)
        style.pyplot().close(fig)
    return legend.get_texts()[0].get_text()


@pytest.mark.parametrize("text", ["\u0627\u0915\u091a\u0924\u0928\u0928\u092a\u092a"
                                  "\u092e\u092e\u0937\u0937\u094d\u094d\u094d\u094d",
                                  "中" * MAX_NAME_CHARS, "W" * MAX_NAME_CHARS])
def test_long_escaped_names_are_wrapped_not_squeezing_the_axes(text):
    """Found by the fuzzer: a legend of 16 escaped Devanagari letters (96 characters drawn)
    made constrained layout collapse the axes, with a warning. Lines are wrapped at
    ``PLAIN_WIDTH`` drawn characters, escapes kept whole."""
    drawn = style.plain(text)
    assert all(len(line) <= style.PLAIN_WIDTH for line in drawn.split("\n"))
    assert drawn.replace("\n", "") == "".join(style.plain(ch) for ch in text)
    assert draw_user_string(text) == drawn


@pytest.mark.parametrize("text", ["_x", "_", "__init__"])
def test_a_label_beginning_with_an_underscore_is_shown(text):
    """matplotlib leaves out a legend label that begins with ``_`` (found by the fuzzer:
    "No artists with labels found to put in legend")."""
    assert draw_user_string(text).strip() == text


def test_a_name_beginning_with_a_dash_is_given_with_equals(tmp_path):
    doc = _ran(["verify", *CHEAP, "--name=-x", "--out", str(tmp_path / "r")])
    assert doc["config"]["cases"][0]["name"] == "-x"


def test_glyphs_the_font_lacks_are_escaped():
    assert style.plain("中x😀é") == "\\u4e2dx😀é"  # DejaVu Sans has this emoji and é, no CJK
    assert style.plain("a\tb") == "a\\u0009b" and style.plain("\U0010fffd") == "\\U0010fffd"


@pytest.mark.parametrize("name", ["中文名字", "名字😀🎉", "Ωμέγα", "ąćęłńśźż", "נתון", "e\u0301"])
def test_unicode_names_run_without_glyph_warnings(tmp_path, name):
    """Twelve ``Glyph ... missing from font(s) DejaVu Sans`` warnings on exit 0 before."""
    doc = _ran(["verify", *CHEAP, "--name", name, "--out", str(tmp_path / "r")])
    assert [r["details"].get("case") for r in doc["checks"]] == [name]
    assert (tmp_path / "r" / "figures" / f"field-{name}.pdf").exists()


def test_rich_markup_in_a_name_is_printed_as_text(tmp_path):
    code, out, err, caught = run_cli(["verify", *CHEAP, "--name", "[bold]x", "--out", str(tmp_path / "r")])
    assert code == 0 and not caught, err
    assert "[bold]x" in out


def test_report_links_figures_whose_names_hold_spaces(tmp_path):
    _ran(["verify", *CHEAP, "--name", "my case [2]", "--out", str(tmp_path / "r")])
    md = (tmp_path / "r" / "report.md").read_text()
    assert "![field-my case \\[2\\]](figures/field-my%20case%20%5B2%5D.png)" in md
    assert (tmp_path / "r" / "figures" / "field-my case [2].png").exists()


# --cases: size, nesting and file kind, checked before parsing ---------------------------

def test_deep_toml_is_refused_before_parsing(tmp_path, no_work):
    """A 5,000-deep file gave ``internal error ... RecursionError``."""
    f = tmp_path / "deep.toml"
    f.write_text("[[case]]\ntheta = 1\nalpha = 0.1\nbeta = " + "[" * 5000 + "]" * 5000 + "\n")
    _one_error(["verify", "--cases", str(f), "--out", str(tmp_path / "r")], "`cases`", "5000 deep",
               f"limit of {MAX_TOML_DEPTH}")
    with pytest.raises(ValueError, match="too deep to parse"):  # the library without a limit
        cases_from_toml(f)


def test_brackets_in_strings_and_comments_are_not_nesting(tmp_path):
    f = tmp_path / "c.toml"
    deep = "[" * 40 + "{" * 40
    f.write_text(f'[[case]]  # {deep}\nname = "a[b]{{c}}"\ntheta = 1\nalpha = 0.1\n'
                 f"description = '''{deep}\n\"]]'''\n")
    (case,) = cases_from_toml(f, max_bytes=MAX_CASES_BYTES, max_depth=MAX_TOML_DEPTH)
    assert case.name == "a[b]{c}" and case.description.startswith(deep)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null", "."])
def test_devices_and_folders_are_refused_unread(tmp_path, no_work, path):
    """``--cases /dev/zero`` read until MemoryError."""
    _one_error(["verify", "--cases", path, "--out", str(tmp_path / "r")], "`cases` must be a regular file")


def test_a_pipe_is_refused_without_blocking(tmp_path, no_work):
    fifo = tmp_path / "cases.toml"
    os.mkfifo(fifo)
    _one_error(["verify", "--cases", str(fifo), "--out", str(tmp_path / "r")], "regular file")


def test_file_size_limit(tmp_path, no_work):
    big = tmp_path / "big.toml"
    with big.open("wb") as f:  # sparse: no MiB written
        f.truncate(MAX_CASES_BYTES + 1)
    _one_error(["verify", "--cases", str(big), "--out", str(tmp_path / "r")], "`cases`",
               f"more than {MAX_CASES_BYTES} bytes")
    at_limit = tmp_path / "ok.toml"
    head = "[[case]]\ntheta = 1\nalpha = 0.1\n"
    at_limit.write_text(head + "#" * (MAX_CASES_BYTES - len(head) - 1) + "\n")
    assert at_limit.stat().st_size == MAX_CASES_BYTES
    assert len(cases_from_toml(at_limit, max_bytes=MAX_CASES_BYTES, max_depth=MAX_TOML_DEPTH)) == 1


def test_a_file_that_reports_no_size_is_read_within_the_limit():
    # /proc files are regular with st_size 0; the read is bounded all the same
    with pytest.raises(ValueError, match="more than 16 bytes"):
        cases_from_toml("/proc/self/status", max_bytes=16)


def test_not_utf8_is_one_error(tmp_path):
    f = tmp_path / "c.toml"
    f.write_bytes(b"[[case]]\nname = \"\xff\"\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        cases_from_toml(f)


# checks: an empty selection is refused from TOML as from --checks -----------------------

@pytest.mark.parametrize("checks", ["[]", '[""]', '[" ", ""]'])
def test_empty_checks_in_toml_are_refused(tmp_path, no_work, checks):
    """``checks = []`` passed with ``ok: true`` while ``--checks ''`` was refused."""
    f = tmp_path / "c.toml"
    f.write_text(f"[[case]]\ntheta = 0.5\nalpha = 0.1\nchecks = {checks}\n")
    _one_error(["verify", "--cases", str(f), "--out", str(tmp_path / "r")], "case 1: `checks` is empty")
    _one_error(["verify", *CHEAP[:4], "--checks", "", "--out", str(tmp_path / "r")], "`checks` is empty")
    with pytest.raises(ValueError, match="`checks` is empty"):
        make_case("x", theta=0.5, alpha=0.1, checks=())


# priors: the exponent bound holds after fraction arithmetic, from TOML too ----------------

@pytest.mark.parametrize("prior", ["bernoulli(p=1e99999999/3)", "gaussian(mu=1e-99999999/7, tau=1)",
                                   "discrete(values=[1, 2], probs=[1e99999999/3, 0])"])
def test_huge_prior_exponents_refused_fast_from_toml(tmp_path, no_work, prior):
    # the parser's own regression is tests/theory/test_priors.py (test_huge_numbers_in_fractions_are_refused_at_once)
    f = tmp_path / "c.toml"
    f.write_text(f'[[case]]\ntheta = 0.5\nalpha = 0.1\nprior = "{prior}"\n')
    _one_error(["verify", "--cases", str(f), "--out", str(tmp_path / "r")], "case 1: `prior`", "|exponent| <= 30")


def test_limits_rows_are_in_the_help_text():
    from sigrec.verify.cli._limits import limits_text

    text = limits_text()
    assert f"--name <= {NAME_CHARS}" in text and f"nesting <= {MAX_TOML_DEPTH}" in text


def test_the_docs_state_the_limits_the_code_applies():
    root = Path(__file__).resolve().parents[2]
    # the user guide's page on TOML cases (docs/guide/verify.md) states them for users
    design, guide = (root / "docs" / "design.md").read_text(), (root / "docs" / "guide" / "verify.md").read_text()
    mib = f"{MAX_CASES_BYTES // 2**20} MiB"
    assert MAX_CASES_BYTES == 2**20
    for text in (design, guide):
        assert f"{MAX_NAME_CHARS} " in text and mib in text and f"{MAX_TOML_DEPTH} deep" in text
