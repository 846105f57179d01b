"""Checks on the limit field itself: ``field.monotone``, ``field.stability`` and
``field.phase_boundary``. They share one certificate per model (:func:`._context.certificate`)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import mpmath

from ...theory import Model, critical_alpha, evaluate_mp, pole_exponents_mp, pole_signs, sparse_threshold_prior
from ._context import CheckContext, certificate
from ._figures import field_figure
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


#: certified sign of a pole exponent (:func:`theory.pole_signs`) -> label
_LABEL = {-1: "stable", 1: "unstable", 0: "neutral or undecided"}


def check_monotone(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``field.monotone`` (condition): the sign of ``j'`` on ``[-1, 1]``, certified.

    ``holds`` means certified monotone (``+xi`` the only attractor); ``fails`` means
    certified interior equilibria (listed); ``undecided`` when the arithmetic cannot
    decide (never reported as certified). The figure shows the field with the
    certified equilibria.
    """
    t0 = time.perf_counter()
    model = case.model
    cert = certificate(model)
    status = {"monotone": "holds", "bistable": "fails", "degenerate": "fails"}.get(cert.status, "undecided")
    eq = ", ".join(
        (f"rho*={e.lo:g} (exact)" if e.exact else f"rho* in [{e.lo:.10f}, {e.hi:.10f}]") + f" {e.stability}"
        for e in cert.equilibria
    )
    msg = {
        "monotone": "j' > 0 on (-1, 1): +xi is the only attractor",
        "bistable": f"interior equilibria: {eq}",
        "degenerate": "theta = 0: the field vanishes identically",
        "undecided": f"undecided on {list(cert.undecided)}",
    }[cert.status]
    details = cert.as_dict()
    figs, specs = ctx.drawn("field", case, lambda path: field_figure(
        path, model, cert, title=f"{case.name}: {cert.status} ({'certified' if cert.certified else 'not certified'})"))
    if figs:
        details["figures"] = figs
    return [CheckRecord(
        id="field.monotone",
        kind="condition",
        status=status,
        value=float(len(cert.equilibria)),
        threshold=0.0,
        certified=cert.certified and status != "undecided",
        message=f"{msg} ({cert.boxes} boxes, {cert.prec} bits)",
        details=details,
        model=model.as_dict(),
        seconds=time.perf_counter() - t0,
        figures=specs,
    )]


def _interior_exponent(model: Model, e) -> float:
    """``F'(rho*)`` at the bracket midpoint by mpmath differentiation (numerical value;
    its sign is certified by the bracket's derivative ball)."""
    with mpmath.workdps(30):
        mid = mpmath.mpf(e.midpoint)
        return float(mpmath.diff(lambda r: evaluate_mp(model, r, dps=mpmath.mp.dps)["field"], mid))


def check_stability(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``field.stability`` (consistency): closed-form ``F'(+-1)`` and interior exponents.

    The closed-form pole exponents must agree with numerical differentiation of the
    field, and the numerical exponent at each interior equilibrium must have the
    certified sign.
    """
    t0 = time.perf_counter()
    model = case.model
    cert = certificate(model)
    plus_mp, minus_mp = pole_exponents_mp(model)
    s_plus, s_minus = pole_signs(model)
    with mpmath.workdps(30):
        def field(r):
            return evaluate_mp(model, r, dps=mpmath.mp.dps)["field"]
        num_plus_mp = mpmath.diff(field, 1, direction=-1)
        num_minus_mp = mpmath.diff(field, -1, direction=1)
        scale = max(abs(plus_mp), abs(minus_mp), mpmath.mpf(10) ** -300)
        pole_err = float(max(abs(plus_mp - num_plus_mp), abs(minus_mp - num_minus_mp)) / scale)
    plus, minus, num_plus, num_minus = (float(x) for x in (plus_mp, minus_mp, num_plus_mp, num_minus_mp))
    interior = []
    sign_ok = True
    for e in cert.equilibria:
        x = _interior_exponent(model, e)
        ok = (x > 0) == (e.stability == "unstable")
        sign_ok &= ok
        interior.append({"lo": e.lo, "hi": e.hi, "exponent": x, "stability": e.stability, "sign_agrees": ok})
    passed = pole_err < 1e-8 and sign_ok
    attractors = [p for p, x in (("+xi", s_plus), ("-xi", s_minus)) if x < 0]
    return [CheckRecord(
        id="field.stability",
        kind="consistency",
        status="pass" if passed else "fail",
        value=pole_err,
        threshold=1e-8,
        certified=False,
        message=(
            f"F'(+1) = {mpmath.nstr(plus_mp, 4)} ({_LABEL[s_plus]}), "
            f"F'(-1) = {mpmath.nstr(minus_mp, 4)} ({_LABEL[s_minus]}); "
            f"attractors: {', '.join(attractors) or 'none'}"
            + (f"; {len(interior)} interior equilibria, exponent signs agree with the certificate" if interior else "")
        ),
        details={
            "F_prime_plus": plus,
            "F_prime_minus": minus,
            "numerical_plus": num_plus,
            "numerical_minus": num_minus,
            "classification": {"plus": _LABEL[s_plus], "minus": _LABEL[s_minus]},
            "interior": interior,
            "convergence_rate_near_plus": -plus,
        },
        model=model.as_dict(),
        seconds=time.perf_counter() - t0,
    )]


def check_phase_boundary(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``field.phase_boundary`` (consistency): the certified landscape agrees with the
    closed forms of ``theory.critical_alpha`` and ``theory.sparse_threshold`` (fixed
    prior: ``alpha_c(theta)``; sparse: ``beta theta = 1`` and ``rho* = -1/(beta theta)``;
    rademacher: exact root at 0). Any other prior (docs/design.md section 1.2): a
    mean-zero law has the exact root at 0; sparse: ``beta theta > c*`` with the root at
    ``t = -c*``, i.e. ``rho* = -c*/(beta theta)``; proportional: the pole criterion
    (``-xi`` attracts, certified sign of ``F'(-1)``), which is a prediction, not a theorem,
    for the absence of a pair of interior equilibria."""

    t0 = time.perf_counter()
    model = case.model
    cert = certificate(model)
    bt = model.beta * model.theta
    details: dict = {"certified_status": cert.status}
    if model.theta == 0:
        predicted, ok = "degenerate", cert.status == "degenerate"
    elif model.prior.mean == 0:
        predicted = "bistable"
        ok = cert.status == "bistable" and len(cert.equilibria) == 1 and cert.equilibria[0].exact
    elif model.prior.family != "fixed":
        if model.sparse:
            c_star = sparse_threshold_prior(model.prior)
            details["sparse_threshold_c_star"] = c_star
            predicted = "bistable" if bt > c_star else "monotone"
            ok = cert.status == predicted
            if predicted == "bistable" and ok:
                e = cert.equilibria[0]
                ok = len(cert.equilibria) == 1 and e.lo - 1e-9 <= -c_star / bt <= e.hi + 1e-9
                details["closed_form_equilibrium"] = -c_star / bt
        else:
            minus = pole_signs(model)[1]
            details["pole_minus_sign"] = minus
            predicted = "bistable" if minus < 0 else "monotone"
            ok = cert.status == predicted
    elif model.sparse:
        predicted = "bistable" if bt > 1 else "monotone"
        ok = cert.status == predicted
        if predicted == "bistable" and ok:
            e = cert.equilibria[0]
            ok = len(cert.equilibria) == 1 and e.lo <= -1 / bt <= e.hi
            details["closed_form_equilibrium"] = -1 / bt
    else:
        a_c = critical_alpha(model)
        details["alpha_c"] = a_c
        predicted = "bistable" if a_c is not None and model.alpha < a_c else "monotone"
        ok = cert.status == predicted
    if cert.status == "undecided":
        ok = False
    details["predicted_status"] = predicted
    return [CheckRecord(
        id="field.phase_boundary",
        kind="consistency",
        status="pass" if ok else "fail",
        value=None,
        threshold=None,
        certified=ok and cert.certified,
        message=f"closed form predicts {predicted}; interval certificate says {cert.status}",
        details=details,
        model=model.as_dict(),
        seconds=time.perf_counter() - t0,
    )]
