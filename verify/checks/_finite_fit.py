"""The fit and verdict of ``finite_size.rate``: the ``C / L`` and ``C / L + D / L^2`` models, the free
log-log slope, the rate criteria and the sign finding (the draws: :mod:`._finite`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import chi2 as chi2_dist

from ...theory import validity
from ._common import loglog_fit
from ._context import CheckContext
from ._figures import finite_size_figure
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case



#: standard errors at which a bias counts as resolved
RESOLVED_SE = 3.0


@dataclass(frozen=True)
class _RateFit:
    """The ``C / L`` and ``C / L + D / L^2`` models and the free log-log slope fitted to the
    ladder's errors.

    ``C_over_L``: ``{str(rho): {"C", "se", "C2", "C2_se", "D", "D_se"}}`` (``C``: the one-term
    fit; ``C2``, ``D``: the two-term one); ``chi2`` on ``dof`` degrees of freedom and its
    ``p_value`` (one term), ``chi2_2``, ``dof_2``, ``p_value_2`` (two terms; ``p_value_2 = 1``
    with no degree of freedom left); ``resolved``: per point, whether ``|err| > 3 SE``;
    ``slope``, ``slope_se``: the free slope on the resolved points (``None`` with fewer than three).
    """

    C_over_L: dict
    chi2: float
    dof: int
    p_value: float
    resolved: np.ndarray
    slope: float | None
    slope_se: float | None
    chi2_2: float = 0.0
    dof_2: int = 0
    p_value_2: float = 1.0

    def next_order(self, rho: float) -> tuple[bool, bool]:
        """``(resolved, dominated)`` of the fitted ``D / L^2`` term at ``rho``: ``D`` is resolved
        from 0 (by :data:`RESOLVED_SE` of its SE), and the leading ``C / L`` term (itself resolved)
        is at least twice the next one at the ladder's largest size (``largest_L`` in the dict)."""
        c = self.C_over_L[str(rho)]
        resolved = abs(c["D"]) > RESOLVED_SE * c["D_se"]
        dominated = (abs(c["C2"]) > RESOLVED_SE * c["C2_se"]
                     and abs(c["D"]) / c["largest_L"] <= NEXT_ORDER_SHARE * abs(c["C2"]))
        return resolved, dominated


#: at the ladder's largest size the fitted next-order term ``|D| / L`` may be at most this share of
#: ``|C|`` for the rate to count as tested where ``D`` is resolved (else the ladder is pre-asymptotic)
NEXT_ORDER_SHARE = 0.5


def _wls(X: np.ndarray, y: np.ndarray, se: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Weighted least squares of ``y`` on the columns of ``X`` (weights ``1/se^2``): the
    coefficients, their covariance and the chi-square of the residuals."""
    w = 1 / se**2
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    beta = cov @ X.T @ (w * y)
    return beta, cov, float(np.sum(w * (y - X @ beta) ** 2))


def _fit_rate(rows: list[dict], rhos: list[float]) -> _RateFit:
    """The ``C / L`` and ``C / L + D / L^2`` models per rho (weighted least squares, chi-square over
    all points) and, on the points that resolve the bias, the free log-log slope."""
    Larr = np.array([r["L"] for r in rows], float)
    err = np.array([r["err"] for r in rows])
    se = np.array([r["se"] for r in rows])
    chi2 = chi2_2 = 0.0
    dof = dof_2 = 0
    Cs = {}
    for rho in rhos:
        sel = np.array([r["rho"] == rho for r in rows])
        xL = 1 / Larr[sel]
        (C,), cov1, c1 = _wls(xL[:, None], err[sel], se[sel])
        entry = {"C": float(C), "se": float(math.sqrt(cov1[0, 0])), "largest_L": float(Larr[sel].max())}
        chi2 += c1
        dof += int(sel.sum()) - 1
        if sel.sum() >= 3:  # the next order of the expansion: E X - F = C/L + D/L^2 + O(1/L^3)
            (C2, D), cov2, c2 = _wls(np.column_stack([xL, xL**2]), err[sel], se[sel])
            entry.update(C2=float(C2), C2_se=float(math.sqrt(cov2[0, 0])), D=float(D),
                         D_se=float(math.sqrt(cov2[1, 1])))
            chi2_2 += c2
            dof_2 += int(sel.sum()) - 2
        else:
            entry.update(C2=entry["C"], C2_se=entry["se"], D=0.0, D_se=math.inf)
        Cs[str(rho)] = entry
    resolved = np.abs(err) > RESOLVED_SE * se
    slope = slope_se = None
    if resolved.sum() >= 3:
        lx, ly = Larr[resolved], np.abs(err[resolved])
        wlog = (ly / se[resolved]) ** 2  # var(log|err|) ~ (se/err)^2
        slope, slope_se, _ = loglog_fit(lx, ly, wlog)
    return _RateFit(C_over_L=Cs, chi2=chi2, dof=dof, p_value=float(chi2_dist.sf(chi2, dof)), resolved=resolved,
                    slope=slope, slope_se=slope_se, chi2_2=chi2_2, dof_2=dof_2,
                    p_value_2=float(chi2_dist.sf(chi2_2, dof_2)) if dof_2 > 0 else 1.0)


def rate_criteria(fit: _RateFit, rhos: list[float]) -> dict:
    """The model and rate criteria of ``finite_size.rate`` (module :func:`check_finite_size`):
    ``model_ok`` (the ``C/L + D/L^2`` model not rejected at p 1e-3), ``rate`` (``"ok"``, ``"bad"`` or
    ``"untested"``) and ``how`` (which test decided the rate).

    Where the fitted ``D`` is not resolved, the free log-log slope on the resolved points must lie
    within ``2 se + 0.3`` of -1 (untested with fewer than three). Where ``D`` is resolved, the slope
    of those points is not that of ``C/L`` (the next order bends it), so the rate counts as tested only
    where the leading term, resolved, is at least twice the next at the largest size; else the
    ladder is pre-asymptotic and the rate untested.
    """
    model_ok = fit.p_value_2 > 1e-3
    states = [fit.next_order(r) for r in rhos]
    if any(resolved for resolved, _ in states):
        rate = "ok" if all(dom for res, dom in states if res) else "untested"
        return {"model_ok": model_ok, "rate": rate, "how": "next order resolved: leading term dominates at the top"
                if rate == "ok" else "next order resolved and as large as the leading term at the top"}
    if fit.slope is None:
        return {"model_ok": model_ok, "rate": "untested", "how": "fewer than three points resolve the bias"}
    assert fit.slope_se is not None  # fitted with the slope
    ok = abs(fit.slope + 1) <= 2 * fit.slope_se + 0.3
    return {"model_ok": model_ok, "rate": "ok" if ok else "bad", "how": "free log-log slope"}


#: standard errors by which a fitted ``C`` must differ from the leading-order one, with the opposite
#: sign and itself resolved from 0 by :data:`RESOLVED_SE`, to be a finding
SIGN_SIGMAS = 3.0


def _sign_finding(case: Case, rows: list[dict], rhos: list[float], plan: dict, fit: _RateFit) -> tuple[str, bool]:
    """A fitted ``C`` of the opposite sign to the leading-order theory's, resolved from 0 and
    :data:`SIGN_SIGMAS` standard errors from the theory's value, is a finding, stated first in the
    message (``"finding: ...; "``). It contradicts the theory (the second value, ``True``: the record
    fails) where the ladder's largest size is inside the expansion's validity; outside it the
    leading-order ``C`` is not claimed, and the message says so. ``("", False)`` when the signs agree."""
    bad = []
    for r in rhos:
        C, se, C_th = fit.C_over_L[str(r)]["C"], fit.C_over_L[str(r)]["se"], plan[r]["C_predicted"]
        if C * C_th < 0 and abs(C) > RESOLVED_SE * se and abs(C - C_th) > SIGN_SIGMAS * se:
            bad.append(f"at rho = {r:g} C fitted {C:.3g} +- {se:.2g} against {C_th:.3g}")
    if not bad:
        return "", False
    L = max(row["L"] for row in rows)
    v = validity(case.problem.model, case.problem.d, L, 0.0)
    what = ("; this contradicts the O(1/L) theory inside its validity" if v.inside else
            f"; at the ladder's largest L = {L} the model is {v.message}, where the leading-order C is not "
            "claimed: a finding about this model at these sizes, not a failure of the theory's stated range")
    return f"finding: the bias has the opposite sign to the leading-order theory ({'; '.join(bad)}){what}: ", v.inside


def _judge(case: Case, ctx: CheckContext, rows: list[dict], rhos: list[float], plan: dict, fit: _RateFit,
           t0: float) -> CheckRecord:
    """The verdict of ``finite_size.rate`` on the drawn ladder (see :func:`check_finite_size`)."""
    preset, m0 = ctx.preset, case.problem.model
    Fmax = plan[rhos[0]]["max_abs_F"]
    Larr = np.array([r["L"] for r in rows], float)
    err = np.array([r["err"] for r in rows])
    se = np.array([r["se"] for r in rows])
    slope, slope_se, p_model = fit.slope, fit.slope_se, fit.p_value_2
    last = Larr == Larr.max()
    small = bool(np.all(np.abs(err[last]) <= 0.05 * Fmax + 3 * se[last]))
    crit = rate_criteria(fit, rhos)
    ok = crit["model_ok"] and crit["rate"] != "bad" and small
    # nothing measured is never a pass: an untested rate (too few resolved points, or a ladder whose
    # next-order term is as large as the leading one at its top) is inconclusive unless a criterion fails
    status = ("pass" if ok else "fail") if crit["rate"] != "untested" else ("fail" if not ok else "inconclusive")
    finding, contradicted = _sign_finding(case, rows, rhos, plan, fit)
    if contradicted:
        status = "fail"
    need = max(max(plan[r]["normals_to_resolve_3_controlled"], plan[r]["normals_to_resolve_3_measured"]) for r in rhos)
    rate_s = sum(r["seconds"] for r in rows) / max(1.0, 3 * sum(r["L"] * r["n"] for r in rows))
    C_theory = {str(r): plan[r]["C_predicted"] for r in rhos}
    figs, specs = ctx.drawn("finite_size", case, lambda path: finite_size_figure(
        path, rows, rhos, fit.C_over_L, slope, slope_se, model=m0, C_theory=C_theory))
    resolved = int(fit.resolved.sum())
    slope_txt = (f"free log-log slope {slope:.2f} +- {slope_se:.2f}" if slope is not None
                 else f"bias resolved at only {resolved}/{len(rows)} points: slope untested "
                      f"(resolving three needs ~{need:.2g} normals, ~{need * rate_s / 60:.2g} CPU-min"
                      + (", within the paper preset's budget" if preset.larger_fits("finite_budget", need) else "")
                      + ")")
    if crit["how"].startswith("next order"):
        slope_txt += f" ({crit['how']}: the slope is not that of C/L alone)"
    C_txt = "; ".join(_C_text(fit.C_over_L[str(r)], plan[r]["C_predicted"]) for r in rhos)
    Ls = [r["L"] for r in rows]
    return CheckRecord(
        id="finite_size.rate", kind="consistency", status=status,
        value=slope, threshold=-1.0, certified=False,
        message=(f"{finding}L = {Ls[0]}..{Ls[-1]}: {slope_txt}; C/L + D/L^2 model chi2 p = {p_model:.2g}; {C_txt}; "
                 f"error at L={Ls[-1]}: {np.abs(err[last]).max():.2e} (max|F| = {Fmax:.3g})"),
        details={"ran_on": f"{case.name}'s model on its own ladder L = {Ls[0]}..{Ls[-1]} at d = {case.problem.d}",
                 "points": rows, "C_over_L": fit.C_over_L, "chi2": fit.chi2, "dof": fit.dof,
                 "p_value_C_over_L": fit.p_value, "chi2_two_terms": fit.chi2_2, "dof_two_terms": fit.dof_2,
                 "p_value_two_terms": p_model, "slope": slope, "slope_se": slope_se, "resolved_points": resolved,
                 "criteria": {"two_term_model_not_rejected": crit["model_ok"], "rate": crit["rate"],
                              "rate_test": crit["how"], "small_at_largest_L": small, "C_sign_agrees": not finding},
                 "C_sign_finding": finding.rstrip(": ") or None,
                 "draw_plan": {str(r): {k: v for k, v in plan[r].items() if k != "desired"} for r in rhos},
                 "budget_normals": preset.finite_budget, "d": case.problem.d, "figures": figs},
        model=m0.as_dict(), seconds=time.perf_counter() - t0, figures=specs)


def _C_text(c: dict, C_theory: float) -> str:
    """``C`` of the one-term fit, the two-term fit's ``C`` and ``D``, and the theory's ``C``."""
    return (f"C fitted {c['C']:.3g} +- {c['se']:.2g} (with D/L^2: C {c['C2']:.3g} +- {c['C2_se']:.2g}, "
            f"D {c['D']:.3g} +- {c['D_se']:.2g}), leading-order theory {C_theory:.3g}")
