"""The sympy symbols shared by every derivation step.

Parameters are declared positive so that sympy can simplify square roots and
exponentials; ``alpha`` is positive here and the endpoint ``alpha = 0`` (sparse
regime) is handled by taking the first-order coefficient in ``alpha``.
"""

import sympy as sp

rho = sp.Symbol("rho", real=True)
theta = sp.Symbol("theta", positive=True)
alpha = sp.Symbol("alpha", positive=True)
beta = sp.Symbol("beta", positive=True)
sigma2 = sp.Symbol("sigma2", positive=True)
#: a scalar N(0, sigma2) coordinate (``<q, z>`` or an in-plane coordinate of ``z``)
y = sp.Symbol("y", real=True)
#: the signal sign ``s_i``
s = sp.Symbol("s", real=True)
#: stand-ins for the informative coefficient ``m(rho)`` and its derivative
m = sp.Symbol("m", real=True)
m1 = sp.Symbol("m'", real=True)

PARAMS = (theta, alpha, beta, sigma2)
