"""Finite-step and finite-size dynamics: the corrected drift, the diffusion, the token moments.

:mod:`._lemmas` (higher-order Gaussian tilting), :mod:`._derivation` (the step expansion,
``E|P g|^2``, the finite-``L`` mean), :mod:`._evaluate` (float evaluators, the plateau, the
stated validity), :mod:`._tokens` (self-normalised token moments by Gauss–Hermite quadrature),
:mod:`._quadrature` (the mpmath cross-check), :mod:`._diffusion` (the one-step variance),
:mod:`._token_moments` (exact means of one finite-``L`` gradient's token features).
"""
