"""The simulators of the stochastic recursion: one driver over full and exact reduced kernels.

:mod:`._driver` (``Problem``, ``Simulation``, ``simulate``), the kernels of one query
(:mod:`._full`, :mod:`._reduced`, :mod:`._reduced_chunks`, :mod:`._fused`: compiled), of ``H``
heads on a k-dimensional signal (:mod:`._subspace_driver`, :mod:`._subspace_full`,
:mod:`._subspace_reduced`, :mod:`._stiefel`), and the starts (:mod:`._init`, :mod:`._start`).
"""
