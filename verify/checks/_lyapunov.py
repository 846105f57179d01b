"""``ode.lyapunov``: the objective is a Lyapunov function of the limit ODE (docs/design.md section 3).

Uses only the limit model; numerical evidence, not certified.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from ...numerics import integrate, time_to_alignment
from ...theory import evaluate
from ._context import CheckContext, equilibria
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case


def check_lyapunov(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``ode.lyapunov``: ``J = j(rho(t))`` is non-decreasing along integrated trajectories.

    Uses only the limit model. Starts: a grid of ``7`` (quick) or ``41`` points in
    ``(-1, 1)``; each trajectory is sampled at ``200`` times up to the horizon at which
    the slowest start reaches ``|rho| = 0.99`` (or ``20 / max|F|``). ``J`` is evaluated
    by ``theory.evaluate``. Tolerance on a decrease: ``1e-12 (1 + |J|)``, the rounding
    level of the float evaluation of ``j``.
    """
    t0 = time.perf_counter()
    m = case.model
    starts = np.linspace(-0.98, 0.98, ctx.preset.lyapunov_starts)
    eq = equilibria(m)
    fmax = float(np.max(np.abs(evaluate(m, np.linspace(-1, 1, 401), engine="scalar").field)))
    hit = time_to_alignment(m, starts, 0.99, equilibria=eq).time
    finite = hit[np.isfinite(hit)]
    horizon = float(finite.max()) * 1.2 if finite.size else 20.0 / max(fmax, 1e-300)
    if not math.isfinite(horizon) or horizon <= 0:
        horizon = 1.0
    times = np.linspace(0.0, horizon, 200)
    worst, worst_start, increase, failures = 0.0, None, [], 0
    for r0 in starts:
        traj = integrate(m, float(r0), times)
        if not traj.success:
            failures += 1
            continue
        J = evaluate(m, traj.rho, engine="scalar").objective
        dJ = np.diff(J) / (1.0 + np.abs(J[:-1]))
        if dJ.min() < worst:
            worst, worst_start = float(dJ.min()), float(r0)
        increase.append(float(J[-1] - J[0]))
    tol = 1e-12
    ok = worst >= -tol and failures == 0
    return [CheckRecord(
        id="ode.lyapunov", kind="consistency", status="pass" if ok else "fail",
        value=worst, threshold=-tol, certified=False,
        message=(f"J non-decreasing along {starts.size} ODE trajectories up to t = {horizon:.3g}: "
                 f"largest relative decrease {max(-worst, 0.0):.1e} (tolerance {tol:.0e})"
                 + (f", {failures} integrations failed" if failures else "")),
        details={"starts": starts.tolist(), "horizon": horizon, "samples_per_trajectory": times.size,
                 "worst_relative_decrease": -worst, "worst_start": worst_start,
                 "total_increase_min": min(increase) if increase else None, "integration_failures": failures,
                 "equilibria": eq},
        model=m.as_dict(), seconds=time.perf_counter() - t0)]
