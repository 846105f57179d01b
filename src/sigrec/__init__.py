"""sigrec: verify that softmax attention trained by projected SGA recovers a hidden
signal direction, end to end (symbolic limit, quadrature, ODE, simulation, certificates).

The three subpackages are the whole toolkit, and data flows one way:

* :mod:`sigrec.theory` derives the high-dimensional limit (sympy), evaluates and
  certifies it (mpmath, python-flint);
* :mod:`sigrec.numerics` integrates the limiting ODE and simulates the recursion;
* :mod:`sigrec.verify` judges theory against numerics (checks, suite, reports,
  studies) and holds the ``sigrec`` command line.

See ``docs/design.md`` in the repository for the model, the checks and the layout.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("sigrec")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0+unknown"

__all__ = ["__version__"]
