"""docs/design.md section 6 lists every module of the package, one line each, and nothing else.

A module added without its line, or a line left behind by a module that moved, fails here; the
layering rules themselves are checked by ``test_layering.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DESIGN = REPO / "docs" / "design.md"
#: the folders whose Python modules make up the installed package ``sigrec``
ROOTS = ("src/sigrec", "theory", "numerics", "verify")


def _section(text: str | None = None) -> str:
    text = DESIGN.read_text() if text is None else text
    start = text.index("## 6. Layout")
    return text[start:text.index("\n## ", start + 1)]


def _listed(text: str | None = None) -> list[str]:
    """The module paths at the start of the section's indented lines (``    theory/_model.py  ...``)."""
    return re.findall(r"^    ((?:src/sigrec|theory|numerics|verify)/\S+\.py)\b", _section(text), flags=re.M)


def _modules() -> set[str]:
    return {p.relative_to(REPO).as_posix() for root in ROOTS for p in (REPO / root).rglob("*.py")
            if "__pycache__" not in p.parts}


def test_every_module_has_its_line():
    assert sorted(_modules() - set(_listed())) == []


def test_every_line_names_a_module_once():
    listed = _listed()
    assert sorted(set(listed) - _modules()) == []
    assert len(listed) == len(set(listed))


def test_every_line_says_what_the_module_is():
    for line in _section().splitlines():
        m = re.match(r"^    ((?:src/sigrec|theory|numerics|verify)/\S+\.py)(\s*)(.*)$", line)
        if m:
            assert m.group(2) and len(m.group(3).split()) >= 3, line


def test_the_check_sees_a_missing_module():
    """Not vacuous: a module on disk without its line is reported, a line without a module too."""
    text = "## 6. Layout\n\n    theory/_model.py  the model, validated\n    theory/_gone.py  moved away\n\n## 7. x\n"
    assert "theory/__init__.py" in _modules() - set(_listed(text))
    assert set(_listed(text)) - _modules() == {"theory/_gone.py"}
