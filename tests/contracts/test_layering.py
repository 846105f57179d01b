"""Layout rules of ``theory`` and ``numerics`` (docs/design.md section 6), checked on the source."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import sigrec.numerics
import sigrec.theory

PACKAGES = {"theory": Path(sigrec.theory.__path__[0]), "numerics": Path(sigrec.numerics.__path__[0])}
SOURCES = [(pkg, path) for pkg, root in PACKAGES.items() for path in sorted(root.rglob("*.py"))]  # subpackages too
IDS = [f"{p}/{f.relative_to(PACKAGES[p]).as_posix()}" for p, f in SOURCES]


def _imports(path: Path) -> list[str]:
    """Absolute dotted names of every module imported by ``path`` (relative imports resolved)."""
    top = next(name for name, root in PACKAGES.items() if root in path.parents)
    pkg = ".".join(["sigrec", top, *path.parent.relative_to(PACKAGES[top]).parts])
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.rsplit(".", node.level - 1)[0] if node.level > 1 else pkg
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module
            names.append(mod)
            names += [f"{mod}.{a.name}" for a in node.names]  # ``from . import _x`` imports a module
    return names


def _foreign_private(pkg: str, name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "sigrec" or len(parts) < 3 or parts[1] == pkg:
        return False
    return any(p.startswith("_") for p in parts[2:])


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_no_private_module_of_another_package_is_imported(pkg, path):
    bad = [n for n in _imports(path) if _foreign_private(pkg, n)]
    assert bad == []


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_dependencies_flow_one_way(pkg, path):
    allowed = {"theory": set(), "numerics": {"theory"}}[pkg]
    used = {n.split(".")[1] for n in _imports(path) if n.startswith("sigrec.") and n.count(".") >= 1}
    assert used - {pkg} <= allowed


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_comments_cite_nothing_a_reader_cannot_follow(pkg, path):
    text = path.read_text()
    assert not re.search(r"\bissue\s+\d+|\bthe issue\b", text, re.IGNORECASE)
    assert not re.search(r"DESIGN\.md|\.\./shared/", text)  # the design document is docs/design.md


def test_the_old_modules_are_gone_and_the_new_ones_importable():
    for gone in ("sigrec.theory._effective", "sigrec.numerics._validate"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(gone)
    for mod in ("_effective_lemmas", "_effective_derivation", "_effective_evaluate", "_effective_quadrature",
                "_calculus", "validate"):
        importlib.import_module(f"sigrec.theory.{mod}")
    assert sigrec.theory.validate is importlib.import_module("sigrec.theory.validate")


@pytest.mark.parametrize("module", [sigrec.theory, sigrec.numerics], ids=["theory", "numerics"])
def test_public_names_are_importable(module):
    assert [n for n in module.__all__ if not hasattr(module, n)] == []
