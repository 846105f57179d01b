"""The disk cache of generated numeric code: same numbers as a fresh derivation, keyed by the
theory's source, and harmless when disabled or damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import sympy as sp

import sigrec.theory._cache as cache
from sigrec.theory._symbols import ARGS, rho, theta


def _expr_build(calls):
    def build():
        calls.append(1)
        return ARGS, (sp.exp(theta * rho) / (1 + rho**2), sp.sqrt(1 + theta**2) * rho), {"cse": True}
    return build


def test_a_cached_function_equals_the_fresh_one_and_skips_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    fresh = cache.cached_lambdify("test|a", _expr_build(calls))
    again = cache.cached_lambdify("test|a", _expr_build(calls))
    assert calls == [1]  # the second call read the file, no derivation
    r = np.linspace(-1, 1, 7)
    for a, b in zip(fresh(r, 0.7, 0.2, 1.1, 0.9), again(r, 0.7, 0.2, 1.1, 0.9)):
        np.testing.assert_array_equal(a, b)
    assert len(list(tmp_path.glob("*.py"))) == 1


def test_a_changed_theory_misses(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    cache.cached_lambdify("test|b", _expr_build(calls))
    monkeypatch.setattr(cache, "_digest", lambda: "0123456789abcdef")
    cache.cached_lambdify("test|b", _expr_build(calls))
    assert calls == [1, 1]


def test_disabled_and_damaged_caches_rebuild(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    calls = []
    cache.cached_lambdify("test|c", _expr_build(calls))
    cache.cached_lambdify("test|c", _expr_build(calls))
    assert calls == [1, 1] and cache.cache_dir() is None
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    cache.cached_lambdify("test|c", _expr_build(calls))
    (path,) = tmp_path.glob("*.py")
    path.write_text("this is not python")
    fn = cache.cached_lambdify("test|c", _expr_build(calls))
    assert calls == [1, 1, 1, 1]
    assert np.isfinite(fn(0.5, 1.0, 0.1, 1.0, 1.0)).all()


def test_the_effective_coefficients_agree_with_and_without_the_cache(tmp_path, monkeypatch):
    from sigrec.theory import Model, effective_drift
    import sigrec.theory._effective_evaluate as ev

    model = Model(0.5, 0.1)
    r = np.linspace(-0.9, 0.9, 5)
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    ev._numpy_functions.cache_clear()
    plain = effective_drift(model, r, 0.05, 30, 1000).drift
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    ev._numpy_functions.cache_clear()
    effective_drift(model, r, 0.05, 30, 1000)  # writes the cache
    ev._numpy_functions.cache_clear()
    cached = effective_drift(model, r, 0.05, 30, 1000).drift  # reads it
    ev._numpy_functions.cache_clear()
    np.testing.assert_array_equal(plain, cached)
    assert len(list(tmp_path.glob("*.py"))) == 2


def test_the_digest_covers_the_subpackages(tmp_path, monkeypatch):
    """A change in a file of a theory subpackage (such as ``_priors/``) changes the key."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "sub" / "b.py").write_text("B = 1\n")
    monkeypatch.setattr(cache, "__file__", str(tmp_path / "_cache.py"))
    cache._digest.cache_clear()
    try:
        before = cache._digest()
        (tmp_path / "sub" / "b.py").write_text("B = 2\n")
        cache._digest.cache_clear()
        assert cache._digest() != before
    finally:
        monkeypatch.undo()
        cache._digest.cache_clear()
    assert any(p.parent.name == "_priors" for p in Path(cache.__file__).parent.rglob("*.py"))
