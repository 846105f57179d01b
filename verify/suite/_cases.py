"""The suite's built-in cases and presets (docs/design.md sections 3 and 5)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from ..checks import PAPER, QUICK, REGISTRY, Case, Preset, preset_named, rate_plan
from ..checks import PRESETS as _BY_NAME

#: the preset names (``--preset`` choices)
PRESETS = tuple(_BY_NAME)

#: stochastic checks that a bistable or symmetric case adds to the field checks
_BASINS = ("field.*", "ode.lyapunov", "sga.convergence", "sga.filtering")
#: the diffusion checks (docs/design.md section 1.1); splitting only where the model is bistable
_DIFFUSION = ("sga.fluctuations", "sga.hitting_time")
#: every check except the diffusion ones (selected per case in the paper preset, see _with_diffusion)
_ALL_BUT_DIFFUSION = tuple(k for k, c in REGISTRY.items()
                           if c.model == "scalar" and k not in (*_DIFFUSION, "sga.splitting"))


#: checks a preset's built-in case leaves out at a ``d`` below the paper's, with why (see :func:`left_out`)
_LEFT_OUT = {"paper-weak": ("finite_size.rate",)}


def _cases(preset: Preset) -> tuple:
    """The paper's models (docs/design.md section 5) at the preset's dimensions (``Preset.weak_d``,
    ``Preset.bistable_d``) and the regimes around them."""
    small = preset.weak_d != PAPER.weak_d
    cases = [
        Case.from_counts("paper-weak", 0.25, 500, 10_000, preset.weak_d,
                         "the paper's weak-signal setting: theta = 0.25, R = 500, N = 10,000"
                         + ("" if not small else
                            f" (at d = {preset.weak_d}; the paper's d = {PAPER.weak_d} is --preset paper)"),
                         checks=tuple(c for c in _ALL_BUT_DIFFUSION if not (small and c in _LEFT_OUT["paper-weak"]))),
        Case.from_counts("paper-bistable", 2.0, 500, 10_000, preset.bistable_d,
                         "the paper's theta = 2 with R = 500, N = 10,000: beta*theta > 1 and alpha < alpha_c, "
                         f"so -xi attracts too (d = {preset.bistable_d} so that uniform starts reach both basins)",
                         checks=_BASINS),
        Case.from_counts("rademacher", 1.0, 500, 4_500, 5,
                         "symmetric signs: rho = 0 is an unstable equilibrium, both poles attract",
                         prior="rademacher", checks=_BASINS),
        Case.from_counts("finite-size", 3.0, 200, 800, 3,
                         "a strong signal at small L where the O(1/L) bias of the finite-size gradient is resolved "
                         "(on the paper's model it is below the Monte Carlo error)",
                         checks=("field.*", "ode.lyapunov", "finite_size.rate")),
        Case("sparse-bistable", 2.0, 0.0, description="sparse regime alpha -> 0 with beta*theta = 2 > 1: "
             "interior equilibrium at rho* = -1/2"),
        Case("sparse-monotone", 0.5, 0.0, description="sparse regime with beta*theta = 0.5 <= 1: monotone"),
    ]
    return tuple(cases)


#: the default (quick) preset's cases: the paper's two models at d = 2 (``QUICK.weak_d``)
CASES = _cases(QUICK)


def left_out(config: SuiteConfig) -> list[dict]:
    """The checks a preset's built-in case leaves out, with why: ``{"check", "case", "reason"}``
    (listed with the checks that do not apply; nothing for the paper preset or your own cases).

    ``finite_size.rate`` on ``paper-weak`` below the paper's ``d``: there the model's ``O(1/L)``
    bias is far smaller (``C`` from the leading-order theory, :func:`verify.checks.rate_plan`), and
    resolving its rate costs more normals than the whole default run; the reason gives both
    ``C`` and the cost, and where the rate is decided instead.
    """
    out = []
    for case in config.cases:
        if case.name not in _LEFT_OUT or case not in CASES or case.d == PAPER.weak_d:
            continue
        for check in _LEFT_OUT[case.name]:
            if check in case.checks:
                continue
            here, paper = rate_plan(case.problem), rate_plan(replace(case, d=PAPER.weak_d).problem)
            rho, Ls = here.rho, here.sizes
            p, q = here.plan[rho], paper.plan[paper.rho]
            out.append({"check": check, "case": case.name, "reason": (
                f"is left out at d = {case.d}: there the model's O(1/L) bias is C = {p['C_predicted']:.2g} "
                f"(at rho = {rho}; leading-order theory), so resolving its rate on L = {Ls[0]}..{Ls[-1]} needs "
                f"~{p['normals_to_resolve_3']:.1g} normals by the plain-mean plan, against "
                f"{config.preset.finite_budget:.1g} in this preset; the 1/L rate is decided here on the finite-size "
                f"case, and on this model at the paper's d = {PAPER.weak_d} (C = {q['C_predicted']:.2g}) by "
                f"--preset paper")})
    return out


def _with_diffusion(cases: tuple) -> tuple:
    """The paper preset's cases: its built-in cases with the diffusion checks selected on the paper's
    weak-signal model under the reproduction's protocol (``d = 10``, ``eta_k = 45/(k + 250)``) and
    on the bistable ``theta = 2`` model. The quick preset leaves them out: each simulates the exact
    chain at ``L = 10,500`` for thousands of steps (several CPU minutes)."""
    out = []
    for c in cases:
        out.append(replace(c, checks=(*c.checks, *_DIFFUSION, "sga.splitting")) if c.name == "paper-bistable" else c)
        if c.name == "paper-weak":
            out.append(Case.from_counts(
                "paper-weak-reproduction", 0.25, 500, 10_000, 10,
                "the weak-signal model under the reproduction's protocol (d = 10, eta_k = 45/(k + 250)): "
                "fluctuations and first passage of the diffusion approximation", checks=_DIFFUSION))
    return tuple(out)


#: the paper preset's cases: the paper's dimensions (d = 100 for paper-weak) plus the diffusion checks
PAPER_CASES = _with_diffusion(_cases(PAPER))
#: each preset's built-in cases
_PRESET_CASES = {"quick": CASES, "paper": PAPER_CASES}


@dataclass(frozen=True)
class SuiteConfig:
    """Everything a suite run depends on (recorded in the report).

    ``checks`` selects checks for the whole run (ids or families such as ``"field.*"``);
    each case narrows it further with its own ``checks``.

    Attributes
    ----------
    preset : Preset
        The budgets, run counts and grids (``--preset``; recorded by name); default quick.
    seed : int
        Root seed of the run; each check draws from a seed derived from it and its own identity.
    quadrature_points : int
        Random parameter points per prior at which ``derivation.quadrature`` compares the symbolic
        lemmas with quadrature.
    quadrature_dps : int
        Decimal digits of that mpmath quadrature.
    cases : tuple of Case
        The cases to check (default the quick preset's built-in cases).
    checks : tuple of str
        Check ids or families selected for the whole run; ``("*",)`` is every check.
    budget : float or None
        Token-steps a planned, decisive simulation may cost; ``None``: the preset's budget.
    method : {"auto", "expansion", "measured"}
        Which law feeds the diffusion checks (``CheckContext.method``): ``"auto"`` the ``O(eta)``
        expansion inside its validity and the exact chain's measured one-step law outside.
    drift_se : float or None
        The measured law's requested drift error; ``None``: its default.
    sequential : bool
        Whether checks that count or average runs stop once their verdict is decided
        (``CheckContext.sequential``; default) or run the preset's full counts.
    """

    preset: Preset = QUICK
    seed: int = 20260606
    quadrature_points: int = 2
    quadrature_dps: int = 50
    cases: tuple = CASES
    checks: tuple = ("*",)
    budget: float | None = None
    method: str = "auto"
    drift_se: float | None = None
    sequential: bool = True

    @classmethod
    def preset_config(cls, preset: str) -> SuiteConfig:
        """The configuration of the preset called ``preset`` (its cases and quadrature points)."""
        chosen = preset_named(preset)
        return cls(preset=chosen, quadrature_points=chosen.quadrature_points, cases=_PRESET_CASES[chosen.name])

    def with_seed(self, seed: int) -> SuiteConfig:
        if seed < 0:
            raise ValueError(f"`seed` must be >= 0, got {seed!r}")
        return replace(self, seed=seed)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["preset"] = self.preset.name
        d["cases"] = [asdict(c) for c in self.cases]
        d["checks"] = list(self.checks)
        return d
