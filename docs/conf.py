"""Sphinx configuration of the sigrec documentation.

Build: ``pip install -e ".[docs]" && sphinx-build -W --keep-going -b html docs docs/_build/html``.
The tutorials are MyST text notebooks, executed on every build (an error fails it).
"""

import importlib
import inspect
import re
import sys
from importlib.metadata import version as _version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _cli.py, the parser for sphinx-argparse

project = "sigrec"
author = "sigrec developers"
copyright = "2026, sigrec developers"
release = _version("sigrec")
version = release

extensions = [
    "myst_nb",  # MyST Markdown pages and text notebooks (also loads myst_parser)
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinxarg.ext",
]

source_suffix = {".md": "myst-nb", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "jupyter_execute", "__pycache__"]

# --- MyST / MyST-NB --------------------------------------------------------------------
smartquotes = False  # "--theta" stays two hyphens in the CLI reference

myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # every build runs every tutorial from scratch
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_timeout = 300  # seconds per cell
nb_execution_show_tb = True  # the traceback goes to the build log
nb_merge_streams = True

# --- autodoc / numpydoc ----------------------------------------------------------------
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # the numpydoc Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

# --- HTML ------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"sigrec {release}"
html_static_path = []


# --- API pages generated from each package's __all__ ----------------------------------
# A page holds a line ``<!-- api: sigrec.theory -->``; at read time it becomes a table of
# the names with the first sentence of each docstring, then one autodoc entry per name, in
# the order of the package's __all__: a name added to __all__ appears without editing docs.

_API_MARK = re.compile(r"^<!-- api: ([\w.]+) -->$", re.MULTILINE)


def _summary(obj) -> str:
    """The first sentence of ``obj``'s docstring, never cut inside a ``literal``."""
    doc = inspect.getdoc(obj) or ""
    para = " ".join(doc.split("\n\n")[0].split())
    parts = re.split(r"(``.*?``)", para)  # odd items are literals
    out = ""
    for i, part in enumerate(parts):
        if i % 2 == 0 and (m := re.search(r"\.(\s|$)", part)):
            return out + part[: m.start() + 1]
        out += part
    return out


def _api_rst(modname: str) -> str:
    module = importlib.import_module(modname)
    names = list(module.__all__)
    lines = [f".. currentmodule:: {modname}", "", ".. list-table::", "   :widths: 30 70", ""]
    for name in names:
        obj = getattr(module, name)
        text = _summary(obj) if inspect.isclass(obj) or callable(obj) else "constant"
        lines += [f"   * - :py:obj:`{name}`", f"     - {text or ' '}"]
    lines.append("")
    for name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj):
            lines += [f".. autoclass:: {name}", "   :members:", ""]
        elif callable(obj):
            lines += [f".. autofunction:: {name}", ""]
        else:
            lines += [f".. autodata:: {name}", "   :no-value:", ""]
    return "\n".join(lines)


def _expand_api(app, docname, source):
    source[0] = _API_MARK.sub(
        lambda m: "```{eval-rst}\n" + _api_rst(m.group(1)) + "\n```", source[0])


def setup(app):
    app.connect("source-read", _expand_api)
    return {"parallel_read_safe": True}
