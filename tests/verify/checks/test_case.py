"""``Case`` validates its own fields (one place), with messages naming the field."""

import pytest

from sigrec.verify.checks import Case


def test_a_case_normalises_its_fields():
    c = Case("x", 1, R=5, L=20, d=3, prior="rademacher(0.5)", checks=["field.*"])
    assert c.alpha == 0.25 and isinstance(c.theta, float) and c.checks == ("field.*",)
    assert (c.R, c.L, c.d) == (5, 20, 3) and c.simulated
    assert Case("y", 2.0, 0.0).alpha == 0.0 and not Case("y", 2.0, 0.0).simulated
    assert Case.from_counts("z", 0.5, 300, 2700, 10).alpha == 0.1


@pytest.mark.parametrize("kwargs, needle", [
    (dict(theta=1.0), "`alpha`"),
    (dict(theta=1.0, R=5, L=20), "needs `d` too"),
    (dict(theta=1.0, R=-1, L=20, d=3), "`R` must be >= 0"),
    (dict(theta=1.0, R=5, L=0, d=3), "`L` must be >= 1"),
    (dict(theta=1.0, R=5, L=20, d=1), "`d` must be >= 2"),
    (dict(theta=1.0, R=30, L=20, d=3), "R <= L = 20"),
    (dict(theta=1.0, R=2.5, L=20, d=3), "`R`"),
    (dict(theta="a", alpha=0.1), "`theta`"),
    (dict(theta=-1.0, alpha=0.1), "theta"),
    (dict(theta=1.0, alpha=1.5), "alpha"),
    (dict(theta=1.0, alpha=0.1, beta=0.0), "beta"),
    (dict(theta=1.0, alpha=0.1, sigma2=float("nan")), "`sigma2`"),
    (dict(theta=1.0, alpha=0.1, prior="gauss"), "prior"),
    (dict(theta=1.0, alpha=0.1, checks=("nope",)), "no check matches 'nope'"),
])
def test_a_bad_field_is_refused_by_name(kwargs, needle):
    with pytest.raises(ValueError) as exc:
        Case("bad", **kwargs)
    assert needle in str(exc.value)
