"""The disk cache of generated numeric code: same numbers as a fresh derivation, keyed by the
theory's source, and harmless when disabled or damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import sigrec.theory._codegen._cache as cache
from sigrec.theory._derivation._symbols import ARGS, rho, theta


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
    for a, b in zip(fresh(r, 0.7, 0.2, 1.1, 0.9), again(r, 0.7, 0.2, 1.1, 0.9), strict=True):
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
    import sigrec.theory._effective._evaluate as ev
    from sigrec.theory import Model, effective_drift

    model = Model(0.5, 0.1)
    r = np.linspace(-0.9, 0.9, 5)
    monkeypatch.setattr(cache, "_shipped_manifest", lambda: {})  # the user cache alone
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


# ------------------------------------------------------------------ the cache as a trust boundary
#
# Cached code is executed when read: only a file whose HMAC (keyed by the per-user secret in the
# folder) checks may run, and only in a folder and from a file private to the user.

R = np.linspace(-1, 1, 7)
POINT = (R, 0.7, 0.2, 1.1, 0.9)


def _honest():
    """The numbers of a fresh ``sympy.lambdify`` of the test expression (no cache involved)."""
    args, expr, kwargs = _expr_build([])()
    return sp.lambdify(args, expr, modules="numpy", **kwargs)(*POINT)


def _assert_honest(fn):
    for got, want in zip(fn(*POINT), _honest(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def _cache_file(folder: Path, tag: str) -> Path:
    (path,) = [p for p in folder.glob("*.py") if p.name.endswith(f"-{_key(tag)}.py")]
    return path


def _key(tag: str) -> str:
    import hashlib

    return hashlib.sha256(f"{tag}|numpy".encode()).hexdigest()[:20]


def _plant(folder: Path, tag: str, marker: Path, header: bytes = b"") -> Path:
    """A cache file for ``tag`` that writes ``marker`` when executed and returns wrong numbers."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cache._digest()}-{_key(tag)}.py"
    body = (f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
            "def _lambdifygenerated(rho, theta, alpha, beta, sigma2):\n"
            "    return (0 * rho + 170.0, 0 * rho + 170.0)\n").encode()
    path.write_bytes(header + body)
    return path


def test_planted_code_never_runs(tmp_path, monkeypatch):
    import hashlib

    folder, marker = tmp_path / "c", tmp_path / "marker"
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(folder))
    body_digest = hashlib.sha256(b"anything").hexdigest().encode()
    for header in (b"", b"# sigrec-hmac-sha256: " + body_digest + b"\n"):  # bare, and a forged digest
        calls = []
        path = _plant(folder, "test|plant", marker, header)
        fn = cache.cached_lambdify("test|plant", _expr_build(calls))
        assert not marker.exists() and calls == [1]
        _assert_honest(fn)
        assert b"pathlib" not in path.read_bytes()  # rebuilt over the plant
        _assert_honest(cache.cached_lambdify("test|plant", _expr_build(calls)))
        assert calls == [1]  # the rebuilt file passes its check and is read


def test_a_changed_constant_is_detected_and_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    cache.cached_lambdify("test|const", _expr_build(calls))
    path = _cache_file(tmp_path, "test|const")
    text = path.read_text()
    assert "rho**2 + 1" in text
    path.write_text(text.replace("rho**2 + 1", "rho**2 + 2"))
    fn = cache.cached_lambdify("test|const", _expr_build(calls))
    assert calls == [1, 1]
    _assert_honest(fn)
    assert "rho**2 + 2" not in path.read_text()


def test_a_valid_file_of_another_function_does_not_stand_in(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    other = []

    def build_other():
        other.append(1)
        args, (a, b), kwargs = _expr_build([])()
        return args, (2 * a, 2 * b), kwargs

    cache.cached_lambdify("test|other", build_other)
    calls = []
    cache.cached_lambdify("test|mine", _expr_build(calls))
    _cache_file(tmp_path, "test|mine").write_bytes(_cache_file(tmp_path, "test|other").read_bytes())
    _assert_honest(cache.cached_lambdify("test|mine", _expr_build(calls)))
    assert calls == [1, 1]


def test_a_truncated_file_or_key_rebuilds(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    cache.cached_lambdify("test|trunc", _expr_build(calls))
    path = _cache_file(tmp_path, "test|trunc")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _assert_honest(cache.cached_lambdify("test|trunc", _expr_build(calls)))
    _assert_honest(cache.cached_lambdify("test|trunc", _expr_build(calls)))
    assert calls == [1, 1]  # rebuilt once, then read
    key = tmp_path / cache.KEY_NAME
    assert key.stat().st_mode & 0o777 == 0o600
    key.write_bytes(key.read_bytes()[:5])
    _assert_honest(cache.cached_lambdify("test|trunc", _expr_build(calls)))
    assert calls == [1, 1, 1] and len(key.read_bytes()) == cache.KEY_BYTES  # a new key: the file fails, rebuilt
    _assert_honest(cache.cached_lambdify("test|trunc", _expr_build(calls)))
    assert calls == [1, 1, 1]


def test_a_world_writable_folder_is_not_used(tmp_path, monkeypatch):
    folder, marker = tmp_path / "open", tmp_path / "marker"
    folder.mkdir()
    _plant(folder, "test|open", marker)
    planted = sorted(p.name for p in folder.iterdir())
    for mode in (0o777, 0o775):
        folder.chmod(mode)
        monkeypatch.setenv("SIGREC_CACHE_DIR", str(folder))
        calls = []
        _assert_honest(cache.cached_lambdify("test|open", _expr_build(calls)))
        _assert_honest(cache.cached_lambdify("test|open", _expr_build(calls)))
        assert calls == [1, 1] and not marker.exists()
        assert sorted(p.name for p in folder.iterdir()) == planted  # nothing written there, no key either


def test_a_foreign_or_shared_file_or_key_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    cache.cached_lambdify("test|shared", _expr_build(calls))
    path = _cache_file(tmp_path, "test|shared")
    path.write_text(path.read_text().replace("rho**2 + 1", "rho**2 + 2"))  # would be rewritten if used
    path.chmod(0o666)
    before = path.read_bytes()
    _assert_honest(cache.cached_lambdify("test|shared", _expr_build(calls)))
    assert calls == [1, 1] and path.read_bytes() == before  # bypassed: neither read nor rewritten
    path.chmod(0o600)
    (tmp_path / cache.KEY_NAME).chmod(0o644)  # a key others can read is no secret
    _assert_honest(cache.cached_lambdify("test|shared", _expr_build(calls)))
    assert calls == [1, 1, 1] and path.read_bytes() == before
    (tmp_path / cache.KEY_NAME).chmod(0o600)
    real = cache.os.getuid()
    monkeypatch.setattr(cache.os, "getuid", lambda: real + 1)  # every file now belongs to someone else
    _assert_honest(cache.cached_lambdify("test|shared", _expr_build(calls)))
    assert calls == [1, 1, 1, 1] and path.read_bytes() == before


def test_a_symlinked_cache_file_is_not_followed(tmp_path, monkeypatch):
    folder, marker = tmp_path / "c", tmp_path / "marker"
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(folder))
    calls = []
    cache.cached_lambdify("test|link", _expr_build(calls))
    path = _cache_file(folder, "test|link")
    target = _plant(tmp_path / "elsewhere", "test|link", marker)
    path.unlink()
    path.symlink_to(target)
    _assert_honest(cache.cached_lambdify("test|link", _expr_build(calls)))
    assert calls == [1, 1] and not marker.exists() and b"pathlib" in target.read_bytes()


@pytest.mark.parametrize("where", ["long", "deep", "under_a_file", "loop"])
def test_an_unusable_path_costs_only_time(tmp_path, monkeypatch, where):
    (tmp_path / "file").write_text("")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    folder = {"long": str(tmp_path / ("x" * 300)), "deep": str(tmp_path) + "/abcdefgh" * 600,
              "under_a_file": str(tmp_path / "file" / "sub"), "loop": str(tmp_path / "loop")}[where]
    monkeypatch.setenv("SIGREC_CACHE_DIR", folder)
    calls = []
    _assert_honest(cache.cached_lambdify("test|path", _expr_build(calls)))
    _assert_honest(cache.cached_lambdify("test|path", _expr_build(calls)))
    assert calls == [1, 1]


def test_a_disabled_cache_gives_the_honest_numbers(monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    calls = []
    _assert_honest(cache.cached_lambdify("test|off", _expr_build(calls)))
    assert calls == [1]


# ------------------------------------------------------------------ source a module prints itself


def _source_build(calls, scale="3"):
    def build():
        calls.append(1)
        return f"def _program(x, y):\n    return (_twice(x) * {scale} + y,)\n"
    return build


NAMESPACE = {"_twice": lambda x: 2 * x}


def test_printed_source_is_cached_run_in_its_namespace_and_checked(tmp_path, monkeypatch):
    """:func:`cached_source` (the k = 2 region's ball functions): built once, then read; a file whose
    code was altered (a constant changed, the HMAC left) is rebuilt, never run; a planted file that
    runs code on import is not run either."""
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    fresh = cache.cached_source("test|src", _source_build(calls), NAMESPACE)
    again = cache.cached_source("test|src", _source_build(calls), NAMESPACE)
    assert calls == [1] and fresh(1.5, 0.25) == again(1.5, 0.25) == (9.25,)
    (path,) = tmp_path.glob("*.py")
    path.write_text(path.read_text().replace("* 3", "* 4"))
    assert cache.cached_source("test|src", _source_build(calls), NAMESPACE)(1.5, 0.25) == (9.25,)
    assert calls == [1, 1] and "* 4" not in path.read_text()
    marker = tmp_path / "marker"
    path.write_text(f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
                    "def _program(x, y):\n    return (170.0,)\n")
    assert cache.cached_source("test|src", _source_build(calls), NAMESPACE)(1.5, 0.25) == (9.25,)
    assert calls == [1, 1, 1] and not marker.exists()


def test_printed_source_of_another_tag_or_theory_misses(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path))
    calls = []
    cache.cached_source("test|one", _source_build(calls), NAMESPACE)
    other = cache.cached_source("test|two", _source_build(calls, "5"), NAMESPACE)
    assert calls == [1, 1] and other(1.0, 0.0) == (10.0,)
    monkeypatch.setattr(cache, "_digest", lambda: "0123456789abcdef")
    cache.cached_source("test|one", _source_build(calls), NAMESPACE)
    assert calls == [1, 1, 1]


def test_source_that_defines_no_function_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    with pytest.raises(ValueError, match="defines no function"):
        cache.cached_source("test|none", lambda: "x = 1\n", NAMESPACE)
