"""The appendix prints no rounding residue.

A number that only measures the working precision (an orthonormality error at the end of a float
ODE, the relative difference of a symbolic value and a high-precision quadrature) has digits that
depend on the CPU's kernels, so ``sigrec notes --check`` would fail on another machine. The data
builder keeps such a quantity as a ``Bound`` it has checked (``verify.studies._bounds``) and the
appendix writes ``< 10^{-k}``. :func:`residues` finds every printed number below
:data:`THRESHOLD` that is not written as such a bound.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from sigrec.verify.checks import CheckRecord
from sigrec.verify.render._notes._format import _bound
from sigrec.verify.studies._appendix import quadrature_bound
from sigrec.verify.studies._bounds import Bound, below

COMMITTED = Path(__file__).resolve().parents[3] / "notes"
#: a printed number smaller than this is taken for a rounding residue (the smallest genuine one in the
#: appendix is the priors table's offset 10^{-6})
THRESHOLD = 1e-9
_NUMBER = re.compile(
    r"(?<![\w.])(?:(?P<mant>\d+(?:\.\d+)?)\s*\\times\s*)?10\^\{?(?P<exp>[-−]\d+)\}?"  # 5.1\times10^{-14}, 10^{-30}
    r"|(?<![\w.])(?P<emant>\d+(?:\.\d+)?)[eE](?P<eexp>-\d+)"  # 4.6e-50
    r"|(?<![\w.])(?P<dec>0\.0+[1-9]\d*)"  # 0.00000000012
)
#: what may stand just before a bound: "<", "\le", "\leq", "\lt" (and the "$" that opens math)
_BOUND_SIGN = re.compile(r"(<|\\le|\\leq|\\lt)[\s${]*$")


def _value(m: re.Match) -> float:
    if m["exp"] is not None:
        return float(m["mant"] or 1) * 10.0 ** int(m["exp"].replace("−", "-"))
    if m["eexp"] is not None:
        return float(m["emant"]) * 10.0 ** int(m["eexp"])
    return float(m["dec"])


def residues(text: str) -> list[str]:
    """The printed numbers of ``text`` below :data:`THRESHOLD` that are not a stated bound, each with
    the text before it (to find it in the appendix)."""
    out = []
    for m in _NUMBER.finditer(text):
        value = _value(m)
        if value == 0 or value >= THRESHOLD:
            continue
        before = text[max(0, m.start() - 60):m.start()]
        if not _BOUND_SIGN.search(before):
            out.append(before.rsplit("\n", 1)[-1] + m.group(0))
    return out


@pytest.mark.parametrize("name", ["appendix.md", "appendix.tex"])
def test_the_committed_appendix_prints_no_rounding_residue(name):
    # the committed notes are a fresh generation (`sigrec notes --check` in CI), so this covers every section
    assert residues((COMMITTED / name).read_text()) == []


#: what the appendix printed before its rounding residues became bounds (one line each)
_OLD = (
    "The lemmas agree with quadrature to $6.1\\times10^{-61}$ relative.",
    "| 68.1180699761 | 68.1180699761 | 4.6e-50 |",
    "inside $\\operatorname{span}Q$ ($\\max|MM^{\\top}-I|=5.1\\times10^{-14}$), the heads' overlap",
    "\\max|MM^{\\top}-I|=7.3\\times10^{-14}",
    "an error of 0.00000000000007",
)
#: bounds, and genuine small numbers, that must not be flagged
_FINE = (
    "The lemmas agree with quadrature to a relative difference $<10^{-40}$ (the check's tolerance).",
    "| 68.1180699761 | 68.1180699761 | $<10^{-30}$ |",
    "($\\max|MM^{\\top}-I|<10^{-10}$)",
    "$|x| \\le 10^{-12}$",
    "log-spaced $\\alpha\\in[10^{-4},1]$, certified at $c^*(1\\mp10^{-6})$, below $2^{-10}$ of the domain's",
    "plateau $0.9173\\pm0.00077$, $[0.8556559364730,\\,0.8556559365449]$",
)


def test_the_detector_flags_what_the_appendix_used_to_print():
    for line in _OLD:
        assert len(residues(line)) == 1, line
    for line in _FINE:
        assert residues(line) == [], line


def test_a_bound_is_checked_before_it_is_printed():
    b = below(7.3e-14, -10, "max|M M^T - I|")
    assert b == Bound(-10, "max|M M^T - I|") and b.value == 1e-10 and _bound(b) == "<10^{-10}"
    for bad in (2e-10, -2e-10, math.nan, math.inf):
        with pytest.raises(AssertionError, match="not below the bound 1e-10"):
            below(bad, -10, "max|M M^T - I|")


def _quadrature_record(value):
    return CheckRecord("derivation.quadrature", "consistency", "pass" if value <= 1e-40 else "fail", value, 1e-40,
                       False, "quadrature")


def test_the_quadrature_agreement_is_stated_as_the_checks_tolerance():
    assert quadrature_bound([_quadrature_record(6.1e-61)]) == Bound(-40, "the lemmas' relative difference from "
                                                                          "quadrature")
    assert quadrature_bound([]) is None
    with pytest.raises(AssertionError, match="not below"):
        quadrature_bound([_quadrature_record(6.1e-61), _quadrature_record(3e-39)])
