"""Model-independent checks that only need ``theory``: ``derivation.quadrature``, ``field.endpoints``.

They run once per suite, not per case; ``case`` is ignored."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...theory import cross_check, derive, derive_general
from ._context import CheckContext
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


def check_quadrature(case: Case | None, ctx: CheckContext) -> list[CheckRecord]:
    """``derivation.quadrature``: symbolic lemmas vs mpmath quadrature at random parameters
    (``ctx.quadrature_points`` per prior at ``ctx.quadrature_dps`` digits)."""
    t0 = time.perf_counter()
    n_points, dps, seed = ctx.quadrature_points, ctx.quadrature_dps, ctx.seed_for("derivation.quadrature")
    res = cross_check(n_points=n_points, dps=dps, seed=seed)
    worst = max(res.comparisons, key=lambda c: c.rel_diff)
    per_lemma: dict[str, float] = {}
    for c in res.comparisons:
        per_lemma[c.lemma] = max(per_lemma.get(c.lemma, 0.0), c.rel_diff)
    return [CheckRecord(
        id="derivation.quadrature",
        kind="consistency",
        status="pass" if res.passed else "fail",
        value=res.max_rel_diff,
        threshold=res.tolerance,
        certified=False,
        message=(
            f"{len(res.comparisons)} lemma evaluations at {n_points} random points per prior, "
            f"dps={dps}: max relative difference {res.max_rel_diff:.2e} (tolerance {res.tolerance:.0e})"
        ),
        details={
            "dps": dps,
            "seed": seed,
            "points_per_prior": n_points,
            "max_rel_diff_per_lemma": per_lemma,
            "worst": {"lemma": worst.lemma, "params": worst.params, "rel_diff": worst.rel_diff},
        },
        seconds=time.perf_counter() - t0,
    )]


def check_endpoints(case: Case | None, ctx: CheckContext) -> list[CheckRecord]:
    """``field.endpoints``: ``F(+-1) = 0`` symbolically, both priors, any prior (the
    derivation with the MGF unspecified) and the sparse limits."""

    t0 = time.perf_counter()
    found = {}
    for prior, d in (("fixed", derive("fixed", engine="scalar")), ("rademacher", derive("rademacher", engine="scalar")),
                     ("any", derive_general())):
        found[prior] = [str(e) for e in d.endpoints]
        found[f"{prior}/sparse"] = [str(e) for e in d.sparse.endpoints]
    ok = all(v == ["0", "0"] for v in found.values())
    return [CheckRecord(
        id="field.endpoints",
        kind="consistency",
        status="pass" if ok else "fail",
        value=0.0 if ok else None,
        threshold=0.0,
        certified=ok,
        message="F(+1) = F(-1) = 0 simplifies to exactly 0 for both priors, for any prior (M_s unspecified) "
                "and in the sparse limit"
        if ok
        else f"F(+-1) did not simplify to 0: {found}",
        details={"simplified": found, "reason": "F = (1 - rho^2) j'(rho) with j' finite at rho = +-1"},
        seconds=time.perf_counter() - t0,
    )]
