"""What a sweep computes (:class:`SweepSpec`), its validation and its presets."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from itertools import product
from typing import Any

from ....core.validate import integer, real
from ....numerics import Problem, Schedule
from ....theory import canonical_prior
from ...checks import PRESETS as _BY_NAME
from ...checks import preset_named
from .._reproduce import PROTOCOL

#: grid parameters, in dimension order (``N`` and ``alpha`` are exclusive)
PARAMETERS = ("theta", "N", "alpha", "d", "beta", "sigma2", "prior")
PRESETS = tuple(_BY_NAME)


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
    # the reproduction's protocol (the paper's 30 runs, its schedule and seed)
    runs: int = PROTOCOL.runs
    steps: int = PROTOCOL.steps
    eta0: float = PROTOCOL.eta0
    k0: float = PROTOCOL.k0
    power: float = PROTOCOL.power
    seed: int = PROTOCOL.seed

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
        p: dict = {"theta": None, "d": 3, "beta": 1.0, "sigma2": 1.0, "prior": "fixed"}  # the grid's values vary
        p.update({name: values[i] for (name, values), i in zip(self.grid, index, strict=True)})
        if "alpha" in p:
            p["R"], p["L"] = round(p.pop("alpha") * self.L), self.L
        else:
            p["R"], p["L"] = self.R, self.R + int(p.pop("N", 10_000))
        return p

    def problem(self, index) -> Problem:
        p = self.parameters(index)
        return Problem(theta=p["theta"], R=p["R"], L=p["L"], d=p["d"], beta=p["beta"], sigma2=p["sigma2"],
                       prior=p["prior"])

    def label(self, index) -> str:
        """The cell's parameter values, as a person reads them (``theta=0.5, N=200, d=3``)."""
        return ", ".join(self.identity(index)[1:])

    def identity(self, index) -> tuple:
        """The cell's random-stream identity: its parameter values, by name."""
        return ("sweep", *(f"{name}={values[i]!r}" for (name, values), i in zip(self.grid, index, strict=True)))


@dataclass(frozen=True)
class SweepValues:
    """The keywords of :func:`make_spec`.

    Attributes
    ----------
    theta, N, alpha, d, beta, sigma2, prior : list or None
        The grid's lists of values (:func:`make_spec`).
    R, L, runs, steps, eta0, k0, power, seed : int or float
        The protocol every cell shares.
    """

    theta: Any
    N: Any = None
    alpha: Any = None
    d: Any = None
    beta: Any = None
    sigma2: Any = None
    prior: Any = None
    R: Any = 500
    L: Any = 10_500
    runs: Any = 30
    steps: Any = 3000
    eta0: Any = 45.0
    k0: Any = 250.0
    power: Any = 1.0
    seed: Any = 2026


def make_spec(**given: Any) -> SweepSpec:
    """A validated :class:`SweepSpec` of the keywords of :class:`SweepValues`; each grid parameter
    is a list of values.

    ``theta`` is required; give ``N`` (with ``R``) or ``alpha`` (with ``L``), not both
    (default ``N = [10000]``). ``d`` defaults to ``[3]``; ``beta``, ``sigma2`` and
    ``prior`` are dimensions only when given (else 1, 1 and fixed).
    """
    sv = SweepValues(**given)
    if sv.N is not None and sv.alpha is not None:
        raise ValueError("give `N` (with `R`) or `alpha` (with `L`), not both")
    R = integer("R", sv.R, 1)
    L = integer("L", sv.L, 2)
    lists = {"theta": sv.theta, "N": sv.N if sv.alpha is None else None, "alpha": sv.alpha,
             "d": sv.d if sv.d is not None else [3], "beta": sv.beta, "sigma2": sv.sigma2, "prior": sv.prior}
    if lists["N"] is None and sv.alpha is None:
        lists["N"] = [10_000]
    checks: dict[str, Callable[[Any], Any]] = {
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
        checked = tuple(checks[name](v) for v in values)
        if not checked:
            raise ValueError(f"`{name}` needs at least one value")
        if len(set(checked)) != len(checked):
            raise ValueError(f"`{name}` has repeated values: {list(checked)}")
        if name == "alpha" and min(alphas := [float(a) for a in checked]) * L < 0.5:
            raise ValueError(f"`alpha` * `L` must give R >= 1 informative token, got alpha = {min(alphas)}, L = {L}")
        grid.append((name, checked))
    spec = SweepSpec(tuple(grid), R=R, L=L, runs=integer("runs", sv.runs, 1), steps=integer("steps", sv.steps, 1),
                     eta0=real("eta0", sv.eta0, lower=0.0, strict=True), k0=real("k0", sv.k0, lower=0.0, strict=True),
                     power=real("power", sv.power, lower=0.0), seed=integer("seed", sv.seed, 0))
    _ = spec.schedule  # building the schedule validates it
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
    return {k: list(v) if isinstance(v, tuple) else v for k, v in preset_named(name).sweep}


def spec_from(preset_name: str | None = None, **given) -> SweepSpec:
    """:func:`make_spec` of a preset's values (``preset_name``, optional) overridden by
    ``given`` (keyword arguments of :func:`make_spec`; ``None`` means not given). Giving
    ``N`` drops the preset's ``alpha`` and giving ``alpha`` its ``N``."""
    kwargs = preset(preset_name) if preset_name else {}
    if given.get("N") is not None:
        kwargs.pop("alpha", None)
    if given.get("alpha") is not None:
        kwargs.pop("N", None)
    kwargs.update({k: v for k, v in given.items() if v is not None})
    if "theta" not in kwargs:
        raise ValueError("`theta` is required: give --theta VALUES or --preset quick|paper")
    return make_spec(**kwargs)

