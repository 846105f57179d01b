"""Property-based fuzzing of the user's strings and case files (issue 22, item 2).

Generators: hostile case names (any Unicode, ``$`` and math syntax, path separators,
NUL and control characters, invisible and long names), TOML case files of many shapes
(deep arrays and inline tables, brackets inside strings and comments, empty and odd
``checks``, wrong types, huge prior exponents in fractions, big and non-UTF-8 files).
Every input ends as the CLI contract says (``tests/contracts/test_fuzz.py``,
:func:`assert_contract`): exit 0, or one ``error:`` line naming the parameter, never an
internal error, a warning or a hang. Accepted names are checked against the rule by an
independent route (the figure files they name can be created in the report folder and
their titles draw without a warning); accepted files against ``tomllib``'s own reading.

The quick profile runs in the default test run; ``-m slow`` runs the long one.
"""

from __future__ import annotations

import json
import signal
import tempfile
import tomllib
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigrec.verify.cli._limits import MAX_CASES_BYTES, MAX_TOML_DEPTH
from sigrec.verify.render import style
from sigrec.verify.suite import MAX_NAME_CHARS, case_name, cases_from_toml, make_case
from sigrec.verify.suite._user import nesting_depth

from .test_fuzz import CASE_TIMEOUT, assert_contract
from .test_inputs import draw_user_string, warm  # noqa: F401  (warm: the module's warm-up verify run)

QUICK = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
LONG = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

#: pieces a hostile name is made of
PIECES = ["$", "$$", "\\", "/", "..", ".", "\x00", "\n", "\t", "\x7f", "中文", "😀", "👨\u200d👩\u200d👧", "\u202e",
          "\u00a0", " ", "{", "}", "^", "_", "\\frac{", "$x^2$", "[bold]", "[/]", "|", ":", "*", "?", '"', "<", ">",
          "é", "e\u0301", "\udcff", "\U0010fffd", "%", "#", "a", "case", "-", "Ω"]
#: the figure stems (``ctx.figure`` names files ``<stem>-<name>.png``; the longest has 19 characters)
STEMS = ("field", "sga_trajectories", "nuisance_mass", "tracking_error", "sga_vs_ode_tracking", "finite_size")

names = st.one_of(
    st.text(max_size=MAX_NAME_CHARS + 4),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join),
    st.text(st.characters(codec="utf-8"), min_size=MAX_NAME_CHARS - 2, max_size=MAX_NAME_CHARS + 300),
    st.text(st.characters(categories=("L", "N", "S", "M", "P")), min_size=1, max_size=MAX_NAME_CHARS),
)


class _Timeout(BaseException):
    pass


@contextmanager
def within(seconds=CASE_TIMEOUT):
    """Fail, instead of hanging, when the block takes longer than ``seconds``."""
    def alarm(signum, frame):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Timeout:
        pytest.fail(f"timed out after {seconds} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _accepted_name_is_safe(name: str) -> None:
    """The independent route for an accepted name: each figure file it names lies directly
    in the report folder and can be written; the name, drawn in a title with math parts and
    in a legend, gives no warning."""
    assert name and name.isprintable() and len(name) <= MAX_NAME_CHARS
    with tempfile.TemporaryDirectory() as tmp:
        for stem in STEMS:
            path = Path(tmp) / f"{stem}-{name}.png"
            assert path.parent == Path(tmp) and path.name == f"{stem}-{name}.png"
            path.write_bytes(b"")
            path.with_suffix(".pdf").write_bytes(b"")
        assert len(list(Path(tmp).iterdir())) == 2 * len(STEMS)
    assert draw_user_string(name, dpi=40) == style.plain(name)  # shown as plain gives it


def _check_name(name: str) -> None:
    with within():
        try:
            got = case_name(name, "f.toml: case 1")
        except ValueError as exc:
            line = str(exc)
            assert "\n" not in line and line.startswith("f.toml: case 1: `name`"), line
            return
        assert got == name
        _accepted_name_is_safe(name)


@QUICK
@given(names)
def test_names_quick(name):
    _check_name(name)


@pytest.mark.slow
@LONG
@given(names)
def test_names_long(name):
    _check_name(name)


def _cli_name(name: str) -> None:
    """``verify --name NAME``: the contract, and a report (with the figure the name names)
    exactly when the rule accepts the name."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r"
        assert_contract(["verify", "--theta", "0.5", "--alpha", "0.1", "--checks", "field.monotone", "--workers", "1",
                         f"--name={name}", "--out", str(out)])  # a name may begin with "-"; text output:
        # under --json the report has nulls (R of a theory-only case), which assert_contract refuses
        try:
            case_name(name)
        except ValueError:
            assert not out.exists()  # refused before any work
            return
        if name == "--":  # argparse drops a "--" value, even in --name=--, and passes []: refused naming `name`
            assert not out.exists()
            return
        report = json.loads((out / "report.json").read_text())
        assert report["config"]["cases"][0]["name"] == name
        assert (out / "figures" / f"field-{name}.png").stat().st_size > 0


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(names)
def test_cli_names_quick(name):
    _cli_name(name)


@pytest.mark.slow
@LONG
@given(names)
def test_cli_names_long(name):
    _cli_name(name)


# TOML files ---------------------------------------------------------------------------

def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (any code point but surrogates, escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ch.isascii():
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04X}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08X}")
    return '"' + "".join(out) + '"'


#: one level of nesting around a TOML value
WRAPS = ("[{}]", "[1, {}]", "{{k = {}}}", '{{"]" = {}}}', "[{}, '[']")


@st.composite
def nested(draw, depth: int):
    """``(depth, text)``: a TOML value nested ``depth`` deep in arrays and inline tables
    (an empty ``[]`` or ``{}`` inside counts one level)."""
    text = draw(st.sampled_from(["1", "0.5", '"x"', "true", "1979-05-27", "[]", "{}"]))
    own = 1 if text in ("[]", "{}") else 0
    wraps = draw(st.lists(st.sampled_from(WRAPS), min_size=1, max_size=4))
    for i in range(depth - own):
        text = wraps[i % len(wraps)].format(text)
    return max(depth, own), text


#: a number of the schema, usually valid
good_numbers = st.sampled_from(["0.5", "1", "0", "2.5", "1e-3", "3"])
bad_numbers = st.sampled_from(["-1", "1e400", "nan", "inf", "-0.0", "true", '"0.5"', "99999999999999999999",
                               "1979-05-27", "[0.5]", "{x = 1}", "0x10", "1_000", "-inf"])
priors = st.one_of(
    st.sampled_from(["fixed", "rademacher", "gauss", "", "bernoulli(p=0.3)", "gaussian(mu=1, tau=1/3)"]),
    st.builds(lambda fam, m, e, d, e2: fam.format(f"{m}e{e}/{d}{e2}"),
              st.sampled_from(["bernoulli(p={})", "gaussian(mu={}, tau=1)", "rademacher({})",
                               "discrete(values=[1, 2], probs=[{}, 1/2])"]),
              st.integers(0, 999), st.sampled_from([0, 1, -1, 30, -30, 31, 99999999, -99999999, 10**12]),
              st.integers(1, 9), st.sampled_from(["", "e5", "e-99999999", "e99999999"])),
)
good_checks = st.sampled_from([None, '["field.monotone"]', '["field.*"]', '["field.monotone", ""]', '[" field.* "]'])
bad_checks = st.sampled_from(["[]", '[""]', '[" "]', '"field.*"', "[1]", '["nope"]', "[[]]", "{}"])
good_names = st.text(st.characters(categories=("L", "N", "S", "M", "P"), exclude_characters='/\\:*?"<>|'),
                     min_size=1, max_size=MAX_NAME_CHARS)
#: a line that is not in the schema, or strings and comments full of brackets
GOOD_PRIORS = ["fixed", "rademacher", "bernoulli(p=0.3)", "gaussian(mu=1, tau=1/3)", "bernoulli(p=1e-3/3)"]
ODD_LINES = ["colour = 1", "description = 5", 'description = "[[[[{{{{"', "description = '''\n[[[\n'''",
             "a.b.c.d.e.f.g.h = 1"]


@st.composite
def case_table(draw, hostile: bool):
    """The text of one ``[[case]]`` table; a valid one unless ``hostile`` (then each value
    is hostile one time in five, and odd lines and deep values are mixed in)."""
    def _mostly(good, bad):
        return st.integers(0, 4).flatmap(lambda i: good if i or not hostile else bad)

    lines = ["[[case]]"]
    if draw(st.booleans()):
        name = draw(_mostly(good_names, names))
        lines.append(f"name = {_toml_string(name)}" if draw(st.integers(0, 19)) or not hostile else "name = 5")
    if draw(st.integers(0, 19)) or not hostile:
        lines.append(f"theta = {draw(_mostly(good_numbers, bad_numbers))}")
    if draw(st.booleans()):
        lines.append(f"alpha = {draw(_mostly(st.sampled_from(['0', '0.1', '0.5', '1']), bad_numbers))}")
    else:
        sizes = draw(_mostly(st.just({"R": "3", "L": "10", "d": "3"}), st.dictionaries(
            st.sampled_from(["R", "L", "N", "d"]), st.sampled_from(["3", "10", "0", "2.5", "-1", "1e12", "[1]"]))))
        lines += [f"{k} = {v}" for k, v in sizes.items()]
    if draw(st.booleans()):
        lines.append(f"prior = {_toml_string(draw(_mostly(st.sampled_from(GOOD_PRIORS), priors)))}")
    c = draw(_mostly(good_checks, bad_checks))
    if c is not None:
        lines.append(f"checks = {c}")
    if hostile and draw(st.integers(0, 4)) == 0:
        lines.append(draw(st.sampled_from(ODD_LINES)))
    if hostile and draw(st.integers(0, 3)) == 0:
        _, text = draw(nested(draw(st.sampled_from([1, 2, 31, 32, 33, 64, 1000, 6000]))))
        lines.append(f"sigma2 = {text}")
    if draw(st.integers(0, 4)) == 0:
        lines.append(f"# {'[' * draw(st.integers(0, 100))} a comment")
    return "\n".join(lines)


@st.composite
def toml_file(draw):
    """``(bytes, padding)`` of a TOML case file: one to three tables, sometimes with bytes
    that are not UTF-8 or a raw NUL; ``padding`` (a comment to the size limit plus
    ``padding`` bytes, added by the test to keep examples short) is ``None`` or small."""
    hostile = draw(st.booleans())
    text = "\n".join(draw(case_table(hostile)) for _ in range(draw(st.integers(1, 3)))) + "\n"
    data = text.encode("utf-8")
    if hostile and draw(st.integers(0, 4)) == 0:
        data += draw(st.sampled_from([b"\xff\xfe", b"x = \"\x00\"\n", b"\x00", b"[[case]]\n" * 3]))
    return data, draw(st.one_of(st.none(), st.none(), st.none(), st.sampled_from([-1, 0, 1, 100])))  # 1 in 4 padded


def _check_file(example) -> None:
    data, padding = example
    if padding is not None:
        data += b"#" * (MAX_CASES_BYTES - len(data) + padding)
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "cases.toml"
        f.write_bytes(data)
        with within():
            try:
                cases = cases_from_toml(f, max_bytes=MAX_CASES_BYTES, max_depth=MAX_TOML_DEPTH)
            except ValueError as exc:
                line = str(exc)  # names `cases` or the case (and in it the key)
                assert "\n" not in line and line.startswith(("`cases`", "cases.toml: ")), line
                cases = None
        if cases is not None:  # the independent route: tomllib's own reading of the same file
            doc = tomllib.loads(data.decode("utf-8"))
            assert len(doc["case"]) == len(cases)
            for i, (table, case) in enumerate(zip(doc["case"], cases, strict=True), 1):
                assert case.name == table.get("name", f"case-{i}")
                given = tuple(c.strip() for c in table.get("checks", ["*"]) if c.strip())
                assert given and case.checks == given
                assert float(table["theta"]) == case.theta
        # the command line: nothing runs (the selection is refused after the file is read)
        assert_contract(["verify", "--cases", str(f), "--checks", "nope.none", "--out", str(Path(tmp) / "r")])
        assert not (Path(tmp) / "r").exists()


@QUICK
@given(toml_file())
def test_case_files_quick(data):
    _check_file(data)


@pytest.mark.slow
@LONG
@given(toml_file())
def test_case_files_long(data):
    _check_file(data)


@QUICK
@given(st.integers(0, 80).flatmap(nested), st.sampled_from(["", "# [[[\n", 'description = "{{{{"\n']))
def test_the_nesting_scan_counts_what_the_parser_nests(value, noise):
    """The scan before parsing measures the nesting of a value built to a known depth, and
    nothing in strings or comments; a table header counts 2."""
    depth, text = value
    doc = f"{noise}[[case]]\nbeta = {text}\n"
    assert nesting_depth(doc) == max(2, depth)
    if depth <= MAX_TOML_DEPTH:
        with within():
            tomllib.loads(doc)  # parsable at this depth


@QUICK
@given(priors)
def test_prior_fractions_are_a_case_or_a_refusal_naming_prior(spec):
    with within():
        try:
            case = make_case("p", theta=0.5, alpha=0.1, prior=spec)
        except ValueError as exc:
            assert "`prior`" in str(exc) and "\n" not in str(exc), exc
            return
    assert make_case("q", theta=0.5, alpha=0.1, prior=case.prior).prior == case.prior  # canonical: a fixed point


def _line_end(text: str, i: int) -> int:
    j = text.find("\n", i)
    return len(text) if j < 0 else j + 1


def _reference_depth(text: str) -> int:
    """The nesting of ``text`` by a character-by-character lexer (strings as TOML reads
    them: escapes in ``"`` strings, a multi-line string may end in up to two more quotes;
    a string left open hides the rest of its line, or of the file if multi-line)."""
    depth = deepest = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
            i += 1
        elif c in "]}":
            depth -= 1
            i += 1
        elif c == "#":
            i = _line_end(text, i)
        elif c in "\"'" and text.startswith(c * 3, i):
            j = i + 3
            while not (text.startswith(c * 3, j) and not text.startswith(c, j + 3)):
                if j >= n:
                    return deepest
                j += 2 if c == '"' and text[j] == "\\" else 1
            i = j + 3
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                if c == '"' and text[j] == "\\":
                    if j + 1 >= n or text[j + 1] == "\n":
                        break
                    j += 1
                j += 1
            i = j + 1 if j < n and text[j] == c else _line_end(text, i)
        else:
            i += 1
    return deepest


lexer_texts = st.text(st.sampled_from("\"'#[]{}\\\nx ="), max_size=60)


@QUICK
@given(lexer_texts)
def test_the_nesting_scan_agrees_with_a_character_lexer_quick(text):
    assert nesting_depth(text) == _reference_depth(text)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None, suppress_health_check=list(HealthCheck))
@given(lexer_texts)
def test_the_nesting_scan_agrees_with_a_character_lexer_long(text):
    assert nesting_depth(text) == _reference_depth(text)
