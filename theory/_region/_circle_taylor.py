"""The ball functions of a ``k = 2`` region leaf (:mod:`theory._region._circle`): the jets and
Hessians its second-order forms read (:mod:`theory._region._circle_forms`), from forward-differentiated
straight-line programs.

**The derivatives** (up to the fifth of ``(j - c^2) / (theta alpha)``) are not sympy's ``diff`` of
the whole expressions, which swells them (quotient and product rules over the exponentials): the
expression is cut by ``cse`` into a program of small lines ``x_k = e_k(inputs, earlier x)``
(:class:`Program`), and a derivative is taken line by line (forward mode: ``dx_k = sum_s de_k/ds
ds``), each new derivative a new line of the same program, whose size grows linearly with the
derivatives asked for. The derivative along the circle ``d/dphi`` is the directional derivative with
the seeds ``dr1 = -r2``, ``dr2 = r1`` (lines themselves, so that it can be taken again). The
arithmetic is exact (sympy on small expressions); the code is printed for balls or numpy floats.

**The weights** (one-hot laws: :func:`onehot_probs`). Printed from the law's derivation, the field
is a program in the exponentials ``u_i = e^{beta theta r_i}`` and ``1 / D``; its derivatives are
sums of large terms (``u_i^2 / D^3`` and the like) that cancel, and a ball evaluation over a wide
box loses the cancellation (on a leaf of the far corner ``T'`` on the tile about ``pi/4`` has no
certified sign). :func:`_weighted_field` writes the same field in the weights ``n_i = p_i u_i / D``
and ``w = 1 / D`` (``p_i`` the law's probabilities), bounded quantities, taken as inputs of the
program with their derivatives as seeds (``dn_i = n_i (b dr_i + beta r_i d theta - d log D)``,
``dw = -w d log D``), so every derivative is a polynomial in ``n``, ``w``, ``r`` and the parameters;
:func:`weights` encloses the weights over a box by quotients in which each exponential enters once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import sympy as sp
from flint import arb, fmpq
from sympy.printing.numpy import NumPyPrinter

from .._certify._subspace_balls import _NAMESPACE, _ArbPrinter
from .._codegen._cache import cached_source
from .._derivation._subspace import PARAM_SYMBOLS, _derive


@dataclass(frozen=True)
class K2Field:
    """The ball functions a leaf reads, each ``f(r1, r2, theta, alpha, beta, sigma2) -> tuple``, of the
    reduced field (:mod:`theory._region._circle`; ``r`` on the unit circle for the circle ones), where
    a *jet* of ``F`` is ``(F, F_phi, F_theta, F_alpha)`` (read at a centre) and its *Hessian*
    ``(F_phiphi, F_phitheta, F_phialpha, F_thetatheta, F_thetaalpha, F_alphaalpha)`` (read over a box):

    ``tangent_jet``, ``tangent_hess`` -> those of ``T``; ``slope_jet``, ``slope_hess`` -> those of
    ``T'`` then ``lam``; ``end_hess`` -> ``(T_thetatheta, T_thetaalpha, T_alphaalpha)``;
    ``disk_jet`` -> ``(g1, g2, g1_theta, g1_alpha, g2_theta, g2_alpha, H11, H12, H22)`` (at a
    centre); ``disk_hess`` -> ``(g1_thetatheta, g1_thetaalpha, g1_alphaalpha)`` then those of ``g2``
    (at a point ``r``, over the parameter box); ``disk_slopes`` -> ``(H11, H12, H22)`` then, for each
    of them in turn, its derivatives in ``(r1, r2, theta, alpha)`` (over a box);
    ``floats`` -> ``(T, T', lam)`` and ``disk_floats`` -> ``(g1, g2, H11, H12, H22)`` in numpy floats
    (where the walk tries proofs and splits squares, :mod:`theory._region._circle_floats`; ``None``:
    everywhere, no hints); for the symmetric one-hot law only (:func:`symmetric_onehot`, else
    ``None``), ``diag_jet`` and ``diag_hess``: the jets and Hessians, along the diagonal direction
    ``s`` (``r = (s, s)``) in place of ``phi``, of ``G = g1 + g2``, ``G_s`` and ``A = d^2 J / d a^2``
    (``a`` along ``(1, -1)``), in turn, ``diag_g_jet`` and ``diag_g_hess`` those of ``G`` alone, and
    ``fork_jet``: the jet of ``T'''`` (read at a centre for its value, over a box for the first-order
    form; :mod:`theory._region._circle_symmetric`).
    A test hook replaces them (:func:`theory._region._circle.certify_region_k2` ``field=``)."""

    tangent_jet: Callable[..., Any]
    tangent_hess: Callable[..., Any]
    slope_jet: Callable[..., Any]
    slope_hess: Callable[..., Any]
    end_hess: Callable[..., Any]
    disk_jet: Callable[..., Any]
    disk_hess: Callable[..., Any]
    disk_slopes: Callable[..., Any]
    floats: Callable[..., Any] | None = None
    disk_floats: Callable[..., Any] | None = None
    diag_jet: Callable[..., Any] | None = None
    diag_hess: Callable[..., Any] | None = None
    diag_g_jet: Callable[..., Any] | None = None
    diag_g_hess: Callable[..., Any] | None = None
    fork_jet: Callable[..., Any] | None = None


def _point_power(p: arb, n: int) -> arb:
    """``p^n`` for an exact ``p`` and ``n >= 1`` (``0`` itself: python-flint's power of a ball that
    contains 0 is ``nan``)."""
    return arb(0) if p == 0 else p ** n


def power(x, n: int) -> arb:
    """A ball containing ``x^n`` for every ``x`` in the ball, ``n`` an integer: from its endpoints, by
    monotonicity (``x^n`` is monotone on each side of 0). The generated code's powers: repeated ball
    products (:func:`theory._certify._subspace_balls._ipow`, and python-flint's ``**``) lose the sign
    of a wide positive ball (``(2 +/- 0.54)^6`` contains 0 there, and its inverse is ``nan``)."""
    x = arb(x)
    if n < 0:
        return 1 / power(x, -n)
    if n <= 1:
        return x if n == 1 else arb(1)
    if not x.is_finite():
        return arb("nan")
    lo, hi = x.lower(), x.upper()
    if n % 2 == 0 and lo < 0 < hi:
        return arb(0).union(_point_power(max(-lo, hi), n))
    return _point_power(lo, n).union(_point_power(hi, n))


class _Printer(_ArbPrinter):
    """:class:`theory._certify._subspace_balls._ArbPrinter` with integer powers by :func:`power`."""

    def _print_Pow(self, expr, rational=False):
        if expr.exp.is_Integer:
            return f"_power({self._print(expr.base)}, {int(expr.exp)})"
        return super()._print_Pow(expr, rational)


#: the names the generated code uses, for balls and for numpy floats
_BALLS = {**_NAMESPACE, "_power": power}
_FLOATS = {"numpy": np}


# ----------------------------------------------------------------------------------
# straight-line programs and their forward derivatives


class Program:
    """A straight-line program over the symbols ``inputs``, and the forward derivatives of its lines.

    ``directions`` maps a direction's name to its seeds (input symbol -> expression; a missing input
    has seed 0)."""

    def __init__(self, inputs: tuple, expr, directions: dict):
        self.inputs = tuple(inputs)
        self.lines: dict = {}  # symbol -> expression, in order
        self.memo: dict = {}
        self.directions = {name: {s: self.add(e) for s, e in seeds.items()} for name, seeds in directions.items()}
        repl, (reduced,) = sp.cse([expr], symbols=self._names("c"))
        for s, e in repl:
            self.lines[s] = e
        self.root = self.add(reduced)

    def _names(self, prefix: str):
        return sp.numbered_symbols(f"_{prefix}")

    def add(self, expr):
        """A symbol (or number) for ``expr``: a new line unless it is an atom."""
        expr = sp.sympify(expr)
        if expr.is_Atom:
            return expr
        s = sp.Symbol(f"_d{len(self.lines)}")
        self.lines[s] = expr
        return s

    def d(self, x, direction: str):
        """The line (or number) of the derivative of ``x`` (a line, an input or a number) along
        ``direction``."""
        if not isinstance(x, sp.Symbol):
            return sp.S.Zero
        if (x, direction) not in self.memo:
            for s in self._needs(x, direction):  # in program order: each line's symbols are done before it
                if s in self.inputs:
                    self.memo[(s, direction)] = self.directions[direction].get(s, sp.S.Zero)
                    continue
                e = self.lines[s]
                terms = [sp.diff(e, y).xreplace({e: s}) * dy for y in e.free_symbols
                         if (dy := self.memo[(y, direction)]) != 0]
                self.memo[(s, direction)] = self.add(sp.Add(*terms)) if terms else sp.S.Zero
        return self.memo[(x, direction)]

    def _needs(self, x, direction: str) -> list:
        """The inputs and lines ``x`` depends on (itself included) whose derivative along ``direction``
        is not known yet, inputs first, then lines in program order."""
        seen, stack = set(), [x]
        while stack:
            s = stack.pop()
            if s in seen or (s, direction) in self.memo:
                continue
            seen.add(s)
            if s in self.lines:
                stack.extend(self.lines[s].free_symbols)
        order = {s: i for i, s in enumerate(self.lines)}
        return sorted(seen, key=lambda s: order.get(s, -1))

    def source(self, outputs, printer, name: str = "_program") -> str:
        """Python source of ``name(*inputs) -> tuple(outputs)``: the lines the outputs need, in order."""
        need: set = set()
        stack = [o for o in outputs if isinstance(o, sp.Symbol)]
        while stack:
            s = stack.pop()
            if s in need or s not in self.lines:
                continue
            need.add(s)
            stack.extend(x for x in self.lines[s].free_symbols if x not in need)
        lines = [(s, e) for s, e in self.lines.items() if s in need]
        # the subexpressions the lines share (exp(2 x), powers, products), each computed once: every
        # one is emitted before the first line that uses it (its symbols are that line's, defined above)
        repl, reduced = sp.cse([e for _, e in lines], symbols=sp.numbered_symbols("_s"), order="none")
        shared, body, done = dict(repl), [], set[sp.Symbol]()

        def emit(expr):
            for t in sorted(expr.free_symbols & shared.keys() - done, key=str):
                done.add(t)
                emit(shared[t])
                body.append(f"    {t} = {printer.doprint(shared[t])}")

        for (s, _), e in zip(lines, reduced, strict=True):
            emit(e)
            body.append(f"    {s} = {printer.doprint(e)}")
        args = ", ".join(str(s) for s in self.inputs)
        ret = ", ".join(printer.doprint(o) for o in outputs)
        return "\n".join([f"def {name}({args}):", *body, f"    return ({ret},)", ""])


# ----------------------------------------------------------------------------------
# the field of a law


@dataclass(frozen=True)
class _Field:
    """The reduced field of a law as a :class:`Program`: its lines
    ``g = (g1, g2)``, ``h = (H11, H12, H22)`` and ``circle = (T, T', lam)``."""

    p: Program
    g: tuple
    h: tuple
    circle: tuple

    def jets(self, F, along: str = "phi") -> tuple:
        """The jet and the Hessian of the line ``F`` (:class:`K2Field`), ``along`` the first direction."""
        d = self.p.d
        Fp, Ft, Fa = d(F, along), d(F, "theta"), d(F, "alpha")
        return [F, Fp, Ft, Fa], [d(Fp, along), d(Ft, along), d(Fa, along), d(Ft, "theta"), d(Ft, "alpha"),
                                 d(Fa, "alpha")]


@cache
def _field(law) -> _Field:
    """The gradient of ``(j - c^2) / (theta alpha)`` (:mod:`theory._region._circle`) and its circle
    functions, with the directions ``r1``, ``r2``, ``theta``, ``alpha`` and ``phi`` (along the circle:
    ``dr/dphi = t = (-r2, r1)``)."""
    d = _derive(law)
    r1, r2 = d.r
    th, al = PARAM_SYMBOLS[0], PARAM_SYMBOLS[1]
    c, m = d.pooled
    n = [mi / al for mi in m]  # m is alpha times a function smooth down to alpha = 0
    reduced = th * al * (n[0] ** 2 + n[1] ** 2) + 2 * c * (r1 * n[0] + r2 * n[1])
    directions = {"r1": {r1: 1}, "r2": {r2: 1}, "theta": {th: 1}, "alpha": {al: 1}, "phi": {r1: -r2, r2: r1},
                  "diag": {r1: 1, r2: 1}, "anti": {r1: 1, r2: -1}}
    return _of_program(Program((r1, r2, *PARAM_SYMBOLS), reduced, directions), r1, r2)


def _of_program(p: Program, r1, r2) -> _Field:
    """The :class:`_Field` of the program ``p`` of the reduced objective (its root) on ``r = (r1, r2)``."""
    g1, g2 = p.d(p.root, "r1"), p.d(p.root, "r2")
    h = (p.d(g1, "r1"), p.d(g1, "r2"), p.d(g2, "r2"))
    T = p.add(-r2 * g1 + r1 * g2)
    return _Field(p, (g1, g2), h, (T, p.d(T, "phi"), p.add(r1 * g1 + r2 * g2)))


#: the weights of a one-hot law, inputs of :func:`_weighted_field` after ``r`` and the parameters
WEIGHTS = sp.symbols("n1 n2 w", positive=True)


@cache
def _weighted_field(law) -> _Field:
    """The reduced field of a one-hot law of ``k = 2`` (:func:`onehot_probs`: probabilities ``p_i``) as a
    program in ``(r1, r2, theta, alpha, beta, sigma2)`` and the **weights** ``n_i = p_i u_i / D`` and
    ``w = 1 / D`` (``u_i = e^{b r_i}``, ``b = beta theta``, ``D = alpha (p_1 u_1 + p_2 u_2) + 1 - alpha``;
    module doc): ``(j - c^2) / (theta alpha) = theta alpha |n|^2 + 2 c <r, n>``, with the derivatives of
    the weights as seeds, from ``d log D = alpha b <n, dr> + alpha beta <n, r> d theta + (n1 + n2 - w) d
    alpha``: ``dn_i = n_i (b dr_i + beta r_i d theta - d log D)``, ``dw = -w d log D``. The program does
    not depend on the probabilities (only the weights do: :func:`weights`)."""
    d = _derive(law)
    r1, r2 = d.r
    th, al, be, _ = PARAM_SYMBOLS
    n1, n2, w = WEIGHTS
    b = be * th

    def seeds(dr: tuple, dth: int, dal: int) -> dict:
        dlog = al * b * (n1 * dr[0] + n2 * dr[1]) + al * be * (n1 * r1 + n2 * r2) * dth + (n1 + n2 - w) * dal
        out = {n1: n1 * (b * dr[0] + be * r1 * dth - dlog), n2: n2 * (b * dr[1] + be * r2 * dth - dlog),
               w: -w * dlog, r1: dr[0], r2: dr[1], th: dth, al: dal}
        return {s: sp.expand(e) for s, e in out.items() if e != 0}

    directions = {"r1": seeds((1, 0), 0, 0), "r2": seeds((0, 1), 0, 0), "theta": seeds((0, 0), 1, 0),
                  "alpha": seeds((0, 0), 0, 1), "phi": seeds((-r2, r1), 0, 0), "diag": seeds((1, 1), 0, 0),
                  "anti": seeds((1, -1), 0, 0)}
    reduced = th * al * (n1 ** 2 + n2 ** 2) + 2 * d.pooled[0] * (r1 * n1 + r2 * n2)
    return _of_program(Program((r1, r2, *PARAM_SYMBOLS, *WEIGHTS), reduced, directions), r1, r2)


def weights(r1: arb, r2: arb, theta: arb, alpha: arb, beta: arb, probs: tuple = (fmpq(1, 2), fmpq(1, 2))) -> tuple:
    """Balls containing the weights ``(n1, n2, w)`` (:func:`_weighted_field`) of the one-hot law with the
    probabilities ``probs`` (exact) for every point of the balls, each a quotient in which ``alpha`` and
    the exponentials enter once or twice: ``n_i = 1 / (alpha (1 + (p_j / p_i) e^{b (r_j - r_i)}) + (1 -
    alpha) e^{-b r_i} / p_i)``, ``w = 1 / (alpha (p_1 u_1 + p_2 u_2 - 1) + 1)``. On the diagonal (``r1``
    and ``r2`` the same ball: one variable) ``e^{b (r2 - r1)}`` is exactly 1."""
    b = beta * theta
    q = arb(1) if r1 is r2 else (b * (r2 - r1)).exp()
    p1, p2 = arb(probs[0]), arb(probs[1])
    one = arb(1)
    n1 = one / (alpha * (1 + arb(probs[1] / probs[0]) * q) + (1 - alpha) * (-b * r1).exp() / p1)
    n2 = one / (alpha * (1 + arb(probs[0] / probs[1]) / q) + (1 - alpha) * (-b * r2).exp() / p2)
    w = one / (alpha * (p1 * (b * r1).exp() + p2 * (b * r2).exp() - 1) + 1)
    return n1, n2, w


def _in_weights(program: Callable[..., Any], probs: tuple) -> Callable[..., Any]:
    """``f(r1, r2, theta, alpha, beta, sigma2)``: ``program`` (of :func:`_weighted_field`) at the
    weights of its arguments (:func:`weights`, for the probabilities ``probs``); ``f.program`` is
    ``program``."""

    def f(r1, r2, theta, alpha, beta, sigma2):
        return program(r1, r2, theta, alpha, beta, sigma2, *weights(r1, r2, theta, alpha, beta, probs))

    f.program = program  # type: ignore[attr-defined]
    return f


def _circle_outputs(f: _Field, i: int, part: int) -> list:
    return f.jets(f.circle[i])[part]


def _dg(f: _Field) -> list:
    """``(g1_theta, g1_alpha)``, ``(g2_theta, g2_alpha)``: lines of ``f``."""
    return [(f.p.d(g, "theta"), f.p.d(g, "alpha")) for g in f.g]


def _diagonal_lines(f: _Field) -> list:
    """The jets and Hessians along the diagonal of ``G``, ``G_s`` and ``A`` (:class:`K2Field`)."""
    d = f.p.d
    G = d(f.p.root, "diag")
    return [f.jets(F, "diag") for F in (G, d(G, "diag"), d(d(f.p.root, "anti"), "anti"))]


def _fork(f: _Field) -> list:
    d = f.p.d
    T3 = d(d(f.circle[1], "phi"), "phi")
    return [T3, *(d(T3, v) for v in ("phi", "theta", "alpha"))]


#: each function of :class:`K2Field`: ``(printed for balls, its outputs as lines of a _Field)``
_OUTPUTS: dict[str, tuple[bool, Callable[[_Field], Any]]] = {
    "tangent_jet": (True, lambda f: _circle_outputs(f, 0, 0)),
    "tangent_hess": (True, lambda f: _circle_outputs(f, 0, 1)),
    "slope_jet": (True, lambda f: _circle_outputs(f, 1, 0) + _circle_outputs(f, 2, 0)),
    "slope_hess": (True, lambda f: _circle_outputs(f, 1, 1) + _circle_outputs(f, 2, 1)),
    "end_hess": (True, lambda f: _circle_outputs(f, 0, 1)[3:]),
    "disk_jet": (True, lambda f: (*f.g, *_dg(f)[0], *_dg(f)[1], *f.h)),
    "disk_hess": (True, lambda f: [e for gt, ga in _dg(f)
                                   for e in (f.p.d(gt, "theta"), f.p.d(gt, "alpha"), f.p.d(ga, "alpha"))]),
    "disk_slopes": (True, lambda f: (*f.h, *(f.p.d(e, v) for e in f.h for v in ("r1", "r2", "theta", "alpha")))),
    "floats": (False, lambda f: f.circle),
    "disk_floats": (False, lambda f: (*f.g, *f.h)),
}
#: the functions of the symmetric one-hot law only
_DIAGONAL: dict[str, tuple[bool, Callable[[_Field], Any]]] = {
    "diag_jet": (True, lambda f: [e for jet, _ in _diagonal_lines(f) for e in jet]),
    "diag_hess": (True, lambda f: [e for _, hess in _diagonal_lines(f) for e in hess]),
    "diag_g_jet": (True, lambda f: _diagonal_lines(f)[0][0]),
    "diag_g_hess": (True, lambda f: _diagonal_lines(f)[0][1]),
    "fork_jet": (True, _fork),
}


@cache
def k2_field(law) -> K2Field:
    """The :class:`K2Field` of a ``k = 2`` law, derived symbolically (:func:`_field`) and printed for balls
    (or numpy floats); for a one-hot law, the ball functions are those of :func:`_weighted_field`, read
    at the weights of their arguments (:func:`weights`). Each function's source goes through the disk
    cache of generated code (:func:`theory._codegen._cache.cached_source`, keyed by the law's spec and
    the generating modules), so a process that finds them all there derives nothing."""
    table = {**_OUTPUTS, **(_DIAGONAL if symmetric_onehot(law) else {})}
    probs = onehot_probs(law)
    if probs is None:
        return K2Field(**{name: _program(law, name, balls, outputs) for name, (balls, outputs) in table.items()})
    return K2Field(**{name: _in_weights(_program(law, name, True, outputs, weighted=True), probs) if balls
                      else _program(law, name, balls, outputs) for name, (balls, outputs) in table.items()})


def _program(law, name: str, balls: bool, outputs: Callable[[_Field], Any],
             weighted: bool = False) -> Callable[..., Any]:
    def build() -> str:
        f = (_weighted_field if weighted else _field)(law)
        return f.p.source(outputs(f), _Printer() if balls else NumPyPrinter())

    tag = "k2w" if weighted else "k2"
    return cached_source(f"{tag}-{name}|{law.spec}", build, _BALLS if balls else _FLOATS)


def onehot_probs(law) -> tuple | None:
    """The probabilities ``(p_1, p_2)`` (exact) of a one-hot law of ``k = 2``, whose MGF is exactly
    ``p_1 e^{t1} + p_2 e^{t2}``, else ``None``."""
    if getattr(law, "k", None) != 2:
        return None
    t1, t2 = sp.symbols("t1 t2", real=True)
    mgf = sp.expand(law.mgf((t1, t2)))
    p = [mgf.coeff(sp.exp(t)) for t in (t1, t2)]
    if not all(x.is_Rational and x > 0 for x in p) or sp.simplify(mgf - p[0] * sp.exp(t1) - p[1] * sp.exp(t2)) != 0:
        return None
    return fmpq(int(p[0].p), int(p[0].q)), fmpq(int(p[1].p), int(p[1].q))


def symmetric_onehot(law) -> bool:
    """Whether ``law`` is the one-hot law of ``k = 2`` with equal probabilities: its MGF is exactly
    ``(e^{t1} + e^{t2}) / 2`` (then every zero of ``g`` lies on the diagonal and ``T`` is odd about
    ``phi = pi/4`` and ``-3 pi/4``: :mod:`theory._region._circle_symmetric`)."""
    if getattr(law, "k", None) != 2:
        return False
    t1, t2 = sp.symbols("t1 t2", real=True)
    return sp.simplify(law.mgf((t1, t2)) - (sp.exp(t1) + sp.exp(t2)) / 2) == 0
