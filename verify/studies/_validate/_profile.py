"""Budgets and tolerances of ``sigrec validate``.

A comparison passes iff ``|theory - MC| <= SIGMAS * SE + tol * |theory|`` (``SE`` the
Monte Carlo standard error, ``tol`` of :data:`TOLERANCES`). The relative tolerances are
what the finite-step expansion is claimed to give inside its stated validity
(``theory.validity``: measured errors of ``1 - rho`` are about ``10 A2 / L <= 5%``);
outside it failures are expected and are the finding.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

#: standard errors allowed on top of the relative tolerance
SIGMAS = 4.0

#: ``quantity: (relative tolerance, what is compared)``, in the order of the table
TOLERANCES = {
    "mean": (0.05, "E X = F + F_1/L (effective_drift field + finite_L) vs one_step_moments mean"),
    "variance": (0.05, "Var X (alignment_variance) vs one_step_moments variance"),
    "second_moment": (0.05, "E|P g|^2 (gradient_second_moment total) vs one step of eta 1e-7 and 1 on the same draws"),
    "plateau": (0.10, "1 - rho_eta (stationary_alignment) vs 1 - time average of simulate over a late window"),
    "trajectory": (0.10, "1 - E rho_k (predict, corrected ODE) vs 1 - mean of simulate runs, decaying step, at "
                   "a quarter, half and all of the run"),
    "band": (0.10, "1 - q10 and 1 - q90 of rho_k (band, diffusion) vs the same quantiles of the trajectory's runs, "
             "at half and all of the run"),
    "passage": (0.10, "median first step with |rho| >= target (complexity, diffusion) vs the median over the "
                "trajectory's runs (target: 90% of the way from rho_0 to the predicted mean at half the run)"),
    "splitting": (0.10, "P(+xi) from rho* + w (splitting_probability, scale function) vs the fraction of constant-step "
                  "runs reaching (rho* + 1)/2 before (rho* - 1)/2 (bistable models)"),
}
QUANTITIES = tuple(TOLERANCES)
#: the routes a prediction can take (``numerics.route_tables``); the one-step quantities are the
#: expansion's formulas and have no measured counterpart
ROUTES = ("expansion", "measured")
#: the quantities each route predicts
ROUTE_QUANTITIES = {"expansion": QUANTITIES,
                    "measured": ("plateau", "trajectory", "band", "passage", "splitting")}


@dataclass(frozen=True)
class Profile:
    """Monte Carlo budgets of one validation run.

    Attributes
    ----------
    name : str
    models : int
        Default number of random models.
    one_step_runs : int
        Samples per alignment of the one-step quantities (mean, variance, ``E|P g|^2``).
    moment_rhos, drag_rhos : tuple of float
        Alignments of the mean and variance, and of ``E|P g|^2``.
    moment_eta : float
        The tiny step of ``one_step_moments`` (its mean's bias is ``-eta rho E|P g|^2 / 2``).
    plateau_runs : int
        Runs of the constant-step chain started at the predicted plateau.
    burn, window : float
        Relaxation times ``1 / (eta |F_eta'|)`` (in steps) discarded, then averaged over.
    max_steps : int
        Cap on the plateau run's steps (burn-in shortened first).
    max_draws : float
        Cap on ``runs x steps x batch x 4 L`` normals of the plateau run and of the
        trajectory (steps shortened).
    trajectory_steps : int
        Steps of the decaying-schedule run ``eta_k = eta (k0 / (k + k0))^power`` (``k0 = 20``,
        ``power = 0.6``, ``eta`` the model's constant step) from ``trajectory_rho0``.
    trajectory_runs : int
        Runs of that decaying-schedule chain (the trajectory, the band and the first passage).
    prediction_runs : int
        Diffusion paths of the band and of the first-passage prediction.
    split_runs, split_steps : int
        Runs of the splitting chain, and the most steps it may take (``8`` escape times
        ``1 / (eta F'(rho*))``; the step is raised from the model's ``eta`` until they fit).
    routes : tuple of str
        The routes whose predictions of the plateau, trajectory, band, passage and splitting are
        judged against the same chains (:data:`ROUTES`): ``expansion`` (the derived ``O(eta)``
        law) and ``measured`` (the exact chain's one-step law, ``numerics.route_tables``).
    law_drift_se : float or None
        The measured law's requested drift error (``None``: its default, 0.02 of the drift's scale).
    """

    name: str
    models: int
    one_step_runs: int
    moment_rhos: tuple = (0.3, 0.6, 0.9)
    drag_rhos: tuple = (0.6, 0.9)
    moment_eta: float = 1e-6
    plateau_runs: int = 16
    burn: float = 4.0
    window: float = 8.0
    max_steps: int = 3000
    max_draws: float = 2e8
    trajectory_steps: int = 1500
    trajectory_rho0: float = 0.3
    trajectory_runs: int = 48
    prediction_runs: int = 2000
    split_runs: int = 300
    split_steps: int = 400
    routes: tuple = ("expansion", "measured")
    law_drift_se: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


PROFILES = {
    "small": Profile("small", models=3, one_step_runs=400, plateau_runs=6, window=4.0, max_steps=600,
                     max_draws=2e7, trajectory_steps=200, trajectory_runs=16, prediction_runs=500, split_runs=60,
                     split_steps=200, law_drift_se=0.05),
    "long": Profile("long", models=200, one_step_runs=3000),
    # both routes on 200 models at a quarter of the long profile's chain budget (the measured law
    # at its default error): the route comparison in about half an hour on 2 cores
    "routes": Profile("routes", models=200, one_step_runs=1000, plateau_runs=12, max_draws=5e7, trajectory_steps=800,
                      trajectory_runs=32, prediction_runs=1000, split_runs=200),
}
