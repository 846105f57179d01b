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

Modules, one concept each: ``_tables`` (the tabulated drift and variance, the drag
plateau), ``_paths`` (Euler–Maruyama on the step grid), ``_band``, ``_passage`` (the
first-passage law, shared by ``_complexity``), ``_complexity``, ``_diagnosis`` (why
``_complexity`` gives no number), ``_search`` (schedule search: a grid, then Nelder–Mead on common
random numbers), ``_scaling``, ``_splitting`` (scale function), ``_moments`` (one step of the exact
chain), ``_measured`` (the exact chain's one-step drift and variance on a grid, at the step itself),
``_route`` (which of the two laws feeds the diffusion, and why).
"""

from ._band import Band, band
from ._complexity import Complexity, complexity
from ._law import MeasuredLaw, Plateau
from ._measured import measured_law
from ._moments import OneStepMoments, one_step_moments
from ._passage import FirstPassage, censored_quantile, exits, first_hits, first_passage, plain_ode_step
from ._paths import DiffusionRun, simulate_diffusion
from ._route import METHODS, PathPrediction, RoutedTables, predict_paths, route_tables
from ._scaling import Scaling, scaling_exponents
from ._search import ScheduleSearch, SearchBudget, optimize_schedule
from ._splitting import SPLIT_GROWTH, Splitting, effective_step, splitting_probability
from ._tables import GRID, DiffusionTables, StableZeros, diffusion_tables, drift_zeros, stable_zeros

__all__ = [
    "GRID",
    "METHODS",
    "Band",
    "Complexity",
    "DiffusionRun",
    "DiffusionTables",
    "FirstPassage",
    "MeasuredLaw",
    "OneStepMoments",
    "Plateau",
    "PathPrediction",
    "RoutedTables",
    "Scaling",
    "SPLIT_GROWTH",
    "ScheduleSearch",
    "SearchBudget",
    "Splitting",
    "StableZeros",
    "band",
    "censored_quantile",
    "complexity",
    "diffusion_tables",
    "drift_zeros",
    "effective_step",
    "exits",
    "first_hits",
    "first_passage",
    "measured_law",
    "route_tables",
    "predict_paths",
    "one_step_moments",
    "optimize_schedule",
    "plain_ode_step",
    "scaling_exponents",
    "simulate_diffusion",
    "splitting_probability",
    "stable_zeros",
]
