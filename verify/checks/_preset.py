"""The run-size presets (``--preset quick | paper``): every budget, run count and grid
that depends on the preset, defined once. Checks read theirs from
:attr:`CheckContext.preset`; the suite and the studies read theirs from the same object.

Fields are grouped by their one consumer (the prefix names it).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.validate import choice


@dataclass(frozen=True)
class Preset:
    """One preset. ``larger`` is the next larger preset (``None`` for the largest): what a
    message recommends when a check is undecided within this one's budget."""

    name: str
    #: suite: random parameter points per prior of ``derivation.quadrature``
    quadrature_points: int
    #: ``ode.lyapunov``: starts on (-1, 1)
    lyapunov_starts: int
    #: ``sga.convergence`` / ``sga.filtering``: runs, token-step budgets (ordinary and planned),
    #: drag-moment samples of :func:`default_schedule`
    sga_runs: int
    sga_sim_budget: float
    sga_plan_budget: float
    sga_drag_samples: int
    #: ``sga.tracking``: runs, token-step budget, pilot increments, target signal-to-noise
    tracking_runs: int
    tracking_budget: float
    tracking_pilot: int
    tracking_snr: float
    #: ``finite_size.rate``: normals drawn; ``simulator.reduced_exact``: runs per simulator
    finite_budget: float
    reduced_exact_runs: int
    #: ``sga.effective_drift``: runs per case, steps of the weak-signal case (and whether its
    #: plateau is reached and tested)
    effective_runs: int
    effective_weak_steps: int
    effective_weak_plateau: bool
    #: ``sga.fluctuations`` / ``sga.hitting_time`` / ``sga.splitting``: runs, step cap, splitting runs
    diffusion_runs: int
    diffusion_max_steps: int
    diffusion_split_runs: int
    #: the dimension ``d`` of the paper's two built-in cases (``paper-weak``: theta = 0.25 and
    #: ``paper-bistable``: theta = 2, both R = 500, N = 10,000); the paper's weak case has d = 100
    weak_d: int
    bistable_d: int
    #: ``sigrec reproduce``: the ``(theta, R, N)`` configurations
    reproduce_configs: tuple
    #: ``sigrec sweep``: keyword arguments of ``make_spec`` (lists as tuples)
    sweep: tuple
    #: ``sigrec bench``: the numerics benchmark's smoke run; ``--executor``: steps and runs per cell
    bench_smoke: bool
    scaling_steps: int
    scaling_runs: int
    larger: Preset | None = None

    def larger_fits(self, budget: str, cost: float) -> bool:
        """True iff a larger preset exists and ``cost`` fits its field ``budget`` (what
        an undecided check's message recommends: ``--preset paper runs it``)."""
        return self.larger is not None and cost <= getattr(self.larger, budget)


PAPER = Preset(
    name="paper", quadrature_points=6, lyapunov_starts=41,
    # sga_plan_budget admits the planned run of the weak-signal case at d = 100 (~1.1e10 token-steps)
    sga_runs=20, sga_sim_budget=1.2e9, sga_plan_budget=1.5e10, sga_drag_samples=800,
    tracking_runs=32, tracking_budget=1.5e9, tracking_pilot=1600, tracking_snr=10.0,
    finite_budget=8.0e8, reduced_exact_runs=2000,
    # 40 runs resolve the weak case's plateau far below the 0.18 between the corrected plateau and the
    # plain ODE's that it tells apart
    effective_runs=40, effective_weak_steps=3000, effective_weak_plateau=True,
    # 100 runs put a coverage fraction within +-0.04 (1 SE): enough to reject a variance 1.5x too large
    diffusion_runs=100, diffusion_max_steps=12_000, diffusion_split_runs=300,
    weak_d=100, bistable_d=3,
    reproduce_configs=tuple((t, 500, n) for t in (0.25, 0.5, 1.0, 2.0) for n in (1_000, 2_500, 5_000, 10_000)),
    sweep=(("theta", (0.25, 0.5, 1.0, 2.0)), ("N", (1_000, 2_500, 5_000, 10_000)), ("d", (3, 10)), ("R", 500),
           ("runs", 30), ("steps", 3000), ("eta0", 45.0), ("k0", 250.0), ("power", 1.0)),
    bench_smoke=False, scaling_steps=1000, scaling_runs=16,
)

#: The default preset decides every claim on the paper's own cases (theta 0.25 and 2, R = 500,
#: N = 10,000) at d = 2, where the exact reduced chain draws 2L normals a step (3L + 2 for d >= 3)
#: and the planner's decisive recovery runs are shortest (each with the runs its verdict needs,
#: ``numerics.decisive_runs``; ``sga_runs`` is the most a plan may use); ``sga_plan_budget`` admits
#: both plans. ``sga.tracking`` at d = 2: its steps are capped by ``|F'| eta <= 0.05``, so only runs
#: add power (32 runs resolve the 1/L exponent); the absolute bound D/4 stays untested there (noise
#: alone exceeds it below snr ~ 7, the sup over seven start times).
QUICK = Preset(
    name="quick", quadrature_points=2, lyapunov_starts=7,
    sga_runs=16, sga_sim_budget=4.0e7, sga_plan_budget=6.0e8, sga_drag_samples=200,
    tracking_runs=32, tracking_budget=1.5e8, tracking_pilot=400, tracking_snr=6.0,
    finite_budget=4.0e7, reduced_exact_runs=400,
    effective_runs=30, effective_weak_steps=800, effective_weak_plateau=False,
    diffusion_runs=100, diffusion_max_steps=4000, diffusion_split_runs=400,
    weak_d=2, bistable_d=2,
    reproduce_configs=((0.25, 500, 10_000),),
    sweep=(("theta", (0.5, 2.0)), ("N", (200, 2000)), ("d", (3,)), ("R", 50), ("runs", 24), ("steps", 800),
           ("eta0", 45.0), ("k0", 250.0), ("power", 1.0)),
    bench_smoke=True, scaling_steps=150, scaling_runs=4,
    larger=PAPER,
)

#: the presets by name, smallest first
PRESETS = {"quick": QUICK, "paper": PAPER}


def preset_named(name: str) -> Preset:
    """The :class:`Preset` called ``name`` (``ValueError`` naming ``preset`` otherwise)."""
    choice("preset", name, tuple(PRESETS))
    return PRESETS[name]
