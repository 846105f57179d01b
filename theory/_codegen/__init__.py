"""Generated numeric code: the disk cache of ``lambdify`` output and the code the package ships.

:mod:`._cache` (the HMAC-checked user cache and the shipped code in ``_generated/``),
:mod:`._generate` (``python -m sigrec.theory._codegen._generate`` rewrites ``_generated/``).
"""
