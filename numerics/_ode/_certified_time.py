"""The step at which a schedule's ODE time crosses a certified time enclosure.

The iterate ``q_k`` of a schedule sits at ODE time ``t_k = sum_{j<k} eta_j``
(docs/design.md section 1, :meth:`numerics.Schedule.times`). For a certified enclosure
``[T.lo, T.hi]`` of the limit-flow time ``T`` from ``rho0`` to ``rho1``
(:func:`theory.certified_time`) the plain-ODE crossing step ``k* = min{k : t_k >= T}`` is
enclosed by ``[k_lo, k_hi]``: ``k_lo`` the first ``k`` at which ``t_k >= T.lo`` is possible,
``k_hi`` the first at which ``t_k >= T.hi`` is certain (``t_k`` increases with ``k``).

``t_k`` is a ball in closed form, never a float sum:

* constant step: ``t_k = k eta0``;
* ``power = 1``: ``t_k = eta0 (psi(k0 + k) - psi(k0))`` (digamma);
* otherwise: ``t_k = eta0 (zeta(power, k0) - zeta(power, k0 + k))`` (Hurwitz zeta; the
  identity holds for every ``power != 1`` by analytic continuation). For ``power > 1`` the
  total time ``eta0 zeta(power, k0)`` is finite, and a ``T`` it may not exceed is refused.

``k`` is found by doubling and bisection on these certified comparisons.

:func:`certified_crossing` is the whole route from a start: the certified basin of ``rho0``
(:func:`theory.certified_basin`) gives the direction, :func:`theory.certified_time` the
enclosure of the time to ``|rho| = target`` that way, and :func:`crossing_step` the steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import arb

from ...core.validate import instance, real
from ...theory import Model, TimeEnclosure, certified_basin, certified_time, certify
from .._schedule import Schedule

#: the largest step index searched
MAX_STEPS = 10**18
_PREC = 128


@dataclass(frozen=True)
class CrossingStep:
    """``k_lo <= k* <= k_hi`` for ``k* = min{k : t_k >= T}``, ``T`` in ``[time_lo, time_hi]``.

    ``t_lo``/``t_hi`` are ``t_{k_lo}`` and ``t_{k_hi}`` (floats, for printing).

    Attributes
    ----------
    k_lo, k_hi : int
        Certified bounds on the crossing step ``k*``: ``k_lo`` the first step at which
        ``t_k >= time_lo`` is possible, ``k_hi`` the first at which ``t_k >= time_hi`` is certain.
    time_lo, time_hi : float
        The enclosure ``[T.lo, T.hi]`` of the limit-flow time ``T`` (:func:`theory.certified_time`).
    t_lo, t_hi : float
        The ODE times ``t_{k_lo}`` and ``t_{k_hi}`` of the schedule (rounded to floats, for printing).
    """

    k_lo: int
    k_hi: int
    time_lo: float
    time_hi: float
    t_lo: float
    t_hi: float

    def as_dict(self) -> dict:
        return {"k_lo": self.k_lo, "k_hi": self.k_hi, "time_lo": self.time_lo, "time_hi": self.time_hi,
                "t_lo": self.t_lo, "t_hi": self.t_hi}


def ode_time_ball(schedule: Schedule, k: int) -> arb:
    """``t_k = sum_{j<k} eta_j`` of ``schedule`` as an ``arb`` ball (global flint precision)."""
    eta0, k0, p = arb(schedule.eta0), arb(schedule.k0), arb(schedule.power)
    if k == 0:
        return arb(0)
    if schedule.power == 0.0:
        return eta0 * k
    if schedule.power == 1.0:
        return eta0 * ((k0 + k).digamma() - k0.digamma())
    return eta0 * (p.zeta(k0) - p.zeta(k0 + k))


def crossing_step(schedule: Schedule, time: TimeEnclosure) -> CrossingStep:
    """Certified ``[k_lo, k_hi]`` of the first step whose ODE time reaches the enclosed ``T``.

    Parameters
    ----------
    schedule : Schedule
    time : TimeEnclosure
        From :func:`theory.certified_time`.

    Raises
    ------
    ValueError
        ``T`` is not certainly below the total time of a summable schedule (``power > 1``),
        or the crossing lies beyond :data:`MAX_STEPS`.
    """
    if not isinstance(schedule, Schedule):
        raise ValueError(f"`schedule` must be a Schedule, got {schedule!r}")
    if not isinstance(time, TimeEnclosure):
        raise ValueError(f"`time` must be a TimeEnclosure (theory.certified_time), got {time!r}")
    from flint import ctx

    old, ctx.prec = ctx.prec, _PREC
    try:
        lo, hi = arb(time.lo), arb(time.hi)
        if schedule.power > 1.0:
            total = arb(schedule.eta0) * arb(schedule.power).zeta(arb(schedule.k0))
            if not hi < total:
                raise ValueError(f"`schedule`: its total ODE time sum eta_k = {float(total):.6g} (power > 1) is not "
                                 f"certainly above T <= {time.hi:.6g}: the iterates may never reach rho1")
        k_lo = _first(schedule, lambda t: not t < lo)
        k_hi = _first(schedule, lambda t: t >= hi)
        return CrossingStep(k_lo, k_hi, time.lo, time.hi, float(ode_time_ball(schedule, k_lo)),
                            float(ode_time_ball(schedule, k_hi)))
    finally:
        ctx.prec = old


def _first(schedule: Schedule, reached) -> int:
    """The least ``k`` with ``reached(t_k)`` (``reached`` monotone in ``k``)."""
    if reached(ode_time_ball(schedule, 0)):
        return 0
    below, above = 0, 1
    while not reached(ode_time_ball(schedule, above)):
        below, above = above, 2 * above
        if above > 2 * MAX_STEPS:
            raise ValueError(f"`schedule`: the ODE time needs more than {MAX_STEPS:.0e} steps to reach T")
    while above - below > 1:
        mid = (below + above) // 2
        if reached(ode_time_ball(schedule, mid)):
            above = mid
        else:
            below = mid
    return above


@dataclass(frozen=True)
class CertifiedCrossing:
    """The plain limit ODE's crossing step of ``|rho| = target`` from a fixed start, certified.

    Attributes
    ----------
    status : {"ok", "refused"}
        ``"refused"`` when there is no single start (uniform starts) or a certificate cannot
        be given (the basin, the time or the step refused by ball arithmetic).
    reason : str
        Why (empty when ``status`` is ``"ok"``).
    step : CrossingStep or None
        ``k_lo <= k* <= k_hi`` and the enclosed time (``None`` when refused); all 0 when
        ``|rho0| >= target``.
    rho1 : float or None
        The alignment crossed: ``target`` signed towards the certified limit of the start
        (``rho0`` itself when ``|rho0| >= target``; ``None`` when refused).
    """

    status: str
    reason: str
    step: CrossingStep | None
    rho1: float | None

    def as_dict(self) -> dict:
        """``status``, ``reason`` and, when ``ok``, the numbers of :attr:`step` with ``rho1``."""
        numbers = {} if self.step is None else {**self.step.as_dict(), "rho1": self.rho1}
        return {**numbers, "status": self.status, "reason": self.reason}


def certified_crossing(model: Model, schedule: Schedule, rho0, target: float) -> CertifiedCrossing:
    """The first step of ``schedule`` whose ODE time reaches the plain limit flow's time from
    ``rho0`` to ``|rho| = target``, certified (module docstring).

    Parameters
    ----------
    model : theory.Model
    schedule : Schedule
    rho0 : float or None
        The start in ``[-1, 1]``; ``None`` (uniform starts) is refused: the crossing step
        depends on the start.
    target : float
        In ``(0, 1)``.

    Returns
    -------
    CertifiedCrossing
        ``refused``, with the certifier's sentence as the reason, when the basin of ``rho0``,
        the time or the step cannot be certified.

    Raises
    ------
    ValueError
        On bad input.
    """
    instance("model", model, Model, "theory.Model")
    instance("schedule", schedule, Schedule)
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    if rho0 is None:
        return CertifiedCrossing("refused", "uniform starts: the crossing step depends on the start", None, None)
    rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    try:
        cert = certify(model, engine="scalar")  # one certificate for the basin and the time
        basin = certified_basin(model, rho0, certificate=cert)
        rho1 = math.copysign(target, basin.direction if basin.direction else rho0)
        if abs(rho0) >= target:
            return CertifiedCrossing("ok", "", CrossingStep(0, 0, 0.0, 0.0, 0.0, 0.0), rho0)
        step = crossing_step(schedule, certified_time(model, rho0, rho1, certificate=cert))
    except ValueError as exc:  # the inputs are valid: what is left is a refusal of the certifiers
        return CertifiedCrossing("refused", str(exc), None, None)
    return CertifiedCrossing("ok", "", step, rho1)
