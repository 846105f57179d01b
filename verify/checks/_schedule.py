"""The default step schedule of the SGA checks (docs/design.md section 3).

:func:`default_schedule` chooses the Robbins–Monro schedule and step count that
``sga.convergence`` and ``sga.filtering`` run when no planned, decisive run fits the budget;
``stepsize.robbins_monro`` (in :mod:`._sga`) decides the Robbins–Monro conditions of the schedule
those runs use by sympy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...numerics import Problem, Schedule, time_to_alignment
from ...theory import evaluate
from ._common import drag_second_moment
from ._context import CheckContext, equilibria
from ._preset import QUICK, Preset

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

#: |rho_final| >= this counts as recovered (docs/design.md section 3)
RECOVERY_LEVEL = 0.99
#: fewest steps a convergence run takes when the budget allows (see default_schedule)
MIN_STEPS = 400


def default_schedule(problem: Problem, *, preset: Preset = QUICK, seed: int = 0) -> tuple[Schedule, int, dict]:
    """The Robbins–Monro schedule and step count used by ``sga.convergence``/``sga.filtering``.

    ``eta_k = eta0 / (k + k0)^0.6`` with ``k0 = 100`` (``1/2 < 0.6 <= 1``). The first
    step ``eps = eta0 / k0^0.6`` is the largest for which the renormalisation drag at
    ``rho = 0.99``, ``(eps/2) rho E|P g|^2`` (measured by one step of the reduced chain,
    common random numbers at two step sizes), is below half of ``F(0.99)``, so that the
    iterates can actually reach ``|rho| >= 0.99`` — unless the step budget
    (``preset.sga_sim_budget``) cannot then reach the ODE time needed, in which case ``eps`` is
    raised to the value that reaches it and ``details["drag_limited"]`` says so.

    Returns ``(schedule, steps, details)``.
    """
    m = problem.model
    runs = preset.sga_runs
    p, k0 = 0.6, 100.0
    # ODE time needed from the typical start (|rho_0| ~ 1/sqrt(d)) to |rho| = 0.99, x 1.5
    r_typ = 1.0 / math.sqrt(problem.d)
    eq = equilibria(m)
    # (starts at a quarter of the typical size too: near an unstable equilibrium at 0,
    # as under the rademacher prior, runs need longer than from the typical start)
    t_hit = time_to_alignment(m, [-r_typ, -r_typ / 4, 0.0, r_typ / 4, r_typ], 0.99, equilibria=eq).time
    t_hit = t_hit[np.isfinite(t_hit)]
    fmax = float(np.max(np.abs(evaluate(m, np.linspace(-1, 1, 401), engine="scalar").field)))
    t_need = 1.5 * float(t_hit.max()) if t_hit.size else 10.0 / max(fmax, 1e-12)
    # drag coefficient E|P g|^2 at rho = 0.99 (two step sizes on the same token draws)
    r = RECOVERY_LEVEL
    pg2 = drag_second_moment(problem, r, preset.sga_drag_samples, seed)
    F99 = float(evaluate(m, r, engine="scalar").field)
    eps_drag = 0.5 * abs(F99) * 2.0 / max(r * pg2, 1e-300)
    max_steps = int(preset.sga_sim_budget // (runs * problem.L * problem.batch))
    max_steps = max(max_steps, 50)

    def steps_for(eps):
        c = eps * k0**p  # eta0
        # t_k = sum eta_j ~ c/(1-p) ((k+k0)^(1-p) - k0^(1-p))
        target = (t_need * (1 - p) / c + k0 ** (1 - p)) ** (1 / (1 - p)) - k0
        return math.ceil(max(target, 1.0))

    eps = min(eps_drag, 1.0)
    drag_limited = False
    if steps_for(eps) > max_steps:
        lo, hi = eps, 1e3
        for _ in range(80):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if steps_for(mid) > max_steps else (lo, mid)
        eps, drag_limited = hi, True
    # A strong field allows large first steps, but then a handful of steps ends with a
    # large final step whose noise keeps runs below the level: spend the budget on at
    # least MIN_STEPS smaller steps instead (same ODE time).
    floor = min(MIN_STEPS, max_steps)
    if not drag_limited and steps_for(eps) < floor:
        lo, hi = 1e-9, eps
        for _ in range(80):
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if steps_for(mid) > floor else (lo, mid)
        eps = hi
    steps = min(steps_for(eps), max_steps)
    sched = Schedule(eta0=eps * k0**p, k0=k0, power=p)
    info = {"first_step": eps, "eps_drag": eps_drag, "mean_Pg2_at_0.99": float(pg2), "F_at_0.99": F99,
            "ode_time_needed": t_need, "ode_time_reached": float(sched.times(steps)[-1]), "steps": steps,
            "max_steps": max_steps, "drag_limited": drag_limited}
    return sched, steps, info


def _schedule_seed(case: Case, ctx: CheckContext) -> int:
    return ctx.seed_for(case.name, "schedule")
