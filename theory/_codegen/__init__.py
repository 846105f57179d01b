"""Generated numeric code: the disk cache of ``lambdify`` output and the code the package ships.

:mod:`._cache` (the HMAC-checked user cache and the shipped code in ``_generated/``, which the
maintainer's script ``python .ci/generate_code.py`` rewrites). Nothing here imports another
subpackage of ``theory``: the generating modules import this one, never the reverse.
"""
