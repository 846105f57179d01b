"""Ball functions of a ``k = 2`` law's region field printed from its derivation (theory._region._circle_taylor),
the references the tests compare the walk's functions with: not used by the walk."""

from __future__ import annotations

from functools import cache

from sigrec.theory._region import _circle_taylor as taylor


def balls(field, outputs):
    """The ball function of the lines ``outputs`` of the :class:`taylor._Field` ``field``: the source
    :meth:`taylor.Program.source` writes, run in the generated code's namespace."""
    ns = dict(taylor._BALLS)
    exec(compile(field.p.source(outputs, taylor._Printer()), "<k2 _program>", "exec"), ns)  # printed from sympy
    return ns["_program"]


@cache
def first_order_field(law):
    """``f(r1, r2, *params) -> (F_phi, F_theta, F_alpha)`` for ``F`` in ``(T, T', lam)`` in turn (9 balls):
    the gradient a first-order (mean-value) form reads over the whole box, the reference the
    second-order form is compared with."""
    f = taylor._field(law)
    return balls(f, [f.p.d(F, v) for F in f.circle for v in ("phi", "theta", "alpha")])
