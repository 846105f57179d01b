"""Random models over the supported space: their law, their seeds and their region.

Model ``i`` of root seed ``S`` is drawn from ``default_rng(SeedSequence(S, spawn_key=(i, 0)))``
and its ``k``-th Monte Carlo stream from ``SeedSequence(S, spawn_key=(i, 1, k))``: model ``i`` is
the same whatever the number of models, the worker count or the order units finish in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....numerics import Problem
from ....theory import gradient_second_moment, validity

#: ``name: (low, high, law)`` of the drawn parameters (``R`` is ``max(1, round(alpha L))``)
RANGES = {
    "theta": (0.2, 3.0, "uniform"),
    "L": (300, 6000, "log-uniform, rounded"),
    "alpha": (0.02, 0.5, "uniform (R / L)"),
    "d": (3, 60, "uniform integer"),
    "beta": (0.3, 3.0, "uniform"),
    "sigma2": (0.5, 2.0, "uniform"),
    "step": (0.01, 0.5, "log-uniform: the constant step is eta = sqrt(step / max_rho E|P g|^2)"),
}
#: the prior families, drawn with equal probability
PRIORS = ("fixed", "rademacher", "rademacher(p=0.7)", "bernoulli(p=0.3)", "gaussian(mu=1, tau=0.5)",
          "discrete(values=[-1, 0, 2], probs=[0.2, 0.3, 0.5])")
BATCHES = (1, 2)
#: the beta split of the pass table
BETA_SPLIT = 1.5


@dataclass(frozen=True)
class DrawnModel:
    """One random model: the instance, its constant step, its region and its seeds.

    Attributes
    ----------
    index : int
        Position in the draw (its ``spawn_key`` is ``(index, ...)``).
    problem : Problem
    eta : float
        The constant step of the plateau (and ``eta_max`` of :func:`theory.validity`).
    region : dict
        ``theory.validity(...).as_dict()`` plus ``beta_high`` (``beta >= BETA_SPLIT``).
    seed : int
        The root seed of the draw.
    """

    index: int
    problem: Problem
    eta: float
    region: dict
    seed: int

    def stream(self, k: int) -> int:
        """The seed (63 bits) of this model's ``k``-th simulation."""
        state = np.random.SeedSequence(self.seed, spawn_key=(self.index, 1, k)).generate_state(1, np.uint64)
        return int(state[0] >> np.uint64(1))

    def as_dict(self) -> dict:
        return {"index": self.index, "problem": self.problem.as_dict(), "eta": self.eta, "region": self.region}


def _draw(rng: np.random.Generator) -> tuple[Problem, float]:
    lo, hi, _ = RANGES["L"]
    L = round(math.exp(rng.uniform(math.log(lo), math.log(hi))))
    alpha = rng.uniform(*RANGES["alpha"][:2])
    d_lo, d_hi, _ = RANGES["d"]
    problem = Problem(theta=rng.uniform(*RANGES["theta"][:2]), R=max(1, round(alpha * L)), L=L,
                      d=int(rng.integers(int(d_lo), int(d_hi) + 1)), beta=rng.uniform(*RANGES["beta"][:2]),
                      sigma2=rng.uniform(*RANGES["sigma2"][:2]), prior=PRIORS[int(rng.integers(len(PRIORS)))],
                      batch=BATCHES[int(rng.integers(len(BATCHES)))])
    lo, hi, _ = RANGES["step"]
    step = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    y = gradient_second_moment(problem.model, np.linspace(-1.0, 1.0, 81), problem.d, problem.L, problem.batch).total
    return problem, math.sqrt(step / float(np.max(y)))


def draw_model(seed: int, index: int) -> DrawnModel:
    """Model ``index`` of root seed ``seed`` (module docstring)."""
    problem, eta = _draw(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 0))))
    v = validity(problem.model, problem.d, problem.L, eta, problem.batch)
    region = {**v.as_dict(), "beta_high": bool(problem.beta >= BETA_SPLIT)}
    return DrawnModel(index, problem, eta, region, seed)


def draw_models(seed: int, n: int) -> list[DrawnModel]:
    """Models ``0 .. n - 1`` of root seed ``seed``."""
    return [draw_model(seed, i) for i in range(n)]
