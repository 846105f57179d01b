"""The simulators of the stochastic recursion: one driver over full and exact reduced kernels.

:mod:`._problem` (``Problem``, a finite instance of any model), :mod:`._driver` (``simulate``:
validation, starts, recording, blocks of runs on the executor, and the ``KERNELS`` table),
:mod:`._result` (``Simulation``); the kernels of one query on one direction (:mod:`._full`,
:mod:`._reduced`, :mod:`._reduced_chunks`, :mod:`._fused`: compiled), of ``H`` heads on a
k-dimensional signal (:mod:`._subspace_full`, :mod:`._subspace_reduced`, :mod:`._stiefel`), and
the starts (:mod:`._init`, :mod:`._start`).
"""
