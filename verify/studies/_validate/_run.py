"""The validation driver: one unit per model on the current executor, and the summary."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ....core.validate import integer
from ....numerics import current_executor
from ._models import BETA_SPLIT, DrawnModel, draw_models
from ._profile import QUANTITIES, ROUTE_QUANTITIES, SIGMAS, TOLERANCES, Profile
from ._quantities import decaying, error, moments, plateau, second_moment, splitting

#: worst cases listed by :func:`summarize`
WORST = 8


@dataclass(frozen=True)
class _Unit:
    """One model and the budgets (picklable, pure)."""

    model: DrawnModel
    profile: Profile


#: each study of one model and the quantities it returns (for the record of one that raises)
STUDIES = ((moments, ("mean", "variance")), (second_moment, ("second_moment",)), (plateau, ("plateau",)),
           (decaying, ("trajectory", "band", "passage")), (splitting, ("splitting",)))


def _run_unit(u: _Unit) -> dict:
    """Every comparison of one model. A study that raises is recorded as one ``error``
    comparison per quantity it owns (with the exception), and the other studies still run:
    one model's defect does not end a run of hundreds (the summary lists the errors)."""
    t0 = time.perf_counter()
    comps = []
    for study, quantities in STUDIES:
        try:
            out = study(u.model, u.profile)
        except Exception as exc:
            comps += [error(q, f"{type(exc).__name__}: {exc}", r) for r in u.profile.routes for q in quantities
                      if q in ROUTE_QUANTITIES[r]]
            continue
        comps += out if isinstance(out, list) else [out]
    return {**u.model.as_dict(), "comparisons": [c.as_dict() for c in comps], "wall_s": time.perf_counter() - t0}


@dataclass(frozen=True)
class Validation:
    """Per-model records of one validation run and its summary.

    Attributes
    ----------
    seed : int
        Root seed (model ``i`` is ``draw_model(seed, i)``).
    profile : Profile
    records : list of dict
        One per model: ``index``, ``problem``, ``eta``, ``region``, ``comparisons``, ``wall_s``.
    summary : dict
        :func:`summarize` of the records.
    """

    seed: int
    profile: Profile
    records: list
    summary: dict

    def as_dict(self) -> dict:
        return {"seed": self.seed, "profile": self.profile.as_dict(), "sigmas": SIGMAS,
                "tolerances": {q: {"relative": t, "compared": what} for q, (t, what) in TOLERANCES.items()},
                "seeding": "model i: default_rng(SeedSequence(seed, spawn_key=(i, 0))); its k-th simulation: "
                           "SeedSequence(seed, spawn_key=(i, 1, k))",
                "summary": self.summary, "models": self.records}


def run_validation(profile: Profile, *, models: int | None = None, seed: int = 0, progress=None) -> Validation:
    """Draw ``models`` random models (default ``profile.models``) and compare every quantity.

    Each model is one unit of the current executor; its numbers depend on ``(seed, index)``
    only. ``progress(done, total)`` counts finished models.
    """
    n = integer("models", profile.models if models is None else models, 1)
    seed = integer("seed", seed, 0)
    units = [_Unit(m, profile) for m in draw_models(seed, n)]
    records = current_executor().map(_run_unit, units, progress=progress)
    return Validation(seed, profile, records, summarize(records))


def _rate(comps: list[dict]) -> dict:
    judged = [c for c in comps if c["status"] in ("pass", "fail")]
    passed = sum(c["status"] == "pass" for c in judged)
    errors = sum(c["status"] == "error" for c in comps)
    return {"judged": len(judged), "passed": passed, "n/a": len(comps) - len(judged) - errors, "errors": errors,
            "rate": passed / len(judged) if judged else None}


def _regions(rec: dict) -> tuple[str, str]:
    return ("inside" if rec["region"]["inside"] else "outside",
            f"beta >= {BETA_SPLIT:g}" if rec["region"]["beta_high"] else f"beta < {BETA_SPLIT:g}")


def _route(c: dict) -> str:
    return c.get("route", "expansion")


def _auto(rec: dict, c: dict) -> bool:
    """Whether ``c`` is what the default route (``auto``) predicts for this model: the expansion
    inside its stated validity, the measured law outside (for the quantities it predicts)."""
    measured = not rec["region"]["inside"] and c["quantity"] in ROUTE_QUANTITIES["measured"]
    return _route(c) == ("measured" if measured else "expansion")


def _case(rec: dict, c: dict) -> dict:
    ratio = c["theory"] / c["mc"] if c["mc"] and math.isfinite(c["mc"]) else math.nan
    return {"model": rec["index"], "quantity": c["quantity"], "route": _route(c), "rho": c["rho"],
            "step": c["detail"].get("step"), "problem": rec["problem"],
            "eta": rec["eta"], "inside": rec["region"]["inside"], "theory": c["theory"], "mc": c["mc"], "se": c["se"],
            "ratio": ratio, "excess": c["excess"], "status": c["status"]}


def _tally(rows: list[tuple[dict, dict]]) -> dict:
    """Pass rates per quantity over ``rows`` (``(record, comparison)``), in all and per region."""
    out: dict = {"all": {q: _rate([c for _, c in rows if c["quantity"] == q]) for q in QUANTITIES}, "regions": {}}
    for k in range(2):
        names = sorted({_regions(rec)[k] for rec, _ in rows})
        for name in names:
            cs = [c for rec, c in rows if _regions(rec)[k] == name]
            out["regions"][name] = {q: _rate([c for c in cs if c["quantity"] == q]) for q in QUANTITIES}
    return out


def summarize(records: list[dict]) -> dict:
    """Pass rates per quantity (all routes), per route (``expansion``, ``measured`` and ``auto``, the
    default's choice per model) and region (validity inside/outside, beta below/above
    :data:`BETA_SPLIT`), the worst cases (largest ``excess``) and every failure."""
    rows = [(rec, c) for rec in records for c in rec["comparisons"]]
    by_q = {q: [c for _, c in rows if c["quantity"] == q] for q in QUANTITIES}
    routes = {r: _tally([(rec, c) for rec, c in rows if _route(c) == r]) for r in ROUTE_QUANTITIES
              if any(_route(c) == r for _, c in rows)}
    if "measured" in routes:
        routes["auto"] = _tally([(rec, c) for rec, c in rows if _auto(rec, c)])
    judged = [(rec, c) for rec, c in rows if c["status"] in ("pass", "fail")]
    worst = sorted(judged, key=lambda rc: -rc[1]["excess"])[:WORST]
    return {
        "models": len(records),
        "inside": sum(rec["region"]["inside"] for rec in records),
        "quantities": {q: _rate(cs) for q, cs in by_q.items()},
        "routes": routes,
        "worst": [_case(rec, c) for rec, c in worst],
        "failures": [_case(rec, c) for rec, c in judged if c["status"] == "fail"],
        "not_applicable": [{"model": rec["index"], "quantity": c["quantity"], "route": _route(c),
                            "reason": c["detail"].get("reason")} for rec, c in rows if c["status"] == "n/a"],
        "errors": [{"model": rec["index"], "quantity": c["quantity"], "route": _route(c),
                    "error": c["detail"].get("reason")} for rec, c in rows if c["status"] == "error"],
    }
