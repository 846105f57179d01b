"""One grid cell of a sweep: a pure unit of work (simulate, compare with the limit theory)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....numerics import predict, simulate
from ...checks import derive_seed
from .._against import against_theory
from ._spec import SweepSpec

#: landscape codes stored in ``landscape`` (CF ``flag_values`` / ``flag_meanings``)
LANDSCAPES = ("monotone", "bistable", "undecided", "degenerate")
#: alignment counted as recovered
RECOVERED = 0.99
#: quantiles of ``|final rho|`` stored per cell
QUANTILES = (0.1, 0.5, 0.9)
#: Clopper-Pearson level of the binomial interval on the simulated -xi fraction
CONFIDENCE = 0.95


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
    pred = predict(spec.problem(index), spec.schedule, steps=spec.steps, rho0=start, stride=spec.steps,
                   engine="scalar")
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
