"""The ``heavy`` lists of ``tests/conftest.py`` name tests that exist.

A renamed or deleted test would otherwise leave a stale entry, and the renamed test would
quietly run in the default run. Checked from the source (``ast``), so it costs no collection.
"""

from __future__ import annotations

import ast
from pathlib import Path

from . import conftest

ROOT = Path(__file__).resolve().parents[1]


def _tests_of(path: Path) -> set[str]:
    """``name`` and ``Class::name`` of every test function defined in ``path``."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {f"{node.name}::{f.name}" for f in node.body
                      if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name.startswith("test")}
    return names


def test_every_heavy_module_exists():
    missing = [m for m in conftest.HEAVY_MODULES if not (ROOT / m).is_file()]
    assert not missing, f"HEAVY_MODULES names files that do not exist: {missing}"


def test_every_heavy_entry_names_a_test_that_exists():
    stale = []
    for entry in conftest.HEAVY:
        path, _, name = entry.partition("::")
        file = ROOT / path
        if not file.is_file() or name not in _tests_of(file):
            stale.append(entry)
    assert not stale, f"HEAVY names tests that do not exist (renamed or deleted?): {stale}"


def test_no_entry_is_listed_twice_or_inside_a_heavy_module():
    assert len(set(conftest.HEAVY)) == len(conftest.HEAVY)
    assert not [e for e in conftest.HEAVY if e.partition("::")[0] in conftest.HEAVY_MODULES]
