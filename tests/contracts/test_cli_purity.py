"""The command line parses, calls once and prints (docs/design.md section 6), checked on the source.

The rule, for every module of ``verify/cli`` but :data:`EXEMPT`:

* **Public names only.** An import from sigrec names a package that declares ``__all__``
  (``sigrec.theory``, ``sigrec.numerics``, ``sigrec.verify`` or one of its subpackages ``checks``,
  ``suite``, ``studies``, ``render``) and only names listed there; or it is a module of ``verify/cli``
  itself (the commands' shared flag and output helpers). No private module of the library, no
  ``sigrec.core``.
* **No arithmetic on arrays.** The module imports none of the numerical libraries
  (:data:`NUMERICAL`): numbers are computed in the library or in ``verify/studies``, summary
  statistics are attributes of the records they return, and ``verify/render`` formats them. (``math``
  stays allowed: the flag types check that a parsed number is finite.)

Imports are read wherever they stand (inside functions too), like ``test_layering.py``.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import sigrec.verify.cli

CLI = Path(sigrec.verify.cli.__path__[0])
#: the packages whose ``__all__`` a command may import from
PUBLIC = ("sigrec.theory", "sigrec.numerics", "sigrec.verify", "sigrec.verify.checks", "sigrec.verify.suite",
          "sigrec.verify.studies", "sigrec.verify.render")
#: the libraries that compute on arrays or numbers
NUMERICAL = {"numpy", "scipy", "mpmath", "flint", "sympy", "numba", "dask", "distributed", "pandas", "xarray"}
#: commands still under rework by another change (certify, phase and their shared overlap flags); the
#: exemption is removed when that change lands
EXEMPT: set[str] = set()
SOURCES = sorted(p for p in CLI.glob("*.py") if p.name not in EXEMPT)


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """``(absolute module, imported names)`` of every import in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = "sigrec.verify.cli".rsplit(".", node.level - 1)[0] if node.level > 1 else "sigrec.verify.cli"
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            out.append((mod, [a.name for a in node.names]))
    return out


def violations(path: Path) -> list[str]:
    bad = []
    for mod, names in _imports(path):
        if mod.split(".")[0] in NUMERICAL:
            bad.append(mod)
        elif mod == "sigrec.verify.cli" or mod.startswith("sigrec.verify.cli."):
            continue
        elif mod in PUBLIC:
            public = set(importlib.import_module(mod).__all__)
            bad += [f"{mod}.{n}" for n in names if n not in public]
        elif mod.split(".")[0] == "sigrec":
            bad.append(mod)
    return bad


@pytest.mark.parametrize("path", SOURCES, ids=[p.name for p in SOURCES])
def test_commands_use_the_public_api_and_no_numerical_library(path):
    assert violations(path) == []


def test_the_exemptions_are_files_that_exist():
    assert {p.name for p in CLI.glob("*.py")} >= EXEMPT


def test_the_rule_catches_what_it_forbids(tmp_path):
    """Not vacuous: numpy, a private module, a name outside ``__all__`` and ``sigrec.core`` are each caught;
    the public API and the command's own helpers pass."""
    bad = tmp_path / "_bad.py"
    bad.write_text("import numpy as np\nfrom scipy import stats\nfrom ...theory._laws import parse_law\n"
                   "from ...numerics import record_indices\nfrom ...core.validate import real\n"
                   "def f():\n    from ..studies import _guard\n")
    assert violations(bad) == ["numpy", "scipy", "sigrec.theory._laws", "sigrec.numerics.record_indices",
                               "sigrec.core.validate", "sigrec.verify.studies._guard"]
    good = tmp_path / "_good.py"
    good.write_text("import math\nfrom ...theory import Model\nfrom ..studies import simulation\n"
                    "from ._args import add_json_flag\nfrom . import _main\n")
    assert violations(good) == []
