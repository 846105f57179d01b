"""State has names: no function returns a tuple of more than 3, none takes more than 8 parameters,
and no module runs past 450 lines without saying why in the first line of its docstring.

A result of more than three parts is a frozen dataclass or a NamedTuple whose fields are named
(``a[3] if a[2] == "sign"`` reads a position, ``tile.after`` a name); a function of more than eight
parameters groups its options into a config object. A module over 450 lines is split by concept, or
its docstring's first line ends with the reason it is one piece, in the form ``... (one piece: why)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("src/sigrec", "theory", "numerics", "verify")
MAX_TUPLE, MAX_PARAMS, MAX_LINES = 3, 8, 450
#: the mark of a reason in a long module's first docstring line
ONE_PIECE = "(one piece:"


def _sources():
    for root in ROOTS:
        for p in sorted((REPO / root).rglob("*.py")):
            yield p.relative_to(REPO).as_posix(), p.read_text()


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = fn.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []),
             *([a.kwarg] if a.kwarg else [])]
    return sum(1 for p in names if p.arg not in ("self", "cls"))


def _offences(source: str, path: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _params(node) > MAX_PARAMS:
            out.append(f"{path}:{node.lineno} {node.name} takes {_params(node)} parameters")
        for sub in ast.walk(node):
            if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Tuple) and len(sub.value.elts) > MAX_TUPLE:
                out.append(f"{path}:{sub.lineno} {node.name} returns a tuple of {len(sub.value.elts)}")
    return out


def _long_module(source: str, path: str) -> str | None:
    n = source.count("\n")
    if n <= MAX_LINES:
        return None
    doc = ast.get_docstring(ast.parse(source)) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return None if ONE_PIECE in first else f"{path}: {n} lines and no reason in its first docstring line"


def test_no_function_returns_a_long_tuple_or_takes_too_many_parameters():
    found = [o for path, src in _sources() for o in _offences(src, path)]
    assert found == []


def test_every_long_module_is_split_or_says_why():
    found = [m for path, src in _sources() if (m := _long_module(src, path))]
    assert found == []


def test_the_rules_see_what_they_forbid():
    """Not vacuous: each rule flags a small offender and passes its corrected form."""
    assert _offences("def f():\n    return 1, 2, 3, 4\n", "m.py") == ["m.py:2 f returns a tuple of 4"]
    assert _offences("def f():\n    return 1, 2, 3\n", "m.py") == []
    nine = ", ".join(f"a{i}" for i in range(9))
    assert _offences(f"def f(self, {nine}):\n    pass\n", "m.py") == ["m.py:1 f takes 9 parameters"]
    assert _offences(f"def f(self, {nine[:-4]}):\n    pass\n", "m.py") == []
    body = "x = 1\n" * (MAX_LINES + 1)
    assert _long_module(f'"""A module."""\n{body}', "m.py") is not None
    assert _long_module(f'"""A module (one piece: the walk and its state).\n\nMore."""\n{body}', "m.py") is None
