"""The sympy symbols shared by every derivation step.

Parameters are declared positive so that sympy can simplify square roots and
exponentials; ``alpha`` is positive here and the endpoint ``alpha = 0`` (sparse
regime) is handled by taking the first-order coefficient in ``alpha``.

Each name has one meaning: ``s`` is the signal sign, ``m`` the informative
coefficient, ``rho_perp`` the in-plane component ``sqrt(1 - rho^2)`` of ``q``
orthogonal to ``xi``; ``dim``, ``L_tok`` and ``B_batch`` are the sizes ``d``, ``L``
and ``B`` (the evaluators take the numbers as ``d``, ``L``, ``batch``).
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
#: argument order of every lambdified expression in ``rho`` and the parameters
ARGS = (rho, *PARAMS)

# ----------------------------------------------------------------- finite-step derivation

#: step size, dimension, token count and mini-batch size
eta = sp.Symbol("eta", positive=True)
dim = sp.Symbol("d", positive=True)
L_tok = sp.Symbol("L", positive=True)
B_batch = sp.Symbol("B", positive=True)
#: the in-plane orthonormal coordinates of a token: along ``xi`` and along ``e2``
x1, x2 = sp.symbols("x1 x2", real=True)
#: ``sqrt(1 - rho^2)`` as a positive symbol while composing (substituted in results)
rho_perp = sp.Symbol("rho_perp", positive=True)
#: increments of one step: ``X = <P g, xi>`` and ``Y = |P g|^2``
X_inc, Y_inc = sp.symbols("X Y", real=True)
