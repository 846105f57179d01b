"""Cases a user defines: from command-line values or a TOML file (docs/design.md section 4).

TOML schema: one ``[[case]]`` table per case::

    [[case]]
    name = "mine"          # optional; default "case-<i>" (the rule: :func:`case_name`)
    theta = 0.5            # required, >= 0
    R = 300                # a finite instance: R, L (or N = L - R) and d together ...
    L = 3300
    d = 30
    # alpha = 0.1          # ... or alpha alone (0 = sparse regime): a theory-only case
    beta = 1.0             # optional, default 1
    sigma2 = 1.0           # optional, default 1
    prior = "fixed"        # optional: fixed, rademacher, "gaussian(mu=1, tau=0.5)", ...
                           # or a k-dimensional law "onehot(k=2)" (a subspace case)
    heads = 2              # optional, default 1: H orthonormal queries (H >= 2: a subspace case)
    checks = ["field.*"]   # optional, not empty: ids or families; default every applicable check
    description = "..."    # optional

Unknown keys, missing or contradictory sizes and duplicate names are refused with a
``ValueError`` that names the case and the key.

Every string a user gives a case goes through one function here: the name through
:func:`case_name` (it becomes part of figure file names), the check selection through
:func:`check_selection`; the flags of ``sigrec verify``, the TOML file and the library
(:func:`make_case`) share them.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
import unicodedata
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from ...core import validate
from ..checks import Case

_KEYS = {"name", "theta", "alpha", "R", "L", "N", "d", "beta", "sigma2", "prior", "heads", "checks", "description"}

#: at most this many characters in a case name: figures are written to
#: ``<figure>-<name>.png`` (and ``.pdf``; the longest ``<figure>`` has 19 characters), a file
#: name holds at most 255 bytes, and a character takes up to 4 bytes in UTF-8
MAX_NAME_CHARS = 48
#: characters a case name may not hold: the path separators and the other characters that
#: Windows (and zip archives made there) refuse in file names; ``|`` also splits a Markdown row
_NOT_IN_NAMES = '/\\:*?"<>|'


def case_name(value, where: str = "") -> str:
    """``value`` if it is a case name, else a ``ValueError`` naming ``name``.

    A case name is part of the report's figure file names (``field-<name>.png``) and is
    shown in tables and figure titles, so it is: a non-empty string of at most
    :data:`MAX_NAME_CHARS` printable characters (``str.isprintable``: no NUL, control,
    format, line or non-ASCII space characters; any script and emoji are fine), without
    ``/ \\ : * ? " < > |``, not only dots, and without leading or trailing spaces. A name is
    refused, never rewritten: two different names never share a file.
    """
    pre = f"{where}: " if where else ""
    if not isinstance(value, str):
        raise ValueError(f"{pre}`name` must be a string, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{pre}`name` must not be empty")
    if len(value) > MAX_NAME_CHARS:
        raise ValueError(f"{pre}`name` must have at most {MAX_NAME_CHARS} characters (it is part of the figures' "
                         f"file names), got {len(value)}: {value[:24]!r}...")
    for ch in value:
        if not ch.isprintable():
            kind = unicodedata.category(ch)
            raise ValueError(f"{pre}`name` must hold printable characters only, got U+{ord(ch):04X} "
                             f"(category {kind}) in {value!r}")
        if ch in _NOT_IN_NAMES:
            raise ValueError(f"{pre}`name` must not contain {ch!r} (it is part of file names; refused: "
                             f"{' '.join(_NOT_IN_NAMES)}), got {value!r}")
    if value.strip() != value:
        raise ValueError(f"{pre}`name` must not begin or end with a space, got {value!r}")
    if not value.strip("."):
        raise ValueError(f"{pre}`name` must not consist of dots only, got {value!r}")
    return value


def _name_key(name: str) -> str:
    """Names that coincide as file names on a case-insensitive or normalizing file system."""
    return unicodedata.normalize("NFC", name).casefold()


def check_selection(items, where: str = "") -> tuple[str, ...]:
    """The check ids or families of ``items`` (strings, stripped, blanks dropped); a
    ``ValueError`` naming ``checks`` when none is left (an empty selection would run
    nothing and pass). Unknown ids are refused by :class:`Case` and ``checks.select``."""
    pre = f"{where}: " if where else ""
    if not isinstance(items, (list, tuple)) or not all(isinstance(c, str) for c in items):
        raise ValueError(f"{pre}`checks` must be a list of check ids")
    chosen = tuple(c.strip() for c in items if c.strip())
    if not chosen:
        raise ValueError(f"{pre}`checks` is empty: give check ids or families such as field.*")
    return chosen


@dataclass(frozen=True)
class CaseInput:
    """The fields of a case as a user gives them (the keywords of :func:`make_case`): those of
    :class:`Case` (unchecked here) and ``N``, the nuisance tokens ``L - R``, in place of ``L``."""

    theta: Any
    alpha: Any = None
    R: Any = None
    L: Any = None
    N: Any = None
    d: Any = None
    beta: Any = 1.0
    sigma2: Any = 1.0
    prior: Any = "fixed"
    heads: Any = 1
    checks: Any = ("*",)
    description: Any = ""


def make_case(name: str | None = None, *, where: str = "", **fields) -> Case:
    """One :class:`Case` (which validates its fields) from the keywords of :class:`CaseInput`: a
    finite instance (``R``, ``L`` or ``N``, ``d``) or, with ``alpha`` alone, a theory-only case.
    Checked here what the input forms add: the name (:func:`case_name`; ``None`` gives ``"case"``),
    a non-empty check selection (:func:`check_selection`), ``N`` for ``L - R`` and which sizes go
    together; ``where`` prefixes error messages."""
    pre = f"{where}: " if where else ""
    spec = CaseInput(**fields)
    theta, alpha, R, L, N, d = spec.theta, spec.alpha, spec.R, spec.L, spec.N, spec.d
    checks, description = spec.checks, spec.description
    try:
        name = "case" if name is None else case_name(name)
        checks = check_selection(checks)
        if not isinstance(description, str):
            raise ValueError(f"`description` must be a string, got {type(description).__name__}")
        sizes = {"R": R, "L": L, "N": N, "d": d}
        given = {k for k, v in sizes.items() if v is not None}
        if given and alpha is not None:
            raise ValueError("give either `alpha` (a theory-only case) or `R`, `L` (or `N`) and `d`, not both")
        if not given and alpha is None:
            raise ValueError("give `R`, `L` (or `N`) and `d` for a simulated case, or `alpha` for a theory-only case")
        if L is not None and N is not None:
            raise ValueError("give `L` or `N` (= L - R), not both")
        if given:
            missing = [k for k in ("R", "d") if sizes[k] is None] + ([] if L is not None or N is not None else ["L"])
            if missing:
                raise ValueError(f"a simulated case needs {', '.join(f'`{k}`' for k in missing)} too")
            if N is not None:  # L = R + N; the case checks R, L and d itself
                L = validate.integer("R", R, 0) + validate.integer("N", N, 0)
        case = Case(name, theta, alpha, beta=spec.beta, sigma2=spec.sigma2, prior=spec.prior, R=R, L=L, d=d,
                    description=description, checks=checks, heads=spec.heads)
    except ValueError as exc:
        raise ValueError(f"{pre}{exc}") from None
    return case


#: one-line strings and comments (what the nesting scan skips inside a run of text)
_SKIPPED = r'"(?!"")(?:[^"\\\n]|\\.)*+"|\'(?!\'\')[^\'\n]*+\'|#[^\n]*+'
#: a run of text the nesting scan reads in one step: anything but a quote, and whole one-line
#: strings and comments; it stops at a multi-line string or a string left open on its line
_RUN = re.compile(rf"(?:[^\"'#]|{_SKIPPED})++")
_SKIP = re.compile(_SKIPPED)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
#: the change of depth at each bracket
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
#: the rest of a multi-line string after its opening quotes (it may end in up to two more)
_MULTILINE_END = {'"""': re.compile(r'(?:[^\\]|\\.)*?"""(?!")', re.S), "'''": re.compile(r"(?s:.)*?'''(?!')")}


def nesting_depth(text: str) -> int:
    """How deep arrays and inline tables nest in the TOML ``text`` (table headers count too:
    ``[[case]]`` is 2), by one linear scan that skips strings and comments, without parsing."""
    depth = deepest = pos = 0
    while pos < len(text):
        run = _RUN.match(text, pos)
        if run is not None:
            steps = map(_STEP.__getitem__, _NOT_BRACKETS.sub("", _SKIP.sub("", run.group())))
            depths = list(accumulate(steps, initial=depth))
            deepest, depth, pos = max(deepest, max(depths)), depths[-1], run.end()
            continue
        quote = text[pos] * 3
        if text.startswith(quote, pos):
            end = _MULTILINE_END[quote].match(text, pos + 3)
            if end is None:  # left open: the rest of the file is in it
                break
            pos = end.end()
        else:  # a one-line string left open: the rest of its line
            pos = text.find("\n", pos) + 1 or len(text)
    return deepest


def _read(path: Path, max_bytes: int | None) -> str:
    """The text of the regular file ``path``, at most ``max_bytes`` bytes; one ``ValueError``
    naming ``cases`` otherwise (a device, a pipe or a folder is refused before it is read)."""
    shown = repr(str(path))
    if "\x00" in str(path):
        raise ValueError(f"`cases` must be a file name without NUL, got {shown}")
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ValueError(f"`cases` must be a regular file, got {shown}")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # never blocks on a swapped-in pipe
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(f"`cases` must be a regular file, got {shown}")
            too_big = f"`cases`: {shown} has more than {max_bytes} bytes (the limit of a cases file)"
            if max_bytes is not None and info.st_size > max_bytes:
                raise ValueError(too_big)
            data = f.read() if max_bytes is None else f.read(max_bytes + 1)
            if max_bytes is not None and len(data) > max_bytes:  # a file that grew or reports no size (/proc)
                raise ValueError(too_big)
    except FileNotFoundError:
        raise ValueError(f"`cases`: no such file: {shown}") from None
    except OSError as exc:
        raise ValueError(f"`cases`: cannot read {shown}: {exc.strerror or type(exc).__name__}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"`cases`: {path.name} is not UTF-8 text (byte {exc.start})") from None


def _parse(path: Path, max_bytes: int | None, max_depth: int | None) -> dict:
    text = _read(path, max_bytes)
    if max_depth is not None:
        depth = nesting_depth(text)
        if depth > max_depth:
            raise ValueError(f"`cases`: {path.name} nests arrays or tables {depth} deep, more than the limit of "
                             f"{max_depth}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"`cases`: {path.name} is not valid TOML: {exc}") from None
    except RecursionError:  # a deep file read without max_depth: the parser recurses per level
        raise ValueError(f"`cases`: {path.name} nests arrays or tables too deep to parse") from None


def cases_from_toml(path, *, max_bytes: int | None = None, max_depth: int | None = None) -> tuple[Case, ...]:
    """The cases of a TOML file (schema in the module docstring).

    ``max_bytes`` and ``max_depth`` bound the file's size and nesting before it is parsed
    (the command line passes its limits, ``verify/cli/_limits.py``). Only a regular file
    is read."""
    path = Path(path)
    data = _parse(path, max_bytes, max_depth)
    extra = set(data) - {"case"}
    if extra:
        raise ValueError(f"`cases`: {path.name}: unknown top-level key(s) {sorted(extra)}; use [[case]] tables")
    tables = data.get("case")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise ValueError(f"`cases`: {path.name} has no [[case]] tables")
    out: list[Case] = []
    names: dict[str, int] = {}  # name key -> number of the case that has it
    for i, t in enumerate(tables, 1):
        where = f"{path.name}: case {i}"
        unknown = set(t) - _KEYS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_KEYS)}")
        if "theta" not in t:
            raise ValueError(f"{where}: `theta` is required")
        name = case_name(t.get("name", f"case-{i}"), where)
        key = _name_key(name)
        if key in names:
            first = out[names[key] - 1].name
            raise ValueError(f"{where}: duplicate case name {name!r}, the same as case {names[key]}'s {first!r} "
                             "(names equal up to case share figure files on some systems)")
        names[key] = i
        checks = check_selection(t.get("checks", ["*"]), where)
        kw = {k: t[k] for k in ("alpha", "R", "L", "N", "d", "beta", "sigma2", "prior", "heads", "description")
              if k in t}
        out.append(make_case(name, theta=t["theta"], checks=checks, where=where, **kw))
    return tuple(out)
