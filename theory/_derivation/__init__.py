"""The symbolic derivation of the limit (sympy), and its independent cross-checks.

:mod:`._symbols` (the shared sympy symbols), :mod:`._lemmas` (the Gaussian tilting lemmas,
by sympy integration), :mod:`._scalar` (one signal direction: the limit of ``f_q``, ``j``,
``j'``, ``F``, ``F'(±1)``, the sparse limit), :mod:`._subspace` (a k-dimensional signal:
``j(r)``, its gradient, Hessian and flow), and the mpmath quadratures that check them by
another route (:mod:`._quadrature`, :mod:`._subspace_quadrature`).
"""
