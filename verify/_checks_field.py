"""Checks on the limit field itself: ``field.monotone`` and ``field.stability``."""

from __future__ import annotations

import time

import mpmath

from theory import Model, certify, evaluate_mp, pole_exponents
from theory._certify import Certificate

from ._records import CheckRecord


def _classify(x: float) -> str:
    return "stable" if x < 0 else "unstable" if x > 0 else "neutral"


def check_monotone(model: Model, prec: int = 128) -> tuple[CheckRecord, Certificate]:
    """``field.monotone`` (condition): the sign of ``j'`` on ``[-1, 1]``, certified.

    ``holds`` means certified monotone (``+xi`` the only attractor); ``fails`` means
    certified interior equilibria (listed); ``undecided`` when the arithmetic cannot
    decide (never reported as certified).
    """
    t0 = time.perf_counter()
    cert = certify(model, prec=prec)
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
    rec = CheckRecord(
        id="field.monotone",
        kind="condition",
        status=status,
        value=float(len(cert.equilibria)),
        threshold=0.0,
        certified=cert.certified and status != "undecided",
        message=f"{msg} ({cert.boxes} boxes, {cert.prec} bits)",
        details=cert.as_dict(),
        model=model.as_dict(),
        seconds=time.perf_counter() - t0,
    )
    return rec, cert


def _interior_exponent(model: Model, e) -> float:
    """``F'(rho*)`` at the bracket midpoint by mpmath differentiation (numerical value;
    its sign is certified by the bracket's derivative ball)."""
    with mpmath.workdps(30):
        mid = mpmath.mpf(e.lo) / 2 + mpmath.mpf(e.hi) / 2
        return float(mpmath.diff(lambda r: evaluate_mp(model, r, dps=mpmath.mp.dps)["field"], mid))


def check_stability(model: Model, cert: Certificate) -> CheckRecord:
    """``field.stability`` (consistency): closed-form ``F'(+-1)`` and interior exponents.

    The closed-form pole exponents must agree with numerical differentiation of the
    field, and the numerical exponent at each interior equilibrium must have the
    certified sign.
    """
    t0 = time.perf_counter()
    plus, minus = pole_exponents(model)
    with mpmath.workdps(30):
        field = lambda r: evaluate_mp(model, r, dps=mpmath.mp.dps)["field"]
        num_plus = float(mpmath.diff(field, 1, direction=-1))
        num_minus = float(mpmath.diff(field, -1, direction=1))
    scale = max(abs(plus), abs(minus), 1e-300)
    pole_err = max(abs(plus - num_plus), abs(minus - num_minus)) / scale
    interior = []
    sign_ok = True
    for e in cert.equilibria:
        x = _interior_exponent(model, e)
        ok = (x > 0) == (e.stability == "unstable")
        sign_ok &= ok
        interior.append({"lo": e.lo, "hi": e.hi, "exponent": x, "stability": e.stability, "sign_agrees": ok})
    passed = pole_err < 1e-8 and sign_ok
    attractors = [p for p, x in (("+xi", plus), ("-xi", minus)) if x < 0]
    return CheckRecord(
        id="field.stability",
        kind="consistency",
        status="pass" if passed else "fail",
        value=pole_err,
        threshold=1e-8,
        certified=False,
        message=(
            f"F'(+1) = {plus:.4g} ({_classify(plus)}), F'(-1) = {minus:.4g} ({_classify(minus)}); "
            f"attractors: {', '.join(attractors) or 'none'}"
            + (f"; {len(interior)} interior equilibria, exponent signs agree with the certificate" if interior else "")
        ),
        details={
            "F_prime_plus": plus,
            "F_prime_minus": minus,
            "numerical_plus": num_plus,
            "numerical_minus": num_minus,
            "classification": {"plus": _classify(plus), "minus": _classify(minus)},
            "interior": interior,
            "convergence_rate_near_plus": -plus,
        },
        model=model.as_dict(),
        seconds=time.perf_counter() - t0,
    )
