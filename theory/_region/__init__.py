"""Certificates over boxes of parameters (docs/region-certificates.md).

:mod:`._certify` (adaptive subdivision of a parameter box), :mod:`._proof` (one box: the
``rho``-tiling), :mod:`._proposition` (what the appendix proposition states for a family).
"""
