"""The public API of ``sigrec.theory`` is the one docs/design.md section 6 lists."""

from __future__ import annotations

import re
from pathlib import Path

import sigrec.theory as theory

DESIGN = Path(__file__).resolve().parents[2] / "docs" / "design.md"


def _documented() -> set[str]:
    text = DESIGN.read_text()
    start = text.index("**Public API of `sigrec.theory`.**")
    block = text[start:text.index("\n\n", text.index("\n* ", start) + 1)]
    items = block[block.index("\n* "):]
    return {name for name in re.findall(r"`([A-Za-z_]\w*)`", items)}


def test_all_is_the_documented_api():
    assert len(theory.__all__) == len(set(theory.__all__))
    assert set(theory.__all__) == _documented()


def test_result_classes_and_helpers_stay_private():
    for name in ("FieldValues", "Derivation", "EffectiveDrift", "Lemma", "PRIORS", "alignments", "isolate"):
        assert not hasattr(theory, name), name
