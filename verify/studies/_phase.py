"""The certified phase diagrams: monotone vs bistable over ``(theta, alpha)`` for one signal direction,
and the mixture/specialisation transition ``theta_c(alpha)`` of ``onehot(k)``."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...numerics import current_executor
from ...theory import (
    Model,
    certify,
    certify_transition,
    critical_alpha,
    parse_prior,
    pole_alpha,
    pole_signs,
    sparse_threshold_prior,
)

#: every status :func:`theory.certify` can return
STATUSES = ("monotone", "bistable", "undecided", "degenerate")


@dataclass(frozen=True)
class PhaseDiagram:
    """Certified status on a grid.

    Attributes
    ----------
    thetas : ndarray, shape (n_theta,)
    alphas : ndarray, shape (n_alpha,)
        Log-spaced informative fractions (the sparse regime ``alpha = 0`` is a
        separate row, ``sparse_status``).
    status : ndarray of str, shape (n_alpha, n_theta)
        ``monotone``, ``bistable``, ``undecided`` or ``degenerate``.
    certified : ndarray of bool, shape (n_alpha, n_theta)
    sparse_status : ndarray of str, shape (n_theta,)
    sparse_certified : ndarray of bool, shape (n_theta,)
        Whether each sparse-regime cell was certified (an ``undecided`` cell never is;
        ``beta theta = 1`` exactly is a double root and certifies as ``undecided``).
    boundary : ndarray, shape (n_theta,)
        Closed-form ``alpha_c(theta)`` (fixed prior; NaN where ``beta theta <= 1``).
    disagreements : int
        Grid points where the certified status contradicts the closed-form boundary.
    boxes : int
        Interval boxes evaluated over the grid.
    curve_thetas, curve_alphas : ndarray, shape (n_curve,)
        The boundary on a fine ``theta`` grid for the figure: ``alpha_c(theta)`` (fixed
        prior, 400 points) or the sign change of ``F'(-1)`` in ``alpha`` (120 points).
    sparse_threshold : float
        ``c*`` of the prior (``theory.sparse_threshold_prior``): the sparse field is
        monotone iff ``beta theta <= c*``.
    beta, sigma2 : float
        Inverse temperature and noise variance, fixed over the grid.
    prior : str
        The scalar prior spec certified at every cell, as given.
    """

    beta: float
    sigma2: float
    prior: str
    thetas: np.ndarray
    alphas: np.ndarray
    status: np.ndarray
    certified: np.ndarray
    sparse_status: np.ndarray
    sparse_certified: np.ndarray
    boundary: np.ndarray
    disagreements: int
    boxes: int
    curve_thetas: np.ndarray | None = None
    curve_alphas: np.ndarray | None = None
    sparse_threshold: float = math.nan

    def counts(self) -> dict:
        """Number of grid cells per status, over every row written by :func:`write_csv`
        (the sparse row ``alpha = 0`` included)."""
        return {s: int((self.status == s).sum() + (self.sparse_status == s).sum()) for s in STATUSES}

    @property
    def all_certified(self) -> bool:
        """True iff every cell, the sparse row included, was certified."""
        return bool(self.certified.all() and self.sparse_certified.all())


def phase_diagram(beta=1.0, sigma2=1.0, prior="fixed", n_theta=48, n_alpha=48,
                  theta_max=4.0, alpha_min=1e-4, progress=None) -> PhaseDiagram:
    """Certify every grid point (``theta`` linear in ``(0, theta_max]``, ``alpha``
    log-spaced in ``[alpha_min, 1]``) and compare with the closed-form boundary."""
    Model(theta=1.0, alpha=0.5, beta=beta, sigma2=sigma2, prior=prior)  # validates
    if n_theta < 2 or n_alpha < 2:
        raise ValueError(f"grid sizes must be >= 2, got n_theta={n_theta}, n_alpha={n_alpha}")
    if not 0 < alpha_min < 1:
        raise ValueError(f"`alpha_min` must lie in (0, 1), got {alpha_min!r}")
    if not (math.isfinite(theta_max) and theta_max > 0):
        raise ValueError(f"`theta_max` must be > 0, got {theta_max!r}")
    thetas = np.linspace(theta_max / n_theta, theta_max, n_theta)
    alphas = np.logspace(math.log10(alpha_min), 0, n_alpha)
    status = np.empty((n_alpha, n_theta), dtype=object)
    cert = np.zeros((n_alpha, n_theta), dtype=bool)
    sparse = np.empty(n_theta, dtype=object)
    sparse_cert = np.zeros(n_theta, dtype=bool)
    boundary = np.full(n_theta, np.nan)
    boxes = 0
    disagreements = 0
    # one unit per theta column (the sparse cell and every alpha), on the executor of
    # the enclosing command (docs/design.md section 8); certification is deterministic
    units = [(float(t), tuple(float(a) for a in alphas), beta, sigma2, prior) for t in thetas]
    done = None if progress is None else (lambda i, n: progress(i * (n_alpha + 1), n * (n_alpha + 1)))
    columns = current_executor().map(_column, units, progress=done)
    c_star = sparse_threshold_prior(prior)
    mean_zero = parse_prior(prior).mean == 0
    for j, (t, (s_status, s_cert, s_boxes, col)) in enumerate(zip(thetas, columns, strict=True)):
        boundary[j] = _boundary(prior, t, beta, sigma2)
        sparse[j], sparse_cert[j] = s_status, s_cert
        boxes += s_boxes
        for i, (a, (c_status, c_cert, c_boxes)) in enumerate(zip(alphas, col, strict=True)):
            status[i, j], cert[i, j] = c_status, c_cert
            boxes += c_boxes
            if c_status in ("monotone", "bistable"):
                if prior == "fixed":
                    predicted = "bistable" if (not np.isnan(boundary[j]) and a < boundary[j]) else "monotone"
                else:  # the pole criterion: -xi attracts (or rho = 0 is an equilibrium)
                    minus = pole_signs(Model(float(t), float(a), beta, sigma2, prior))[1]
                    predicted = "bistable" if mean_zero or minus < 0 else "monotone"
                disagreements += predicted != c_status
        if sparse[j] in ("monotone", "bistable"):
            disagreements += sparse[j] != ("bistable" if beta * t > c_star else "monotone")
    fine = np.linspace(thetas[0], thetas[-1], 400 if prior == "fixed" else 120)
    curve = np.array([_boundary(prior, t, beta, sigma2) for t in fine])
    return PhaseDiagram(beta, sigma2, prior, thetas, alphas, status, cert, sparse, sparse_cert, boundary,
                        disagreements, boxes, fine, curve, c_star)


def _boundary(prior: str, theta: float, beta: float, sigma2: float) -> float:
    """The closed-form ``alpha_c`` (fixed prior) or the single sign change of ``F'(-1)`` in
    ``alpha`` (any prior; NaN when there is none or more than one)."""
    if prior == "fixed":
        a_c = critical_alpha(theta, beta, sigma2)
        return np.nan if a_c is None else a_c
    roots = pole_alpha(prior, theta, beta, sigma2)
    return roots[0] if len(roots) == 1 else np.nan


class _Column(NamedTuple):
    """One theta column: the sparse cell's status, whether certified, its boxes, and per alpha the same
    three (``cells``)."""

    status: str
    certified: bool
    boxes: int
    cells: list


def _column(unit) -> _Column:
    """Certify one theta column: the sparse cell, then every alpha (one executor unit)."""
    theta, alphas, beta, sigma2, prior = unit
    c = certify(Model(theta, 0.0, beta, sigma2, prior), engine="scalar")
    col = []
    for a in alphas:
        ca = certify(Model(theta, a, beta, sigma2, prior), engine="scalar")
        col.append((ca.status, bool(ca.certified), ca.boxes))
    return _Column(c.status, bool(c.certified), c.boxes, col)


def write_csv(pd: PhaseDiagram, path: Path) -> None:
    """Write the phase diagram ``pd`` to the CSV file ``path`` (overwritten), one row per grid cell.

    The columns are ``theta, alpha, status, certified, alpha_c_closed_form``; for each ``theta`` the
    sparse cell (``alpha = 0``) comes first, then every ``alpha`` in grid order. Numbers have 10
    significant digits; ``alpha_c_closed_form`` (:attr:`PhaseDiagram.boundary` at that ``theta``) is
    empty where it is NaN.

    Parameters
    ----------
    pd : PhaseDiagram
        From :func:`phase_diagram`.
    path : Path
        The CSV file to write.
    """
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["theta", "alpha", "status", "certified", "alpha_c_closed_form"])
        for j, t in enumerate(pd.thetas):
            w.writerow([f"{t:.10g}", "0", pd.sparse_status[j], bool(pd.sparse_certified[j]), _fmt(pd.boundary[j])])
            for i, a in enumerate(pd.alphas):
                w.writerow([f"{t:.10g}", f"{a:.10g}", pd.status[i, j], bool(pd.certified[i, j]), _fmt(pd.boundary[j])])


def _fmt(x):
    return "" if np.isnan(x) else f"{x:.10g}"


#: default number of alphas of the certified transition (each bracket takes about 1 to 5 s of one core)
TRANSITION_ALPHAS = 8


@dataclass(frozen=True)
class TransitionDiagram:
    """The certified mixture/specialisation transition ``theta_c(alpha)`` of one query for
    ``onehot(k)`` (:func:`theory.certify_transition` at each ``alpha``).

    Attributes
    ----------
    law : str
        The law's canonical spec, ``"onehot(k=...)"``.
    k : int
        Its dimension, ``k >= 2``.
    beta, sigma2 : float
        Inverse temperature and noise variance.
    theta_max : float
        The largest ``theta`` of the figure (given, else 1.6 times the largest certified upper end,
        or 2 when none is certified).
    brackets : tuple of dict
        One dict per ``alpha`` of the log grid, in increasing ``alpha``: ``alpha``, ``lo``, ``hi``,
        ``point_lo``, ``point_hi``, ``certified``, ``float_thetas``, ``theta_range`` (the fields of
        :class:`theory.TransitionBracket`); or ``alpha``, ``lo = hi = None``, ``certified = False`` and
        ``reason`` when no bracket was found.
    """

    law: str
    k: int
    beta: float
    sigma2: float
    theta_max: float
    brackets: tuple

    @property
    def all_certified(self) -> bool:
        return all(b["certified"] for b in self.brackets)

    def as_dict(self) -> dict:
        return {"mode": "subspace", "law": self.law, "k": self.k, "beta": self.beta, "sigma2": self.sigma2,
                "theta_max": self.theta_max, "brackets": list(self.brackets), "all_certified": self.all_certified}


def transition_diagram(prior, beta: float = 1.0, sigma2: float = 1.0, alpha_min: float = 1e-4,
                       n_alpha: int | None = None, theta_max: float | None = None,
                       progress=None) -> TransitionDiagram:
    """For each ``alpha`` of a log grid on ``[alpha_min, 1]``, the certified bracket of
    ``theta_c(alpha)``: for every ``theta`` below it (down to half the float value) the mixture
    ``(xi_1 + ... + xi_k)/sqrt k`` is certified stable, above it (up to twice) it has a certified
    positive tangent eigenvalue. ``prior`` must be ``onehot(k)`` with equal probabilities
    (``k >= 2``); ``n_alpha`` defaults to :data:`TRANSITION_ALPHAS`; ``progress(done, total)`` after
    each ``alpha``."""
    n_alpha = TRANSITION_ALPHAS if n_alpha is None else n_alpha
    law = Model(1.0, 0.5, beta, sigma2, prior).law  # validates beta, sigma2 and the law
    if law.family != "onehot" or law.spec != f"onehot(k={law.k})":
        raise ValueError(f"`prior` {law.spec}: the certified transition is derived for onehot(k) with equal "
                         "probabilities (k >= 2)")
    if not 0 < alpha_min < 1:
        raise ValueError(f"`alpha-min` must be < 1 for the grid alpha in [alpha-min, 1], got {alpha_min!r}")
    alphas = np.logspace(np.log10(alpha_min), 0.0, n_alpha)
    brackets: list[dict[str, object]] = []
    his: list[float] = []  # the upper ends of the certified brackets
    for i, a in enumerate(alphas):
        try:
            t = certify_transition(law.k, float(a), beta, sigma2)
            brackets.append({"alpha": float(a), "lo": t.lo, "hi": t.hi, "point_lo": t.point_lo,
                             "point_hi": t.point_hi, "certified": t.certified, "float_thetas": list(t.float_thetas),
                             "theta_range": [t.theta_min, t.theta_max]})
            if t.certified:
                his.append(t.hi)
        except ValueError as exc:  # e.g. no critical theta in the search range
            brackets.append({"alpha": float(a), "lo": None, "hi": None, "certified": False, "reason": str(exc)})
        if progress is not None:
            progress(i + 1, n_alpha)
    top = theta_max if theta_max is not None else (1.6 * max(his) if his else 2.0)
    return TransitionDiagram(law.spec, law.k, float(beta), float(sigma2), float(top), tuple(brackets))
