"""The registry of checks, keyed by check id (docs/design.md section 3).

A check is one function ``fn(case, ctx) -> list[CheckRecord]`` and one line in
:data:`REGISTRY`. Its ``scope`` says what it needs: ``"once"`` (model-independent, run
once per suite), ``"model"`` (a limit model: every case) or ``"instance"`` (a finite
instance ``R, L, d`` to simulate). ``records`` lists the record ids it emits (a check
may emit a consistency record and the condition it decides, e.g. ``sga.convergence``
and ``sga.convergence.recovery``). ``needs`` lists what the case must offer for the check's
prediction to apply (:data:`NEEDS`); a case without it is not run and not counted
(:meth:`Check.reason`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass

from . import _cost
from ._context import CheckContext, certificate, validity_walk
from ._diffusion import diffusion_expansion, splitting_expansion
from ._diffusion_band import fluctuations, hitting_time
from ._effective import cases as effective_cases
from ._effective import check_effective_drift
from ._field import check_monotone, check_phase_boundary, check_stability
from ._finite import check_finite_size, check_reduced_exact
from ._lyapunov import check_lyapunov
from ._sga import check_convergence, check_filtering, check_robbins_monro, filtering_expansion
from ._splitting import splitting
from ._subspace import check_subspace_equilibria, check_subspace_quadrature
from ._subspace_runs import check_heads_angles, check_subspace_convergence, check_subspace_tracking
from ._theory import check_endpoints, check_quadrature
from ._tracking import check_tracking, tracking_expansion

SCOPES = ("once", "model", "instance")
#: the model a check is for: ``"scalar"`` (the alignment ``rho`` of one query, a scalar prior) or
#: ``"subspace"`` (a k-dimensional law and/or several heads, :attr:`Case.subspace`)
MODELS = ("scalar", "subspace")
#: what a check may need of a case: ``"unstable equilibrium"`` (an interior equilibrium that
#: repels, e.g. to split basins) or ``"expansion validity"`` (its prediction is a finite-step /
#: finite-``L`` expansion, accurate only inside :func:`theory.validity` at the instance and steps
#: the check uses)
NEEDS = ("unstable equilibrium", "expansion validity")


def expansion_validity(check: Check, case, ctx: CheckContext | None = None):
    """``(validity, (d, L, eta_max))`` of :func:`validity_walk` over the instances and largest steps
    ``check`` uses on ``case`` (``None`` when the check has no ``expansion``)."""
    if check.expansion is None:
        return None
    return validity_walk(check.expansion, case, ctx or CheckContext())


@dataclass(frozen=True)
class Check:
    """One registered check.

    Attributes
    ----------
    id : str
        The check id (``"family.name"``, e.g. ``"sga.convergence"``); also the id of one of its records.
    run : callable
        ``run(case, ctx) -> list[CheckRecord]`` (``case`` is ``None`` for a ``"once"`` check).
    scope : {"once", "model", "instance"}
        What it needs: nothing (run once per suite), a limit model (every case) or a finite
        instance ``R, L, d`` to simulate.
    records : tuple of str
        The ids of the records it emits (its own id among them).
    summary : str
        One line on what it checks, for listings and reports.
    needs : tuple of str
        What the check needs of the case (drawn from :data:`NEEDS`; a single string is one need);
        a case without it is not run and not counted (:meth:`reason`).
    expansion : callable or None
        With ``"expansion validity"``: ``expansion(case, ctx, steps) -> ((d, L, eta_max), ...)``, the
        instances and largest steps its prediction uses (``steps=False``: the instances alone, the
        steps may then be 0, so that nothing costly runs); ``None`` otherwise.
    model : {"scalar", "subspace"}
        The model the check is for (:data:`MODELS`): it runs only on cases of that model.
    builtin : str
        A ``"once"`` check: what it runs on instead of a case (it never runs on a user's model, and a
        run on the user's cases lists its record apart, :func:`verify.suite.run_suite`); empty for
        the other scopes.
    routes : bool
        With ``"expansion validity"``: the check can also predict from the exact chain's measured
        one-step law, so validity gates it only when ``ctx.method`` is ``"expansion"``.
    cost : callable or None
        ``cost(case, ctx) -> tuple of Work``: what the check computes (:mod:`._cost`), read by the
        run's plan (``sigrec verify --dry-run``); ``None``: not estimated.
    """

    id: str
    run: Callable
    scope: str
    records: tuple[str, ...]
    summary: str
    needs: tuple[str, ...] = ()
    expansion: Callable | None = None
    model: str = "scalar"
    builtin: str = ""
    routes: bool = False
    cost: Callable | None = None

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"`scope` must be one of {SCOPES}, got {self.scope!r}")
        if self.model not in MODELS:
            raise ValueError(f"`model` must be one of {MODELS}, got {self.model!r}")
        if self.id not in self.records:
            raise ValueError(f"check {self.id!r} must emit a record with its own id")
        needs = (self.needs,) if isinstance(self.needs, str) else tuple(self.needs or ())
        bad = [n for n in needs if n not in NEEDS]
        if bad:
            raise ValueError(f"`needs` must be drawn from {NEEDS}, got {bad[0]!r}")
        if ("expansion validity" in needs) != (self.expansion is not None):
            raise ValueError(f"check {self.id!r}: `expansion` goes with `needs` 'expansion validity', and only with it")
        if (self.scope == "once") != bool(self.builtin):
            raise ValueError(f"check {self.id!r}: a `once` check says what it runs on (`builtin`), and only it")
        if self.routes and self.expansion is None:
            raise ValueError(f"check {self.id!r}: `routes` goes with `needs` 'expansion validity'")
        object.__setattr__(self, "needs", needs)

    def for_case(self, case) -> bool:
        """Whether ``case`` is of the model this check is for (a subspace case or a scalar one)."""
        return (self.model == "subspace") == bool(getattr(case, "subspace", False))

    def reason(self, case, ctx: CheckContext | None = None) -> str | None:
        """Why the check does not apply to ``case`` (``None``: it applies, or the case is of a
        scope it never runs on). ``ctx`` (default :class:`CheckContext`) gives the seed of a
        schedule design.

        * ``"unstable equilibrium"``: the certificate of the case's model
          (:func:`theory.certify`) must bracket an unstable interior equilibrium or leave the
          landscape undecided (the check then finds out); a certified monotone landscape is out.
        * ``"expansion validity"``: :func:`theory.validity` at every instance and largest step
          the check's prediction uses (:attr:`expansion`) must be inside; outside, the reason
          quotes its message (what is too large and what would bring it inside). A check with
          :attr:`routes` is gated so only when ``ctx.method`` is ``"expansion"``: otherwise it
          predicts from the measured law where the expansion is not valid.
        """
        if "unstable equilibrium" in self.needs:
            cert = certificate(case.model)
            if cert.certified and not any(e.stability == "unstable" for e in cert.equilibria):
                return "needs an unstable equilibrium; the certified landscape has none"
        if "expansion validity" in self.needs and not (self.routes and (ctx or CheckContext()).method != "expansion"):
            v, (d, L, eta) = expansion_validity(self, case, ctx)
            if not v.inside:
                steps = f" and steps up to eta = {eta:.3g}" if eta > 0 else ""
                return (f"rests on the finite-step / finite-L expansion; at the instance it uses (d = {d}, L = {L}"
                        f"{steps}) the case is {v.message}")
        return None

    def applies(self, case, ctx: CheckContext | None = None) -> bool:
        """Whether the check runs on ``case`` (``once`` checks take no case; ``instance``
        checks need a finite instance; the case must be of the check's :attr:`model`; and what
        :attr:`needs` asks, see :meth:`reason`). A check that does not apply is not run, and so
        not counted."""
        if self.scope == "once":
            return case is None
        if case is None or (self.scope == "instance" and not case.simulated):
            return False
        if not self.for_case(case):
            return False
        return self.reason(case, ctx) is None


def _entries(*checks: Check) -> dict[str, Check]:
    return {c.id: c for c in checks}


#: every check, in run order
REGISTRY: dict[str, Check] = _entries(
    Check("derivation.quadrature", check_quadrature, "once", ("derivation.quadrature",),
          "symbolic lemmas vs 50-digit mpmath quadrature",
          builtin="the derivation's lemmas at random parameter points of every prior family", cost=_cost.quadrature),
    Check("field.endpoints", check_endpoints, "once", ("field.endpoints",), "F(+-1) = 0 symbolically",
          builtin="the symbolic field of every prior family", cost=_cost.derivations),
    Check("field.monotone", check_monotone, "model", ("field.monotone",), "sign of j' certified by ball arithmetic",
          cost=_cost.landscape),
    Check("field.stability", check_stability, "model", ("field.stability",), "F'(+-1) and interior exponents",
          cost=_cost.landscape),
    Check("field.phase_boundary", check_phase_boundary, "model", ("field.phase_boundary",),
          "certified landscape vs the closed-form boundaries", cost=_cost.landscape),
    Check("ode.lyapunov", check_lyapunov, "model", ("ode.lyapunov",), "J non-decreasing along the ODE",
          cost=_cost.landscape),
    Check("sga.convergence", check_convergence, "instance", ("sga.convergence.recovery", "sga.convergence"),
          "recovery up to sign and agreement with the ODE basins", cost=_cost.convergence),
    Check("sga.filtering", check_filtering, "instance", ("sga.filtering", "sga.filtering.vanishes"),
          "measured vs limit nuisance attention mass", ("expansion validity",), filtering_expansion,
          cost=_cost.convergence),
    Check("stepsize.robbins_monro", check_robbins_monro, "instance", ("stepsize.robbins_monro",),
          "Robbins-Monro conditions of the schedule in use", cost=_cost.robbins_monro),
    Check("sga.tracking", check_tracking, "instance", ("sga.tracking",),
          "asymptotic-pseudotrajectory error against the restarted flow", ("expansion validity",), tracking_expansion,
          cost=_cost.tracking),
    # not gated by validity: the bias is resolvable only at small L (its ladder starts at R ~ 10
    # tokens, A2/L = 0.013 and 0.19 on the built-in cases), where the rate is still decided
    Check("finite_size.rate", check_finite_size, "instance", ("finite_size.rate",),
          "O(1/L) rate of the finite-size gradient bias", cost=_cost.finite_size),
    Check("simulator.reduced_exact", check_reduced_exact, "instance", ("simulator.reduced_exact",),
          "KS: exact reduced vs full simulator", cost=_cost.reduced_exact),
    Check("sga.effective_drift", check_effective_drift, "once", ("sga.effective_drift",),
          "the finite-step corrected ODE tracks the mean iterates",
          builtin="its own instances: " + "; ".join(
              f"theta {c.problem.theta:g}, R {c.problem.R}, L {c.problem.L}, d {c.problem.d} "
              f"({'constant' if c.schedule.kind == 'constant' else 'decaying'} step)"
              for c in effective_cases()), cost=_cost.effective),
    Check("sga.fluctuations", fluctuations, "instance", ("sga.fluctuations",),
          "diffusion 10-90% band of rho_k vs the exact chain", ("expansion validity",), diffusion_expansion,
          routes=True, cost=_cost.diffusion),
    Check("sga.hitting_time", hitting_time, "instance", ("sga.hitting_time",),
          "diffusion vs exact median first step with |rho| >= 0.99", ("expansion validity",), diffusion_expansion,
          routes=True, cost=_cost.diffusion),
    Check("sga.splitting", splitting, "instance", ("sga.splitting",),
          "scale-function splitting probability vs the exact chain (bistable models)",
          ("unstable equilibrium", "expansion validity"), splitting_expansion, routes=True, cost=_cost.splitting),
    # the subspace model (a k-dimensional law and/or H heads): docs/subspace*.md
    Check("subspace.quadrature", check_subspace_quadrature, "model", ("subspace.quadrature",),
          "float evaluator of the subspace limit vs quadrature at random overlaps", model="subspace"),
    Check("subspace.equilibria", check_subspace_equilibria, "model", ("subspace.equilibria",),
          "certified equilibria and stability: does the query specialise?", model="subspace"),
    Check("subspace.tracking", check_subspace_tracking, "instance", ("subspace.tracking",),
          "mean overlaps of the exact chain vs the limit ODE", model="subspace"),
    Check("subspace.convergence", check_subspace_convergence, "instance", ("subspace.convergence",),
          "runs end at the certified attractor predicted from their start", model="subspace"),
    Check("heads.angles", check_heads_angles, "instance", ("heads.angles",),
          "principal angles between span(Q) and span(U) of H heads", model="subspace"),
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
