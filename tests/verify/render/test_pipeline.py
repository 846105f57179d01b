"""Inside ``verify`` data flows one way: checks -> suite -> studies -> render -> cli
(docs/design.md section 6); a subpackage imports only from earlier ones, the CLI from all,
and no function-level import hides a cycle."""

import ast
from pathlib import Path

import sigrec.verify

ROOT = Path(sigrec.verify.__path__[0])
STAGES = ("checks", "suite", "studies", "render", "cli")
#: the sweep's figure moves to render/_sweep_figure.py in a change of its own
PENDING = {("studies", "_sweep.py")}


def _verify_imports(path: Path):
    """``(subpackage, line)`` of every relative import of another verify subpackage."""
    depth = len(path.relative_to(ROOT).parts) - 1  # 1 for verify/<sub>/<mod>.py
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level > depth:
            if node.level == depth + 1:  # from ..<sub> import ... (relative to verify)
                target = (node.module or "").split(".")[0] or None
                names = [target] if target else [a.name for a in node.names]
                for n in names:
                    yield n, node.lineno


def test_subpackages_import_only_earlier_stages():
    bad = []
    for i, stage in enumerate(STAGES):
        for path in sorted((ROOT / stage).rglob("*.py")):
            if (stage, path.name) in PENDING:
                continue
            for target, line in _verify_imports(path):
                if target in STAGES and target != stage and STAGES.index(target) > i:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert bad == []


def test_the_detector_sees_a_late_import(tmp_path):
    sub = tmp_path / "suite"
    sub.mkdir()
    (sub / "_x.py").write_text("def f():\n    from ..render import figures\n")
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        assert list(_verify_imports(sub / "_x.py")) == [("render", 2)]
    finally:
        ROOT = old
