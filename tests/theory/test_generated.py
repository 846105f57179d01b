"""The generated code shipped with the package (``theory/_codegen/_generated/``, ``theory/_codegen/_cache.py``).

A fresh machine's first run reads the built-in priors' lambdified functions from the package
instead of deriving them. The shipped code must be current (generated from this theory), must
be what a fresh derivation generates, and must be ignored when stale or broken.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import sigrec.theory._codegen._cache as cache
from sigrec.theory._derivation._symbols import ARGS, rho, theta
from sigrec.theory._effective._diffusion import _lam
from sigrec.theory._effective._evaluate import _numpy_functions
from sigrec.theory._field._scalar import _polynomials

from . import _k2_programs


def test_the_shipped_code_is_current():
    """Fails after any change to a generating module (:func:`cache.generating_modules`) until the
    shipped code is regenerated (a stale copy is never used, so numbers stay right; only a fresh
    machine's first run slows down)."""
    assert cache.shipped_current(), (
        "theory/_codegen/_generated/ is stale: run `python .ci/generate_code.py` and commit "
        "theory/_codegen/_generated/ (it is keyed to the generating modules: "
        "sigrec.theory._codegen._cache.generating_modules())")


# ------------------------------------------------------------------ what the key covers
#
# The key (DIGEST, and the user cache's) covers the modules the generated code comes from, derived
# from their imports; these tests edit a copy of theory/'s sources, never the real files.


def _defining_module(fn) -> str:
    return Path(inspect.getsourcefile(inspect.unwrap(fn))).relative_to(cache._THEORY).as_posix()


@pytest.fixture
def theory_copy(tmp_path, monkeypatch):
    """A copy of theory/'s sources that the digests read instead of the installed ones."""
    root = tmp_path / "theory"
    shutil.copytree(cache._THEORY, root, ignore=shutil.ignore_patterns("__pycache__", "_generated"))
    monkeypatch.setattr(cache, "_THEORY", root)
    yield root
    cache._source_digest.cache_clear()
    cache._digest.cache_clear()


def _keys() -> tuple[str, str]:
    """``(shipped key, user cache key)`` of the sources as they are now."""
    cache._source_digest.cache_clear()
    cache._digest.cache_clear()
    return cache._source_digest(), cache._digest()


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_the_generating_modules_are_the_generators_imports():
    """The set holds the modules that define the generating functions the generator calls, what
    they import (a subpackage's module such as ``_laws/_tilted.py``; ``_laws/__init__.py``, from
    which a name is imported), and not the certificates, the printing layer, or a package
    ``__init__`` only passed through (``from . import _cache`` reaches ``_cache`` alone)."""
    modules = set(cache.generating_modules())
    generating = {_defining_module(f) for f in (_numpy_functions, _lam, _polynomials)}
    assert generating == {"_effective/_evaluate.py", "_effective/_diffusion.py", "_field/_scalar.py"}
    assert generating | {"_codegen/_cache.py", "_laws/_tilted.py", "_laws/__init__.py",
                         "_effective/_tokens.py", "_model.py"} <= modules
    assert not {"_certify/_scalar.py", "_latex.py", "__init__.py", "_codegen/__init__.py",
                "_effective/_token_moments.py"} & modules


def test_an_edit_outside_the_generating_modules_keeps_both_keys(theory_copy):
    """Code in a certificate module and a comment in the printing layer change neither key, so
    shipped code that was current stays current."""
    assert cache.generating_modules(theory_copy) == cache.generating_modules(Path(cache.__file__).parents[1])
    before, current = _keys(), cache.shipped_current()
    _append(theory_copy / "_certify" / "_scalar.py", "\nCHANGED = 1\n")
    _append(theory_copy / "_latex.py", "# a comment\n")
    assert _keys() == before and cache.shipped_current() == current


@pytest.mark.parametrize("module", ["_field/_scalar.py", "_laws/_tilted.py", "_codegen/_cache.py"])
def test_an_edit_inside_changes_both_keys_and_staleness_shows(theory_copy, module):
    """A comment in a generating function's module, in a module it imports from a subpackage, or in
    the cache itself changes both keys, so the shipped code no longer counts as current."""
    before = _keys()
    _append(theory_copy / module, "# a comment\n")
    after = _keys()
    assert after[0] != before[0] and after[1] != before[1]
    assert not cache.shipped_current()


def test_a_new_import_brings_its_module_into_the_key(theory_copy):
    """The set follows the imports: once a generating module imports ``_latex``, editing it
    changes the key."""
    assert "_latex.py" not in cache.generating_modules(theory_copy)
    _append(theory_copy / "_effective" / "_evaluate.py", "\nfrom .. import _latex\n")
    assert "_latex.py" in cache.generating_modules(theory_copy)
    before = _keys()
    _append(theory_copy / "_latex.py", "# a comment\n")
    assert _keys() != before


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


#: the maintainer's generator of the shipped code, outside the installed package
GENERATOR = Path(__file__).parents[2] / ".ci" / "generate_code.py"


def _generator():
    spec = importlib.util.spec_from_file_location("generate_code", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_runtime_cache_imports_no_other_part_of_theory():
    """``theory/_codegen`` is below the modules that generate code: it imports nothing of theory's
    other subpackages or modules (the generator, which imports them, is ``.ci/generate_code.py``),
    and the generator is not part of the package."""
    folder = cache._THEORY / "_codegen"
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level >= 2:
                assert node.level == 3 and node.module.split(".")[0] == "core", (path.name, ast.unparse(node))
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(n.startswith("sigrec.theory") for n in names), (path.name, ast.unparse(node))
    assert not (folder / "_generate.py").exists() and GENERATOR.is_file()
    assert "_codegen/_generate.py" not in cache.generating_modules()


@pytest.mark.slow
def test_the_shipped_code_is_a_fresh_derivations(tmp_path):
    """Generating again (every cache off, the derivations run) writes the same functions."""
    fresh = _generator().generate(tmp_path)
    shipped = {p.stem: p.read_text() for p in cache.SHIPPED.glob("*.code")}
    assert fresh == shipped


def _build(calls):
    def build():
        calls.append(1)
        return ARGS, (sp.exp(theta * rho) / (1 + rho**2),), {}
    return build


def _ship(folder, tag, source, digest):
    """Ship ``source`` for ``tag`` with a ``DIGEST`` of ``digest`` and the files' manifest."""
    folder.mkdir(exist_ok=True)
    (folder / f"{cache._key_name(tag, 'numpy')}.code").write_text(source)
    (folder / "DIGEST").write_text("\n".join([digest, *cache.manifest_lines(folder)]) + "\n")
    cache._shipped_manifest.cache_clear()


@pytest.fixture
def shipped_in(tmp_path, monkeypatch):
    """Point ``SHIPPED`` at an empty folder of the test's, user cache off."""
    folder = tmp_path / "gen"
    monkeypatch.setattr(cache, "SHIPPED", folder)
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")
    cache._shipped_manifest.cache_clear()
    yield folder
    cache._shipped_manifest.cache_clear()


WRONG = "def _lambdifygenerated(rho, theta, alpha, beta, sigma2):\n    return (0 * rho + 170.0,)\n"


def test_current_shipped_code_is_used_and_a_stale_one_is_not(shipped_in):
    calls = []
    # a current shipped function (here deliberately wrong, to see which one runs) is used ...
    _ship(shipped_in, "test|shipped", WRONG, cache._source_digest())
    fn = cache.cached_lambdify("test|shipped", _build(calls))
    assert calls == [] and fn(0.3, 1.0, 0.1, 1.0, 1.0)[0] == 170.0
    # ... and with another theory's digest it is ignored: the derivation runs
    _ship(shipped_in, "test|shipped", WRONG, "0123456789abcdef")
    cache._shipped_manifest.cache_clear()
    fn = cache.cached_lambdify("test|shipped", _build(calls))
    assert calls == [1]
    np.testing.assert_allclose(fn(0.3, 1.0, 0.1, 1.0, 1.0)[0], np.exp(0.3) / 1.09, rtol=1e-14)


def test_a_broken_shipped_file_falls_back_to_the_derivation(shipped_in):
    calls = []
    _ship(shipped_in, "test|broken", "this is not python", cache._source_digest())
    fn = cache.cached_lambdify("test|broken", _build(calls))
    assert calls == [1]
    np.testing.assert_allclose(fn(0.3, 1.0, 0.1, 1.0, 1.0)[0], np.exp(0.3) / 1.09, rtol=1e-14)


def test_an_altered_byte_of_shipped_code_is_not_run(shipped_in):
    """The manifest in ``DIGEST`` covers the ``.code`` files' bytes: with one byte of a current
    shipped file changed (and ``DIGEST`` left as it was) the function is derived, not read."""
    calls = []
    _ship(shipped_in, "test|altered", WRONG, cache._source_digest())
    path = shipped_in / f"{cache._key_name('test|altered', 'numpy')}.code"
    path.write_text(WRONG.replace("170.0", "171.0"))  # one byte
    assert not cache.shipped_current()
    fn = cache.cached_lambdify("test|altered", _build(calls))
    assert calls == [1]
    np.testing.assert_allclose(fn(0.3, 1.0, 0.1, 1.0, 1.0)[0], np.exp(0.3) / 1.09, rtol=1e-14)


def test_a_shipped_file_the_manifest_does_not_list_is_not_run(shipped_in):
    """A ``.code`` file added beside the listed ones (or a ``DIGEST`` without a manifest, as
    before it had one) is not run."""
    calls = []
    _ship(shipped_in, "test|listed", WRONG, cache._source_digest())
    (shipped_in / f"{cache._key_name('test|planted', 'numpy')}.code").write_text(WRONG)
    assert not cache.shipped_current()
    cache.cached_lambdify("test|planted", _build(calls))
    assert calls == [1]
    (shipped_in / "DIGEST").write_text(cache._source_digest() + "\n")
    cache._shipped_manifest.cache_clear()
    cache.cached_lambdify("test|listed", _build(calls))
    assert calls == [1, 1]


def test_the_installed_objective_polynomial_is_checked_byte_for_byte(tmp_path, monkeypatch):
    """Issue 40's reproducer on a copy of the real shipped folder: the objective polynomial with
    ``+ 1`` added to its value was executed (``field`` moved by exactly 1, exit 0); now that file is
    refused and the others are still read."""
    folder = tmp_path / "gen"
    shutil.copytree(cache.SHIPPED, folder)
    monkeypatch.setattr(cache, "SHIPPED", folder)
    cache._shipped_manifest.cache_clear()
    try:
        name = cache._key_name("objective-poly", "numpy")
        slope = cache._key_name("slope-poly", "numpy")
        assert cache._shipped_source(name) == (folder / f"{name}.code").read_text()
        path = folder / f"{name}.code"
        text = path.read_text()
        head, sep, value = text.rpartition("return ")
        assert sep, "the generated objective has a return statement"
        path.write_text(f"{head}return 1 + {value}")
        assert cache._shipped_source(name) is None
        assert cache._shipped_source(slope) == (folder / f"{slope}.code").read_text()
    finally:
        cache._shipped_manifest.cache_clear()


def test_the_k2_region_functions_are_shipped_and_equal_a_fresh_derivations():
    """The ball functions of the symmetric one-hot law's region certificate are read from the package
    (no derivation in a fresh process), and give the balls of the functions printed from a fresh
    derivation, at a parameter box away from ``beta = sigma2 = 1``."""
    from flint import arb

    import sigrec.theory._region._circle_taylor as taylor
    from sigrec.theory._laws._vector import parse_law

    law = parse_law("onehot(k=2)")
    taylor.k2_field.cache_clear()
    try:
        shipped = taylor.k2_field(law)
        weighted = taylor._weighted_field(law)  # the derivation, which the shipped functions skipped
        for name, (balls, outputs) in {**taylor._OUTPUTS, **taylor._DIAGONAL}.items():
            fn = getattr(shipped, name)
            program = fn.program if balls else fn  # the ball functions read the weights
            assert str(cache.SHIPPED) in program.__code__.co_filename, name
            if not balls:
                continue
            point = (arb("0.6 +/- 0.01"), arb("0.79 +/- 0.01"), arb("3.7 +/- 0.02"), arb("0.3 +/- 0.004"),
                     arb("1.3"), arb("0.8"))
            want = taylor._in_weights(_k2_programs.balls(weighted, outputs(weighted)), taylor.onehot_probs(law))(*point)
            got = fn(*point)
            assert len(got) == len(want) and all(a.mid() == b.mid() and a.rad() == b.rad()
                                                 for a, b in zip(got, want, strict=True)), name
    finally:
        taylor.k2_field.cache_clear()
