"""The generated code shipped with the package (``theory/_codegen/_generated/``, ``theory/_codegen/_cache.py``).

A fresh machine's first run reads the built-in priors' lambdified functions from the package
instead of deriving them. The shipped code must be current (generated from this theory), must
be what a fresh derivation generates, and must be ignored when stale or broken.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import sigrec.theory._codegen._cache as cache
from sigrec.theory._derivation._symbols import ARGS, rho, theta


def test_the_shipped_code_is_current():
    """Fails after any change under ``theory/`` until the shipped code is regenerated (a stale
    copy is never used, so numbers stay right; only a fresh machine's first run slows down)."""
    assert cache.shipped_current(), (
        "theory/_codegen/_generated/ is stale: run `python -m sigrec.theory._codegen._generate` and commit theory/_codegen/_generated/")


def test_the_shipped_code_is_what_the_built_in_priors_ask_for():
    """Every function the built-in priors' evaluation asks for is shipped, and is read from there."""
    import sigrec.theory._effective._evaluate as ev
    from sigrec.theory import Model, effective_drift

    names = {p.stem for p in cache.SHIPPED.glob("*.code")}
    for spec in ("fixed", "rademacher"):
        for tag in (f"effective-moments|{spec}", f"effective-finite-L|{spec}", f"in-plane-variance|{spec}"):
            assert cache._key_name(tag, "numpy") in names, tag
    for module in ("numpy", "mpmath"):
        for tag in ("objective-poly", "slope-poly"):
            assert cache._key_name(tag, module) in names
    ev._numpy_functions.cache_clear()
    try:
        moments, _ = ev._numpy_functions(Model(2.0, 0.05).prior)
        assert str(cache.SHIPPED) in moments.__code__.co_filename
        assert np.isfinite(effective_drift(Model(2.0, 0.05), np.linspace(-0.9, 0.9, 5), 0.05, 3, 500).drift).all()
    finally:
        ev._numpy_functions.cache_clear()


@pytest.mark.slow
def test_the_shipped_code_is_a_fresh_derivations(tmp_path):
    """Generating again (every cache off, the derivations run) writes the same functions."""
    from sigrec.theory._codegen._generate import generate

    fresh = generate(tmp_path)
    shipped = {p.stem: p.read_text() for p in cache.SHIPPED.glob("*.code")}
    assert fresh == shipped


def _build(calls):
    def build():
        calls.append(1)
        return ARGS, (sp.exp(theta * rho) / (1 + rho**2),), {}
    return build


def _ship(folder, tag, source, digest):
    folder.mkdir(exist_ok=True)
    (folder / f"{cache._key_name(tag, 'numpy')}.code").write_text(source)
    (folder / "DIGEST").write_text(digest + "\n")


@pytest.fixture
def shipped_in(tmp_path, monkeypatch):
    """Point ``SHIPPED`` at an empty folder of the test's, user cache off."""
    folder = tmp_path / "gen"
    monkeypatch.setattr(cache, "SHIPPED", folder)
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    cache._shipped_ok.cache_clear()
    yield folder
    cache._shipped_ok.cache_clear()


WRONG = "def _lambdifygenerated(rho, theta, alpha, beta, sigma2):\n    return (0 * rho + 170.0,)\n"


def test_current_shipped_code_is_used_and_a_stale_one_is_not(shipped_in):
    calls = []
    # a current shipped function (here deliberately wrong, to see which one runs) is used ...
    _ship(shipped_in, "test|shipped", WRONG, cache._source_digest())
    fn = cache.cached_lambdify("test|shipped", _build(calls))
    assert calls == [] and fn(0.3, 1.0, 0.1, 1.0, 1.0)[0] == 170.0
    # ... and with another theory's digest it is ignored: the derivation runs
    _ship(shipped_in, "test|shipped", WRONG, "0123456789abcdef")
    cache._shipped_ok.cache_clear()
    fn = cache.cached_lambdify("test|shipped", _build(calls))
    assert calls == [1]
    np.testing.assert_allclose(fn(0.3, 1.0, 0.1, 1.0, 1.0)[0], np.exp(0.3) / 1.09, rtol=1e-14)


def test_a_broken_shipped_file_falls_back_to_the_derivation(shipped_in):
    calls = []
    _ship(shipped_in, "test|broken", "this is not python", cache._source_digest())
    fn = cache.cached_lambdify("test|broken", _build(calls))
    assert calls == [1]
    np.testing.assert_allclose(fn(0.3, 1.0, 0.1, 1.0, 1.0)[0], np.exp(0.3) / 1.09, rtol=1e-14)
