"""Why a first-passage step cannot be given: the refusals of :func:`numerics.complexity`.

A quantile of the first-passage step (or the plain limit ODE's crossing step) that is not a
finite number, or a median passage the diffusion does not model, is refused with one sentence
that says why and what would give a number. The missing quantile ``q`` is compared with the
same quantile of the limit ODE over the starts (:data:`START_POINTS` equal-mass start
quantiles, or the fixed start), in this order:

1. a crossing time of the limit ODE that cannot be computed (its quadrature does not converge);
2. a constant step whose plateau (the stable zero of the finite-step drift each start is carried
   to, :func:`stable_zeros`) lies below the target for at least half of the starts: a median
   passage there is an excursion of the noise above the plateau, which the diffusion does not
   model (its Gaussian steps are not held below ``|rho| = 1`` as the chain's renormalised steps
   are). Example: theta 0.5, R 100, L 900, d 5, eta 0.5, target 0.999: plateau 0.85, the
   diffusion's median 57 steps, while 2% of 200 exact-chain runs touch 0.999 within 300 steps;
3. no signal (``theta = 0``);
4. a start the limit ODE never takes to the target (an equilibrium, the basin of an interior
   stable point);
5. more than ``1 - q`` of the starts held below the target by the finite-step drift at the step
   size of the horizon (its stable zeros, the plateaus), for a constant step;
6. a schedule whose steps never add up to the ODE time (or only after :data:`MAX_GUIDE_STEPS`);
7. else the horizon is too short, with the ODE's step count for that quantile as a guide (and
   the plateau at the horizon's step size when it holds the starts back).

The sentences name the command line's flags (``--target``, ``--horizon``, ...), which are the
parameters of :func:`numerics.complexity` under the same names.
"""

from __future__ import annotations

import math

import numpy as np

from .._ode import basins, time_to_alignment
from .._schedule import Schedule
from .._simulate._driver import Problem
from .._simulate._start import start_law
from ._passage import FirstPassage
from ._tables import DiffusionTables, drift_zeros

#: ``(attribute of FirstPassage, label, quantile of the starts)`` a result must have as finite
#: numbers, in the order a refusal names them (the plain ODE runs from one start: the fixed one,
#: or the median ``|rho0|``)
QUANTITIES = (("median", "median (50% quantile)", 0.5), ("q10", "10% quantile", 0.1),
              ("q90", "90% quantile", 0.9), ("plain_ode_step", "plain limit ODE's crossing step", None))
#: start quantiles on which a refusal estimates the limit ODE's passage law (equal masses)
START_POINTS = 100
#: a step count beyond this is reported as out of reach rather than as a horizon to raise
MAX_GUIDE_STEPS = 1e15


def refusal(problem: Problem, schedule: Schedule, tables: DiffusionTables, rho0, target: float, horizon: int,
            runs: int, fp: FirstPassage) -> str:
    """Why the first-passage law ``fp`` gives no number (module docstring), or ``""``.

    ``rho0`` is the fixed start or ``None`` (uniform starts), ``runs`` the paths behind ``fp``.
    """
    if math.isnan(fp.plain_ode_step):
        return _unconverged(rho0, target)
    if schedule.power == 0 and problem.theta > 0:
        why = _above_plateau(schedule, tables, _starts(problem, rho0), target)
        if why:
            return why
    missing = [(label, q) for key, label, q in QUANTITIES if not math.isfinite(getattr(fp, key))]
    if not missing:
        return ""
    # the most demanding missing quantile: reaching it reaches the others
    label, q = max(missing, key=lambda m: -1.0 if m[1] is None else m[1])
    what = f"the {label}"
    paths = f"{100 * fp.reached:.3g}% of the {runs} paths reach |rho| >= {target:g}"
    median_start = float(rho0) if rho0 is not None else float(start_law(problem.d).quantile(0.75))
    where = f"`rho0` = {median_start:g}" if rho0 is not None else "the uniform starts"
    start = where if rho0 is not None else f"the median start |rho0| = {median_start:.3g}"
    if problem.theta == 0:
        return (f"`target` = {target:g} is not reached: at `theta` = 0 the limit ODE has no drift "
                f"(no signal), only noise moves rho ({paths}); raise --theta")
    starts = np.array([median_start]) if rho0 is not None or q is None else _starts(problem, None)
    share = 1.0 if q is None or rho0 is not None else q  # of the starts that must reach the target
    hit = time_to_alignment(problem.model, starts, target)
    if hit.status != "ok":
        return _unconverged(rho0, target)
    times = np.asarray(hit.time, dtype=float)
    never = float(np.mean(~np.isfinite(times)))
    if never > 1 - share:
        if rho0 is not None or q is None:
            limit = float(basins(problem.model, median_start).limit)
            if limit == median_start:
                return (f"`target` = {target:g}: {what} is not a number, since {start} is an "
                        f"equilibrium of the limit ODE, which never leaves it "
                        f"({paths}); start away from it (e.g. --rho0 {median_start + 0.01:g}) or omit "
                        f"--rho0 (uniform starts on the sphere)")
            return (f"`target` = {target:g} is not reached by the limit ODE from {start}: it settles "
                    f"at the stable equilibrium rho = {limit:.4g} ({paths}); "
                    f"lower --target below {abs(limit):.4g}, start in the aligned basin, or raise --theta")
        return (f"`target` = {target:g}: {what} is out of reach, since the limit ODE takes "
                f"{100 * never:.3g}% of the uniform starts to a stable point below the target ({paths}); "
                f"fix a start in the aligned basin (--rho0), lower --target, or raise --theta")
    eta = float(schedule.eta(np.array(horizon)))
    held, below = drift_zeros(tables, eta).held(starts, target)
    t_q = float(np.quantile(times, share, method="inverted_cdf"))
    need = ode_steps(schedule, t_q)
    if held > 1 - share and schedule.power == 0:
        return (f"`target` = {target:g} lies above the plateau {below:.6g} of this constant step (the "
                f"stable alignment of the finite-step drift), which holds {100 * held:.3g}% of the starts "
                f"below it: {what} is not reached within `horizon` = {horizon} ({paths}; only "
                f"fluctuations carry a path above the plateau); lower --target below {below:.6g}, use a "
                f"decaying step (--power > 0) or a smaller --eta0, or raise --horizon")
    if need is None or not need < MAX_GUIDE_STEPS:
        never_adds = ("never add up to it" if need is None else
                      f"reach it only after more than {MAX_GUIDE_STEPS:.0e} steps")
        return (f"`target` = {target:g} is out of reach of this schedule: for {what} the plain limit ODE "
                f"from {where} needs the time {t_q:.3g}, and the steps sum_k eta_k {never_adds}"
                f" ({paths}); use a slower-decaying step (a smaller --power) or a larger --eta0")
    guide = f"the plain limit ODE from {where} needs about {_steps(need)} steps for it"
    if held > 1 - share:
        return (f"`horizon` = {horizon} is too short for `target` = {target:g}: at the step size of step "
                f"{horizon} the finite-step drift holds {100 * held:.3g}% of the starts below its plateau "
                f"{below:.6g}, and {what} is not reached ({paths}); raise --horizon (the plateau rises as "
                f"the step decays; {guide}) or lower --target below {below:.6g}")
    return (f"`horizon` = {horizon} is too short: {what} of the first step with |rho| >= {target:g} is "
            f"not reached within it ({paths}); {guide}; raise --horizon above that")


def _starts(problem: Problem, rho0) -> np.ndarray:
    """The fixed start, or :data:`START_POINTS` equal-mass quantiles of the uniform start law."""
    if rho0 is not None:
        return np.array([float(rho0)])
    return start_law(problem.d).quantile((np.arange(START_POINTS) + 0.5) / START_POINTS)


def _above_plateau(schedule: Schedule, tables: DiffusionTables, starts: np.ndarray, target: float) -> str:
    """Refusal 2 of the module docstring (a median passage above a constant step's plateau), or ``""``."""
    held, below = drift_zeros(tables, float(schedule.eta0)).held(starts, target)
    if held < 0.5:
        return ""
    return (f"`target` = {target:g} lies above the plateau {below:.6g} of this constant step (the "
            f"stable alignment of the finite-step drift) for {100 * held:.3g}% of the starts: a median "
            "passage there is an excursion of the noise above the plateau, which the diffusion "
            "approximation does not model; lower --target below the plateau, or use a decaying step "
            "(--power > 0) or a smaller --eta0, whose plateau lies above the target")


def _unconverged(rho0, target: float) -> str:
    """Refusal 1 of the module docstring."""
    where = f"`rho0` = {rho0!r}" if rho0 is not None else "the uniform starts"
    return (f"{where}, `target` = {target!r}: the limit ODE's crossing time cannot be computed (its quadrature "
            "does not converge: the start lies next to an equilibrium of the field, where the time grows like "
            "log(1 / distance)); start farther from the equilibrium (e.g. |--rho0| >= 1e-8) or omit --rho0")


def _steps(n: float) -> str:
    return f"{math.ceil(n)}" if n < 1e6 else f"{n:.3g}"


def ode_steps(schedule: Schedule, t: float):
    """About how many steps ``k`` make ``t_k = sum_{j<k} eta_j >= t`` (the integral of the step
    sizes, ``(k + k0)^(1-p) - k0^(1-p) = t (1 - p) / eta0``); ``None`` when the schedule's total
    time is shorter than ``t``, ``inf`` beyond float range."""
    eta0, k0, p = schedule.eta0, schedule.k0, schedule.power
    try:
        if p == 0:
            return t / eta0
        if p == 1:
            return k0 * math.expm1(t / eta0)
        base = k0 ** (1 - p) + t * (1 - p) / eta0  # (k + k0)^(1-p) at the crossing
        if base <= 0:
            return None  # p > 1: the total time eta0 k0^(1-p) / (p-1) is shorter than t
        return max(1.0, base ** (1 / (1 - p)) - k0)
    except (OverflowError, ZeroDivisionError):
        return math.inf
