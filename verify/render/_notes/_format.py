"""Formatting helpers of the appendix: rounded numbers, case parameters in math, the
claims' status lines (their verdict and evidence class come from the ``Claim`` objects).

The helpers are private to the ``_notes`` package; its section modules share them.
"""

from __future__ import annotations

from ....theory import symbols

rho, theta, alpha, beta, sigma2, m = (symbols.rho, symbols.theta, symbols.alpha, symbols.beta, symbols.sigma2,
                                      symbols.m)


def _g(x, digits=3) -> str:
    """Rounded number for prose and tables (reproducible across runs)."""
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, (int,)):
        return str(x)
    return f"{float(x):.{digits}g}"


def _num(x, digits=3) -> str:
    """A rounded number for math mode: ``2.9\times10^{-61}`` rather than ``2.9e-61``."""
    t = _g(x, digits)
    if "e" in t:
        mant, ex = t.split("e")
        return f"{mant}\\times10^{{{int(ex)}}}"
    return t


def _bound(b) -> str:
    """A rounding residue as the bound it was checked to satisfy (``verify.studies._bounds``), for
    math mode: ``<10^{-30}``; its digits are never printed."""
    return f"<10^{{{b.exponent}}}"


#: names the displays use for subexpressions (docs/design.md section 1)
NAMES = {beta * theta: "b"}


def _two(first: str, first_note: str, second: str, second_note: str) -> str:
    """Two related formulas, one per line, each with a note at the right."""
    return ("\\begin{aligned}\n"
            f"{first} &\\quad \\text{{({first_note})}}, \\\\\n"
            f"{second} &\\quad \\text{{({second_note})}}.\n"
            "\\end{aligned}")


def _case_math(model: dict, counts: dict | None = None) -> str:
    """A case's parameters in math mode, e.g. ``$\theta=2$, $R=500$, $N=10{,}000$``."""
    parts = [f"\\theta={_g(model['theta'])}"]
    if counts and counts.get("R") is not None:
        parts += [f"R={counts['R']:,}".replace(",", "{,}"), f"N={counts['L'] - counts['R']:,}".replace(",", "{,}")]
    elif model.get("regime") == "sparse" or model.get("alpha") == 0:
        parts.append("\\alpha\\to0")
    else:
        parts.append(f"\\alpha={_g(model['alpha'])}")
    if model.get("beta", 1) != 1 or model.get("sigma2", 1) != 1:
        parts.append(f"\\beta={_g(model['beta'])}, \\sigma^{{2}}={_g(model['sigma2'])}")
    text = "$" + "$, $".join(parts) + "$"
    return text + (", Rademacher prior" if model.get("prior") == "rademacher" else "")


def _status(doc, claim, text: str) -> None:
    """The claim's status line: the verdict and evidence classes come from the ``Claim`` object."""
    word = {"holds": "holds", "partial": "holds in part", "fails": "fails", "undecided": "undecided"}[claim.status]
    evidence = claim.evidence_class
    checks = ", ".join(f"`{c}`" for c in claim.checks) or "the reproduction below"
    doc.para(f"**Status: {word}.** {text} *Evidence:* {evidence}; checks {checks} (table of evidence at the end).")


def _int(n) -> str:
    """An integer for a table cell, thousands grouped in math mode (``$10{,}500$``)."""
    return "—" if n is None else f"${int(n):,}$".replace(",", "{,}")


def _schedule_math(sch: dict) -> str:
    """A step schedule in math mode: ``$\\eta=0.05$`` or ``$0.4/(k+10)^{0.6}$``."""
    if not sch:
        return "—"
    if sch.get("power", 1) == 0:
        return f"${_g(sch['eta0'])}$"
    # braces: one unbreakable formula in a wrapped table cell
    return f"${{{_g(sch['eta0'])}/(k+{_g(sch['k0'])})^{{{_g(sch['power'])}}}}}$"
