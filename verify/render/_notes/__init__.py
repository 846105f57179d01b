"""``sigrec notes``: the derivation appendix, typeset from its computed data.

Every display formula is printed by ``theory.tex`` from an object of ``theory`` or from
a form sympy proved equal to it, all computed beforehand by
``verify.studies.appendix_data`` together with the phase diagram, the claims and their
evidence, the quadrature and priors tables and the reproduction; the prose around them
is fixed text. One module per section; nothing here certifies, solves, integrates or
judges, so editing the prose re-runs nothing. Numbers come from seeded runs, rounded,
so the output is reproducible and ``--check`` can compare it exactly.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from .._document import Document
from ..style import body_text
from ._diffusion import diffusion_section
from ._effective import effective_section
from ._evidence import evidence_section
from ._experiments import reproduce_section
from ._landscape import monotone_section
from ._priors import priors_section
from ._recursion import filtering_section, stability_section, tracking_section
from ._regions import regions_section
from ._setting import lemma_section, limit_section, model_section
from ._subspace import subspace_section

__all__ = ["TEXT_FILES", "build", "compare", "write_notes"]

TEXT_FILES = ("appendix.tex", "appendix.md")


def build(out: Path, data, extra_sections=()) -> Document:
    """Assemble the appendix from ``data`` (a ``verify.studies.AppendixData``); the
    figures are drawn into ``out``.

    One function per section; ``extra_sections`` (each ``fn(doc, out)``) are added after
    the effective dynamics, before the experiments and the evidence.
    """
    found, counts = data.claims, data.counts
    doc = Document("Signal recovery by softmax attention: derivation appendix")
    model_section(doc)
    lemma_section(doc, data)
    limit_section(doc, data, found.get(1))
    monotone_section(doc, data, out, found.get(2), counts)
    tracking_section(doc, data, found.get(3))
    stability_section(doc, data, found.get(4), counts)
    filtering_section(doc, data, found.get(5), counts)
    if data.suite:
        effective_section(doc, data, out)
    diffusion_section(doc, data)
    priors_section(doc, data)
    regions_section(doc, data)
    subspace_section(doc, data, out)
    for fn in extra_sections:
        fn(doc, out)
    if data.reproduction is not None:
        reproduce_section(doc, data, out, found.get(6))
    if data.suite:
        evidence_section(doc, data)
    return doc


def write_notes(out: Path, data, extra_sections=()) -> list[Path]:
    """Write ``appendix.tex``, ``appendix.md`` and their figures into ``out`` from ``data``
    (a ``verify.studies.AppendixData``: :func:`verify.studies.appendix_data`)."""
    out.mkdir(parents=True, exist_ok=True)
    with body_text():  # the figures' text at the body's size: they are included at the text width
        doc = build(out, data, extra_sections)
    (out / "appendix.tex").write_text(doc.latex())
    (out / "appendix.md").write_text(doc.markdown())
    return [out / f for f in TEXT_FILES]


def compare(committed: Path, fresh: Path) -> list[str]:
    """Unified diffs of the text files that differ (empty when in sync)."""
    diffs = []
    for name in TEXT_FILES:
        a = (committed / name).read_text().splitlines() if (committed / name).exists() else []
        b = (fresh / name).read_text().splitlines()
        if a != b:
            diffs.append("\n".join(difflib.unified_diff(a, b, f"{committed / name}", f"regenerated/{name}",
                                                        lineterm="", n=1)))
    return diffs
