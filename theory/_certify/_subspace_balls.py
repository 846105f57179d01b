"""Ball arithmetic for the subspace flow: the derived field in python-flint ``arb``, the Krawczyk
operator and certified inertia (docs/subspace-certificates.md).

**Field in balls.** The sympy gradient ``g`` and Hessian ``H`` of :func:`theory._derivation._subspace.derive_subspace`
are lambdified with a printer that writes every rational as ``arb(p)/arb(q)`` (a ball that contains
it: ``1/3`` is never a float) and routes ``exp``, ``sqrt``, ... to the ``arb`` methods, so one call
on balls ``r_i`` and parameters returns balls that contain ``g`` and ``H`` at every point of the box.

**Krawczyk.** For ``F: R^n -> R^n`` with Jacobian enclosure ``J(Z)`` on a box ``Z`` with centre
``c`` and any real matrix ``Y``, ``K(Z) = c - Y F(c) + (I - Y J(Z)) (Z - c)``. If ``K(Z)`` lies in
the interior of ``Z`` then ``F`` has exactly one zero in ``Z`` and it lies in ``K(Z)`` (Krawczyk;
Moore, Kearfott, Cloud, *Introduction to Interval Analysis*, 2009, th. 8.2; Rump's
epsilon-inflation chooses the box). When the parameters are balls the statement holds for every
parameter value in them (each enclosure holds pointwise).

**Inertia.** For a real symmetric matrix ``S`` enclosed entrywise by ``M`` and any real matrix
``Q`` (here the float eigenvectors of ``mid M``), ``Q^T S Q`` is enclosed by ``Q^T M Q``. When
every Gershgorin interval of ``Q^T M Q`` excludes 0, ``Q^T S Q`` is nonsingular (so ``Q`` is),
the intervals left and right of 0 are disjoint unions and hold as many eigenvalues as intervals;
Sylvester's law of inertia then gives the inertia of ``S`` itself (congruence by a nonsingular
``Q``, orthogonal or not).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp
from flint import arb, arb_mat
from sympy.printing.pycode import PythonCodePrinter

from .._derivation._subspace import PARAM_SYMBOLS, _derive
from .._laws._vector import SignalLaw


class _ArbPrinter(PythonCodePrinter):
    """Python code whose numbers are balls: rationals ``arb(p)/arb(q)``, floats from their digits."""

    def _print_Rational(self, expr):
        return f"_arb({expr.p})/_arb({expr.q})"

    _print_Half = _print_Rational

    def _print_Float(self, expr):
        return f"_arb('{sp.Float(expr)!s}')"

    def _print_Pow(self, expr, rational=False):
        if expr.exp.is_Integer:  # python-flint's ``ball ** n`` is nan on a ball that contains 0
            return f"_ipow({self._print(expr.base)}, {int(expr.exp)})"
        return super()._print_Pow(expr, rational)


def _ipow(x, n: int):
    """``x ** n`` for an integer ``n`` by repeated products (even powers through ``|x|``)."""
    x = arb(x)
    if n < 0:
        return 1 / _ipow(x, -n)
    base, out = (abs(x) if n % 2 == 0 else x), arb(1)
    while n:
        if n & 1:
            out = out * base
        base, n = base * base, n >> 1
    return out


class _ArbMath:
    """Stands in for ``math`` in the generated code: ``math.exp(x)`` is ``arb(x).exp()``."""

    def __getattr__(self, name):
        if name == "pi":
            return arb.pi()
        if name == "e":
            return arb(1).exp()
        method = getattr(arb, name)
        return lambda x, *rest: method(arb(x), *rest)


#: the names the generated code uses
_NAMESPACE = {"_arb": arb, "_ipow": _ipow, "math": _ArbMath()}


@cache
def _ball_functions(law: SignalLaw):
    d = _derive(law)
    return sp.lambdify((*d.r, *PARAM_SYMBOLS), (d.gradient, d.hessian),
                       modules=[_NAMESPACE], printer=_ArbPrinter(), cse=True)


def ball_field(law: SignalLaw):
    """``field(r, params) -> (g, H)``: balls (lists; ``H`` a list of rows) enclosing the gradient
    and Hessian of ``j`` on the box ``r`` (``k`` balls) for the parameter balls ``params``."""
    fn = _ball_functions(law)

    def field(r, params):
        g, h = fn(*r, *params)
        return [arb(x) for x in g], [[arb(x) for x in row] for row in h]

    return field


def sphere_system(field):
    """Equilibria on the sphere as zeros of ``F(r, lam) = (g - lam r, (1 - |r|^2)/2)``.

    The Jacobian ``[[H - lam I, -r], [-r^T, 0]]`` is symmetric and nonsingular exactly when the
    tangent Hessian ``P (H - lam I) P`` on ``r^perp`` is (a bordered matrix): the radial
    degeneracy of the projected field ``g - <r, g> r`` at ``|r| = 1`` is removed by the
    multiplier ``lam``, which at a zero equals ``<r, g>``."""

    def system(z, params):
        k = len(z) - 1
        r, lam = z[:k], z[k]
        g, h = field(r, params)
        F = [g[i] - lam * r[i] for i in range(k)] + [(1 - sum(x * x for x in r)) / 2]
        J = [[h[i][j] - (lam if i == j else 0) for j in range(k)] + [-r[i]] for i in range(k)]
        J.append([-x for x in r] + [arb(0)])
        return F, J

    return system


def interior_system(field):
    """Equilibria inside the ball: zeros of ``g`` (Jacobian ``H``)."""

    def system(z, params):
        return field(list(z), params)

    return system


def _vector(xs) -> arb_mat:
    return arb_mat([[x] for x in xs])


def _float_matrix(M) -> np.ndarray:
    return np.array([[float(x.mid()) for x in row] for row in M])


def newton_refine(system, z, params, steps: int = 8) -> list:
    """Newton iterates at the working precision on the midpoints (no rigour needed: the
    Krawczyk test decides); returns exact ball centres."""
    z = [arb(arb(x).mid()) for x in z]
    mid_params = [arb(arb(p).mid()) for p in params]
    for _ in range(steps):
        F, J = system(z, mid_params)
        try:
            dz = arb_mat(J).solve(_vector(F))
        except (ZeroDivisionError, ValueError):
            try:
                dz = arb_mat(np.linalg.inv(_float_matrix(J)).tolist()) * _vector(F)
            except np.linalg.LinAlgError:
                break
        z = [arb((z[i] - dz[i, 0]).mid()) for i in range(len(z))]
    return z


def krawczyk(system, centre, params, rad: float, tries: int = 8):
    """Search a box around ``centre`` on which the Krawczyk test proves a unique zero.

    Returns ``(Z, K, reason)``: the box ``Z`` (list of balls), the enclosure ``K(Z)`` of the zero
    (inside ``Z``) and ``""``, or ``(None, None, reason)`` when the test failed on every try
    (epsilon-inflation from radius ``rad`` times ``1 + |c_i|``, doubled each try, at least twice
    the Newton correction)."""
    c = [arb(arb(x).mid()) for x in centre]
    n = len(c)
    Fc, Jc = system(c, params)
    try:
        Y = arb_mat(np.linalg.inv(_float_matrix(Jc)).tolist())
    except np.linalg.LinAlgError:
        return None, None, ("the Jacobian at the centre is singular in float64 (a degenerate equilibrium, "
                            "e.g. one of a continuum)")
    YF = Y * _vector(Fc)
    rho = [max(rad * (1 + abs(float(c[i].mid()))), 4 * float(abs(YF[i, 0]).upper())) for i in range(n)]
    eye = arb_mat([[arb(int(i == j)) for j in range(n)] for i in range(n)])
    last = "no try"
    for _ in range(tries):
        Z = [arb(c[i], rho[i]) for i in range(n)]
        _, JZ = system(Z, params)
        step = (eye - Y * arb_mat(JZ)) * _vector([arb(0, rho[i]) for i in range(n)])
        K = [c[i] - YF[i, 0] + step[i, 0] for i in range(n)]
        if all(Z[i].contains_interior(K[i]) for i in range(n)):
            return Z, K, ""
        if not all(x.is_finite() for x in K):
            last = "the enclosure of the Jacobian on the box is not finite"
            break
        width = max(float(abs(K[i] - c[i]).upper()) / rho[i] for i in range(n))
        last = f"K(Z) not inside Z (largest |K - c| / radius {width:.3g})"
        rho = [max(2 * rho[i], 2 * float(abs(K[i] - c[i]).upper())) for i in range(n)]
    return None, None, last


def inertia(M) -> tuple | None:
    """Certified ``(n_negative, n_positive)`` of every real symmetric matrix enclosed by the
    square list of balls ``M`` (module doc), or ``None`` when a Gershgorin interval meets 0."""
    A = _float_matrix(M)
    _, Q = np.linalg.eigh((A + A.T) / 2)
    Qa = arb_mat(Q.tolist())
    C = Qa.transpose() * arb_mat([[arb(x) for x in row] for row in M]) * Qa
    n, neg, pos = len(M), 0, 0
    for i in range(n):
        radius = sum((abs(C[i, j]) for j in range(n) if j != i), arb(0))
        if C[i, i] - radius > 0:
            pos += 1
        elif C[i, i] + radius < 0:
            neg += 1
        else:
            return None
    return neg, pos
