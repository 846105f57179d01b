"""The checks of a subspace case (docs/subspace.md, docs/subspace-certificates.md,
docs/subspace-simulation.md): a k-dimensional signal law and/or ``H`` orthonormal heads.

* ``subspace.quadrature`` (consistency): the float evaluator of the derived limit against an
  independent quadrature, at random overlaps ``r`` in the ball;
* ``subspace.equilibria`` (condition, certified): the certified equilibria, their stability, and
  whether the query specialises (the mixture is not an attractor) or stays at the mixture;

and the simulated ones, in :mod:`._subspace_runs`:

* ``subspace.tracking`` (consistency): mean overlaps of the exact reduced chain against the limit
  ODE ``dr/dt = g - <r, g> r`` on the time scale ``t = sum eta``;
* ``subspace.convergence`` (consistency): runs end at the attractor the limit ODE and the
  certified stability predict from their start, up to the symmetries of the law;
* ``heads.angles`` (condition): the principal angles between ``span Q`` and ``span U`` of ``H``
  heads go to 0 (recovery of ``min(k, H)`` directions), or which other state the runs end in.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ...theory import certify, evaluate, subspace_quadrature
from ._context import CheckContext
from ._record import CheckRecord

if TYPE_CHECKING:  # annotations only: the registry imports these modules and Case imports it
    from ._case import Case

#: ``subspace.quadrature``: digits of the quadrature, and the largest relative difference of the
#: float evaluator (float64 rounding of a handful of exponentials) and of the derived expression
#: evaluated in mpmath (the quadrature's own comparison)
QUADRATURE_DPS = 30
FLOAT_TOLERANCE = 1e-9
MP_TOLERANCE = 1e-20
#: the kind of each record of these checks
KINDS = {"subspace.quadrature": "consistency", "subspace.equilibria": "condition", "subspace.tracking": "consistency",
         "subspace.convergence": "consistency", "heads.angles": "condition"}


@dataclass(frozen=True)
class Started:
    """One of these checks started on ``case`` (at ``t0``): :meth:`done` makes its record."""

    case: Case
    id: str
    t0: float = field(default_factory=time.perf_counter)

    def done(self, status: str, value, threshold, message: str, details: dict,
             certified: bool = False) -> list[CheckRecord]:
        """The one record of the check (``value`` and ``threshold`` as floats or ``None``)."""
        return [CheckRecord(id=self.id, kind=KINDS[self.id], status=status,
                            value=None if value is None else float(value),
                            threshold=None if threshold is None else float(threshold), certified=certified,
                            message=message, details=details, model=self.case.model.as_dict(),
                            seconds=time.perf_counter() - self.t0)]


# ---------------------------------------------------------------- symmetries of the law

def symmetries(law) -> str | tuple[tuple[int, ...], ...]:
    """The coordinate symmetries of ``law`` that leave the limit invariant: ``"norm"`` for an
    isotropic Gaussian law (``j`` depends on ``|r|`` only), else a tuple of permutations of the
    ``k`` overlaps that preserve the law (one-hot atoms of equal probability are exchangeable)."""
    k = law.k
    if law.family == "gaussian" and not any(law.mu):
        return "norm"
    if law.family == "onehot" and k <= 6:
        probs = law.probs
        return tuple(p for p in itertools.permutations(range(k)) if all(probs[i] == probs[p[i]] for i in range(k)))
    return (tuple(range(k)),)


def distance(law, a, b) -> float:
    """``min over symmetries g of |a - g b|`` (``| |a| - |b| |`` for an isotropic law)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    sym = symmetries(law)
    if sym == "norm":
        return float(abs(np.linalg.norm(a) - np.linalg.norm(b)))
    return float(min(np.linalg.norm(a - b[list(p)]) for p in sym))


# ---------------------------------------------------------------- subspace.quadrature

def _ball_points(k: int, n: int, seed: int, radius: float = 0.95) -> np.ndarray:
    """``n`` points uniform in the ball of ``radius`` in ``R^k``."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, k))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x * radius * rng.random((n, 1)) ** (1.0 / k)


def check_subspace_quadrature(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.quadrature`` (consistency): ``evaluate_subspace`` (float64, the derived MGF
    route) against :func:`theory.subspace_quadrature` (tanh-sinh quadrature of the token
    moments, independent of the MGF) at ``ctx.quadrature_points`` random overlaps in the ball:

        rel = max(|j_float - j_quad| / |j_quad|, |g_float - g_quad| / |g_quad|)  <=  1e-9,

    and the derived expression in mpmath against the quadrature (``rel <= 1e-20``)."""
    run = Started(case, "subspace.quadrature")
    m = case.model.with_heads(1)  # the field of one query (of which the heads' flow is built)
    seed = ctx.seed_for(case.name, "subspace.quadrature")
    n = max(1, int(ctx.quadrature_points))
    pts = _ball_points(m.k, n, seed)
    rows, worst_float, worst_mp = [], 0.0, 0.0
    for r in pts:
        v = evaluate(m, r, engine="subspace")
        q = subspace_quadrature(m, r, dps=QUADRATURE_DPS)
        jq, gq = float(q.objective[1]), np.asarray(q.gradient[1], float)
        rel_j = abs(float(v.objective) - jq) / max(abs(jq), 1e-300)
        rel_g = float(np.linalg.norm(np.asarray(v.gradient, float) - gq)) / max(float(np.linalg.norm(gq)), 1e-300)
        rel = max(rel_j, rel_g)
        worst_float, worst_mp = max(worst_float, rel), max(worst_mp, float(q.rel_diff))
        rows.append({"r": r.tolist(), "objective_float": float(v.objective), "objective_quadrature": jq,
                     "gradient_float": np.asarray(v.gradient, float).tolist(), "gradient_quadrature": gq.tolist(),
                     "rel_float": rel, "rel_derived_mp": float(q.rel_diff)})
    ok = worst_float <= FLOAT_TOLERANCE and worst_mp <= MP_TOLERANCE
    msg = (f"{n} random overlap point(s) r in the ball, {QUADRATURE_DPS}-digit quadrature: float evaluator j and "
           f"grad j within {worst_float:.1e} relative (tolerance {FLOAT_TOLERANCE:.0e}); derived expression in mpmath "
           f"within {worst_mp:.1e} (tolerance {MP_TOLERANCE:.0e})")
    return run.done("pass" if ok else "fail", worst_float, FLOAT_TOLERANCE, msg,
                    {"points": rows, "seed": seed, "dps": QUADRATURE_DPS, "mp_tolerance": MP_TOLERANCE,
                     "max_rel_derived_mp": worst_mp})


# ---------------------------------------------------------------- subspace.equilibria

@lru_cache(maxsize=32)
def subspace_certificate(model):
    """``theory.certify`` of the one-query flow of ``model`` on the subspace engine (with its
    completeness), once per model: the check is about the equilibria of one query (the flow of
    ``H > 1`` orthonormal heads is checked by ``heads.angles``)."""
    return certify(model.with_heads(1), engine="subspace")


def _mid(box) -> list[float]:
    return [float(b.mid()) for b in box.enclosure] if box.enclosure else list(box.start)


def _box_summary(b) -> dict:
    tangent = None if b.tangent_eigenvalue is None else float(b.tangent_eigenvalue.mid())
    return {"label": b.label, "classification": b.classification, "kind": b.kind, "status": b.status, "r": _mid(b),
            "radius": max((float(x.rad()) for x in b.enclosure), default=None) if b.enclosure else None,
            "tangent_eigenvalue": tangent, "tangent_inertia": list(b.tangent_inertia or ()),
            "radial_sign": b.radial_sign, "reason": b.reason}


def _completeness(cert) -> tuple[bool | None, str]:
    """Whether the list of ``cert`` is certified complete (``None`` for ``k >= 3``: not certified),
    and how (the certificate's :class:`theory.SubspaceCompleteness`)."""
    comp = cert.completeness
    if cert.model.k != 2:
        return None, f"completeness is not certified for k >= 3 ({comp.reason})"
    if not comp.complete:
        return False, comp.reason
    n_s = sum(b.kind == "sphere" for b in cert.boxes)
    return True, (f"complete: certify_circle and certify_disk find exactly these {n_s} + {len(cert.boxes) - n_s} "
                  "equilibria, with the same stability")


def check_subspace_equilibria(case: Case, ctx: CheckContext) -> list[CheckRecord]:
    """``subspace.equilibria`` (condition): **the query specialises**, i.e. the symmetric mixture
    ``(xi_1 + ... + xi_k)/sqrt k`` is certified unstable and a specialised equilibrium (near one
    ``xi_j``) is certified stable. ``fails`` when the mixture is certified stable (the query
    stays at the mixture); ``undecided`` when a box is undecided or the law has no mixture /
    specialised classes (a Gaussian law). The record lists every certified equilibrium (box,
    kind, stability) and, for ``k = 2``, whether the list is certified complete
    (``certify_circle`` and ``certify_disk``); the verdict itself rests on the mixture's and the
    specialised boxes alone (local, certified facts), so an incomplete list does not change it."""
    run = Started(case, "subspace.equilibria")
    m = case.model
    cert = subspace_certificate(m)
    complete, how = _completeness(cert)
    boxes = [_box_summary(b) for b in cert.boxes]
    mixture = next((b for b in cert.boxes if b.classification == "mixture+"), None)
    special = [b for b in cert.boxes if b.classification.startswith("specialised")]
    attractors = sorted({b.classification.split("(")[0] for b in cert.boxes if b.status == "stable"})
    anti = any(b.classification == "mixture-" and b.status == "stable" for b in cert.boxes)
    status, why = "undecided", ""
    if mixture is None:
        why = f"the law {case.prior} has no certified symmetric mixture equilibrium (no mixture/specialised classes)"
    elif mixture.status == "undecided":
        why = f"the mixture's box is undecided: {mixture.reason}"
    elif mixture.status == "stable":
        status = "fails"
    elif any(b.status == "stable" for b in special):
        status = "holds"
    else:
        why = "the mixture is unstable but no specialised equilibrium is certified stable"
    value = None
    if mixture is not None and mixture.tangent_eigenvalue is not None:
        value = float(mixture.tangent_eigenvalue.mid())
    listing = "; ".join(f"{b['label']} {b['status']}" for b in boxes)
    verdict = {"holds": "the mixture is certified unstable and the query specialises",
               "fails": "the mixture (xi_1+...+xi_k)/sqrt k is certified stable: the query does not specialise",
               "undecided": f"undecided: {why}"}[status]
    message = (f"{verdict}; attractors: {', '.join(attractors) or 'none certified'}"
               + ("; the anti-mixture -(xi_1+...+xi_k)/sqrt k is certified stable too" if anti else "")
               + f". Equilibria: {listing}. " + how)
    details = {"equilibria": boxes, "attractors": attractors, "anti_mixture_stable": anti, "complete": complete,
               "completeness": how, "certified_all": cert.certified, "notes": list(cert.notes), "prec": cert.prec,
               "value": "the mixture's tangent eigenvalue (midpoint of its ball; k = 2)"}
    return run.done(status, value, 0.0 if value is not None else None, message, details,
                    certified=status != "undecided" and cert.certified)
