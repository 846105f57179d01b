"""Certificates over boxes of parameters (docs/region-certificates.md).

:mod:`._certify` (adaptive subdivision of a parameter box), :mod:`._proof` (one box: the
``rho``-tiling), :mod:`._proposition` (what the appendix proposition states for a family),
:mod:`._circle` (a ``k = 2`` law: the equilibria on the circle and in the disk over a
``(theta, alpha)`` box).
"""

from ._circle import K2RegionCertificate, certify_region_k2

__all__ = ["K2RegionCertificate", "certify_region_k2"]
