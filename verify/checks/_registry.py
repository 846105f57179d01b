"""The registry of checks, keyed by check id (docs/design.md section 3).

A check is one function ``fn(case, ctx) -> list[CheckRecord]`` and one line in
:data:`REGISTRY`. Its ``scope`` says what it needs: ``"once"`` (model-independent, run
once per suite), ``"model"`` (a limit model: every case) or ``"instance"`` (a finite
instance ``R, L, d`` to simulate). ``records`` lists the record ids it emits (a check
may emit a consistency record and the condition it decides, e.g. ``sga.convergence``
and ``sga.convergence.recovery``).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Callable

from ._context import certificate
from ._diffusion import check_fluctuations, check_hitting_time, check_splitting
from ._effective import check_effective_drift
from ._field import check_monotone, check_phase_boundary, check_stability
from ._finite import check_finite_size, check_reduced_exact
from ._lyapunov import check_lyapunov
from ._sga import check_convergence, check_filtering
from ._schedule import check_robbins_monro
from ._theory import check_endpoints, check_quadrature
from ._tracking import check_tracking

SCOPES = ("once", "model", "instance")
NEEDS = (None, "unstable equilibrium")


@dataclass(frozen=True)
class Check:
    """One registered check."""

    id: str
    run: Callable
    scope: str
    records: tuple[str, ...]
    summary: str
    #: what the check needs of the case's certified landscape: ``None`` (nothing), or
    #: ``"unstable equilibrium"`` (an interior equilibrium that repels, e.g. to split basins)
    needs: str | None = None

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"`scope` must be one of {SCOPES}, got {self.scope!r}")
        if self.id not in self.records:
            raise ValueError(f"check {self.id!r} must emit a record with its own id")
        if self.needs not in NEEDS:
            raise ValueError(f"`needs` must be one of {NEEDS}, got {self.needs!r}")

    def applies(self, case) -> bool:
        """Whether the check can run on ``case`` (``once`` checks take no case).

        A check that needs an unstable interior equilibrium applies when the certificate of
        the case's model (:func:`theory.certify`) brackets one, or could not decide the
        landscape (the check then finds out); on a certified monotone landscape it is not
        run, and so not counted.
        """
        if self.scope == "once":
            return case is None
        if case is None or (self.scope == "instance" and not case.simulated):
            return False
        if self.needs == "unstable equilibrium":
            cert = certificate(case.model)
            return not cert.certified or any(e.stability == "unstable" for e in cert.equilibria)
        return True


def _entries(*checks: Check) -> dict[str, Check]:
    return {c.id: c for c in checks}


#: every check, in run order
REGISTRY: dict[str, Check] = _entries(
    Check("derivation.quadrature", check_quadrature, "once", ("derivation.quadrature",),
          "symbolic lemmas vs 50-digit mpmath quadrature"),
    Check("field.endpoints", check_endpoints, "once", ("field.endpoints",), "F(+-1) = 0 symbolically"),
    Check("field.monotone", check_monotone, "model", ("field.monotone",), "sign of j' certified by ball arithmetic"),
    Check("field.stability", check_stability, "model", ("field.stability",), "F'(+-1) and interior exponents"),
    Check("field.phase_boundary", check_phase_boundary, "model", ("field.phase_boundary",),
          "certified landscape vs the closed-form boundaries"),
    Check("ode.lyapunov", check_lyapunov, "model", ("ode.lyapunov",), "J non-decreasing along the ODE"),
    Check("sga.convergence", check_convergence, "instance", ("sga.convergence.recovery", "sga.convergence"),
          "recovery up to sign and agreement with the ODE basins"),
    Check("sga.filtering", check_filtering, "instance", ("sga.filtering", "sga.filtering.vanishes"),
          "measured vs limit nuisance attention mass"),
    Check("stepsize.robbins_monro", check_robbins_monro, "instance", ("stepsize.robbins_monro",),
          "Robbins-Monro conditions of the schedule in use"),
    Check("sga.tracking", check_tracking, "instance", ("sga.tracking",),
          "asymptotic-pseudotrajectory error against the restarted flow"),
    Check("finite_size.rate", check_finite_size, "instance", ("finite_size.rate",),
          "O(1/L) rate of the finite-size gradient bias"),
    Check("simulator.reduced_exact", check_reduced_exact, "instance", ("simulator.reduced_exact",),
          "KS: exact reduced vs full simulator"),
    Check("sga.effective_drift", check_effective_drift, "once", ("sga.effective_drift",),
          "the finite-step corrected ODE tracks the mean iterates"),
    Check("sga.fluctuations", check_fluctuations, "instance", ("sga.fluctuations",),
          "diffusion 10-90% band of rho_k vs the exact chain"),
    Check("sga.hitting_time", check_hitting_time, "instance", ("sga.hitting_time",),
          "diffusion vs exact median first step with |rho| >= 0.99"),
    Check("sga.splitting", check_splitting, "instance", ("sga.splitting",),
          "scale-function splitting probability vs the exact chain (bistable models)", needs="unstable equilibrium"),
)


def select(patterns) -> list[Check]:
    """The registered checks matching any of ``patterns`` (ids, record ids, or globs such
    as ``"field.*"``), in registry order. An unknown pattern is a ``ValueError``."""
    patterns = [p.strip() for p in patterns if p.strip()]
    chosen = []
    for p in patterns:
        hits = [c for c in REGISTRY.values() if fnmatch.fnmatchcase(c.id, p)
                or any(fnmatch.fnmatchcase(r, p) for r in c.records)]
        if not hits:
            raise ValueError(f"`checks`: no check matches {p!r}; known ids: {', '.join(REGISTRY)}")
        chosen.extend(hits)
    return [c for c in REGISTRY.values() if c in chosen]
