"""The CLI imports other subpackages only through their public names, and the sweep
study draws nothing itself (its figures are ``render.plot_sweep``)."""

import ast
from pathlib import Path

import pytest

import sigrec.verify

VERIFY = Path(sigrec.verify.__path__[0])
#: commands moved by another part of the layout work, checked there
_ELSEWHERE = {"_phase.py", "_notes.py"}
COMMANDS = sorted(p for p in (VERIFY / "cli").glob("*.py") if p.name not in _ELSEWHERE)


def _relative_imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            out.append((node.level, node.module or ""))
            out += [(node.level, f"{node.module}.{a.name}" if node.module else a.name) for a in node.names]
    return out


@pytest.mark.parametrize("path", COMMANDS, ids=[p.name for p in COMMANDS])
def test_commands_use_public_names_of_other_subpackages(path):
    bad = [m for level, m in _relative_imports(path) if level == 2 and any(p.startswith("_") for p in m.split(".")[1:])]
    assert bad == []


def test_the_sweep_study_does_not_import_render():
    files = sorted((VERIFY / "studies" / "_sweep").glob("*.py"))
    assert files
    for path in files:
        assert not [m for _, m in _relative_imports(path) if m.split(".")[0] == "render"], path.name
