"""Layout rules of the three packages (docs/design.md section 6), checked on the source.

* ``theory`` imports nothing of sigrec; ``numerics`` only ``theory``; ``verify`` both.
* No module imports a private (``_``-prefixed) module of another package, or of another
  subpackage of ``verify``.
* Inside ``verify`` data flows one way, checks -> suite -> studies -> render -> cli: a
  subpackage imports only from the ones before it (:data:`VERIFY_ORDER`).
* ``render`` draws and typesets what it is given: it imports nothing of ``numerics``, of
  ``theory`` only the printing layer (:data:`RENDER_THEORY`), and nothing of ``studies``
  (the data a renderer draws comes from its caller).
* Every import is checked wherever it stands, including inside functions, and no module
  of sigrec is imported inside a function (such imports hid the cycles this test forbids).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import sigrec.core
import sigrec.numerics
import sigrec.theory
import sigrec.verify

ROOTS = {"core": Path(sigrec.core.__path__[0]), "theory": Path(sigrec.theory.__path__[0]),
         "numerics": Path(sigrec.numerics.__path__[0]), "verify": Path(sigrec.verify.__path__[0])}
#: the subpackages of verify in pipeline order; a subpackage may import only earlier ones
VERIFY_ORDER = ("checks", "suite", "studies", "render", "cli")
#: what render may take from theory: the printing layer of the notes
RENDER_THEORY = {"tex", "display", "symbols"}
#: render modules that still compute through studies, under rework by another change (the region
#: figure); the lead removes the entry when that change lands
RENDER_STUDIES_EXEMPT: set[str] = set()
#: the modules that import sigrec inside functions: the entry point loads the command modules
#: (and numerics, for the cluster shutdown) on demand, so that ``sigrec --help`` starts fast; the
#: simulator loads its compiled kernels (numerics/_simulate/_fused.py, which imports numba: 0.4 s) on the
#: first simulation, so that commands that never simulate do not pay for numba
LAZY = {"verify/cli/_main.py", "numerics/_simulate/_driver.py"}


def _module_name(pkg: str, path: Path) -> str:
    rel = path.relative_to(ROOTS[pkg]).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["sigrec", pkg, *parts])


SOURCES = [(pkg, p) for pkg, root in ROOTS.items() for p in sorted(root.rglob("*.py"))]
IDS = [f"{pkg}/{p.relative_to(ROOTS[pkg])}" for pkg, p in SOURCES]


def _imports(pkg: str, path: Path) -> list[tuple[str, list[str], bool]]:
    """``(module, imported names, inside a function)`` for every import of ``path``."""
    name = _module_name(pkg, path)
    here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend((a.name, [], inner) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = here.rsplit(".", child.level - 1)[0] if child.level > 1 else here
                    mod = f"{base}.{child.module}" if child.module else base
                else:
                    mod = child.module
                out.append((mod, [a.name for a in child.names], inner))
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return out


def _targets(mod: str, names: list[str]) -> list[str]:
    """The dotted names an import reaches (``from . import _x`` reaches the module ``_x``)."""
    return [mod] + [f"{mod}.{n}" for n in names]


def _unit(dotted: str) -> tuple[str, ...]:
    """``(package,)`` or, inside verify, ``("verify", subpackage)``."""
    parts = dotted.split(".")
    if len(parts) >= 3 and parts[1] == "verify" and parts[2] in VERIFY_ORDER:
        return ("verify", parts[2])
    return tuple(parts[1:2])


def _private_elsewhere(source: str, target: str) -> bool:
    """``target`` is a private module inside another package or verify subpackage."""
    if _unit(target) == _unit(source):
        return False
    skip = 3 if _unit(target)[0] == "verify" and len(_unit(target)) == 2 else 2
    return any(p.startswith("_") and not p.startswith("__") for p in target.split(".")[skip:])


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_no_private_module_of_another_package_or_subpackage(pkg, path):
    me = _module_name(pkg, path)
    bad = [t for mod, names, _ in _imports(pkg, path) if mod.startswith("sigrec.")
           for t in _targets(mod, names) if _private_elsewhere(me, t)]
    assert bad == []


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_dependencies_flow_one_way(pkg, path):
    allowed = {"core": set(), "theory": {"core"}, "numerics": {"core", "theory"},
               "verify": {"core", "theory", "numerics"}}[pkg]
    used = {mod.split(".")[1] for mod, _, _ in _imports(pkg, path) if mod.startswith("sigrec.") and mod.count(".")}
    assert used - {pkg} <= allowed


def _verify_unit(path: Path) -> str | None:
    rel = path.relative_to(ROOTS["verify"]).parts
    return rel[0] if len(rel) > 1 and rel[0] in VERIFY_ORDER else None


VERIFY_SOURCES = [(p, _verify_unit(p)) for pkg, p in SOURCES if pkg == "verify" and _verify_unit(p)]


@pytest.mark.parametrize("path, unit", VERIFY_SOURCES,
                         ids=[str(p.relative_to(ROOTS["verify"])) for p, _ in VERIFY_SOURCES])
def test_verify_pipeline_flows_one_way(path, unit):
    rank = VERIFY_ORDER.index(unit)
    bad = []
    for mod, names, _ in _imports("verify", path):
        if not mod.startswith("sigrec.verify"):
            continue
        for t in _targets(mod, names):
            u = _unit(t)
            if len(u) == 2 and u[1] != unit and VERIFY_ORDER.index(u[1]) > rank:
                bad.append(t)
    assert bad == [], f"{unit} may import only {VERIFY_ORDER[:rank]}"


@pytest.mark.parametrize("path", [p for p, u in VERIFY_SOURCES if u == "render"],
                         ids=[str(p.relative_to(ROOTS["verify"])) for p, u in VERIFY_SOURCES if u == "render"])
def test_render_only_draws_and_typesets(path):
    bad = []
    for mod, names, _ in _imports("verify", path):
        if mod.startswith("sigrec.numerics"):
            bad.append(mod)
        elif mod.startswith("sigrec.verify.studies") and path.name not in RENDER_STUDIES_EXEMPT:
            bad.append(mod)
        elif mod == "sigrec.theory":
            bad += [f"{mod}.{n}" for n in names if n not in RENDER_THEORY]
        elif mod.startswith("sigrec.theory."):
            bad.append(mod)
    assert bad == []


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_no_sigrec_import_inside_a_function(pkg, path):
    if f"{pkg}/{path.relative_to(ROOTS[pkg])}" in LAZY:
        return
    bad = [mod for mod, _, inner in _imports(pkg, path) if inner and mod.startswith("sigrec.")]
    assert bad == []


@pytest.mark.parametrize("pkg, path", SOURCES, ids=IDS)
def test_comments_cite_nothing_a_reader_cannot_follow(pkg, path):
    text = path.read_text()
    assert not re.search(r"\bissue\s+\d+|\bthe issue\b", text, re.IGNORECASE)
    assert not re.search(r"DESIGN\.md|\.\./shared/", text)  # the design document is docs/design.md


def test_the_old_modules_are_gone_and_the_new_ones_importable():
    """The flat modules of the old layout are gone (one concept per subpackage now), and
    ``theory.validate`` is the core's module."""
    for gone in ("sigrec.numerics._validate", "sigrec.theory._priors", "sigrec.theory._evaluate",
                 "sigrec.theory._effective_evaluate", "sigrec.theory._subspace", "sigrec.theory._cache",
                 "sigrec.numerics._reduced", "sigrec.numerics._executor", "sigrec.numerics._subspace_simulate",
                 "sigrec.verify.render._notes_priors", "sigrec.verify.render._notes_diffusion"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(gone)
    for mod in ("_effective._lemmas", "_effective._derivation", "_effective._evaluate", "_effective._quadrature",
                "_calculus", "_laws", "_field._scalar", "_certify._scalar", "_region._certify"):
        importlib.import_module(f"sigrec.theory.{mod}")
    assert sigrec.theory.validate is importlib.import_module("sigrec.core.validate")


@pytest.mark.parametrize("module", [sigrec.theory, sigrec.numerics, sigrec.verify],
                         ids=["theory", "numerics", "verify"])
def test_public_names_are_importable(module):
    assert [n for n in module.__all__ if not hasattr(module, n)] == []


def test_the_table_catches_what_it_forbids(tmp_path, monkeypatch):
    """The rules are not vacuous: a render module that integrates the ODE, one that imports
    studies, a check that draws, and a function-level import are each caught."""
    root = tmp_path / "verify"
    (root / "render").mkdir(parents=True)
    (root / "checks").mkdir()
    bad_render = root / "render" / "_x.py"
    bad_render.write_text("from ...numerics import flow_map\nfrom ...theory import certify\n")
    studies_render = root / "render" / "_z.py"
    studies_render.write_text("from ..studies import PAPER_MEAN_FINAL_ALIGNMENT\n")
    bad_check = root / "checks" / "_y.py"
    bad_check.write_text("def f():\n    from ..render import figures\n")
    monkeypatch.setitem(ROOTS, "verify", root)
    assert [m for m, _, _ in _imports("verify", bad_render)] == ["sigrec.numerics", "sigrec.theory"]
    with pytest.raises(AssertionError):
        test_render_only_draws_and_typesets(bad_render)
    with pytest.raises(AssertionError):
        test_render_only_draws_and_typesets(studies_render)
    with pytest.raises(AssertionError):
        test_verify_pipeline_flows_one_way(bad_check, "checks")
    with pytest.raises(AssertionError):
        test_no_sigrec_import_inside_a_function("verify", bad_check)
