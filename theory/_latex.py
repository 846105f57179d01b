"""A small LaTeX printer for the derivation objects (docs/design.md section 7).

sympy's default printer reorders terms, prints ``sigma2`` as ``\\sigma_{2}`` and
``Derivative`` badly; here parameters get their mathematical names, and the
order of terms is kept readable (``order="none"`` keeps sympy's internal order,
which for our sums is stable across runs).
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

from ._symbols import alpha, beta, m, m1, rho, s, sigma2, theta, y

SYMBOL_NAMES = {
    rho: r"\rho",
    theta: r"\theta",
    alpha: r"\alpha",
    beta: r"\beta",
    sigma2: r"\sigma^{2}",
    y: "y",
    s: "s",
    m: "m",
    m1: "m'",
}


class _Printer(LatexPrinter):
    def _print_Symbol(self, expr, style="plain"):
        if expr in SYMBOL_NAMES:
            return SYMBOL_NAMES[expr]
        return super()._print_Symbol(expr, style)


def tex(expr, **settings) -> str:
    """LaTeX for a sympy expression with the project's symbol names."""
    opts = {"order": "none", "mul_symbol": None}
    opts.update(settings)
    return _Printer(opts).doprint(sp.sympify(expr))


def plain(expr) -> str:
    """One-line plain-text form (``sympy.sstr``) for Markdown code spans."""
    return sp.sstr(expr).replace("sigma2", "sigma2")
