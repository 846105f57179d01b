"""Float signatures of the circle equilibria of a ``k = 2`` law: where the region walk of
:mod:`theory._region._circle` spends its proof attempts. No claim rests on them.

The signature of a parameter point is the sorted tuple of ``(tangent sign, radial sign)`` of the
zeros of ``T`` on a grid of :data:`N_ANGLES` angles (sign changes; the radial sign ``-sign(lam)``
at the grid point before the change). A leaf is proved only if the number of circle equilibria
and their stabilities are constant on it, so when two of its corners differ in signature the
proof cannot succeed (unless a float sign is wrong, which only costs a split): the walk splits such a
leaf without trying, across the side whose ends differ.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: angles of the grid
N_ANGLES = 720
#: the grid's offset in radians: the exact zeros a symmetric law has at rational multiples of pi
#: (``phi = pi/4``) never land on a grid point
_OFFSET = 0.001234567
_PHI = np.linspace(-np.pi, np.pi, N_ANGLES, endpoint=False) + _OFFSET
_COS, _SIN = np.cos(_PHI), np.sin(_PHI)


def signatures(values: Callable, points, beta: float, sigma2: float) -> list:
    """The signature of each ``(theta, alpha)`` of ``points`` (module doc), ``None`` where the floats
    overflow. ``values(r1, r2, theta, alpha, beta, sigma2) -> (T, T', lam)`` in numpy."""
    th = np.array([p[0] for p in points], dtype=float)[:, None]
    al = np.array([p[1] for p in points], dtype=float)[:, None]
    with np.errstate(all="ignore"):
        T, _, lam = values(_COS[None, :], _SIN[None, :], th, al, beta, sigma2)
    shape = (len(points), N_ANGLES)
    T, lam = np.broadcast_to(T, shape), np.broadcast_to(lam, shape)
    out: list = []
    for row, radial in zip(T, lam, strict=True):
        if not (np.all(np.isfinite(row)) and np.all(np.isfinite(radial))):
            out.append(None)
            continue
        s = np.sign(row)
        after = np.roll(s, -1)
        idx = np.nonzero((s != after) & (s != 0) & (after != 0))[0]
        out.append(tuple(sorted(zip(after[idx].astype(int).tolist(), (-np.sign(radial[idx])).astype(int).tolist(),
                                    strict=True))))
    return out


class SignatureCache:
    """The signatures of one walk's leaf corners and centres, each point computed once."""

    def __init__(self, values: Callable | None, beta: float, sigma2: float):
        self.values, self.beta, self.sigma2 = values, beta, sigma2
        self.known: dict = {}

    def split_axis(self, bounds) -> int | None:
        """``None`` when the corners and the centre of the leaf ``bounds`` (``(("theta", lo, hi),
        ("alpha", lo, hi))``) agree (or some signature is unknown): try the proof. Else the side
        to split, ``0`` (theta) or ``1`` (alpha), or ``-1`` (the widest) when both sides' ends differ
        or only the centre does."""
        if self.values is None:
            return None
        (_, t0, t1), (_, a0, a1) = bounds
        pts = [(t0, a0), (t1, a0), (t0, a1), (t1, a1), (0.5 * (t0 + t1), 0.5 * (a0 + a1))]
        new = [p for p in pts if p not in self.known]
        if new:
            self.known.update(zip(new, signatures(self.values, new, self.beta, self.sigma2), strict=True))
        s = [self.known[p] for p in pts]
        if any(x is None for x in s) or len(set(s)) == 1:
            return None
        across_theta = s[0] != s[1] or s[2] != s[3]
        across_alpha = s[0] != s[2] or s[1] != s[3]
        if across_theta != across_alpha:
            return 0 if across_theta else 1
        return -1
