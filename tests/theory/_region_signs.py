"""The independent check of a region certificate's box at one of its points: the signs of the
derived ``j'`` at 40 digits (sympy through mpmath, not the balls) on a grid of ``(-1, 1)`` that
also holds points just outside the box's certified equilibrium interval."""

from __future__ import annotations

from itertools import pairwise

import mpmath
import numpy as np

from sigrec.theory import evaluate_mp


def assert_box_matches_40_digit_signs(box, model) -> None:
    """No sign change of ``j'`` with ``j' > 0`` (a monotone box) or exactly one, from - to +, inside
    the box's certified equilibrium interval (a bistable box)."""
    grid = [mpmath.mpf(x) for x in np.linspace(-1, 1, 81)[1:-1]]
    if box.status == "bistable":
        lo, hi, _, _ = box.equilibrium
        grid += [mpmath.mpf(lo) - mpmath.mpf(10) ** -30, mpmath.mpf(hi) + mpmath.mpf(10) ** -30]
    grid = sorted(set(grid))
    signs = [int(np.sign(float(evaluate_mp(model, p, dps=40)["slope"]))) for p in grid]
    changes = sum(a != b for a, b in pairwise(signs))
    if box.status == "monotone":
        assert changes == 0 and signs[0] > 0, (box, model)
    else:
        assert changes == 1 and signs[0] < 0 < signs[-1], (box, model)
        # the one sign change happens inside the box's certified equilibrium interval
        i = next(i for i, (a, b) in enumerate(pairwise(signs)) if a != b)
        assert lo - 1e-29 <= float(grid[i + 1]) and float(grid[i]) <= hi + 1e-29
