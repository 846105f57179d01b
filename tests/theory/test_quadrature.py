import pytest
import sympy as sp

import sigrec.theory._derivation._quadrature as quad
from sigrec.theory import parse_prior
from sigrec.theory._derivation._lemmas import Lemma, informative_lemmas, tilted_first_moment


def test_lemmas_agree_with_quadrature_at_50_digits():
    res = quad.cross_check(n_points=1, dps=50, seed=3)
    assert res.passed, res.max_rel_diff
    assert res.tolerance == pytest.approx(1e-40)
    lemmas = {c.lemma for c in res.comparisons}
    assert {"tilted_mean", "tilted_first_moment", "informative_first_moment[rademacher]",
            "pooled_output[fixed]", "objective[rademacher]", "noise_mass[fixed]"} <= lemmas


def test_a_wrong_lemma_is_caught(monkeypatch):
    """Break the informative first moment by one part in 10^30 and re-derive: the
    check must fail, both on the lemma and on everything composed from it."""
    import sigrec.theory._derivation._scalar as der

    mean, moment = informative_lemmas(parse_prior("fixed"))
    bad = (mean, Lemma(moment.name, moment.statement, None,
                       (moment.rhs[0] * (1 + sp.Rational(1, 10**30)), moment.rhs[1])))
    monkeypatch.setattr(quad, "informative_lemmas", lambda prior: bad)
    monkeypatch.setattr(der, "informative_lemmas", lambda prior: bad)
    broken = der._derive.__wrapped__(parse_prior("fixed"))  # bypass the cache
    monkeypatch.setattr(quad, "derive", lambda prior: broken)
    res = quad.cross_check(n_points=1, dps=50, seed=3, priors=("fixed",))
    assert not res.passed
    failing = {c.lemma for c in res.comparisons if c.rel_diff > res.tolerance}
    assert {"informative_first_moment[fixed]", "pooled_output[fixed]", "objective[fixed]"} <= failing
    assert "tilted_mean" not in failing
    assert res.max_rel_diff < 1e-29


def test_a_wrong_stein_lemma_breaks_the_derivation(monkeypatch):
    """A Stein lemma off by 10^-30 makes the q-coefficient depend on rho: refused."""
    import sigrec.theory._derivation._scalar as der

    good = tilted_first_moment()
    bad = Lemma(good.name, good.statement, good.integral,
                (good.rhs[0], good.rhs[1] * (1 + sp.Rational(1, 10**30))))
    monkeypatch.setattr(der, "tilted_first_moment", lambda: bad)
    with pytest.raises(AssertionError, match="depends on rho"):
        der._derive.__wrapped__(parse_prior("fixed"))


def test_quadrature_itself_is_accurate():
    """The Gaussian integral helper against the moment generating function."""
    import mpmath
    with mpmath.workdps(60):
        for c, mu, s2 in [(0.3, 0.0, 1.0), (4.0, 1.5, 0.2), (-2.0, -0.7, 3.0)]:
            c, mu, s2 = (mpmath.mpf(v) for v in (c, mu, s2))
            exact0 = mpmath.exp(c * mu + c * c * s2 / 2)
            assert abs(quad.gaussian_integral(0, c, mu, s2) / exact0 - 1) < mpmath.mpf(10) ** -55
            exact1 = (mu + c * s2) * exact0
            assert abs(quad.gaussian_integral(1, c, mu, s2) / exact1 - 1) < mpmath.mpf(10) ** -55


def test_bad_precision_refused():
    with pytest.raises(ValueError, match="`dps`"):
        quad.cross_check(dps=5)
