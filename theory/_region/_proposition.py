"""What the appendix proposition states for one prior family: the certified phase diagram
of its default region, and its agreement with the closed-form criterion.

:func:`region_proposition` runs (or takes) the region certificate of
:data:`DEFAULT_REGION` (``theta in [0, 5]`` linear, ``alpha in [1e-4, 1]`` log,
``beta = sigma2 = 1``) and checks every certified box against the criterion of
docs/design.md sections 1 and 1.2, by an independent route (the closed forms, not the
balls):

* fixed prior: monotone exactly where ``alpha >= alpha_c(theta)`` or ``beta theta <= 1``
  (:func:`theory.critical_alpha`; ``alpha_c`` increases with ``theta``, so a box's ends
  decide it: monotone needs ``beta theta_hi <= 1`` or ``alpha_lo >= alpha_c(theta_hi)``,
  bistable ``beta theta_lo > 1`` and ``alpha_hi < alpha_c(theta_lo)``);
* ``E s > 0``: the pole criterion: bistable exactly where ``F'(-1) < 0``. Its sign at
  ``(theta, alpha)`` is that of ``Q(w)``, whose sign changes in ``alpha`` are
  :func:`theory.pole_alpha`, starting at ``alpha -> 0`` from the sparse one (``Q(0)``
  has the sign of ``g_s(-beta theta)``: positive iff ``beta theta < c*``,
  :func:`theory.sparse_threshold_prior`). Checked at both ``theta`` ends of a box (``theta
  > 0``): no sign change inside its ``alpha`` range, and the predicted status its own;
* ``E s = 0``: ``rho = 0`` is the only interior equilibrium, unstable, both poles
  attract: every certified box bistable with the exact equilibrium 0.

A box starting at ``theta = 0`` makes its claim for ``theta > 0`` (the field vanishes at
``theta = 0``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache

from .._certify._conditions import critical_alpha, pole_alpha, sparse_threshold_prior
from .._certify._options import RegionOptions
from .._laws import parse_prior
from .._model import ModelBox
from ._certify import MIN_WIDTH, RegionCertificate, certify_region

#: the default region of the appendix proposition (and of ``sigrec phase``)
DEFAULT_REGION = {"theta": (0.0, 5.0), "alpha": (1e-4, 1.0), "beta": 1.0, "sigma2": 1.0}


@dataclass(frozen=True)
class RegionProposition:
    """The data of the appendix proposition for one prior (:func:`region_proposition`).

    Attributes
    ----------
    prior : str
    domain : dict
        ``theta``, ``alpha`` (``[lo, hi]``), ``beta``, ``sigma2``, ``measure`` (the scales).
    fractions : dict
        Certified ``monotone``, ``bistable`` and ``undecided`` fractions of the measure.
    undecided_area : float
        The undecided band's area in ``(theta, log10 alpha)`` units (of :attr:`area`).
    area : float
        The domain's area in the same units (5 x 4 for the default region).
    boxes : int
    certified : bool
        Every proof passed its audit.
    criterion : str
        The closed-form criterion checked.
    contradictions : tuple of dict
        Certified boxes (:meth:`RegionBox.as_dict`) whose status the criterion contradicts.
    seconds : float
        Time of the certificate and the check.
    """

    prior: str
    domain: dict
    fractions: dict
    undecided_area: float
    area: float
    boxes: int
    certified: bool
    criterion: str
    contradictions: tuple
    seconds: float

    @property
    def agrees(self) -> bool:
        """Certified, and no certified box contradicts the criterion."""
        return self.certified and not self.contradictions

    def as_dict(self) -> dict:
        return {"prior": self.prior, "domain": self.domain, "fractions": dict(self.fractions),
                "undecided_area": self.undecided_area, "area": self.area, "boxes": self.boxes,
                "certified": self.certified, "criterion": self.criterion,
                "contradictions": list(self.contradictions), "agrees": self.agrees, "seconds": self.seconds}


def region_proposition(prior="fixed", *, certificate: RegionCertificate | None = None,
                       min_width: float = MIN_WIDTH, theta=DEFAULT_REGION["theta"], alpha=DEFAULT_REGION["alpha"],
                       beta=DEFAULT_REGION["beta"], sigma2=DEFAULT_REGION["sigma2"]) -> RegionProposition:
    """The appendix proposition's data for ``prior`` on :data:`DEFAULT_REGION` (or another
    ``theta`` x ``alpha`` box at fixed ``beta``, ``sigma2``: what ``sigrec phase`` draws).

    Parameters
    ----------
    prior : str or Prior
        A point prior (its default parameters: ``rademacher`` is ``p = 1/2``, ...).
    certificate : RegionCertificate, optional
        A certificate already computed (e.g. by :func:`numerics.certify_region_tasks`);
        its region must be this one (``alpha`` in log scale). Default: computed here.
    min_width : float
        Of :func:`theory.certify_region` when the certificate is computed here.
    theta, alpha : (float, float)
        The box (default :data:`DEFAULT_REGION`); ``alpha`` must span a decade (log scale).
    beta, sigma2 : float
    """
    start = time.perf_counter()
    law = parse_prior(prior)
    earlier = 0.0 if certificate is None else certificate.seconds  # time spent before this call
    if certificate is None:
        certificate = certify_region(ModelBox(tuple(theta), tuple(alpha), beta, sigma2, law),
                                     RegionOptions(min_width=min_width))
    region = certificate.region
    expected = {"theta": [float(x) for x in theta], "alpha": [float(x) for x in alpha]}
    if (region["ranges"] != expected or region["prior"] != law.spec
            or region["fixed"] != {"beta": float(beta), "sigma2": float(sigma2)} or region["scale"]["alpha"] != "log"):
        raise ValueError(f"`certificate` must be of the region theta {expected['theta']}, alpha {expected['alpha']} "
                         f"(log), beta {beta}, sigma2 {sigma2}, prior {law.spec}; got {region}")
    check, criterion = _criterion(law, float(beta), float(sigma2))
    contradictions = tuple(box.as_dict() for box in certificate.boxes
                           if box.status != "undecided" and not check(box))
    (t0, t1), (a0, a1) = expected["theta"], expected["alpha"]
    area = (t1 - t0) * math.log10(a1 / a0)
    domain = {"theta": [t0, t1], "alpha": [a0, a1], "beta": float(beta), "sigma2": float(sigma2),
              "measure": "theta linear, alpha log"}
    return RegionProposition(prior=law.spec, domain=domain, fractions=dict(certificate.fractions),
                             undecided_area=certificate.fractions["undecided"] * area, area=area,
                             boxes=certificate.boxes_count, certified=certificate.certified, criterion=criterion,
                             contradictions=contradictions, seconds=earlier + time.perf_counter() - start)


def _criterion(law, beta: float, sigma2: float):
    """``(check, text)``: ``check(box)`` is True when the certified status of ``box`` is the one
    the closed-form criterion gives on the whole box."""
    if law.family == "fixed":
        def ac(theta):
            a = critical_alpha(theta, beta, sigma2)
            return 0.0 if a is None else a

        def check_fixed(box):
            (t0, t1), (a0, a1) = _sides(box)
            if box.status == "monotone":
                return (beta * t1 <= 1 or a0 >= ac(t1)) and box.poles == ("stable", "unstable")
            return beta * t0 > 1 and a1 < ac(t0) and box.poles == ("stable", "stable")

        return check_fixed, "monotone exactly where alpha >= alpha_c(theta) or beta theta <= 1 (else bistable)"
    if law.mean == 0:
        def check_mean_zero(box):
            return box.status == "bistable" and box.equilibrium == (0.0, 0.0, "unstable", True) \
                and box.poles == ("stable", "stable")

        return check_mean_zero, "E s = 0: rho = 0 the only interior equilibrium (unstable), both poles stable"
    c_star = sparse_threshold_prior(law)
    roots = lru_cache(maxsize=None)(lambda theta: tuple(pole_alpha(law, theta, beta, sigma2)))

    def predicted(theta, a0, a1):
        """The criterion's status on ``{theta} x [a0, a1]``, or None when F'(-1) changes sign there."""
        r = roots(theta)
        if any(a0 <= x <= a1 for x in r):
            return None
        flips = sum(x < a0 for x in r)
        minus_unstable = (beta * theta < c_star) == (flips % 2 == 0)
        return "monotone" if minus_unstable else "bistable"

    def check(box):
        (t0, t1), (a0, a1) = _sides(box)
        if any(predicted(t, a0, a1) != box.status for t in (t0, t1) if t > 0):
            return False
        return box.poles == ("stable", "unstable" if box.status == "monotone" else "stable")

    return check, (f"bistable exactly where F'(-1) < 0: the sign changes of F'(-1) in alpha (pole_alpha) from "
                   f"its sign as alpha -> 0, positive iff beta theta < c* = {c_star:.6g}")


def _sides(box):
    b = {name: (lo, hi) for name, lo, hi in box.bounds}
    return b["theta"], b["alpha"]
