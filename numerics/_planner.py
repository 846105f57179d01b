"""Budget planner: a schedule and a step count that make a recovery experiment decisive.

A finite run can say "recovery fails" only if it was given what recovery needs. Two
things can hold the iterates below a target alignment ``rho_target`` however long they
run (docs/design.md section 1, finite-step drag):

* the *drag plateau*: at a step ``eta`` the renormalisation onto the sphere pulls the
  iterates down by ``(eta/2) rho E|P g|^2``, so they settle at the stable zero
  ``rho_eta < 1`` of the corrected drift ``F_eta`` (``theory.stationary_alignment``);
* *time*: the corrected ODE on the axis ``t_k = sum_{j<k} eta_j`` needs a finite time to
  carry the slowest relevant start to the target.

The planner uses the schedule family ``eta_k = c / (k + k0)`` (Robbins–Monro) with a
first step ``s0 = c / k0`` and a last step ``eps``:

1. ``eps_max`` is the largest constant step whose plateau minus 3 spreads lies above the
   target (plus ``0.001``): any last step ``eps <= eps_max`` leaves room for the runs.
2. The starts that matter are the 5% and 95% quantiles of ``rho_0`` for ``q_0`` uniform
   on the sphere (:func:`numerics.start_law`) and, for every interior
   equilibrium ``rho*``, the two points that cut 5% of that law around it (runs closer to
   an unstable point are decided by noise, not by the ODE).
3. For each ``eps`` in ``eps_max x {1, 1/2}``, a bisection on the number of steps ``K``
   (to 5%) finds the shortest run whose corrected-ODE mean (``numerics.predict``) from
   every start ends with ``|rho| >= target + 2 spread(eps)``; ``K`` fixes
   ``c = K / (1/eps - 1/s0)`` (a constant step ``eps`` when ``s0 <= eps``). The plan is
   the shortest over ``eps``.

4. The mean is not enough: runs lag each other, so the plan is checked against the
   diffusion approximation (``numerics.simulate_diffusion``, docs/design.md section 1.1):
   of 2000 diffusion paths from uniform starts, at least :data:`PATH_FRACTION` must end
   with ``|rho_K| >= target``; ``K`` grows by a quarter until they do. A plan that meets
   this makes "fewer than 90% of the runs recovered" a real finding, not bad luck.

The cost is ``runs x K`` run-steps (``x L`` token-steps); :func:`measure_rate` times a
pilot of the reduced simulator so the plan states the CPU time before anything runs.

5. How many runs: :func:`decisive_runs` takes the fewest that tolerate one run short of the
   target (``1 / (1 - fraction)``, 10 for a 90% verdict) and keep the chance of a false
   "fails" below 5% at the plan's recovery rate (the one-sided 95% lower bound of the diffusion
   paths' fraction); :meth:`RecoveryPlan.with_runs` restates the cost.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np
from scipy.stats import beta as beta_law
from scipy.stats import binom

from ..core import validate
from ..theory import Validity, certify, evaluate, validity
from ._diffusion import diffusion_tables, simulate_diffusion
from ._ode._corrected import corrected_drift, integrate_corrected
from ._plateaus import largest_step, plateaus
from ._schedule import Schedule
from ._simulate._driver import Problem, simulate
from ._simulate._start import start_law

#: multiples of the largest admissible last step that the planner tries
EPS_FACTORS = (1.0, 0.5)
#: relative resolution of the bisection on the number of steps
STEP_RESOLUTION = 0.05
#: fraction of diffusion paths that must end recovered for a plan to count as decisive
#: (with 32 runs and a 90% threshold, the chance of a false "fails" is then about 7%; with 0.99
#: it would be below 1%, but models with an unstable equilibrium inside the start law then need
#: exponentially many steps under decaying schedules)
PATH_FRACTION = 0.97
#: times the planner lengthens a plan by a quarter before calling it infeasible
MAX_GROWTHS = 8
#: diffusion paths used to check a plan
PATHS = 2000
#: hard ceiling on planned steps (a plan beyond it is reported as infeasible)
MAX_STEPS = 10**6


@dataclass(frozen=True)
class RecoveryPlan:
    """A decisive recovery experiment, or why there is none.

    Attributes
    ----------
    feasible : bool
        False when no plan within :data:`MAX_STEPS` steps reaches the target (``message`` says why).
    schedule : Schedule or None
        ``eta_k = eta0 / (k + k0)``.
    steps : int
        Planned number of steps ``K``.
    runs : int
    starts : tuple of float
        The starts the plan guarantees (see the module docstring).
    predicted_end : float
        Smallest ``|rho_K|`` of the corrected-ODE mean over those starts.
    predicted_fraction : float
        Fraction of diffusion paths from uniform starts that end with ``|rho_K| >= target``.
    last_step : float
        ``eta_{K-1}``; its plateau lies above the target.
    plateau, plateau_spread : float
        The constant-step plateau at the last step and its linearised spread.
    ode_time : float
        ``t_K``.
    run_steps, token_steps : float
        ``runs x K`` and ``runs x K x L x batch`` (the tokens drawn: each step draws ``batch``
        collections of ``L``).
    seconds : float or None
        Estimated single-core CPU time at ``seconds_per_token_step`` (when given).
    message : str
    validity : theory.Validity or None
        Whether the planned steps (up to the first, ``eta_0``) lie where the corrected ODE and
        the diffusion the plan rests on are accurate (``None`` for an infeasible plan).
    """

    feasible: bool
    target: float
    schedule: Schedule | None
    steps: int
    runs: int
    starts: tuple
    predicted_end: float
    predicted_fraction: float
    last_step: float
    plateau: float
    plateau_spread: float
    ode_time: float
    run_steps: float
    token_steps: float
    seconds: float | None
    message: str
    validity: Validity | None = None

    @classmethod
    def infeasible(cls, target: float, runs: int, starts: tuple, message: str) -> RecoveryPlan:
        """No decisive plan for ``target``: ``message`` says why. No schedule, no steps, every
        predicted figure and cost ``nan`` (``seconds`` ``None``); ``runs`` and ``starts`` are kept
        for the record."""
        nan = math.nan
        return cls(feasible=False, target=target, schedule=None, steps=0, runs=runs, starts=starts,
                   predicted_end=nan, predicted_fraction=nan, last_step=nan, plateau=nan, plateau_spread=nan,
                   ode_time=nan, run_steps=nan, token_steps=nan, seconds=None, message=message)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["schedule"] = None if self.schedule is None else self.schedule.as_dict()
        d["starts"] = list(self.starts)
        d["validity"] = None if self.validity is None else self.validity.as_dict()
        return d

    def with_runs(self, runs: int) -> RecoveryPlan:
        """The same plan for ``runs`` runs (its cost restated; nothing else depends on them)."""
        runs = validate.integer("runs", runs, 1)
        if not self.feasible:
            return replace(self, runs=runs)
        per_run = self.token_steps / self.run_steps  # L x batch
        return replace(self, runs=runs, run_steps=float(runs) * self.steps,
                       token_steps=float(runs) * self.steps * per_run,
                       seconds=None if self.seconds is None else self.seconds * runs / self.runs)

    def describe(self) -> str:
        """One line: the plan and its cost."""
        if not self.feasible or self.schedule is None:
            return f"no decisive plan: {self.message}"
        cost = f", ~{self.seconds / 60:.3g} CPU-min" if self.seconds is not None else ""
        return (f"{self.steps:,} steps x {self.runs} runs of {schedule_text(self.schedule)} "
                f"({self.token_steps:.2g} token-steps{cost}); corrected ODE ends at "
                f"|rho| >= {self.predicted_end:.4f} from every planned start and the diffusion approximation "
                f"{self.predicted_fraction:.1%} of runs past {self.target}; last-step plateau "
                f"{self.plateau:.4f} +- {self.plateau_spread:.4f}"
                + ("" if self.validity is None or self.validity.inside else
                   f"; the plan is a guess: {self.validity.message}"))


def schedule_text(schedule: Schedule) -> str:
    """``"eta_k = c/(k + k0)"``, or ``"a constant step eta = c"`` when the plan's first step is already
    its last (``Schedule.constant``: printing ``c/(k + 1)`` would describe a decaying schedule)."""
    if schedule.power == 0.0:
        return f"a constant step eta = {schedule.eta0:.4g}"
    return f"eta_k = {schedule.eta0:.4g}/(k + {schedule.k0:.4g})"


def measure_rate(problem: Problem, *, runs: int = 4, steps: int = 10, seed: int = 0) -> float:
    """Seconds per token-step of the exact reduced simulator on ``problem`` (a short pilot; a step
    of ``batch`` collections counts ``L x batch`` token-steps)."""
    sim = simulate(problem, Schedule.constant(1e-3), steps=steps, runs=runs, seed=seed)
    return max(sim.wall_s, 1e-9) / (runs * steps * problem.L * problem.batch)


def decisive_runs(predicted_fraction: float, *, fraction: float = 0.9, false_fails: float = 0.05,
                  most: int = 32, paths: int | None = None) -> int:
    """Runs for a recovery verdict "at least ``fraction`` of the runs recover".

    The fewest ``n >= ceil(1 / (1 - fraction))`` (so that one run short of the target cannot
    decide the verdict: 10 for 0.9) with ``P(Bin(n, p) < fraction n) <= false_fails``, where
    ``p`` is the one-sided 95% Clopper–Pearson lower bound of the per-run recovery probability
    from ``predicted_fraction`` of ``paths`` diffusion paths (:attr:`RecoveryPlan.predicted_fraction`;
    default :data:`PATHS`). When no ``n <= most`` does, the ``n`` with the least such chance (more
    runs do not always help: the number of misses tolerated grows in steps). A plan's paths all
    recovered (``p >= 0.9985``) gives 10; the planner's least accepted fraction, 97%, gives 20.
    """
    paths = PATHS if paths is None else validate.integer("paths", paths, 1)
    predicted_fraction = validate.real("predicted_fraction", predicted_fraction, lower=0.0, upper=1.0)
    fraction = validate.real("fraction", fraction, lower=0.0, upper=1.0, strict=True)
    false_fails = validate.real("false_fails", false_fails, lower=0.0, upper=1.0, strict=True)
    most = validate.integer("most", most, 1)
    k = round(predicted_fraction * paths)
    p = 0.0 if k == 0 else float(beta_law.ppf(0.05, k, paths - k + 1))
    fewest = math.ceil(1.0 / (1.0 - fraction) - 1e-9)
    best = (math.inf, most)  # (the least chance of a false "fails", its n)
    for n in range(min(fewest, most), most + 1):
        need = math.ceil(fraction * n - 1e-9)  # runs that must recover
        chance = float(binom.cdf(need - 1, n, p))
        if chance <= false_fails:
            return n
        if chance < best[0] - 1e-12:
            best = (chance, n)
    return best[1]


def _planned_starts(problem: Problem) -> tuple[float, ...]:
    law = start_law(problem.d)
    starts = list(law.quantile(np.asarray([0.05, 0.95], float)))
    for e in certify(problem.model, engine="scalar").midpoints:
        # the band around rho* holding 5% of the start law
        p = law.cdf(e)
        lo, hi = max(p - 0.025, 1e-12), min(p + 0.025, 1 - 1e-12)
        starts += [law.quantile(lo), law.quantile(hi)]
    return tuple(float(s) for s in starts if -1 < s < 1)


def _corrected_end(problem, schedule, steps, r0) -> float:
    """``|rho_K|`` of the corrected-ODE mean from ``r0`` (``nan`` when the integration fails).

    The corrected ODE of ``numerics.predict`` alone: the planner needs neither the plain limit
    ODE nor the validity report ``predict`` adds to every call, and solve_ivp's steps do not
    depend on the output times, so the end value is ``predict``'s (tested)."""
    t_end = schedule.times(steps)[-1:]
    rho, ok, _ = integrate_corrected(corrected_drift(problem), schedule, steps, float(r0), t_end)
    return abs(float(rho[-1])) if ok else math.nan


def _reaches(problem, schedule, steps, starts, need) -> bool:
    """Whether the corrected-ODE mean from every start ends with ``|rho| >= need``
    (stops at the first start that does not)."""
    return all(_corrected_end(problem, schedule, steps, r0) >= need for r0 in starts)


def _no_schedule(problem: Problem, starts, target: float, first_step: float, tried, held: list) -> str:
    """Why no schedule of the plan's family is decisive: the starts the longest schedule tried leaves
    short (``tried = (step, need, steps)``), or the plateaus held at every final step (``held``)."""
    if tried is None:
        return f"no schedule within {MAX_STEPS:,} steps carries every planned start to {target}" \
            + _held_on_plateau(held, target)
    eps, need, steps = tried
    return (f"no schedule of the plan's family (its steps a rung of 64 x 4^j below the cap of {MAX_STEPS:,}) "
            f"carries every planned start to {target}"
            + _failing_starts(problem, starts, _schedule(steps, eps, first_step), need, steps))


def _held_on_plateau(held: list, target: float) -> str:
    """Why no final step of the plan's family works: at each, an attractor's plateau lies within two
    of its spreads of ``target`` (the runs would hover around the target, not settle past it)."""
    steps = "; ".join(f"eta = {e:.3g}: plateau {p:.4g}, spread {s:.2g}, needs {n:.4g}" for e, p, s, n in held)
    return (f": at every final step the plan may end on, an attractor's plateau lies within two spreads of the "
            f"target ({steps}), so the runs would hover around |rho| = {target} instead of settling past it: smaller "
            "final steps need more than the step cap, or a lower --target decides recovery")


def _failing_starts(problem: Problem, starts, schedule: Schedule, need: float, steps: int) -> str:
    """Which planned starts the corrected ODE does not carry to ``need`` within ``steps`` steps of
    ``schedule`` (the longest schedule of the plan's family that was tried), where they end,
    and what would decide them: ``"; from rho0 = ... (beside rho* = ...) the corrected ODE ends at ..."``."""
    eq = [e.midpoint for e in certify(problem.model, engine="scalar").equilibria if e.stability == "unstable"]
    fails, near_eq = [], []
    for r0 in starts:
        end = _corrected_end(problem, schedule, steps, r0)
        if end < need:
            near = min(eq, key=lambda e: abs(e - r0), default=None)
            close = near is not None and abs(near - r0) <= 0.25
            near_eq.append(close)
            fails.append(f"rho0 = {r0:.4g}" + (f" (beside the unstable rho* = {near:.4g})" if close else "")
                         + f" ends at |rho| = {end:.3g}")
    if not fails:
        return ""
    head = (f": after {steps:,} steps ending at eta = {float(schedule.eta(steps - 1)):.3g}, the corrected ODE from "
            + "; from ".join(fails) + f" (needs {need:.4g})")
    if len(fails) == len(starts):
        return (head + ": none of the planned starts gets there, the steps shrink before the slow field carries "
                "them; deciding recovery needs more steps than the cap or a constant step (sigrec complexity gives "
                "the passage steps of a schedule you choose, from uniform starts or --rho0)")
    if all(near_eq):
        return (head + "; the other planned starts reach it. A start this close to an unstable equilibrium escapes it "
                "too slowly for a decaying step within the cap: its sign is the certified ODE basin of the start, and "
                "a run from it is decided only by more steps or a constant step (sigrec complexity --rho0 gives them)")
    return (head + "; the other planned starts reach it. These starts need more steps than the cap (sigrec "
            "complexity --rho0 gives them for a schedule you choose)")


def _end(problem, schedule, steps, starts) -> float:
    return min(_corrected_end(problem, schedule, steps, r0) for r0 in starts)


def _schedule(K: int, eps: float, s0: float) -> Schedule:
    """``eta_k = c/(k + k0)`` from ``eta_0 = s0`` down to ``eta_{K-1} = eps`` (constant ``eps``
    when ``s0 <= eps``)."""
    if s0 <= eps * (1 + 1e-9) or K <= 1:
        return Schedule.constant(eps)
    c = (K - 1) / (1.0 / eps - 1.0 / s0)
    return Schedule(eta0=c, k0=c / s0, power=1.0)


def plan_recovery(problem: Problem, *, target: float = 0.99, runs: int = 32, first_step: float | None = None,
                  seconds_per_token_step: float | None = None) -> RecoveryPlan:
    """The shortest decisive recovery experiment of the family above (module docstring).

    Parameters
    ----------
    problem : Problem
        The finite instance (``R >= 1``).
    target : float
        Alignment ``|rho|`` that counts as recovered, in ``(0, 1)``.
    runs : int
        Runs the experiment will simulate (only the cost depends on it).
    first_step : float, optional
        ``s0 = eta_0``; default ``min(1, 0.2 / max |F'|)`` (Euler steps well inside the
        stability region of the field).
    seconds_per_token_step : float, optional
        From :func:`measure_rate`; then the plan states its CPU time.
    """
    validate.instance("problem", problem, Problem)
    target = validate.real("target", target, lower=0.0, upper=1.0, strict=True)
    runs = validate.integer("runs", runs, 1)
    m = problem.model
    starts = _planned_starts(problem)
    if problem.R == 0:
        return RecoveryPlan.infeasible(target, runs, starts, "no informative tokens (R = 0): the field vanishes")
    eps_max = largest_step(problem, target)
    if eps_max is None:
        return RecoveryPlan.infeasible(
            target, runs, starts, f"no step size puts the drag plateau above {target} at L = {problem.L}, "
            f"d = {problem.d} (the finite-L field is too weak there)")
    if first_step is None:
        grid = np.linspace(-1, 1, 401)
        fprime = float(np.max(np.abs(np.gradient(evaluate(m, grid, engine="scalar").field, grid))))
        first_step = min(1.0, 0.2 / max(fprime, 1e-12))
    # slowest starts first: a failing start ends the test early
    starts = tuple(sorted(starts, key=lambda r: (float(evaluate(m, r, engine="scalar").field) * np.sign(r)
                                                 if r else -np.inf)))
    best = None
    tried = None  # (step, need, steps) of the longest schedule found failing: what a refusal reports
    held = []  # (step, lowest plateau, spread, need) of the steps whose plateau does not
    for factor in EPS_FACTORS:
        eps = eps_max * factor
        plats = plateaus(problem, eps)
        spread = max(s for _, s in plats)
        need = target + 2 * spread
        if min(r for r, _ in plats) <= need:
            held.append((eps, min(r for r, _ in plats), spread, need))
            continue

        def reaches(K, eps=eps, need=need):  # this step's eps and need, bound now
            return _reaches(problem, _schedule(K, eps, first_step), K, starts, need)

        lo, hi = 1, 64
        while not reaches(hi):
            tried = (eps, need, hi)  # the longest schedule of this step that fails: what a refusal reports
            lo, hi = hi, hi * 4
            if hi > MAX_STEPS or (best is not None and lo >= best[0]):
                break
        if hi > MAX_STEPS or (best is not None and lo >= best[0]):
            continue
        while hi - lo > max(1, STEP_RESOLUTION * lo):
            mid = min(hi - 1, max(lo + 1, int(math.sqrt(lo * hi))))
            lo, hi = (mid, hi) if not reaches(mid) else (lo, mid)
        if best is None or hi < best[0]:
            best = (hi, eps, min(plats))
    if best is None:
        return RecoveryPlan.infeasible(target, runs, starts, _no_schedule(problem, starts, target, first_step,
                                                                          tried, held))
    K, eps, (plateau, spread) = best
    # the spread across runs: grow K until the diffusion paths recover as the verdict needs
    tables = diffusion_tables(problem)
    rng = np.random.default_rng(0)
    r0 = start_law(problem.d).sample(rng, PATHS)
    normals = rng.integers(0, 2**63)
    growths = 0
    while True:
        sched = _schedule(K, eps, first_step)
        run = simulate_diffusion(tables, sched.eta(np.arange(K)), r0, level=target, seed=int(normals))
        fraction = float(np.mean(np.abs(run.final_rho[0]) >= target))
        if fraction >= PATH_FRACTION or K > MAX_STEPS or growths >= MAX_GROWTHS:
            break
        K, growths = math.ceil(1.25 * K), growths + 1
    if fraction < PATH_FRACTION:
        return RecoveryPlan.infeasible(
            target, runs, starts,
            f"with {K:,} steps (the corrected ODE's plan x 1.25^{growths}) only {fraction:.1%} of diffusion paths "
            f"end past {target}: runs that start near an unstable equilibrium escape too slowly under decaying steps")
    end = _end(problem, sched, K, starts)
    token_steps = float(runs) * K * problem.L * problem.batch
    seconds = None if seconds_per_token_step is None else token_steps * seconds_per_token_step
    valid = validity(m, problem.d, problem.L, float(sched.eta(np.zeros(1))[0]), problem.batch)
    return RecoveryPlan(feasible=True, target=target, schedule=sched, steps=K, runs=runs, starts=starts,
                        predicted_end=end, predicted_fraction=fraction, last_step=float(sched.eta(K - 1)),
                        plateau=plateau, plateau_spread=spread, ode_time=float(sched.times(K)[-1]),
                        run_steps=float(runs) * K, token_steps=token_steps, seconds=seconds, message="ok",
                        validity=valid)
