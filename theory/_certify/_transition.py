"""Certified bracket of the mixture/specialisation transition of ``onehot(k)`` (docs/subspace-certificates.md).

The mixture ``r* = 1/sqrt(k) (1, ..., 1)`` of ``onehot(k)`` with equal probabilities is an
equilibrium for every parameter, and it is stable while its tangent eigenvalue is negative
(docs/subspace.md section 4). Two certified routes:

1. **the curve** (the bracket ``[lo, hi]``). ``j`` is invariant under permutations of ``r``, so
   at ``r*`` the gradient is ``g_1 (1, ..., 1)`` (``r*`` is a sphere equilibrium) and the Hessian is
   ``a I + b 1 1^T``; both are checked *symbolically* here (sympy: the differences of the
   substituted entries expand to 0). Then every ``v`` in ``1^perp`` is a tangent eigenvector and the
   tangent eigenvalue is the scalar function ``E(theta) = H_11 - H_12 - lam`` with
   ``lam = <r*, g>``, radial eigenvalue ``-2 lam``. ``E`` and ``dE/dtheta`` are sympy expressions of
   ``theta`` alone, evaluated in balls; :func:`theory._certify._roots.isolate` certifies the sign of ``E`` on
   ``[theta_min, theta_max]`` outside root brackets and isolates each simple root (mean-value
   form, bisection), and ``lam > 0`` is certified on the whole range the same way;
2. **bisection on single-theta certificates** (the bracket ``[point_lo, point_hi]``): at each
   ``theta`` the Krawczyk box of :func:`theory._certify._subspace.certify_point` (no symmetry used)
   proves one equilibrium near ``r*`` and its stability from the bordered matrix; the bracket
   keeps a certified ``stable`` left end and ``unstable`` right end.

Result of route 1: for every ``theta`` in ``[theta_min, lo]`` the mixture is certified stable
(tangent and radial eigenvalues negative), for every ``theta`` in ``[hi, theta_max]`` it has a
certified positive tangent eigenvalue (multiplicity ``k - 1``), and ``E`` has exactly one simple
root in ``(lo, hi)``. (Interval ``theta`` balls in the Krawczyk route were tried: the naive
enclosure of the field in ``theta`` overestimates so much that covering ``[theta_min, lo]`` needed
thousands of pieces near the root, hence route 1.)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache

import mpmath
import sympy as sp
from flint import arb, fmpq

from .._derivation._subspace import PARAM_SYMBOLS, _derive
from .._derivation._symbols import theta as THETA
from .._field._equilibria import critical_thetas, mixture_eigenvalues
from .._laws._vector import parse_law
from .._model import Model
from ._roots import isolate, precision
from ._subspace import _check_prec, certify_point
from ._subspace_balls import _NAMESPACE, _ArbPrinter


@dataclass(frozen=True)
class TransitionBracket:
    """Outcome of :func:`certify_transition` (module doc).

    Attributes
    ----------
    k : int
        Dimension of the law ``onehot(k)`` (equal probabilities).
    alpha, beta, sigma2 : float
        The model parameters, as validated by :class:`Model`.
    theta_min, theta_max : float
        The range of ``theta`` searched (given, or half and twice the first float critical theta).
    lo, hi : float
        The certified bracket of route 1: the mixture is certified stable for ``theta`` in
        ``[theta_min, lo]`` and unstable in ``[hi, theta_max]``; ``nan`` when ``E`` does not have exactly
        one certified simple root with certified signs on the rest of the range.
    point_lo, point_hi : float
        The bisection bracket of route 2 (single-theta Krawczyk certificates: stable at ``point_lo``,
        unstable at ``point_hi``); ``nan`` when the ends of the range were not certified so.
    certified : bool
        True iff route 1 succeeded (``lo``, ``hi`` are finite).
    roots : tuple of (float, float)
        Every root bracket in ``theta`` of the tangent eigenvalue ``E`` found on the range.
    undecided : tuple of (float, float)
        ``theta`` intervals where the sign of ``E`` or of ``lam`` was undecided.
    float_thetas : tuple of float
        The float critical thetas (:func:`theory._field._equilibria.critical_thetas`) in the range.
    boxes : int
        Number of ``theta`` boxes evaluated by route 1 (the isolations of ``E`` and ``lam``).
    prec : int
        Bits of ball precision.
    """

    k: int
    alpha: float
    beta: float
    sigma2: float
    theta_min: float
    theta_max: float
    lo: float
    hi: float
    point_lo: float
    point_hi: float
    certified: bool
    roots: tuple
    undecided: tuple
    float_thetas: tuple
    boxes: int
    prec: int

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def as_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        out["roots"], out["undecided"] = [list(x) for x in self.roots], [list(x) for x in self.undecided]
        return out


@cache
def _mixture_curve(k: int):
    """Ball functions ``(E, dE/dtheta, lam, dlam/dtheta)`` of ``(theta, alpha, beta, sigma2)`` at the
    mixture, after the symbolic symmetry checks of the module doc."""
    d = _derive(parse_law(f"onehot(k={k})"))
    u = sp.Symbol("u", positive=True)
    sub = {ri: u for ri in d.r}
    g = [gi.subs(sub) for gi in d.gradient]
    h = [[x.subs(sub) for x in row] for row in d.hessian]
    pairs = [(g[0], gi) for gi in g[1:]] + [(h[0][0], h[i][i]) for i in range(1, k)]
    pairs += [(h[0][1], h[i][j]) for i, j in itertools.permutations(range(k), 2)]
    for a, b in pairs:
        if sp.expand(a - b) != 0:  # the permutation symmetry of onehot(k); a failure is a wrong derivation
            raise AssertionError("the derived gradient/Hessian of onehot(k) is not permutation symmetric")
    point = {u: 1 / sp.sqrt(k)}
    lam = (k * u * g[0]).subs(point)
    curve = (h[0][0] - h[0][1]).subs(point) - lam
    exprs = (curve, sp.diff(curve, THETA), lam, sp.diff(lam, THETA))
    fns = [sp.lambdify(PARAM_SYMBOLS, e, modules=[_NAMESPACE], printer=_ArbPrinter())
           for e in exprs]
    return tuple(fns)


def _point_state(model: Model, theta: float):
    """Route 2 at one ``theta``: ``"stable"``, ``"unstable"`` (certified positive tangent eigenvalue)
    or ``None``."""
    k = model.k
    m = Model(theta, model.alpha, model.beta, model.sigma2, model.law)
    lam = -float(mixture_eigenvalues(k, theta, model.alpha, model.beta, model.sigma2)[1]) / 2
    box = certify_point(m, [k ** -0.5] * k, "sphere", lam0=lam)
    if box.status == "stable":
        return "stable"
    if box.tangent_inertia is not None and box.tangent_inertia[1] > 0:
        return "unstable"
    return None


def _bisect(model, t_min: float, t_max: float, tol: float) -> tuple:
    if (_point_state(model, t_min), _point_state(model, t_max)) != ("stable", "unstable"):
        return float("nan"), float("nan")
    lo, hi = t_min, t_max
    while hi - lo > tol:
        mid = (lo + hi) / 2
        s = _point_state(model, mid)
        if s is None:
            break
        lo, hi = (mid, hi) if s == "stable" else (lo, mid)
    return lo, hi


def _fraction(x: float) -> fmpq:
    return fmpq(*float(x).as_integer_ratio())


def certify_transition(k: int, alpha: float, beta: float = 1.0, sigma2: float = 1.0, theta_range=None,
                       tol: float = 1e-10, prec: int = 128) -> TransitionBracket:
    """Certified bracket of the mixture/specialisation transition of ``onehot(k)`` (module doc).

    Parameters
    ----------
    k : int
        Dimension, ``2 <= k <= 8``.
    alpha, beta, sigma2 : float
        The model parameters (``0 < alpha <= 1``).
    theta_range : (float, float), optional
        ``(theta_min, theta_max)``; default half and twice the float critical theta.
    tol : float
        Width to which both brackets are refined.
    prec : int
        Working precision in bits.
    """
    prec = _check_prec(prec)
    if isinstance(k, bool) or not isinstance(k, int) or not 2 <= k <= 8:
        raise ValueError(f"`k` must be an integer in [2, 8], got {k!r}")
    model = Model(1.0, alpha, beta, sigma2, f"onehot(k={k})")
    with mpmath.workdps(20):
        if theta_range is None:
            tcs = critical_thetas(k, model.alpha, model.beta, model.sigma2, theta_max=10.0 / model.beta)
            if not tcs:
                raise ValueError(f"no critical theta of the mixture in (0, {10.0 / model.beta}] at alpha = {alpha}")
            theta_range = (tcs[0] / 2, 2 * tcs[0])
        t_min, t_max = (float(x) for x in theta_range)
        if not 0 < t_min < t_max:
            raise ValueError("`theta_range` must be (theta_min, theta_max) with 0 < theta_min < theta_max, "
                             f"got {theta_range!r}")
        floats = tuple(t for t in critical_thetas(k, model.alpha, model.beta, model.sigma2, theta_max=t_max,
                                                  n_grid=200) if t >= t_min)
    nan = float("nan")
    E, dE, lam, dlam = _mixture_curve(k)
    with precision(prec):
        rest = [arb(model.alpha), arb(model.beta), arb(model.sigma2)]
        a, b = _fraction(t_min), _fraction(t_max)
        iso = isolate(lambda T: E(T, *rest), lambda T: dE(T, *rest), a, b, bracket_width=tol)
        iso_lam = isolate(lambda T: lam(T, *rest), lambda T: dlam(T, *rest), a, b)
        lam_positive = not iso_lam.roots and not iso_lam.undecided and lam(arb(t_min), *rest) > 0
        ok = (len(iso.roots) == 1 and not iso.undecided and lam_positive and iso.roots[0][2] > 0
              and E(arb(t_min), *rest) < 0)
        lo, hi = (float(iso.roots[0][0]), float(iso.roots[0][1])) if ok else (nan, nan)
        point_lo, point_hi = _bisect(model, t_min, t_max, tol)
    roots = tuple((float(x), float(y)) for x, y, _ in iso.roots)
    undecided = tuple((float(x), float(y)) for x, y in iso.undecided + iso_lam.undecided)
    return TransitionBracket(k=k, alpha=model.alpha, beta=model.beta, sigma2=model.sigma2, theta_min=t_min,
                             theta_max=t_max, lo=lo, hi=hi, point_lo=point_lo, point_hi=point_hi, certified=ok,
                             roots=roots, undecided=undecided, float_thetas=floats, boxes=iso.boxes + iso_lam.boxes,
                             prec=prec)
