r"""The diffusion approximation of the alignment chain: band, splitting, first passage.

On the ODE time axis ``t_k = sum_{j<k} eta_j`` the chain is approximated by

    d rho = F_eta(rho) dt + sqrt(eta(t) Sigma(rho)) dW,

with ``F_eta = F + F_1 / L - (eta / 2) rho E|P g|^2`` the corrected drift
(:func:`numerics.corrected_drift`) and ``Sigma = Var(X | rho) = (1 - rho^2) V_p / (L B)``
(:func:`theory.alignment_variance`), docs/design.md section 1.1.

Which method, and why
---------------------
The questions are about *laws* (10–90% band, the sign reached, the first step with
``|rho| >= 1 - epsilon``), the step size changes with time, and bistable models have
two-humped laws, so moment equations (Gaussian closure) do not answer them. We use the
O(1)-per-step simulator of the diffusion sampled on the step grid (Euler–Maruyama with
``dt = eta_k``):

    rho_{k+1} = clip(rho_k + eta_k F_{eta_k}(rho_k) + eta_k sqrt(Sigma(rho_k)) N_k, -1, 1),

with ``N_k`` i.i.d. standard normals: one normal and three table look-ups per run and
step (``F_eta = A - eta B`` and ``Sigma`` tabulated once on a uniform grid of ``rho``),
against ``3L + 2`` normals and ``O(L)`` work for the exact chain. The step grid is the
natural time grid (the chain itself moves on it), so there is no discretisation error
beyond the diffusion approximation itself. It is validated against the exact chain by
two-sample Kolmogorov–Smirnov tests (tests and the checks ``sga.fluctuations``,
``sga.hitting_time``).

The splitting probability is computed *without* simulation from the scale function
(:func:`splitting_probability`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import cumulative_trapezoid

from ..theory import alignment_variance
from ..theory.validate import instance, integer, real

from ._corrected import corrected_drift
from ._ode import find_equilibria, time_to_alignment
from ._schedule import Schedule
from ._simulate import Problem, simulate

#: uniform rho grid of the diffusion tables
GRID = 4001


@dataclass(frozen=True)
class DiffusionTables:
    """``A``, ``B`` and ``Sigma`` on a uniform grid of ``[-1, 1]`` (``F_eta = A - eta B``).

    Attributes
    ----------
    problem : Problem
    grid : ndarray, shape (n,)
    table : ndarray, shape (n, 3)
        Columns ``A = F + F_1/L``, ``B = rho E|P g|^2 / 2``, ``Sigma``.
    variance_scale, drag_scale : float
    """

    problem: Problem
    grid: np.ndarray = field(repr=False)
    table: np.ndarray = field(repr=False)
    variance_scale: float = 1.0
    drag_scale: float = 1.0

    def lookup(self, r: np.ndarray) -> np.ndarray:
        """Linear interpolation of the three columns at ``r`` (shape ``r.shape + (3,)``)."""
        n = self.grid.size
        x = (np.asarray(r) + 1.0) * ((n - 1) / 2.0)
        i = np.clip(x.astype(np.int64), 0, n - 2)
        w = (x - i)[..., None]
        return self.table[i] * (1.0 - w) + self.table[i + 1] * w

    def drift(self, r, eta):
        v = self.lookup(r)
        return v[..., 0] - np.asarray(eta) * v[..., 1]

    def variance(self, r):
        return self.lookup(r)[..., 2]


def diffusion_tables(problem: Problem, *, variance_scale: float = 1.0, drag_scale: float = 1.0,
                     grid: int = GRID) -> DiffusionTables:
    """Tabulate ``F_eta = A - eta B`` and ``Sigma`` for ``problem`` (``R >= 1``).

    ``variance_scale`` multiplies ``Sigma`` and ``drag_scale`` the drag (1 is the derived
    value; other values exist to show that the checks detect a wrong theory).
    """
    instance("problem", problem, Problem)
    grid = integer("grid", grid, 101)
    cd = corrected_drift(problem, drag_scale=drag_scale)
    r = np.linspace(-1.0, 1.0, grid)
    sig = alignment_variance(problem.model, r, problem.L, problem.batch, variance_scale=variance_scale).variance
    return DiffusionTables(problem, r, np.column_stack([cd.A(r), cd.B(r), sig]), float(variance_scale),
                           float(drag_scale))


def uniform_starts(rng: np.random.Generator, d: int, n: int) -> np.ndarray:
    """``rho0 = 2 Beta((d-1)/2, (d-1)/2) - 1``: the law of ``<q, xi>``, ``q`` uniform on ``S^{d-1}``."""
    shape = (d - 1) / 2
    return 2.0 * rng.beta(shape, shape, size=n) - 1.0


@dataclass(frozen=True)
class DiffusionRun:
    """Paths of the diffusion sampled on the step grid.

    Attributes
    ----------
    tables : DiffusionTables
    etas : ndarray, shape (S, steps)
        Step sizes of each of ``S`` schedules.
    record_steps : ndarray of int, shape (n_rec,)
    rho : ndarray, shape (S, runs, n_rec)
        ``rho_k`` at the recorded steps.
    first_passage : ndarray of int, shape (S, runs)
        First ``k`` with ``|rho_k| >= level`` (``-1``: not within ``steps``).
    passage_sign : ndarray, shape (S, runs)
        Sign of ``rho`` at that step (0 if never).
    final_rho : ndarray, shape (S, runs)
    level : float
    """

    tables: DiffusionTables
    etas: np.ndarray = field(repr=False)
    record_steps: np.ndarray = field(repr=False)
    rho: np.ndarray = field(repr=False)
    first_passage: np.ndarray = field(repr=False)
    passage_sign: np.ndarray = field(repr=False)
    final_rho: np.ndarray = field(repr=False)
    level: float = 0.99


def simulate_diffusion(tables: DiffusionTables, etas, rho0, *, level: float = 0.99, stride: int = 0,
                       seed=None, stop_fraction: float | None = None, stop=None) -> DiffusionRun:
    """Euler–Maruyama paths of the diffusion on the step grid (module docstring).

    Parameters
    ----------
    tables : DiffusionTables
    etas : array_like, shape (steps,) or (S, steps)
        Step sizes ``eta_k``; ``S`` schedules are run side by side on the same normals
        (common random numbers, for comparing schedules).
    rho0 : array_like, shape (runs,)
        Starts (shared by the schedules).
    level : float
        First-passage level in ``(0, 1)``.
    stride : int
        Record ``rho`` every ``stride`` steps (0: only the start and the end).
    seed : int or numpy Generator, optional
    stop_fraction : float, optional
        Stop early once at least this fraction of the runs of *every* schedule has passed
        ``level`` (only with ``stride = 0``; ``final_rho`` is then at the stopping step).
    stop : callable, optional
        ``stop(k, first_passage) -> bool``, asked every 50 steps (``stride = 0`` only);
        ``True`` ends the run at step ``k``.
    """
    instance("tables", tables, DiffusionTables)
    e = np.atleast_2d(np.asarray(etas, dtype=float))
    if e.ndim != 2 or e.shape[1] < 1 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("`etas` must be finite step sizes >= 0 of shape (steps,) or (S, steps)")
    level = real("level", level, lower=0.0, upper=1.0, strict=True)
    r0 = np.asarray(rho0, dtype=float).ravel()
    if r0.size < 1 or np.any(np.abs(r0) > 1) or not np.all(np.isfinite(r0)):
        raise ValueError("`rho0` must be starts in [-1, 1]")
    stride = integer("stride", stride, 0)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    S, steps = e.shape
    runs = r0.size
    rec = np.arange(0, steps + 1, stride) if stride else np.array([0])
    if rec[-1] != steps:
        rec = np.append(rec, steps)
    out = np.empty((S, runs, rec.size))
    rho = np.broadcast_to(r0, (S, runs)).copy()
    out[:, :, 0] = rho
    hit = np.where(np.abs(rho) >= level, 0, -1)
    sign = np.where(hit == 0, np.sign(rho), 0.0)
    ri = 1
    for k in range(steps):
        ek = e[:, k:k + 1]
        v = tables.lookup(rho)
        rho = rho + ek * (v[..., 0] - ek * v[..., 1]) + ek * np.sqrt(np.maximum(v[..., 2], 0.0)) * \
            rng.standard_normal((S, runs))
        np.clip(rho, -1.0, 1.0, out=rho)
        new = (hit < 0) & (np.abs(rho) >= level)
        if new.any():
            hit[new] = k + 1
            sign[new] = np.sign(rho[new])
        if ri < rec.size and rec[ri] == k + 1:
            out[:, :, ri] = rho
            ri += 1
        if not stride and k % 50 == 49 and (
                (stop_fraction is not None and np.all((hit >= 0).mean(axis=1) >= stop_fraction))
                or (stop is not None and stop(k + 1, hit))):
            out[:, :, -1] = rho
            break
    return DiffusionRun(tables, e, rec, out, hit, sign, rho.copy(), float(level))


# ----------------------------------------------------------------- band


@dataclass(frozen=True)
class Band:
    """Mean and 10/50/90% quantiles of ``rho_k`` under the diffusion, at recorded steps.

    Attributes
    ----------
    step : ndarray of int
    mean, q10, q50, q90 : ndarray
    runs : int
    method : str
    """

    step: np.ndarray
    mean: np.ndarray
    q10: np.ndarray
    q50: np.ndarray
    q90: np.ndarray
    runs: int
    method: str

    def as_dict(self) -> dict:
        return {"step": self.step.tolist(), "mean": self.mean.tolist(), "q10": self.q10.tolist(),
                "q50": self.q50.tolist(), "q90": self.q90.tolist(), "runs": self.runs, "method": self.method}


def band(problem: Problem, schedule: Schedule, steps: int, rho0, *, stride: int = 1, runs: int = 2000,
         seed=0, variance_scale: float = 1.0, tables: DiffusionTables | None = None) -> Band:
    """Mean and 10–90% band of ``rho_k`` from ``runs`` diffusion paths (``rho0`` fixed or ``None`` = uniform)."""
    instance("schedule", schedule, Schedule)
    steps = integer("steps", steps, 1)
    runs = integer("runs", runs, 10)
    stride = integer("stride", stride, 1)
    tab = tables or diffusion_tables(problem, variance_scale=variance_scale)
    rng = np.random.default_rng(seed)
    r0 = uniform_starts(rng, problem.d, runs) if rho0 is None else np.full(runs, real("rho0", rho0, lower=-1.0, upper=1.0))
    run = simulate_diffusion(tab, schedule.eta(np.arange(steps)), r0, stride=stride, seed=rng)
    x = run.rho[0]
    q = np.quantile(x, [0.1, 0.5, 0.9], axis=0)
    return Band(run.record_steps, x.mean(axis=0), q[0], q[1], q[2], runs,
                "diffusion on the step grid (Euler-Maruyama, dt = eta_k), docs/design.md section 1.1")


# ----------------------------------------------------------------- first passage


@dataclass(frozen=True)
class FirstPassage:
    """Law of the first step ``k`` with ``|rho_k| >= target``.

    Attributes
    ----------
    target : float
    steps : ndarray of int, shape (runs,)
        First-passage steps (``-1``: not reached within ``horizon``).
    horizon : int
    median, q10, q90 : float
        Quantiles over all runs (``inf`` when more than that fraction is censored).
    reached : float
        Fraction of runs that reached the target.
    plus_fraction : float
        Fraction of runs whose first passage is at ``+target``.
    plain_ode_step : float
        First ``k`` with ``t_k`` past the plain-ODE hitting time from the median start
        (``inf`` if the ODE never reaches the target or beyond the horizon).
    """

    target: float
    steps: np.ndarray = field(repr=False)
    horizon: int = 0
    median: float = math.inf
    q10: float = math.inf
    q90: float = math.inf
    reached: float = 0.0
    plus_fraction: float = 0.0
    plain_ode_step: float = math.inf


def censored_quantile(steps: np.ndarray, q: float) -> float:
    """Quantile ``q`` of first-passage steps with ``-1`` = censored (treated as ``+inf``)."""
    x = np.where(steps < 0, np.inf, steps.astype(float))
    v = float(np.quantile(x, q, method="inverted_cdf"))
    return v


def plain_ode_step(problem: Problem, schedule: Schedule, rho0: float, target: float, horizon: int) -> float:
    """First step whose ODE time ``t_k`` reaches the plain-ODE hitting time of ``|rho| = target``."""
    t = float(time_to_alignment(problem.model, rho0, target).time)
    if not math.isfinite(t):
        return math.inf
    times = schedule.times(horizon)
    k = int(np.searchsorted(times, t))
    return float(k) if k <= horizon else math.inf


def first_passage(problem: Problem, schedule: Schedule, target: float = 0.99, rho0=None, *,
                  horizon: int = 20_000, runs: int = 2000, seed=0, variance_scale: float = 1.0,
                  tables: DiffusionTables | None = None) -> FirstPassage:
    """First-passage law of ``|rho| >= target`` under the diffusion.

    ``rho0`` fixed, or ``None`` for uniform starts on the sphere. The plain-ODE step is
    computed from the fixed start, or from the median of ``|rho0|`` for uniform starts
    (signed towards ``+xi``).
    """
    instance("schedule", schedule, Schedule)
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    horizon = integer("horizon", horizon, 1)
    runs = integer("runs", runs, 10)
    tab = tables or diffusion_tables(problem, variance_scale=variance_scale)
    rng = np.random.default_rng(seed)
    r0 = uniform_starts(rng, problem.d, runs) if rho0 is None else np.full(runs, real("rho0", rho0, lower=-1.0, upper=1.0))
    run = simulate_diffusion(tab, schedule.eta(np.arange(horizon)), r0, level=target, seed=rng)
    hits = run.first_passage[0]
    reached = hits >= 0
    start = float(rho0) if rho0 is not None else float(np.median(np.abs(r0)))
    return FirstPassage(
        float(target), hits, horizon, censored_quantile(hits, 0.5), censored_quantile(hits, 0.1),
        censored_quantile(hits, 0.9), float(reached.mean()),
        float((run.passage_sign[0] > 0).mean()), plain_ode_step(problem, schedule, start, target, horizon))


# ----------------------------------------------------------------- splitting


@dataclass(frozen=True)
class Splitting:
    """Probability of ending at ``+xi`` from the scale function of the diffusion.

    Attributes
    ----------
    rho0 : float
    probability : float
        ``P(+xi | rho0)``.
    unstable : float
        The interior unstable equilibrium ``rho*`` of ``F`` used as the reference point.
    rate : float
        ``lambda = F'(rho*) > 0``.
    eta_effective : float
        The constant step used in the scale function (see :func:`splitting_probability`).
    a, b : float
        Absorbing levels of the boundary-value problem.
    gaussian : float
        The linearised value ``Phi((rho0 - rho*) sqrt(2 lambda / (eta Sigma(rho*))))``.
    """

    rho0: float
    probability: float
    unstable: float
    rate: float
    eta_effective: float
    a: float
    b: float
    gaussian: float


def effective_step(schedule: Schedule, rate: float) -> float:
    """``eta_eff = 2 lambda int_0^inf exp(-2 lambda t) eta(t) dt`` on the ODE time axis.

    Near an unstable equilibrium ``y = rho - rho*`` obeys ``dy = lambda y dt +
    sqrt(eta(t) Sigma) dW``; ``y e^{-lambda t}`` tends to a Gaussian with mean ``y0`` and
    variance ``Sigma int_0^inf e^{-2 lambda t} eta(t) dt``, which equals the constant-step
    value ``eta Sigma / (2 lambda)`` with ``eta = eta_eff``. Here ``eta(t)`` is the
    schedule read on ``t_k`` (``eta(t) = eta0 / (k(t) + k0)^p`` with ``k(t)`` the
    continuous inverse of ``t_k``).
    """
    if schedule.power == 0.0:
        return schedule.eta0
    horizon = 40.0 / (2 * rate)
    # enough steps to cover the horizon on the ODE time axis
    n = 1000
    while schedule.times(n)[-1] < horizon and n < 10_000_000:
        n *= 4
    t = schedule.times(n)
    eta = schedule.eta(np.arange(n + 1))
    w = np.exp(-2 * rate * t)
    return float(2 * rate * np.trapezoid(w * eta, t)) if hasattr(np, "trapezoid") else \
        float(2 * rate * np.trapz(w * eta, t))


def splitting_probability(problem: Problem, schedule: Schedule, rho0: float, *, variance_scale: float = 1.0,
                          tables: DiffusionTables | None = None, points: int = 20_001) -> Splitting:
    r"""``P(+xi | rho0) = int_a^rho0 s / int_a^b s``, ``s = exp(-int 2 F_eta / (eta Sigma))``.

    The scale function of docs/design.md section 1.1 at the constant step
    ``eta_eff`` of :func:`effective_step` (exact for a constant step; for a decaying
    schedule it is the step that gives the same escape law from the linearised
    equilibrium, where the sign is decided). The absorbing levels are the midpoints
    between ``rho*`` and the poles, ``a = (rho* - 1)/2``, ``b = (rho* + 1)/2``; the
    integrand ``s`` is negligible there (the barrier ``int 2 F/(eta Sigma)`` is many
    units), so the result does not depend on them.

    ``ValueError`` if ``F`` has no unstable interior equilibrium (the model is monotone).
    """
    instance("schedule", schedule, Schedule)
    rho0 = real("rho0", rho0, lower=-1.0, upper=1.0)
    eq = find_equilibria(problem.model)
    unstable = [float(p) for p, stable in zip(eq.points, eq.stable) if not stable and abs(p) < 1]
    if not unstable:
        raise ValueError("the model has no unstable interior equilibrium: every start ends at +xi "
                         "(splitting applies to bistable models)")
    rs = min(unstable, key=lambda p: abs(p - rho0))
    tab = tables or diffusion_tables(problem, variance_scale=variance_scale)
    h = 1e-5
    rate = float((tab.lookup(np.array(rs + h))[0] - tab.lookup(np.array(rs - h))[0]) / (2 * h))
    if rate <= 0:
        raise ValueError(f"the interior equilibrium rho* = {rs:.6g} is not unstable (F' = {rate:.3g})")
    eta_eff = effective_step(schedule, rate)
    a, b = (rs - 1) / 2, (rs + 1) / 2
    if not a < rho0 < b:
        return Splitting(rho0, float(rho0 >= b), rs, rate, eta_eff, a, b, float(rho0 >= b))
    r = np.linspace(a, b, points)
    ratio = 2 * tab.drift(r, eta_eff) / (eta_eff * tab.variance(r))
    phi = cumulative_trapezoid(ratio, r, initial=0.0)
    phi -= np.interp(rs, r, phi)
    logs = -phi
    s = np.exp(logs - logs.max())
    cum = cumulative_trapezoid(s, r, initial=0.0)
    prob = float(np.interp(rho0, r, cum) / cum[-1])
    sig = float(tab.variance(np.array(rs)))
    z = (rho0 - rs) * math.sqrt(2 * rate / (eta_eff * sig))
    gauss = 0.5 * math.erfc(-z / math.sqrt(2))
    return Splitting(rho0, prob, rs, rate, eta_eff, a, b, gauss)


# ----------------------------------------------------------------- Monte Carlo of Var X


@dataclass(frozen=True)
class OneStepMoments:
    """Monte Carlo of ``X = <P g, xi>`` at one ``rho`` from the exact reduced chain.

    ``X`` is read as ``(rho' - rho) / eta`` from one step with a tiny constant ``eta``;
    the bias ``-eta rho Y / 2`` of that estimate is ``O(eta d / L)`` in the mean and
    ``O(eta)`` relative in the variance.

    Attributes
    ----------
    rho, eta : float
    runs : int
    mean, variance : float
    variance_se : float
        ``sqrt((m4 - var^2) / runs)`` (delta method for the sample variance).
    """

    rho: float
    eta: float
    runs: int
    mean: float
    variance: float
    variance_se: float


def one_step_moments(problem: Problem, rho: float, *, runs: int = 20_000, eta: float = 1e-4, seed=0,
                     workers: int = 1) -> OneStepMoments:
    """Mean and variance of ``X`` at ``rho`` by one step of the exact reduced chain (``runs`` samples)."""
    rho = real("rho", rho, lower=-1.0, upper=1.0)
    runs = integer("runs", runs, 100)
    sim = simulate(problem, Schedule.constant(eta), steps=1, runs=runs, rho0=rho, seed=seed, workers=workers)
    x = (sim.final_rho - rho) / eta
    m = float(x.mean())
    c = x - m
    var = float((c * c).mean())
    m4 = float((c**4).mean())
    return OneStepMoments(float(rho), float(eta), runs, m, var * runs / (runs - 1), math.sqrt(max(m4 - var * var,
                                                                                                0.0) / runs))


# ----------------------------------------------------------------- sample complexity


@dataclass(frozen=True)
class Complexity:
    """Steps to reach ``|rho| >= target`` for one instance and schedule.

    Attributes
    ----------
    schedule : Schedule
    median_steps, q10_steps, q90_steps : float
        Quantiles of the first-passage step (``inf`` if beyond the horizon).
    plain_ode_steps : float
        Crossing step of the plain limit ODE on the same time axis.
    reached : float
        Fraction of diffusion paths that reached the target within the horizon.
    plateau : float
        Stable zero of ``F_eta`` at the step size of the ``q90`` step (1 when that step is 0).
    runs, horizon : int
    """

    schedule: Schedule
    median_steps: float
    q10_steps: float
    q90_steps: float
    plain_ode_steps: float
    reached: float
    plateau: float
    runs: int
    horizon: int

    def as_dict(self) -> dict:
        def num(x):
            return None if not math.isfinite(x) else x
        return {"schedule": self.schedule.as_dict(), "median_steps": num(self.median_steps),
                "q10_steps": num(self.q10_steps), "q90_steps": num(self.q90_steps),
                "plain_ode_steps": num(self.plain_ode_steps), "reached_fraction": self.reached,
                "plateau": self.plateau, "runs": self.runs, "horizon": self.horizon}


def _starts(problem, rho0, runs, rng):
    return uniform_starts(rng, problem.d, runs) if rho0 is None else np.full(runs, float(rho0))


def _plateau_at(tables: DiffusionTables, eta: float) -> float:
    """Largest stable zero of ``F_eta = A - eta B`` in ``(0, 1]`` on the table grid (1 if ``eta = 0``)."""
    if eta <= 0:
        return 1.0
    r = tables.grid
    f = tables.table[:, 0] - eta * tables.table[:, 1]
    idx = np.flatnonzero((r[:-1] >= 0) & (f[:-1] > 0) & (f[1:] <= 0))
    if idx.size == 0:
        return 0.0
    i = idx[-1]
    return float(r[i] + (r[i + 1] - r[i]) * f[i] / (f[i] - f[i + 1]))


def complexity(problem: Problem, schedule: Schedule, rho0=None, target: float = 0.99, *, runs: int = 2000,
               horizon: int = 200_000, seed=0, tables: DiffusionTables | None = None) -> Complexity:
    """Median, 10% and 90% first-passage steps to ``|rho| >= target`` under the diffusion.

    ``rho0`` fixed or ``None`` (uniform starts on the sphere). Paths stop once 90% have
    passed; the horizon caps the run (quantiles beyond it are ``inf``).
    """
    instance("schedule", schedule, Schedule)
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    runs = integer("runs", runs, 10)
    horizon = integer("horizon", horizon, 1)
    tab = tables or diffusion_tables(problem)
    rng = np.random.default_rng(seed)
    r0 = _starts(problem, rho0, runs, rng)
    run = simulate_diffusion(tab, schedule.eta(np.arange(horizon)), r0, level=target, seed=rng, stop_fraction=0.9)
    h = run.first_passage[0]
    q10, q50, q90 = (censored_quantile(h, q) for q in (0.1, 0.5, 0.9))
    start = float(rho0) if rho0 is not None else float(np.median(np.abs(r0)))
    plain = plain_ode_step(problem, schedule, start, target, horizon)
    eta90 = float(schedule.eta(np.array(q90 if math.isfinite(q90) else horizon)))
    return Complexity(schedule, q50, q10, q90, plain, float((h >= 0).mean()), _plateau_at(tab, eta90), runs,
                      horizon)


def _largest_feasible_step(tables: DiffusionTables, target: float) -> float:
    """The step size at which the plateau equals ``target`` (bisection; the plateau falls with ``eta``)."""
    lo, hi = 0.0, 1.0
    while _plateau_at(tables, hi) > target and hi < 1e6:
        lo, hi = hi, 2 * hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _plateau_at(tables, mid) > target else (lo, mid)
    return lo


@dataclass(frozen=True)
class ScheduleSearch:
    """Grid search of ``(eta0, k0, power)`` minimising the 90% first-passage step.

    Attributes
    ----------
    best : Complexity
        The winner, re-evaluated on fresh paths.
    candidates : int
    feasible : int
        Candidates whose plateau at the ``q90`` step lies above the target.
    table : list of dict
        ``eta0, k0, power, first_step, q90_steps, plateau`` per candidate.
    """

    best: Complexity
    candidates: int
    feasible: int
    table: list


#: the search grid: decay exponents, offsets and first step sizes ``eta0 / k0^power``
POWERS = (0.0, 0.75, 1.0)
OFFSETS = (30.0, 100.0, 300.0, 1000.0)
FIRST_STEPS = (0.01, 0.03, 0.1, 0.3, 1.0)


def optimize_schedule(problem: Problem, rho0=None, target: float = 0.99, *, runs: int = 300,
                      horizon: int = 50_000, seed=0, tables: DiffusionTables | None = None) -> ScheduleSearch:
    """Grid search over ``POWERS x OFFSETS x FIRST_STEPS`` (constant steps: ``FIRST_STEPS`` only).

    All candidates run side by side on the same normals (common random numbers), so the
    comparison is not blurred by independent noise. A candidate is feasible when its plateau
    (the stable zero of ``F_eta`` at the step size of its ``q90`` step) lies above ``target``;
    among feasible candidates the smallest ``q90`` wins and is re-evaluated with
    :func:`complexity` on fresh paths.
    """
    target = real("target", target, lower=0.0, upper=1.0, strict=True)
    tab = tables or diffusion_tables(problem)
    cands = []
    for p in POWERS:
        for k0 in (OFFSETS if p > 0 else (1.0,)):
            for e1 in FIRST_STEPS:
                cands.append(Schedule.constant(e1) if p == 0 else Schedule(e1 * k0**p, k0, p))
    etas = np.stack([c.eta(np.arange(horizon)) for c in cands])
    rng = np.random.default_rng(seed)
    r0 = _starts(problem, rho0, runs, rng)
    eta_max = _largest_feasible_step(tab, target)

    def settled(k, hit):
        # a candidate with 90% passed at a step size below eta_max is feasible with q90 <= k;
        # a candidate that has not passed by then cannot beat it
        done = (hit >= 0).mean(axis=1) >= 0.9
        return bool(np.any(done & (etas[:, k - 1] < eta_max)))

    run = simulate_diffusion(tab, etas, r0, level=target, seed=rng, stop=settled)
    rows = []
    best, best_q = None, math.inf
    for i, c in enumerate(cands):
        q90 = censored_quantile(run.first_passage[i], 0.9)
        plat = _plateau_at(tab, float(c.eta(np.array(q90 if math.isfinite(q90) else horizon))))
        ok = plat > target and math.isfinite(q90)
        rows.append({"eta0": c.eta0, "k0": c.k0, "power": c.power, "first_step": float(c.eta(np.array(0))),
                     "q90_steps": q90 if math.isfinite(q90) else None, "plateau": plat, "feasible": ok})
        if ok and q90 < best_q:
            best, best_q = c, q90
    if best is None:
        raise ValueError(f"no schedule of the grid reaches |rho| >= {target} within {horizon} steps with its "
                         f"plateau above the target")
    final = complexity(problem, best, rho0, target, runs=2000, horizon=horizon, seed=seed + 1, tables=tab)
    return ScheduleSearch(final, len(cands), sum(r["feasible"] for r in rows), rows)


@dataclass(frozen=True)
class Scaling:
    """Fitted exponent of the median first-passage step in one size parameter.

    ``median_steps ~ C * value^exponent`` by least squares in log-log over ``values``.
    """

    parameter: str
    values: list
    median_steps: list
    exponent: float

    def as_dict(self) -> dict:
        return {"parameter": self.parameter, "values": self.values,
                "median_steps": [None if not math.isfinite(m) else m for m in self.median_steps],
                "exponent": self.exponent}


def scaling_exponents(problem: Problem, schedule: Schedule, rho0=None, target: float = 0.99, *,
                      factors=(0.5, 1.0, 2.0), runs: int = 1000, horizon: int = 200_000, seed=0) -> tuple:
    """Exponents of the median first-passage step in ``d`` and in ``L`` (``alpha = R/L`` held fixed).

    Each parameter is scaled by ``factors`` (``d >= 2``, ``R >= 1``); the exponent is the
    least-squares slope of ``log median`` on ``log value`` (``nan`` if some median is beyond the horizon).
    """
    out = []
    for name in ("d", "L"):
        vals, meds = [], []
        for f in factors:
            if name == "d":
                pr = Problem(problem.theta, problem.R, problem.L, max(2, int(round(problem.d * f))), problem.beta,
                             problem.sigma2, problem.prior, problem.batch)
                v = pr.d
            else:
                L = max(2, int(round(problem.L * f)))
                R = max(1, int(round(problem.R * L / problem.L)))
                pr = Problem(problem.theta, R, L, problem.d, problem.beta, problem.sigma2, problem.prior,
                             problem.batch)
                v = pr.L
            c = complexity(pr, schedule, rho0, target, runs=runs, horizon=horizon, seed=seed)
            vals.append(v)
            meds.append(c.median_steps)
        m = np.array(meds, dtype=float)
        if np.all(np.isfinite(m)) and len(set(vals)) > 1:
            slope = float(np.polyfit(np.log(vals), np.log(m), 1)[0])
        else:
            slope = math.nan
        out.append(Scaling(name, vals, meds, slope))
    return tuple(out)
