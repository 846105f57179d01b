"""Which phase diagram ``sigrec phase`` computes for a model, and the region ones it composes.

:func:`phase_mode` picks one of five: the certified states of ``H >= 2`` heads on a grid
(:func:`verify.studies.heads_diagram`), the ``k = 2`` region certificate, the transition
``theta_c(alpha)`` of ``onehot(k)`` (:func:`verify.studies.transition_diagram`), the scalar region
certificate with its proposition and boundaries (:func:`phase_region`), or the scalar point grid
(:func:`verify.studies.phase_diagram`). The regions run their subtrees on the current executor
(:func:`numerics.certify_region_tasks`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...numerics import certify_region_tasks
from ...theory import (
    K2RegionCertificate,
    Model,
    ModelBox,
    RegionCertificate,
    RegionOptions,
    RegionProposition,
    region_proposition,
)
from ._region_figure import RegionLine, region_boundaries


def phase_mode(model: Model, region: bool, max_boxes: int | None, grid: bool) -> str:
    """``"heads"``, ``"region-k2"``, ``"transition"``, ``"region"`` or ``"grid"`` for ``model`` (its law,
    ``H``, ``beta``, ``sigma2``) and the flags ``--region``, ``--max-boxes`` and ``--grid`` (or a grid
    size); ``ValueError`` for a combination no mode takes."""
    if model.heads != 1:
        return "heads"
    if region and (not model.scalar and model.k == 2):
        return "region-k2"
    if region or max_boxes is not None:
        raise ValueError("--region and --max-boxes are for k = 2 laws (--prior 'onehot(k=2)'); the region "
                         "certificate of a scalar prior is the default without --grid")
    if not model.scalar:
        return "transition"
    return "grid" if grid else "region"


@dataclass(frozen=True)
class PhaseRegion:
    """The scalar region of ``sigrec phase``.

    Attributes
    ----------
    certificate : theory.RegionCertificate
        The certificate of the box.
    proposition : theory.RegionProposition
        The proposition, checked box by box against the closed-form criterion.
    lines : tuple of RegionLine
        The closed-form boundaries the figure draws.
    """

    certificate: RegionCertificate
    proposition: RegionProposition
    lines: tuple[RegionLine, ...]


def _box(model: Model, theta_max: float, alpha_min: float) -> ModelBox:
    return ModelBox((0.0, theta_max), (alpha_min, 1.0), model.beta, model.sigma2, model.law)


def phase_region(model: Model, theta_max: float, alpha_min: float, min_width: float, progress=None) -> PhaseRegion:
    """The region certificate of ``theta in [0, theta_max]`` by ``alpha in [alpha_min, 1]`` (log) at
    the model's ``beta``, ``sigma2`` and prior, its proposition and its boundaries."""
    cert = certify_region_tasks(_box(model, theta_max, alpha_min), RegionOptions(min_width=min_width, log_alpha=True),
                                progress=progress)
    assert isinstance(cert, RegionCertificate)
    prop = region_proposition(str(model.law), certificate=cert, theta=(0.0, theta_max), alpha=(alpha_min, 1.0),
                              beta=model.beta, sigma2=model.sigma2)
    return PhaseRegion(cert, prop, region_boundaries(cert.region))


def phase_region_k2(model: Model, theta_max: float, alpha_min: float, min_width: float, max_boxes: int,
                    progress=None) -> K2RegionCertificate:
    """The ``k = 2`` region certificate of the same box (the equilibria on the circle and in the disk)."""
    cert = certify_region_tasks(_box(model, theta_max, alpha_min), RegionOptions(min_width=min_width,
                                                                                 max_boxes=max_boxes),
                                progress=progress)
    assert isinstance(cert, K2RegionCertificate)
    return cert


def heads_grid(theta_max: float, alpha_min: float, n_theta: int, n_alpha: int) -> tuple[np.ndarray, np.ndarray]:
    """The grid of the heads' map: ``theta`` linear in ``(0, theta_max]``, ``alpha`` log-spaced in
    ``[alpha_min, 1]`` (``alpha_min`` alone for one row)."""
    if not alpha_min < 1:
        raise ValueError(f"`alpha-min` must be < 1 for the grid alpha in [alpha-min, 1], got {alpha_min!r}")
    thetas = np.linspace(theta_max / n_theta, theta_max, n_theta)
    alphas = np.logspace(math.log10(alpha_min), 0.0, n_alpha) if n_alpha > 1 else np.array([alpha_min])
    return thetas, alphas
