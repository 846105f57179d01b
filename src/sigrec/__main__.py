"""``python -m sigrec``: the ``sigrec`` command line."""

from .verify.cli import console_main

# Guarded: dask's worker processes start by ``spawn`` and re-import the main module.
if __name__ == "__main__":
    console_main()
