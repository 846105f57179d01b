"""Parameter sweeps with a resumable Zarr store (docs/design.md section 8).

A sweep is a grid over ``theta``, ``N`` (at fixed ``R``) or ``alpha`` (at fixed ``L``),
``d``, ``beta``, ``sigma2`` and ``prior``. Each grid cell is one independent unit on the
executor of the enclosing command (a fan-out unit, whose blocks of runs spread over the
cluster, when there are fewer cells than workers): it simulates ``runs`` runs of the exact reduced
chain (docs/design.md section 2) from uniform starts on the sphere and compares them
with the limit theory of that cell's model. Its random stream is
``SeedSequence(seed, spawn_key=cell identity)`` (:func:`sigrec.verify.checks.derive_seed`,
the identity built from the cell's parameter values), so neither the cluster nor the
order in which cells finish changes a number.

**Store.** A Zarr (format 2) group that ``xarray.open_zarr`` reads as a Dataset with one
dimension per swept parameter (coordinates named after the flags) and a ``run``
dimension. It is created in full (NaN) before the first cell runs, with one chunk per
cell, and the specification in its attributes. A cell is written by the driver only:
its data chunks first, then its ``done`` flag; chunks are written to a temporary file
and renamed, so a cell either counts as finished with all its data or not at all. A
rerun reads ``done``, skips finished cells and computes the rest; a store made by
another specification is refused.

**The predicted -xi fraction.** For ``q_0`` uniform on ``S^{d-1}``,
``(1 + rho_0)/2 ~ Beta((d-1)/2, (d-1)/2)`` (numerics ``_init``). When ``-xi`` attracts,
its ODE basin is ``[-1, rho*)`` with ``rho*`` the smallest interior equilibrium
(certified bracket midpoint), so the basin measure of uniform starts is the regularized
incomplete beta function ``I_{(1 + rho*)/2}((d-1)/2, (d-1)/2)``; it is 0 when the
landscape is monotone.
"""

from __future__ import annotations

import json
import math
import time
from contextlib import closing
from dataclasses import asdict, dataclass, field
from itertools import product
from pathlib import Path

import numpy as np

from ...numerics import Problem, Schedule, current_executor, predict, simulate
from ...theory import canonical_prior, critical_alpha
from ...theory.validate import choice, integer, real
from ..checks import derive_seed
from ._against import against_theory

#: grid parameters, in dimension order (``N`` and ``alpha`` are exclusive)
PARAMETERS = ("theta", "N", "alpha", "d", "beta", "sigma2", "prior")
#: landscape codes stored in ``landscape`` (CF ``flag_values`` / ``flag_meanings``)
LANDSCAPES = ("monotone", "bistable", "undecided", "degenerate")
#: alignment counted as recovered
RECOVERED = 0.99
#: a cell counts as settled in the figures when 90% of its runs end with |rho_K| >= this
SETTLED = 0.9
#: quantiles of ``|final rho|`` stored per cell
QUANTILES = (0.1, 0.5, 0.9)
#: Clopper-Pearson level of the binomial interval on the simulated -xi fraction
CONFIDENCE = 0.95
PRESETS = ("quick", "paper")
STORE_FORMAT = "sigrec-sweep-1"


def _relevant(spec: dict) -> dict:
    """``spec`` (a :meth:`SweepSpec.as_dict`) without the token count its grid does not
    use: ``L`` when ``N`` is swept at fixed ``R``, ``R`` when ``alpha`` is swept at
    fixed ``L`` (stores written before this rule carry both)."""
    unused = "R" if "alpha" in spec["grid"] else "L"
    return {k: v for k, v in spec.items() if k != unused}


@dataclass(frozen=True)
class SweepSpec:
    """What a sweep computes; a store records it and refuses any other.

    Attributes
    ----------
    grid : tuple of (str, tuple)
        The swept parameters in dimension order, each with its values.
    R : int
        Informative tokens when ``N`` is swept (``L = R + N``).
    L : int
        Tokens when ``alpha`` is swept (``R = round(alpha L)``).
    runs, steps : int
    eta0, k0, power : float
        Schedule ``eta_k = eta0/(k + k0)^power`` (``power = 0``: constant).
    seed : int
        Root of every cell's ``SeedSequence``.
    """

    grid: tuple
    R: int = 500
    L: int = 10_500
    runs: int = 30
    steps: int = 3000
    eta0: float = 45.0
    k0: float = 250.0
    power: float = 1.0
    seed: int = 2026

    @property
    def dims(self) -> tuple:
        return tuple(name for name, _ in self.grid)

    @property
    def shape(self) -> tuple:
        return tuple(len(values) for _, values in self.grid)

    @property
    def cells(self) -> int:
        return math.prod(self.shape)

    @property
    def stride(self) -> int:
        """Record ``rho`` every ``stride`` steps (for the step to reach 0.99)."""
        return max(1, self.steps // 200)

    @property
    def schedule(self) -> Schedule:
        return Schedule.constant(self.eta0) if self.power == 0 else Schedule(self.eta0, self.k0, self.power)

    def as_dict(self) -> dict:
        """The specification as a store records it: ``R`` only when ``N`` is swept,
        ``L`` only when ``alpha`` is (the other one is not used)."""
        return _relevant({**asdict(self), "grid": {name: list(values) for name, values in self.grid}})

    def parameters(self, index) -> dict:
        """The full parameter set of cell ``index`` (defaults for the unswept ones)."""
        p = {"theta": None, "d": 3, "beta": 1.0, "sigma2": 1.0, "prior": "fixed"}
        p.update({name: values[i] for (name, values), i in zip(self.grid, index)})
        if "alpha" in p:
            p["R"], p["L"] = int(round(p.pop("alpha") * self.L)), self.L
        else:
            p["R"], p["L"] = self.R, self.R + int(p.pop("N", 10_000))
        return p

    def problem(self, index) -> Problem:
        p = self.parameters(index)
        return Problem(theta=p["theta"], R=p["R"], L=p["L"], d=p["d"], beta=p["beta"], sigma2=p["sigma2"],
                       prior=p["prior"])

    def identity(self, index) -> tuple:
        """The cell's random-stream identity: its parameter values, by name."""
        return ("sweep",) + tuple(f"{name}={values[i]!r}" for (name, values), i in zip(self.grid, index))


def make_spec(*, theta, N=None, alpha=None, d=None, beta=None, sigma2=None, prior=None, R=500, L=10_500,
              runs=30, steps=3000, eta0=45.0, k0=250.0, power=1.0, seed=2026) -> SweepSpec:
    """A validated :class:`SweepSpec`; each parameter is a list of values.

    ``theta`` is required; give ``N`` (with ``R``) or ``alpha`` (with ``L``), not both
    (default ``N = [10000]``). ``d`` defaults to ``[3]``; ``beta``, ``sigma2`` and
    ``prior`` are dimensions only when given (else 1, 1 and fixed).
    """
    if N is not None and alpha is not None:
        raise ValueError("give `N` (with `R`) or `alpha` (with `L`), not both")
    R = integer("R", R, 1)
    L = integer("L", L, 2)
    lists = {"theta": theta, "N": N if alpha is None else None, "alpha": alpha, "d": d if d is not None else [3],
             "beta": beta, "sigma2": sigma2, "prior": prior}
    if lists["N"] is None and alpha is None:
        lists["N"] = [10_000]
    checks = {
        "theta": lambda v: real("theta", v, lower=0.0),
        "N": lambda v: integer("N", v, 0),
        "alpha": lambda v: real("alpha", v, lower=0.0, upper=1.0, strict=False),
        "d": lambda v: integer("d", v, 2),
        "beta": lambda v: real("beta", v, lower=0.0, strict=True),
        "sigma2": lambda v: real("sigma2", v, lower=0.0, strict=True),
        "prior": canonical_prior,
    }
    grid = []
    for name in PARAMETERS:
        values = lists[name]
        if values is None:
            continue
        values = tuple(checks[name](v) for v in values)
        if not values:
            raise ValueError(f"`{name}` needs at least one value")
        if len(set(values)) != len(values):
            raise ValueError(f"`{name}` has repeated values: {list(values)}")
        if name == "alpha" and min(values) * L < 0.5:
            raise ValueError(f"`alpha` * `L` must give R >= 1 informative token, got alpha = {min(values)}, L = {L}")
        grid.append((name, values))
    spec = SweepSpec(tuple(grid), R=R, L=L, runs=integer("runs", runs, 1), steps=integer("steps", steps, 1),
                     eta0=real("eta0", eta0, lower=0.0, strict=True), k0=real("k0", k0, lower=0.0, strict=True),
                     power=real("power", power, lower=0.0), seed=integer("seed", seed, 0))
    spec.schedule  # validates the schedule
    for index in product(*(range(n) for n in spec.shape)):
        spec.problem(index)  # validates every instance up front (e.g. R <= L)
    return spec


def preset(name: str) -> dict:
    """Keyword arguments of :func:`make_spec` for a preset.

    ``quick``: 2 x 2 cells at small ``L`` (bistable and monotone), within a minute on
    2 cores. ``paper``: the paper's grid (``theta`` in {0.25, 0.5, 1, 2}, ``R = 500``,
    ``N`` in {1000, 2500, 5000, 10000}) at ``d`` in {3, 10}, under the reproduction's
    protocol (``eta_k = 45/(k + 250)``, 3000 steps, 30 runs).
    """
    choice("preset", name, PRESETS)
    if name == "quick":
        return dict(theta=[0.5, 2.0], N=[200, 2000], d=[3], R=50, runs=24, steps=800, eta0=45.0, k0=250.0,
                    power=1.0)
    return dict(theta=[0.25, 0.5, 1.0, 2.0], N=[1_000, 2_500, 5_000, 10_000], d=[3, 10], R=500, runs=30,
                steps=3000, eta0=45.0, k0=250.0, power=1.0)


@dataclass(frozen=True)
class _Cell:
    """One unit of work (picklable, pure)."""

    index: tuple
    spec: SweepSpec


def _minus_basin(cert, d: int) -> tuple[float, float]:
    """``(rho*, P(rho_0 < rho*))`` for uniform starts in ``d`` dimensions; ``(nan, 0)``
    when ``-xi`` does not attract (no interior equilibrium)."""
    from scipy.special import betainc

    if not cert.equilibria:
        return math.nan, 0.0
    rho_star = float(cert.midpoints[0])
    shape = (d - 1) / 2
    return rho_star, float(betainc(shape, shape, (1.0 + rho_star) / 2.0))


def corrected_prediction(spec: SweepSpec, index: tuple, initial_rho) -> dict:
    """Plain and drag-corrected ODE ``|rho_K|`` (``numerics.predict``) from the cell's
    median ``|rho_0|``.

    Run by the driver, not in the cell's task: the first call in a process derives the
    finite-step drift symbolically (seconds), which every fresh worker would repeat.
    """
    start = float(np.median(np.abs(initial_rho)))
    pred = predict(spec.problem(index), spec.schedule, steps=spec.steps, rho0=start, stride=spec.steps)
    return {"ode_plain_median_start": float(abs(pred.rho_plain[-1])),
            "ode_corrected_median_start": float(abs(pred.rho_corrected[-1]))}


def compute_cell(cell: _Cell) -> dict:
    """Simulate one cell and compare it with the limit theory; a dict of variable ->
    value (scalars, or arrays of shape ``(runs,)``). Pure: depends on the cell only.
    :func:`corrected_prediction` adds the finite-step predictions."""
    from scipy.stats import binomtest

    spec, index = cell.spec, cell.index
    problem = spec.problem(index)
    model = problem.model
    schedule = spec.schedule
    seed = derive_seed(spec.seed, *spec.identity(index))
    sim = simulate(problem, schedule, steps=spec.steps, runs=spec.runs, seed=seed, stride=spec.stride)
    theory = against_theory(sim, last_only=True)
    cert = theory.certificate
    rho_star, predicted = _minus_basin(cert, problem.d)
    r0, rf = sim.initial_rho, sim.final_rho
    minus = int(np.sum(rf < 0))
    ci = binomtest(minus, spec.runs).proportion_ci(CONFIDENCE, method="exact")
    a = np.abs(rf)
    reached = np.abs(sim.rho) >= RECOVERED
    first = np.where(reached.any(axis=1), sim.record_steps[np.argmax(reached, axis=1)], np.inf)
    median_step = float(np.median(first))
    flow = theory.flow[:, -1]
    ode_minus = float(np.mean(theory.limits < 0))
    return {
        "landscape": LANDSCAPES.index(cert.status),
        "certified": int(cert.certified),
        "rho_star": rho_star,
        "predicted_minus_fraction": predicted,
        "ode_minus_fraction": ode_minus,
        "minus_fraction": minus / spec.runs,
        "minus_fraction_lo": float(ci.low),
        "minus_fraction_hi": float(ci.high),
        "initial_rho": r0,
        "final_rho": rf,
        "mean_final_abs": float(a.mean()),
        **{f"final_abs_q{int(q * 100):02d}": float(np.quantile(a, q)) for q in QUANTILES},
        "recovered_fraction": float(np.mean(a >= RECOVERED)),
        "median_step_to_099": median_step if math.isfinite(median_step) else math.nan,
        "nuisance_measured": theory.nuisance_final,
        "nuisance_limit": theory.nuisance_limit,
        "ode_plain": float(np.abs(flow).mean()),
        "alpha_effective": model.alpha,
        "seed": seed,
    }


#: variable -> (dtype, per run?, description)
VARIABLES = {
    "landscape": ("i1", False, "certified landscape: " + ", ".join(f"{i} = {s}" for i, s in enumerate(LANDSCAPES))),
    "certified": ("i1", False, "1 iff interval arithmetic decided the whole landscape"),
    "rho_star": ("f8", False, "smallest interior equilibrium (certified bracket midpoint); NaN where none"),
    "predicted_minus_fraction": ("f8", False, "ODE basin measure of -xi for q_0 uniform on the sphere "
                                 "(regularized incomplete beta)"),
    "ode_minus_fraction": ("f8", False, "fraction of the simulated starts in the ODE basin of -xi"),
    "minus_fraction": ("f8", False, "simulated fraction of runs ending with rho < 0"),
    "minus_fraction_lo": ("f8", False, f"Clopper-Pearson {CONFIDENCE:.0%} interval, lower end"),
    "minus_fraction_hi": ("f8", False, f"Clopper-Pearson {CONFIDENCE:.0%} interval, upper end"),
    "initial_rho": ("f8", True, "rho_0 per run"),
    "final_rho": ("f8", True, "rho_K per run"),
    "mean_final_abs": ("f8", False, "mean |rho_K| over runs"),
    **{f"final_abs_q{int(q * 100):02d}": ("f8", False, f"{q:g} quantile of |rho_K|") for q in QUANTILES},
    "recovered_fraction": ("f8", False, f"fraction of runs with |rho_K| >= {RECOVERED}"),
    "median_step_to_099": ("f8", False, f"median over runs of the first recorded step with |rho| >= {RECOVERED} "
                           "(NaN when fewer than half reach it)"),
    "nuisance_measured": ("f8", False, "attention mass on nuisance tokens at the last step, mean over runs"),
    "nuisance_limit": ("f8", False, "limit nuisance mass at the final rho of each run, mean over runs"),
    "ode_plain": ("f8", False, "mean |rho(t_K)| of the plain ODE from each run's start"),
    "ode_plain_median_start": ("f8", False, "plain ODE |rho(t_K)| from the median |rho_0| (numerics.predict)"),
    "ode_corrected_median_start": ("f8", False, "drag-corrected ODE |rho_K| from the median |rho_0| "
                                   "(numerics.predict)"),
    "alpha_effective": ("f8", False, "R / L of the simulated instance"),
    "seed": ("u8", False, "the cell's SeedSequence seed (from its identity)"),
}


def _template(spec: SweepSpec):
    import xarray as xr

    dims = spec.dims
    coords = {name: np.array(values) for name, values in spec.grid}
    coords["run"] = np.arange(spec.runs)
    data = {}
    for name, (dtype, per_run, desc) in VARIABLES.items():
        shape = spec.shape + ((spec.runs,) if per_run else ())
        fill = 0 if dtype[0] in "iu" else np.nan
        data[name] = (dims + (("run",) if per_run else ()), np.full(shape, fill, dtype=dtype), {"description": desc})
    data["done"] = (dims, np.zeros(spec.shape, dtype="i1"), {"description": "1 iff the cell is finished"})
    ds = xr.Dataset(data, coords=coords)
    ds["landscape"].attrs.update(flag_values=list(range(len(LANDSCAPES))), flag_meanings=" ".join(LANDSCAPES))
    ds.attrs.update(format=STORE_FORMAT, spec=json.dumps(spec.as_dict(), sort_keys=True))
    encoding = {name: {"chunks": (1,) * len(dims) + ((spec.runs,) if VARIABLES[name][1] else ())}
                for name in VARIABLES}
    encoding["done"] = {"chunks": (1,) * len(dims)}
    return ds, encoding


def open_store(path, spec: SweepSpec) -> np.ndarray:
    """Create the store at ``path`` or check that it was made by ``spec``.

    Returns
    -------
    ndarray of bool, shape ``spec.shape``
        Which cells are finished.
    """
    import zarr

    path = Path(path)
    if path.exists():
        try:
            group = zarr.open_group(str(path), mode="r")
            attrs = dict(group.attrs)
        except Exception:  # noqa: BLE001 - any unreadable folder is refused the same way
            raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store") from None
        if attrs.get("format") != STORE_FORMAT:
            raise ValueError(f"`store` {str(path)!r} exists and is not a sigrec sweep store")
        theirs = _relevant(json.loads(attrs["spec"]))
        ours = json.loads(json.dumps(spec.as_dict(), sort_keys=True))
        if theirs != ours:
            differ = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            raise ValueError(f"`store` {str(path)!r} was made by a different sweep (differs in: "
                             f"{', '.join(differ)}); use another --store or the same flags")
        return np.asarray(group["done"][...]).astype(bool)
    ds, encoding = _template(spec)
    ds.to_zarr(str(path), mode="w-", encoding=encoding, consolidated=True, zarr_format=2)
    return np.zeros(spec.shape, dtype=bool)


def write_cell(path, index: tuple, result: dict) -> None:
    """Write one finished cell: its data chunks, then its ``done`` flag (each chunk is
    written to a temporary file and renamed by the Zarr local store)."""
    import zarr

    group = zarr.open_group(str(path), mode="r+", use_consolidated=False)
    for name, value in result.items():
        group[name][index] = value
    group["done"][index] = 1


@dataclass(frozen=True)
class SweepResult:
    """Outcome of :func:`run_sweep`.

    Attributes
    ----------
    cells : int
    computed : int
        Cells computed by this call.
    skipped : int
        Cells already finished in the store (not recomputed).
    store : str
    seconds : float
    """

    spec: SweepSpec
    cells: int
    computed: int
    skipped: int
    store: str
    seconds: float
    figures: tuple = field(default=())

    def as_dict(self) -> dict:
        return {"cells": self.cells, "computed": self.computed, "skipped": self.skipped, "store": self.store,
                "seconds": self.seconds, "dims": list(self.spec.dims), "spec": self.spec.as_dict(),
                "figures": list(self.figures),
                "cells_per_minute": 60 * self.computed / self.seconds if self.seconds > 0 else None}


def run_sweep(spec: SweepSpec, store, *, progress=None, on_skip=None) -> SweepResult:
    """Compute every unfinished cell of ``spec`` on the current executor, writing each
    to ``store`` as soon as it finishes.

    Parameters
    ----------
    spec : SweepSpec
    store : path
        Zarr store; created if absent, else resumed (refused if made by another spec).
    progress : callable, optional
        ``progress(done, total)`` over the cells to compute.
    on_skip : callable, optional
        ``on_skip(n)`` with the number of finished cells skipped, before computing.
    """
    t0 = time.perf_counter()
    done = open_store(store, spec)
    todo = [idx for idx in product(*(range(n) for n in spec.shape)) if not done[idx]]
    skipped = spec.cells - len(todo)
    if on_skip is not None:
        on_skip(skipped)
    if progress is not None:
        progress(0, len(todo))
    units = [_Cell(idx, spec) for idx in todo]
    ex = current_executor()
    # fewer cells than workers: each cell sends its blocks of runs back to the cluster
    # (a fan-out unit) so no worker idles; otherwise a cell is the unit, which keeps
    # cells finishing one by one (what a resumed sweep relies on) and threads few
    fan_out = ex.backend != "inline" and len(units) < ex.workers
    # closing: an interrupted sweep releases its queued tasks on the cluster at once
    with closing(ex.as_completed(compute_cell, units, fan_out=fan_out)) as finished:
        for n, (i, result) in enumerate(finished, 1):
            result.update(corrected_prediction(spec, todo[i], result["initial_rho"]))
            write_cell(store, todo[i], result)
            if progress is not None:
                progress(n, len(todo))
    return SweepResult(spec, spec.cells, len(todo), skipped, str(store), time.perf_counter() - t0)


def load(store):
    """The store as an ``xarray.Dataset`` (``xarray.open_zarr``)."""
    import xarray as xr

    return xr.open_zarr(str(store))


def plot(store, out) -> list[str]:
    """Figures of a finished (or partial) sweep: simulated vs predicted -xi fraction
    with the certified boundary ``alpha_c(theta)``, and the final-alignment map."""
    from ..render import style

    ds = load(store).load()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    spec = json.loads(ds.attrs["spec"])
    # one (theta, alpha) slice: the first value of every other dimension
    rest = {k: 0 for k in ds["done"].dims if k not in ("theta", "N", "alpha")}
    sl = ds.isel(rest)
    x_dim = "N" if "N" in sl.dims else "alpha"
    thetas = sl["theta"].values
    alphas = sl["alpha_effective"].transpose("theta", x_dim).values
    done = sl["done"].transpose("theta", x_dim).values.astype(bool)
    sim = np.where(done, sl["minus_fraction"].transpose("theta", x_dim).values, np.nan)
    pred = np.where(done, sl["predicted_minus_fraction"].transpose("theta", x_dim).values, np.nan)
    lo = sl["minus_fraction_lo"].transpose("theta", x_dim).values
    hi = sl["minus_fraction_hi"].transpose("theta", x_dim).values
    fixed = {k: (sl[k].values.item() if k in sl.coords else None) for k in ("beta", "sigma2", "prior", "d")}
    beta = fixed["beta"] if fixed["beta"] is not None else 1.0
    sigma2 = fixed["sigma2"] if fixed["sigma2"] is not None else 1.0
    names = {"beta": r"\beta", "sigma2": r"\sigma^2", "d": "d"}
    label = ", ".join([f"${names[k]}={v}$" for k, v in fixed.items() if v is not None and k in names]
                      + ([f"{fixed['prior']} prior"] if fixed["prior"] is not None else []))
    paths = []

    # a cell has settled when 90% of its runs end within 0.1 of a pole; elsewhere a run
    # below 0 may still be on its way to +xi and the comparison is not yet meaningful
    settled = done & (sl["final_abs_q10"].transpose("theta", x_dim).values >= SETTLED)
    fig, (a1, a2) = style.figure(ncols=2)
    for mask, face, text in ((settled, "C0", "settled cells (95% binomial interval)"),
                             (done & ~settled, "none", rf"not settled: 10% quantile of $|\rho_K|$ < {SETTLED}")):
        if mask.any():
            a1.errorbar(pred[mask], sim[mask], yerr=[(sim - lo)[mask], (hi - sim)[mask]], fmt="o", ms=4, capsize=2,
                        color="C0", mfc=face, label=text)
    a1.plot([0, 1], [0, 1], "k--", lw=0.8, label="simulated = predicted")
    a1.set_xlabel(r"predicted fraction ending at $-\xi$ (ODE basin of uniform starts)")
    a1.set_ylabel(r"simulated fraction ending at $-\xi$")
    a1.set_xlim(-0.02, 0.6)
    a1.set_ylim(-0.02, 0.6)
    a1.legend(loc="upper left")
    sc = a2.scatter(np.repeat(thetas, alphas.shape[1])[done.ravel()], alphas[done], c=sim[done], cmap="viridis",
                    vmin=0, vmax=0.5, s=60, edgecolors="k", linewidths=0.4)
    fig.colorbar(sc, ax=a2, label=r"simulated fraction at $-\xi$")
    if (fixed["prior"] or "fixed") == "fixed":
        fine = np.linspace(max(thetas.min(), 1e-3), thetas.max(), 200)
        ac = np.array([np.nan if (c := critical_alpha(t, beta, sigma2)) is None else c for t in fine])
        a2.plot(fine, ac, "k-", lw=1.2, label=r"$\alpha_c(\theta)$: bistable below (certificates agree)")
        a2.legend(loc="lower right")
    a2.set_yscale("log")
    a2.set_xlabel(r"$\theta$")
    a2.set_ylabel(r"$\alpha=R/L$")
    a2.set_title(rf"fraction of runs at $-\xi$ ({label})")
    p = out / "sweep-minus-fraction.png"
    paths.append(style.save(fig, p))

    fig, ax = style.figure()
    final = np.where(done, sl["mean_final_abs"].transpose("theta", x_dim).values, np.nan)
    im = ax.imshow(final.T, origin="lower", aspect="auto", cmap="magma", vmin=0, vmax=1)
    ax.set_xticks(range(len(thetas)), [f"{t:g}" for t in thetas])
    ax.set_yticks(range(len(sl[x_dim])), [f"{v:g}" for v in sl[x_dim].values])
    ax.set_xlabel(r"$\theta$")
    ax.set_ylabel(r"$\alpha$" if x_dim == "alpha" else f"${x_dim}$")
    for (i, j), v in np.ndenumerate(final):
        if np.isfinite(v):
            ax.text(i, j, f"{v:.3f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
    fig.colorbar(im, ax=ax, label=r"mean final $|\rho|$")
    ax.set_title(f"final alignment after {spec['steps']} steps ({label})")
    p = out / "sweep-final-alignment.png"
    paths.append(style.save(fig, p))
    return [str(p) for p in paths]
