"""What the sweep figures draw, read from a (finished or partial) store: one
``(theta, N or alpha)`` slice and the certified boundary ``alpha_c(theta)``. The
drawing itself is :func:`sigrec.verify.render.plot_sweep`."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ....theory import critical_alpha
from ._store import load

#: a cell counts as settled in the figures when 90% of its runs end with |rho_K| >= this
SETTLED = 0.9


@dataclass(frozen=True)
class SweepFigure:
    """The numbers of the sweep figures, each array of shape ``(theta, x)``.

    Attributes
    ----------
    x_dim : str
        ``"N"`` or ``"alpha"``: the second swept dimension.
    thetas, x_values : ndarray
        The slice's coordinates.
    alphas : ndarray
        ``R / L`` of each cell.
    done, settled : ndarray of bool
        Finished cells; finished cells whose 10% quantile of ``|rho_K|`` is at least
        :data:`SETTLED`.
    sim, pred, lo, hi : ndarray
        Simulated and predicted ``-xi`` fractions (NaN where not done) and the
        binomial interval of the simulated one.
    final : ndarray
        Mean final ``|rho|`` (NaN where not done).
    label : str
        The fixed parameters of the slice, as TeX.
    steps : int
    settled_level : float
    boundary : tuple of (ndarray, ndarray) or None
        ``(theta, alpha_c(theta))`` for a fixed prior, else ``None``.
    """

    x_dim: str
    thetas: np.ndarray
    x_values: np.ndarray
    alphas: np.ndarray
    done: np.ndarray
    settled: np.ndarray
    sim: np.ndarray
    pred: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    final: np.ndarray
    label: str
    steps: int
    settled_level: float
    boundary: tuple | None


def figure_data(store) -> SweepFigure:
    """The :class:`SweepFigure` of ``store``: the first value of every dimension other than
    ``theta`` and ``N``/``alpha``."""
    ds = load(store, dask=False).load()
    spec = json.loads(ds.attrs["spec"])
    rest = {k: 0 for k in ds["done"].dims if k not in ("theta", "N", "alpha")}
    sl = ds.isel(rest)
    x_dim = "N" if "N" in sl.dims else "alpha"

    def grid(name):
        return sl[name].transpose("theta", x_dim).values

    thetas = sl["theta"].values
    done = grid("done").astype(bool)
    fixed = {k: (sl[k].values.item() if k in sl.coords else None) for k in ("beta", "sigma2", "prior", "d")}
    beta = fixed["beta"] if fixed["beta"] is not None else 1.0
    sigma2 = fixed["sigma2"] if fixed["sigma2"] is not None else 1.0
    names = {"beta": r"\beta", "sigma2": r"\sigma^2", "d": "d"}
    label = ", ".join([f"${names[k]}={v}$" for k, v in fixed.items() if v is not None and k in names]
                      + ([f"{fixed['prior']} prior"] if fixed["prior"] is not None else []))
    boundary = None
    if (fixed["prior"] or "fixed") == "fixed":
        fine = np.linspace(max(thetas.min(), 1e-3), thetas.max(), 200)
        boundary = (fine, np.array([np.nan if (c := critical_alpha(t, beta, sigma2)) is None else c for t in fine]))
    return SweepFigure(
        x_dim=x_dim, thetas=thetas, x_values=sl[x_dim].values, alphas=grid("alpha_effective"), done=done,
        # a cell has settled when 90% of its runs end within 0.1 of a pole; elsewhere a run
        # below 0 may still be on its way to +xi and the comparison is not yet meaningful
        settled=done & (grid("final_abs_q10") >= SETTLED),
        sim=np.where(done, grid("minus_fraction"), np.nan),
        pred=np.where(done, grid("predicted_minus_fraction"), np.nan),
        lo=grid("minus_fraction_lo"), hi=grid("minus_fraction_hi"),
        final=np.where(done, grid("mean_final_abs"), np.nan),
        label=label, steps=spec["steps"], settled_level=SETTLED, boundary=boundary)
