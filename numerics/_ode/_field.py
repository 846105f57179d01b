"""The right-hand side of the ODE in ``y = atanh(rho)``: ``dy/dt = j'(tanh y)``, and tolerances."""

from __future__ import annotations

import numpy as np

from ...core.validate import instance
from ...theory import Model, evaluate

#: default tolerances of the float path (:func:`integrate` requires ``rtol <= 1e-10``)
RTOL = 1e-12
ATOL = 1e-13


def check_model(model) -> Model:
    return instance("model", model, Model, "theory.Model")


def _slope(model: Model, rho) -> np.ndarray:
    return evaluate(model, rho, engine="scalar").slope


def rhs(model: Model):
    """``fun(t, y) = j'(tanh y)`` for ``solve_ivp``."""
    def fun(_t, y):
        return _slope(model, np.tanh(y))

    return fun


def one_minus_tanh(y) -> np.ndarray:
    """``1 - tanh(y)`` without cancellation for large positive ``y``."""
    y = np.asarray(y, dtype=float)
    e = np.exp(-2.0 * np.abs(y))
    return np.where(y > 0, 2.0 * e / (1.0 + e), 2.0 / (1.0 + e))
