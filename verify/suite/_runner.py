"""The verification suite: presets, the cases they run on, the runner."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from ...theory import Model

from ..checks._field import check_monotone, check_phase_boundary, check_stability, plot_field
from ..checks._effective import check_effective_drift
from ..checks._finite import check_finite_size, check_reduced_exact
from ..checks._sga import (
    check_convergence,
    check_filtering,
    check_lyapunov,
    check_robbins_monro,
    check_tracking,
)
from ..checks._theory import check_endpoints, check_quadrature
from ..checks._record import CheckRecord

PRESETS = ("quick", "paper")


@dataclass(frozen=True)
class Case:
    """One model the suite checks.

    ``R, L, d`` give the finite instance that is simulated (``None`` for a
    theory-only case such as the sparse limit, where ``alpha = 0``).
    """

    name: str
    theta: float
    alpha: float
    beta: float = 1.0
    sigma2: float = 1.0
    prior: str = "fixed"
    R: int | None = None
    L: int | None = None
    d: int | None = None
    description: str = ""
    #: which stochastic checks run on this case: "all", "basins" (convergence,
    #: filtering), "finite" (the finite-size rate) or "ode" (Lyapunov only;
    #: theory-only cases)
    sim_checks: str = "basins"

    @property
    def model(self) -> Model:
        return Model(self.theta, self.alpha, self.beta, self.sigma2, self.prior)

    @property
    def problem(self):
        """The finite instance; for a theory-only sparse case, ``R = 0`` of ``L = 1``
        (its limit model is the sparse one, used by the ODE checks only)."""
        from ...numerics import Problem

        if self.R is None:
            return Problem(theta=self.theta, R=0, L=1, d=3, beta=self.beta, sigma2=self.sigma2, prior=self.prior)
        return Problem(theta=self.theta, R=self.R, L=self.L, d=self.d, beta=self.beta,
                       sigma2=self.sigma2, prior=self.prior)


def _counts(name, theta, R, N, d, description, **kw) -> Case:
    return Case(name, theta, R / (R + N), R=R, L=R + N, d=d, description=description, **kw)


#: the models of DESIGN.md section 5 and issue 4
CASES = (
    _counts("paper-weak", 0.25, 500, 10_000, 100,
            "the paper's weak-signal setting: theta = 0.25, R = 500, N = 10,000", sim_checks="all"),
    _counts("paper-bistable", 2.0, 500, 10_000, 3,
            "the paper's theta = 2 with R = 500, N = 10,000: beta*theta > 1 and alpha < alpha_c, "
            "so -xi attracts too (d = 3 so that uniform starts reach both basins)"),
    _counts("rademacher", 1.0, 500, 4_500, 5,
            "symmetric signs: rho = 0 is an unstable equilibrium, both poles attract", prior="rademacher"),
    _counts("finite-size", 3.0, 200, 800, 3,
            "a strong signal at small L where the O(1/L) bias of the finite-size gradient is resolved "
            "(on the paper's model it is below the Monte Carlo error)", sim_checks="finite"),
    Case("sparse-bistable", 2.0, 0.0, description="sparse regime alpha -> 0 with beta*theta = 2 > 1: "
         "interior equilibrium at rho* = -1/2", sim_checks="ode"),
    Case("sparse-monotone", 0.5, 0.0, description="sparse regime with beta*theta = 0.5 <= 1: monotone",
         sim_checks="ode"),
)


@dataclass(frozen=True)
class SuiteConfig:
    """Everything a suite run depends on (recorded in the report)."""

    preset: str = "quick"
    seed: int = 20260606
    quadrature_points: int = 2
    quadrature_dps: int = 50
    cases: tuple = CASES

    @classmethod
    def preset_config(cls, preset: str) -> "SuiteConfig":
        if preset not in PRESETS:
            raise ValueError(f"`preset` must be one of {PRESETS}, got {preset!r}")
        if preset == "quick":
            return cls(preset="quick")
        return cls(preset="paper", quadrature_points=6)

    def with_seed(self, seed: int) -> "SuiteConfig":
        if seed < 0:
            raise ValueError(f"`seed` must be >= 0, got {seed!r}")
        return replace(self, seed=seed)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["cases"] = [asdict(c) for c in self.cases]
        return d


@dataclass(frozen=True)
class SuiteResult:
    config: SuiteConfig
    records: tuple[CheckRecord, ...]
    seconds: float
    summary: dict = field(default_factory=dict)
    figures: tuple = ()

    @property
    def ok(self) -> bool:
        """True iff every consistency check passed."""
        return not any(r.failed for r in self.records)


def _with_case(records, case: Case):
    out = []
    for r in records:
        details = dict(r.details)
        details.setdefault("case", case.name)
        out.append(replace(r, details=details))
    return out


def _field_checks(case: Case, fig_dir: Path | None):
    model = case.model
    mono, cert = check_monotone(model)
    records = [mono, check_stability(model, cert), check_phase_boundary(model, cert)]
    if fig_dir is not None:
        path = fig_dir / f"field-{case.name}.png"
        plot_field(model, cert, path, title=f"{case.name}: {cert.status}"
                   f" ({'certified' if cert.certified else 'not certified'})")
        records[0] = replace(records[0], details={**records[0].details, "figures": [str(path)]})
    return _with_case(records, case)


def _sim_steps(case: Case, config: SuiteConfig, fig_dir: Path | None, index: int):
    quick = config.preset == "quick"
    kw = dict(seed=config.seed + 1000 * index, quick=quick, figure_dir=fig_dir)
    fns = [check_lyapunov]
    if case.sim_checks in ("basins", "all"):
        fns += [check_convergence, check_filtering]
    if case.sim_checks == "all":
        fns += [check_robbins_monro, check_tracking, check_finite_size, check_reduced_exact]
    if case.sim_checks == "finite":
        fns += [check_finite_size]
    return [(f"{fn.__name__.removeprefix('check_')}: {case.name}",
             lambda fn=fn: _with_case(fn(case.problem, **kw), case)) for fn in fns]


def _steps(config: SuiteConfig, fig_dir: Path | None):
    """(label, callable -> list of records) in run order."""
    steps = [
        ("derivation.quadrature",
         lambda: [check_quadrature(config.quadrature_points, config.quadrature_dps, config.seed)]),
        ("field.endpoints", lambda: [check_endpoints()]),
    ]
    for i, case in enumerate(config.cases):
        steps.append((f"field checks: {case.name}", lambda c=case: _field_checks(c, fig_dir)))
        steps.extend(_sim_steps(case, config, fig_dir, i))
    steps.append(("sga.effective_drift", lambda: _effective(config, fig_dir)))
    return steps


def _effective(config: SuiteConfig, fig_dir: Path | None):
    """``sga.effective_drift`` runs on its own cases (the issue's measured lag, a
    strong-signal and a decaying-schedule case), not on :data:`CASES`."""
    fig = None if fig_dir is None else fig_dir / "effective_drift.png"
    recs = check_effective_drift(config.seed, quick=config.preset == "quick", figure=fig)
    if fig is not None:
        recs = [replace(r, details={**r.details, "figures": [str(fig)]}) for r in recs]
    return recs


def summarize(records) -> dict:
    consistency = [r for r in records if r.kind == "consistency"]
    conditions = [r for r in records if r.kind == "condition"]
    return {
        "checks": len(records),
        "consistency_passed": sum(r.status == "pass" for r in consistency),
        "consistency_failed": sum(r.status != "pass" for r in consistency),
        "conditions_holding": sum(r.status == "holds" for r in conditions),
        "conditions_failing": sum(r.status == "fails" for r in conditions),
        "conditions_undecided": sum(r.status == "undecided" for r in conditions),
        "certified": sum(r.certified for r in records),
        "ok": not any(r.failed for r in records),
    }


def run_suite(config: SuiteConfig, progress=None, figure_dir: Path | None = None) -> SuiteResult:
    """Run every check of ``config`` in order.

    ``progress``, if given, is called as ``progress(label, done, total)`` before
    each step and once at the end. Figures go to ``figure_dir`` when given.
    """
    t0 = time.perf_counter()
    if figure_dir is not None:
        figure_dir.mkdir(parents=True, exist_ok=True)
    steps = _steps(config, figure_dir)
    records: list[CheckRecord] = []
    for i, (label, fn) in enumerate(steps):
        if progress:
            progress(label, i, len(steps))
        records.extend(fn())
    if progress:
        progress("done", len(steps), len(steps))
    figures = tuple(f for r in records for f in r.details.get("figures", []))
    return SuiteResult(config, tuple(records), time.perf_counter() - t0, summarize(records), figures)
