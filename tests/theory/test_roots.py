"""Root isolation in ball arithmetic (:func:`theory._certify._roots.isolate`): brackets, separation,
double roots left undecided, roots on dyadic points."""

from flint import arb, ctx, fmpq

from sigrec.theory._certify._roots import isolate


def _iso(f, df, **kw):
    old = ctx.prec
    ctx.prec = 128
    try:
        return isolate(f, df, **kw)
    finally:
        ctx.prec = old


def test_simple_sign_change_is_bracketed():
    r = arb(1) / 3
    iso = _iso(lambda X: X - r, lambda X: 1 + 0 * X)
    assert not iso.undecided and len(iso.roots) == 1
    a, b, ds = iso.roots[0]
    assert a <= fmpq(1, 3) <= b and b - a <= fmpq(1, 10**10) and ds == 1


def test_two_nearby_roots_are_separated():
    r1, r2 = arb("0.2"), arb("0.2") + arb("1e-6")
    iso = _iso(lambda X: (X - r1) * (X - r2), lambda X: 2 * X - r1 - r2)
    assert not iso.undecided
    assert len(iso.roots) == 2
    (a1, b1, d1), (a2, _, d2) = sorted(iso.roots)
    assert b1 < a2 and d1 == -1 and d2 == 1
    assert a1 <= fmpq(1, 5) <= b1


def test_double_root_is_undecided_not_certified():
    r = arb(1) / 3
    iso = _iso(lambda X: (X - r) * (X - r), lambda X: 2 * (X - r))
    assert iso.undecided and not iso.roots
    lo, hi = iso.undecided[0]
    assert lo <= fmpq(1, 3) <= hi


def test_root_at_dyadic_point_is_still_found():
    iso = _iso(lambda X: 1 + 2 * X, lambda X: 2 + 0 * X)  # root exactly at -1/2
    assert not iso.undecided and len(iso.roots) == 1
    a, b, _ = iso.roots[0]
    assert a <= fmpq(-1, 2) <= b
