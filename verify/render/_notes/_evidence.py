"""Appendix section: the table of evidence behind each claim (classes from the ``Claim`` objects)."""

from __future__ import annotations

from collections.abc import Sequence

from ...checks import select
from .._document import GROUP_RULE

_KIND = {"pass": "pass", "fail": "FAIL", "holds": "holds", "fails": "fails", "undecided": "undecided",
         "inconclusive": "inconclusive"}


#: the reader's words for the records whose check summary is terse or plain-text math (the table is
#: typeset: ``|rho|`` would print as dashes); a condition record (an id beyond its check's) says
#: what it states
_WORDS = {
    "sga.convergence.recovery": "runs reach $|\\rho|\\ge0.99$ (recovery up to sign)",
    "sga.filtering.vanishes": "the limit nuisance attention mass vanishes",
    "field.endpoints": "$F(\\pm1)=0$ symbolically",
    "field.monotone": "sign of $j'$ certified by ball arithmetic",
    "field.stability": "$F'(\\pm1)$ and the interior exponents",
    "ode.lyapunov": "$j$ non-decreasing along the ODE",
    "finite_size.rate": "$O(1/L)$ rate of the gradient bias at finite $L$",
    "sga.fluctuations": "diffusion 10-90% band of $\\rho_k$ vs the exact chain",
    "sga.hitting_time": "diffusion vs exact median first step with $|\\rho|\\ge0.99$",
    "simulator.reduced_exact": "Kolmogorov--Smirnov: exact reduced vs full simulator",
}


def describe(record_id: str) -> str:
    """The reader's words for a record (:data:`_WORDS`, else its check's summary)."""
    if record_id in _WORDS:
        return _WORDS[record_id]
    (check,) = select([record_id])
    return check.summary


def evidence_section(doc, data) -> None:
    """One compact table: for each claim, the checks behind it, their outcomes and evidence class."""
    doc.section("Evidence")
    run = data.run
    doc.para(
        f"From one `sigrec verify --preset {run.preset}` run (seed {run.seed}, {_when(run)}). "
        "Consistency checks compare "
        "theory with numerics and must pass; conditions are hypotheses or claims and may fail (a finding, not an "
        "error); inconclusive means nothing decisive was measured at this budget. *Certified* means exact symbolic "
        "computation or interval arithmetic; anything else is numerical evidence."
    )
    rows: list[Sequence[str]] = []  # the table's rows and GROUP_RULE between claims
    for c in data.claims.values():
        if rows:
            rows.append(GROUP_RULE)
        ids = [*c.checks, *c.support]
        first = True
        for cid in ids:
            recs = [r for r in c.records if r["id"] == cid]
            if not recs:
                continue
            tally: dict = {}
            for r in recs:
                tally[_KIND[r["status"]]] = tally.get(_KIND[r["status"]], 0) + 1
            outcome = ", ".join(f"{n} {k}" for k, n in tally.items())
            evidence = c.check_evidence(cid)
            role = "decides" if cid in c.checks else "supports"
            rows.append([f"{c.number} ({c.status})" if first else "", describe(cid), role, outcome, evidence])
            first = False
        if first:
            rows.append([f"{c.number} ({c.status})", "reproduction", "decides",
                         f"{c.quantities.get('runs', '')} runs: {c.status}", "numerical"])
    doc.table(["claim", "check", "role", "outcomes (one per case)", "evidence"], rows,
              caption="The checks behind each claim: *decides* its verdict or *supports* a step of its derivation. "
                      "Claim statuses are the suite's claim verdicts.", widths=(1.7, 4.0, 1.3, 2.7, 1.5))


def _when(run) -> str:
    """The run's date and commit, as the evidence file records them."""
    commit = f", commit {run.git_commit[:10]}" if run.git_commit else ""
    return f"{run.date[:10]}{commit}"
