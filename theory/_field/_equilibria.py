"""Equilibria of the subspace flow and their stability (docs/subspace.md).

Flow ``V(r) = g - <r, g> r`` (:mod:`theory._derivation._subspace`). Its Jacobian is
``DV = H - r (g + H r)^T - <r, g> I``. Equilibria are of two kinds:

* on the sphere ``|r| = 1`` (``q`` in ``span(U)``): ``g = lambda r`` with ``lambda = <r, g>``.
  The tangent space ``r^perp`` is invariant under ``DV`` and ``r^T DV v = -<g, v> = 0`` for
  ``v`` in it, so ``DV`` is block triangular: the *tangent* eigenvalues are those of
  ``P H P - lambda P`` on ``r^perp`` (the Riemannian Hessian of ``j`` on the sphere) and the
  *radial* one is ``-2 lambda`` (whether ``q`` leaves the span, for ``d > k``);
* in the open ball: ``lambda (1 - |r|^2) = 0`` forces ``g = 0`` (critical points of ``j``),
  with eigenvalues those of ``(I - r r^T) H``.

For ``onehot(k)`` with equal probabilities the symmetric mixture ``r = 1/sqrt(k) (1, ..., 1)``
is an equilibrium by symmetry; its tangent eigenvalue (multiplicity ``k - 1``: the
permutation group acts irreducibly on ``1^perp``) has the closed form of
:func:`mixture_eigenvalues`, derived by hand from ``dm_i/dr_j = c (delta_ij m_i - m_i m_j)``
and checked against the sympy Hessian in the tests. Everything here is numerical evidence
(mpmath / float64 Newton), not interval certification.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath
import numpy as np

from .._model import Model
from ._kinds import kind_of
from ._subspace import evaluate_subspace, evaluate_subspace_mp


@dataclass(frozen=True)
class Equilibrium:
    """One equilibrium of the subspace flow.

    ``kind`` is ``"sphere"`` or ``"interior"``; ``label`` its symmetry class
    (``"mixture+"``, ``"mixture-"``, ``"specialised(j)"``, ``"anti-specialised(j)"``, ``"tilted"``:
    :mod:`theory._field._kinds`);
    ``tangent`` the eigenvalues on the sphere's tangent space (interior: all of
    ``(I - r r^T) H``), ``radial`` the eigenvalue ``-2 lambda`` (``None`` inside);
    ``stable`` when every real part is negative.
    """

    r: tuple
    kind: str
    label: str
    lam: float
    tangent: tuple
    radial: float | None
    stable: bool


def mixture_eigenvalues(k: int, theta, alpha, beta=1, sigma2=1):
    """Closed form ``(tangent, radial)`` at the mixture ``r = 1/sqrt(k) (1, ..., 1)`` of
    ``onehot(k)`` (equal probabilities), mpmath numbers at the caller's precision.

    With ``c = beta theta``, informative mass ``w = alpha e^{c/sqrt k}/(alpha e^{c/sqrt k} + 1 - alpha)``
    and ``mu = w/k`` (each ``m_i``)::

        lambda  = 2 theta mu [theta c w (1 - w)/sqrt(k) + beta sigma2 (sqrt(k) + c (1 - w))]
        tangent = 2 theta mu [theta c^2 mu (2 - w) + beta sigma2 c (2 + c (1 - w)/sqrt(k))] - lambda

    and the radial eigenvalue is ``-2 lambda``.
    """
    t, a, b, s2 = (mpmath.mpf(v) for v in (theta, alpha, beta, sigma2))
    rk = mpmath.sqrt(k)
    c = b * t
    e = a * mpmath.exp(c / rk)
    w = e / (e + 1 - a)
    mu = w / k
    lam = 2 * t * mu * (t * c * w * (1 - w) / rk + b * s2 * (rk + c * (1 - w)))
    curv = 2 * t * mu * (t * c * c * mu * (2 - w) + b * s2 * c * (2 + c * (1 - w) / rk))
    return curv - lam, -2 * lam


def critical_thetas(k: int, alpha, beta=1, sigma2=1, theta_max=10.0, n_grid=400, dps=30, tol=1e-12):
    """Every ``theta`` in ``(0, theta_max]`` where the mixture's tangent eigenvalue changes sign
    (grid scan, then bisection to ``tol``), as floats, ascending."""
    with mpmath.workdps(dps):
        def sign(t):
            return mpmath.sign(mixture_eigenvalues(k, t, alpha, beta, sigma2)[0])

        grid = [theta_max * (i + 1) / n_grid for i in range(n_grid)]
        roots = []
        for lo, hi in itertools.pairwise(grid):
            s_lo = sign(lo)
            if s_lo == 0:
                roots.append(float(lo))
                continue
            if s_lo * sign(hi) < 0:
                a, b = mpmath.mpf(lo), mpmath.mpf(hi)
                while b - a > tol:
                    mid = (a + b) / 2
                    a, b = (mid, b) if sign(mid) == s_lo else (a, mid)
                roots.append(float((a + b) / 2))
        return roots


def _jacobian(r, g, H):
    """``DV = H - r (g + H r)^T - <r, g> I`` and ``<r, g>`` from mpmath values."""
    r, g, H = (np.array(x, dtype=object) for x in (r, g, H))
    lam = r @ g
    return H - np.outer(r, g + H @ r) - lam * np.eye(len(r), dtype=object), lam


def classify(model: Model, r, dps: int = 30) -> Equilibrium:
    """Stability of the equilibrium at ``r`` from the Jacobian evaluated in mpmath."""
    k = model.k
    with mpmath.workdps(dps):
        vals = evaluate_subspace_mp(model, r, dps)
        rr = [mpmath.mpf(x) for x in r]
        DV, lam = _jacobian(rr, vals["gradient"], [[vals["hessian"][i, j] for j in range(k)] for i in range(k)])
        norm = mpmath.sqrt(sum(x * x for x in rr))
        on_sphere = abs(norm - 1) < mpmath.mpf(10) ** (-dps // 2)
        if on_sphere:
            basis = _tangent_basis(np.array([float(x) for x in rr]))
            B = mpmath.matrix([[mpmath.mpf(basis[i, j]) for j in range(k - 1)] for i in range(k)])
            block = B.T * mpmath.matrix(DV.tolist()) * B if k > 1 else mpmath.matrix(0, 0)
            tangent = tuple(complex(x) for x in mpmath.eig(block)[0]) if k > 1 else ()
            radial = float(-2 * lam)
        else:
            tangent = tuple(complex(x) for x in mpmath.eig(mpmath.matrix(DV.tolist()))[0])
            radial = None
    eig_real = [z.real for z in tangent] + ([radial] if radial is not None else [])
    tangent = tuple(z.real if abs(z.imag) < 1e-20 else z for z in sorted(tangent, key=lambda z: z.real))
    return Equilibrium(r=tuple(float(x) for x in r), kind="sphere" if on_sphere else "interior",
                       label=_label(model, np.array([float(x) for x in r])), lam=float(lam), tangent=tangent,
                       radial=radial,
                       stable=all(x < 0 for x in eig_real))


def _tangent_basis(r: np.ndarray) -> np.ndarray:
    """An orthonormal basis of ``r^perp`` (columns)."""
    q, _ = np.linalg.qr(np.column_stack([r, np.eye(len(r))]))
    return q[:, 1:len(r)]


def _label(model: Model, r: np.ndarray) -> str:
    """``pole+``/``pole-`` for ``k = 1``; else the kind of :func:`theory._field._kinds.kind_of`."""
    if len(r) == 1:
        return "pole+" if r[0] > 0 else "pole-"
    return kind_of(model.law, r)


def _starts(k: int, rng: np.random.Generator, n_random: int) -> list:
    starts = []
    for size in range(1, k + 1):
        for subset in itertools.combinations(range(k), size):
            for sign in (1, -1):
                for rest in (0.0, 0.3, -0.3):
                    v = np.full(k, rest * sign)
                    v[list(subset)] = sign
                    starts.append(v / np.linalg.norm(v))
    starts += [v / np.linalg.norm(v) for v in rng.normal(size=(n_random, k))]
    return starts


def _newton(fun, jac, x0, steps=60):
    x = np.array(x0, dtype=float)
    for _ in range(steps):
        try:
            dx = np.linalg.solve(jac(x), -fun(x))
        except np.linalg.LinAlgError:
            return None
        x = x + dx
        if not np.all(np.isfinite(x)) or np.linalg.norm(x) > 1e6:
            return None
        if np.linalg.norm(dx) < 1e-14:
            break
    return x if np.linalg.norm(fun(x)) < 1e-10 else None


def find_subspace_equilibria(model: Model, n_random: int = 40, seed: int = 0, dps: int = 30) -> list:
    """Equilibria of the flow, on the sphere (Newton on ``g = lambda r``, ``|r| = 1``) and inside
    (Newton on ``g = 0``), from the symmetric starts ``a 1_S + b 1_{S^c}`` and ``n_random`` random
    ones; deduplicated, each classified by :func:`classify`. Numerical evidence: a start set
    that misses an equilibrium misses it."""
    k = model.k
    rng = np.random.default_rng(seed)

    def ev(r):
        return evaluate_subspace(model, r / max(1.0, float(np.linalg.norm(r))))

    def sphere_fun(x):
        v = ev(x[:k])
        return np.append(v.gradient - x[k] * x[:k], x[:k] @ x[:k] - 1)

    def sphere_jac(x):
        v = ev(x[:k])
        top = np.column_stack([v.hessian - x[k] * np.eye(k), -x[:k]])
        return np.vstack([top, np.append(2 * x[:k], 0.0)])

    found = []
    for s in _starts(k, rng, n_random):
        lam0 = float(s @ ev(s).gradient)
        x = _newton(sphere_fun, sphere_jac, np.append(s, lam0))
        if x is not None:
            found.append(x[:k] / np.linalg.norm(x[:k]))
        for scale in (0.3, 0.7):
            y = _newton(lambda r: ev(r).gradient, lambda r: ev(r).hessian, scale * s)
            if y is not None and np.linalg.norm(y) < 1 - 1e-9:
                found.append(y)
    unique: list[np.ndarray] = []
    for r in found:
        if all(np.linalg.norm(r - u) > 1e-7 for u in unique):
            unique.append(r)
    return sorted((classify(model, _polish(model, r, dps), dps) for r in unique), key=lambda e: (e.kind, e.r))


def _polish(model: Model, r: np.ndarray, dps: int) -> list:
    """Refine a float equilibrium in mpmath (findroot on the same equations)."""
    k = model.k
    with mpmath.workdps(dps):
        if abs(np.linalg.norm(r) - 1) < 1e-9:
            lam0 = float(r @ evaluate_subspace(model, r).gradient)

            def eqs(*x):
                g = evaluate_subspace_mp(model, x[:k], dps)["gradient"]
                return [g[i] - x[k] * x[i] for i in range(k)] + [sum(xi * xi for xi in x[:k]) - 1]

            sol = mpmath.findroot(eqs, [mpmath.mpf(v) for v in r] + [mpmath.mpf(lam0)])
            return [sol[i] for i in range(k)]
        sol = mpmath.findroot(lambda *x: evaluate_subspace_mp(model, x, dps)["gradient"],
                              [mpmath.mpf(v) for v in r])
        return [sol[i] for i in range(k)] if isinstance(sol, mpmath.matrix) else [sol]  # k = 1: a 1x1 matrix too
