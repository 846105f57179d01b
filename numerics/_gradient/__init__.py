"""The projected gradient at finite ``L`` and its control variate (``finite_size.rate``).

:mod:`._influence` (the gradient with its centred token features; one exact step with them),
:mod:`._features` (their compiled sums), :mod:`._crossfit` (a Monte Carlo mean with a control
variate, unbiased by cross-fitting).
"""
