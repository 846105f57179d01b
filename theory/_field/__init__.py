"""Numeric evaluators of the derived limit: the field, its equilibria and its flow.

:mod:`._scalar` (float64 and mpmath evaluators of ``j``, ``j'``, ``F`` for one signal
direction), :mod:`._heads` (the reduced flow of ``H`` orthonormal heads),
:mod:`._equilibria` (equilibria of the subspace flow and their stability, numerical evidence).
"""
