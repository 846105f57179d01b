"""Write the generated code the package ships (``theory/_codegen/_generated/``; see
:mod:`sigrec.theory._codegen._cache`): a maintainer's script, not part of the installed package.

Run ``python .ci/generate_code.py`` (in the development install, ``pip install -e .``) after
changing a generating module (a few CPU minutes per prior: it runs the derivations);
``tests/theory/test_generated.py`` says when it is due. The generating modules are every theory
module that imports :func:`cached_lambdify` or :func:`cached_source`, and what they import,
transitively (:func:`sigrec.theory._codegen._cache.generating_modules`, derived from the source);
an edit elsewhere in ``theory/`` leaves the shipped code current. It derives, with every cache
off, the lambdified functions that the evaluation of :data:`PRIORS` asks ``cached_lambdify`` for
(the finite-step moments, the finite-``L`` terms, the in-plane variance, and the prior-free
polynomial layer for numpy and mpmath) and the ball functions that a region certificate of each
law of :data:`K2_LAWS` reads (:func:`sigrec.theory._region._circle_taylor.k2_field`), writes each
one's generated source as ``<name>.code`` and then ``DIGEST``: the digest of the generating
modules they came from, then the SHA-256 of each file's bytes
(:func:`sigrec.theory._codegen._cache.manifest_lines`), without which no shipped file is run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sigrec.theory._codegen import _cache
from sigrec.theory._effective._diffusion import _lam
from sigrec.theory._effective._evaluate import _numpy_functions
from sigrec.theory._field._scalar import _polynomials
from sigrec.theory._laws import parse_prior
from sigrec.theory._laws._vector import parse_law
from sigrec.theory._region._circle_taylor import k2_field

#: the priors of the suite's built-in cases (paper-weak, paper-bistable, finite-size, sparse: fixed; rademacher)
PRIORS = ("fixed", "rademacher")
#: the k = 2 laws whose region certificates' ball functions are shipped (the symmetric one-hot law,
#: which ``sigrec phase --region`` derives in every worker process otherwise)
K2_LAWS = ("onehot(k=2)",)


def generate(folder: Path = _cache.SHIPPED, priors=PRIORS, k2_laws=K2_LAWS) -> dict:
    """Derive and write the shipped code of ``priors`` and ``k2_laws`` into ``folder``; ``{name: source}``."""
    saved = os.environ.get("SIGREC_CACHE_DIR")
    os.environ["SIGREC_CACHE_DIR"] = "off"
    _cache._RECORD = {}
    try:
        for spec in priors:
            prior = parse_prior(spec)
            _numpy_functions.__wrapped__(prior)
            _lam.__wrapped__(prior)
        for module in ("numpy", "mpmath"):
            _polynomials.__wrapped__(module)
        for spec in k2_laws:
            k2_field.__wrapped__(parse_law(spec))
        record = dict(_cache._RECORD)
    finally:
        _cache._RECORD = None
        if saved is None:
            os.environ.pop("SIGREC_CACHE_DIR", None)
        else:
            os.environ["SIGREC_CACHE_DIR"] = saved
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "DIGEST").unlink(missing_ok=True)  # stale until the last file is written
    for old in folder.glob("*.code"):
        old.unlink()
    for name, source in sorted(record.items()):
        (folder / f"{name}.code").write_text(source)
    lines = [_cache._source_digest(), *_cache.manifest_lines(folder)]
    (folder / "DIGEST").write_text("\n".join(lines) + "\n")
    return record


if __name__ == "__main__":  # pragma: no cover - a maintainer's command
    out = generate()
    print(f"wrote {len(out)} functions to {_cache.SHIPPED} (digest {_cache._source_digest()} of "
          f"{len(_cache.generating_modules())} generating modules)", file=sys.stderr)
