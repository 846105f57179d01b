"""The printing layer of the notes: sympy objects to compact, paper-grade LaTeX.

sympy's default LaTeX printer reorders terms at random-looking places, prints the
symbol ``sigma2`` as ``\\sigma_{2}`` and its square as ``\\left(\\sigma^{2}\\right)^{2}``,
writes ``(-1 + \\rho)`` and never breaks a long display (docs/design.md section 7).
This module fixes each of those in one place:

* parameters print under their mathematical names, ``sigma2`` as ``\\sigma^{2}``, its
  powers as ``\\sigma^{4}``, ``\\sigma^{6}`` and its square root as ``\\sigma``;
* factors are ordered ``alpha, beta, sigma^2, theta, rho, m, m'`` (then any other symbol),
  sums put their positive terms first (``\\rho - 1``, ``1 - \\alpha``);
* :func:`compact` picks the shortest of a few equivalent forms (factored, collected
  in each symbol with factored coefficients) and :func:`tex` can *name* subexpressions
  (``m_c``, ``h``, ``b = \\beta\\theta``) so that a display refers to them instead of
  expanding them again;
* :func:`display` breaks a long ``lhs = sum`` into the lines of a ``split`` environment,
  using an estimate of the printed width (:func:`width`).

Every form printed is the sympy object itself or an expression that sympy shows to be
equal to it (:func:`same`); nothing is typed in by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp
from sympy.printing.latex import LatexPrinter

from ._derivation._symbols import alpha, beta, m, m1, rho, s, sigma2, theta, y

SYMBOL_NAMES = {
    alpha: r"\alpha",
    beta: r"\beta",
    sigma2: r"\sigma^{2}",
    theta: r"\theta",
    rho: r"\rho",
    y: "y",
    s: "s",
    m: "m",
    m1: "m'",
}
#: the order of factors in a product (any other symbol comes after these)
FACTOR_ORDER = (alpha, beta, sigma2, theta, rho, m, m1, y, s)

#: width, in units of :func:`width`, that fits the text block of an 11pt article (345 pt)
LINE_WIDTH = 50.0


class _Printer(LatexPrinter):
    """LaTeX printer with the project's names, ``\\sigma^{2k}`` powers and sum order."""

    def __init__(self, names, settings):
        super().__init__(settings)
        self._names = names

    def _print_Symbol(self, expr, style="plain"):
        if expr in self._names:
            return self._names[expr]
        return super()._print_Symbol(expr, style)

    def _print_Pow(self, expr):
        base, exp = expr.base, expr.exp
        if self._names.get(base) == r"\sigma^{2}" and exp.is_Rational and exp > 0:
            twice = 2 * exp
            if twice == 1:
                return r"\sigma"
            if twice.is_Integer:
                return rf"\sigma^{{{twice}}}"
        return super()._print_Pow(expr)

    def _as_ordered_terms(self, expr, order=None):
        # from lex order: simple terms first (``1 - \alpha + \alpha e^{b\rho}``), a negative constant
        # last (``\rho - 1``), and a positive term leading whenever there is one (``1 + b\rho``)
        terms = list(super()._as_ordered_terms(expr, order=order))
        key = {t: (bool(t.is_number and t.is_negative), sp.count_ops(abs(t) if t.is_number else
                                                                       (-t if t.could_extract_minus_sign() else t)),
                   not t.is_number, i) for i, t in enumerate(terms)}
        terms.sort(key=lambda t: key[t])
        lead = next((t for t in terms if not t.could_extract_minus_sign()), None)
        if lead is not None:
            terms.remove(lead)
            terms.insert(0, lead)
        return terms


def _sortable(expr, names):
    """Replace the named symbols by stand-ins whose names sort in :data:`FACTOR_ORDER`.

    sympy orders the factors of a product by the symbols' names; the stand-ins keep
    the assumptions of the symbols they replace, so no simplification changes.
    """
    table, printed = {}, {}
    for i, sym in enumerate(FACTOR_ORDER):
        if sym in expr.free_symbols:
            stand_in = sp.Symbol(f"_{i:02d}", **sym.assumptions0)
            table[sym] = stand_in
            printed[stand_in] = names.get(sym, SYMBOL_NAMES[sym])
    for sym, name in names.items():
        if sym not in table and isinstance(sym, sp.Symbol):
            printed[sym] = name
    return expr.xreplace(table), printed


def tex(expr, names: dict | None = None, **settings) -> str:
    """LaTeX for a sympy expression with the project's names and order.

    Parameters
    ----------
    expr : sympy expression (or anything :func:`sympy.sympify` accepts)
    names : dict, optional
        ``{subexpression: latex}``. Each subexpression is replaced (``subs``) by a
        placeholder printed as ``latex`` -- e.g. ``{critical_m: "m_c"}`` prints
        ``alpha_c`` through ``m_c``. A key that is a symbol only renames it.
    **settings
        Passed to sympy's :class:`~sympy.printing.latex.LatexPrinter`.
    """
    expr, symbol_names = _prepare(expr, names)
    return _tex_prepared(expr, symbol_names, settings)


def _prepare(expr, names):
    """Replace the named subexpressions by placeholder symbols; return both."""
    expr = sp.sympify(expr)
    symbol_names = {}
    for i, (sub, name) in enumerate(dict(names or {}).items()):
        sub = sp.sympify(sub)
        if isinstance(sub, sp.Symbol):
            symbol_names[sub] = name
            continue
        # a placeholder sorts where the first parameter it replaces would (``b = beta theta``
        # after ``alpha``, before ``sigma^2``); one without parameters sorts last
        first = min((FACTOR_ORDER.index(x) for x in sub.free_symbols if x in FACTOR_ORDER), default=90)
        ph = sp.Symbol(f"_{first:02d}z{i}", real=True)
        expr = expr.subs(sub, ph)
        symbol_names[ph] = name
    return expr, symbol_names


def _flip(expr):
    """``-c (m - 1)`` -> ``c (1 - m)``: a negative product takes the sign into one sum
    whose negation starts with a positive constant (printed unevaluated)."""
    if isinstance(expr, sp.Mul):
        args = [_flip(a) for a in expr.args]
        coeff, rest = sp.Mul(*args).as_coeff_mul()
        if coeff.is_negative:
            for i, a in enumerate(rest):
                if isinstance(a, sp.Add) and (-a).as_coeff_add()[0].is_positive:
                    flipped = sp.Add(*[-t for t in a.args], evaluate=False)
                    others = [x for j, x in enumerate(rest) if j != i]
                    lead = [] if coeff == -1 else [-coeff]
                    return sp.Mul(*lead, *others, flipped, evaluate=False)
        return sp.Mul(*args) if args != list(expr.args) else expr
    if isinstance(expr, (sp.Add, sp.Pow)) or (expr.args and isinstance(expr, sp.Function)):
        return expr.func(*[_flip(a) for a in expr.args])
    return expr


def _tex_prepared(expr, symbol_names, settings=None):
    expr, printed = _sortable(expr, symbol_names)
    expr = _flip(expr)
    printed.update({k: v for k, v in symbol_names.items() if k not in SYMBOL_NAMES})
    opts = {"mul_symbol": None}
    opts.update(settings or {})
    return _Printer(printed, opts).doprint(expr)


def same(shown, derived) -> bool:
    """Whether ``shown`` (a display form) is equal to ``derived`` (a derived object).

    Tried in increasing cost: expansion, then ``simplify`` of the difference with
    hyperbolic functions rewritten as exponentials.
    """
    diff = sp.sympify(shown) - sp.sympify(derived)
    if sp.expand(diff) == 0:
        return True
    if diff.has(sp.Float):  # simplify may round a small float away; display forms are exact
        return False
    diff = diff.rewrite(sp.exp)
    return sp.expand(diff) == 0 or sp.simplify(diff) == 0


def compact(expr, symbols=None):
    """The narrowest of a few equivalent forms of ``expr``.

    Candidates: ``expr``, :func:`sympy.factor`, :func:`sympy.factor_terms` and, for
    each symbol (``symbols`` or the free symbols), :func:`sympy.collect` of the expanded
    expression with factored coefficients. The narrowest printed form (:func:`width`)
    wins; ties keep the earlier candidate, so the choice is deterministic.
    """
    expr = sp.sympify(expr)
    cands = [expr, sp.factor(expr), sp.factor_terms(expr)]
    ex = sp.expand(expr)
    for sym in (symbols if symbols is not None else sorted(expr.free_symbols, key=str)):
        cands.append(sp.collect(ex, sym, evaluate=True, func=sp.factor))
    best = min(enumerate(cands), key=lambda ic: (width(tex(ic[1])), ic[0]))[1]
    return best


# ------------------------------------------------------------------- display width

_ONE = re.compile(r"\\(alpha|beta|gamma|delta|eta|theta|rho|sigma|xi|nu|mu|chi|pi|tau|phi|psi|omega|ell|infty|"
                  r"partial|cdot|leq|geq|le|ge|to|in|pm|mp|top|perp|dots|cdots|ldots|Delta|Sigma|Phi)\b")

#: the width of the other commands that print (every one not named here: 1)
_COMMANDS = {"sinh": 3.0, "cosh": 3.0, "tanh": 3.0, "log": 2.2, "exp": 2.4, "int": 1.5, "sum": 1.8, "lim": 2.0,
             "mathbb": 0.0, "langle": 0.6, "rangle": 0.6, "operatorname": 0.0}


def _group(s: str, i: int) -> tuple[str, int]:
    """The brace group starting at ``s[i] == '{'`` and the index after it."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return s[i + 1:j], j + 1
    return s[i + 1:], len(s)


def width(latex: str) -> float:
    """Estimated printed width of inline-style display math, in character units.

    A crude but monotone model: letters and Greek symbols count 1, binary operators
    and relations 1.6 (their spacing), ``\\frac{a}{b}`` the wider of ``a`` and ``b``,
    super- and subscripts 0.7 of their content, ``\\quad`` 1.8 and ``\\qquad`` 3.6.
    """
    s = latex
    for k in (r"\left", r"\right", r"\Bigl", r"\Bigr", r"\bigl", r"\bigr", r"\,", r"\!", r"\limits", r"\displaystyle"):
        s = s.replace(k, "")
    total, i = 0.0, 0
    while i < len(s):
        c, j = s[i], i + 1
        if s.startswith((r"\frac", r"\tfrac", r"\dfrac"), i):
            a, j = _group(s, s.index("{", i))
            b, j = _group(s, j)
            total += (0.75 if s.startswith(r"\tfrac", i) else 1.0) * max(width(a), width(b)) + 0.4
        elif s.startswith(r"\qquad", i):
            total, j = total + 3.6, i + 6
        elif s.startswith(r"\quad", i):
            total, j = total + 1.8, i + 5
        elif s.startswith(r"\sqrt", i):
            j = i + 5
            if j < len(s) and s[j] == "{":
                a, j = _group(s, j)
                total += width(a) + 1.2
        elif s.startswith((r"\text", r"\mathrm", r"\operatorname"), i):
            a, j = _group(s, s.index("{", i))
            total += 0.9 * len(a)
        elif mo := _ONE.match(s, i):
            total, j = total + 1.0, mo.end()
        elif c == "\\":
            cmd = re.match(r"\\([A-Za-z]+)", s[i:])
            total += _COMMANDS.get(cmd.group(1), 1.0) if cmd else 0.5  # else escaped punctuation
            j = i + (len(cmd.group(0)) if cmd else 2)
        elif c in "^_":
            a, j = _group(s, i + 1) if s[i + 1:i + 2] == "{" else (s[i + 1:i + 2], i + 2)
            total += 0.7 * width(a)
        elif c not in "{} ":
            total += 1.6 if c in "+-=<>" else (0.4 if c in "()[],.;:|'" else 1.0)
        i = j
    return total


# ------------------------------------------------------------------- broken displays

@dataclass(frozen=True)
class Display:
    """A display equation: one line, or the lines of a ``split`` environment.

    ``lines[0]`` starts with ``lhs &= ``; later lines start with ``&\\quad``. ``latex``
    is what goes between ``\\begin{equation*}`` and ``\\end{equation*}``.

    Attributes
    ----------
    lines : tuple of str
        The LaTeX lines of the equation, with ``&`` alignment marks; one line when it fits the width.
    """

    lines: tuple[str, ...]

    @property
    def latex(self) -> str:
        if len(self.lines) == 1:
            return self.lines[0].replace("&", "")
        return "\\begin{split}\n" + " \\\\\n".join(self.lines) + "\n\\end{split}"


def _signed_terms(expr, symbol_names) -> list[str]:
    """The terms of a sum in printed order, each with its sign (``+ t`` or ``- t``)."""
    sortable, _ = _sortable(expr, symbol_names)
    inverse = {stand: sym for sym, stand in ((sym, sp.Symbol(f"_{i:02d}", **sym.assumptions0))
                                             for i, sym in enumerate(FACTOR_ORDER))}
    probe = _Printer({}, {"mul_symbol": None})
    out = []
    for k, t in enumerate(probe._as_ordered_terms(sortable)):
        t = t.xreplace(inverse)
        neg = t.could_extract_minus_sign()
        body = _tex_prepared(-t if neg else t, symbol_names)
        out.append(("- " if neg else ("+ " if k else "")) + body)
    return out


def display(lhs: str, expr, names: dict | None = None, limit: float = LINE_WIDTH, rhs_tail: str = "") -> Display:
    """``lhs = expr`` as one line if it fits in ``limit``, else broken at the terms of a sum.

    A product ``c * (sum)`` is broken inside the sum (``c\\Bigl(... \\\\ ...\\Bigr)``).
    ``rhs_tail`` (e.g. ``" + O(\\eta^{3})"``) is appended to the last line.
    """
    expr, symbol_names = _prepare(expr, names)
    one = f"{lhs} &= {_tex_prepared(expr, symbol_names)}{rhs_tail}"
    if width(one.replace("&", "")) <= limit:
        return Display((one,))
    prefix, inner = "", expr
    if isinstance(expr, sp.Mul):
        adds = [a for a in expr.args if isinstance(a, sp.Add)]
        if len(adds) == 1:
            rest = sp.Mul(*[a for a in expr.args if a is not adds[0]])
            prefix, inner = _tex_prepared(rest, symbol_names) + r"\Bigl(", adds[0]
    if not isinstance(inner, sp.Add):
        return Display((one,))
    close = r"\Bigr)" if prefix else ""
    head = f"{lhs} &= {prefix}"
    lines, cur = [], head
    for t in _signed_terms(inner, symbol_names):
        fresh = cur == head or cur == "&\\quad "
        trial = cur + ("" if fresh else " ") + t
        if width(trial.replace("&", "")) > limit and not fresh:
            lines.append(cur)
            cur = "&\\quad " + t
        else:
            cur = trial
    lines.append(cur + close + rhs_tail)
    return Display(tuple(lines))
