"""Float signatures of the circle equilibria of a ``k = 2`` law: where the region walk of
:mod:`theory._region._circle` spends its proof attempts. No claim rests on them.

The signature of a parameter point is the sorted tuple of ``(tangent sign, radial sign)`` of the
zeros of ``T`` on a grid of :data:`N_ANGLES` angles (sign changes; the radial sign ``-sign(lam)``
at the grid point before the change). A leaf is proved only if the number of circle equilibria
and their stabilities are constant on it, so when two of its corners differ in signature the
proof cannot succeed (unless a float sign is wrong, which only costs a split): the walk splits such a
leaf without trying, across the side whose ends differ.

The zeros of ``g`` that Newton's method finds at a leaf's corners and centre
(:func:`zero_boxes`) tell the disk covering where the zeros move over the leaf, so that it splits
its squares off their paths; a wrong hint only costs squares.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

#: angles of the grid
N_ANGLES = 720
#: the grid's offset in radians: the exact zeros a symmetric law has at rational multiples of pi
#: (``phi = pi/4``) never land on a grid point
_OFFSET = 0.001234567
_PHI = np.linspace(-np.pi, np.pi, N_ANGLES, endpoint=False) + _OFFSET
_COS, _SIN = np.cos(_PHI), np.sin(_PHI)


def _rows(values: Callable, points, beta: float, sigma2: float) -> tuple:
    """``T`` and ``lam`` on the grid of angles (one row per ``(theta, alpha)`` of ``points``);
    ``values(r1, r2, theta, alpha, beta, sigma2) -> (T, T', lam)`` in numpy."""
    th = np.array([p[0] for p in points], dtype=float)[:, None]
    al = np.array([p[1] for p in points], dtype=float)[:, None]
    with np.errstate(all="ignore"):
        T, _, lam = values(_COS[None, :], _SIN[None, :], th, al, beta, sigma2)
    shape = (len(points), N_ANGLES)
    return np.broadcast_to(T, shape), np.broadcast_to(lam, shape)


def _signatures(T, lam, keep) -> list:
    """The signature of each row of ``T``, ``lam`` (module doc), ``None`` where the floats overflow,
    counting the zeros at the grid angles ``keep`` only (:func:`_keep`)."""
    out: list = []
    for row, radial in zip(T, lam, strict=True):
        if not (np.all(np.isfinite(row)) and np.all(np.isfinite(radial))):
            out.append(None)
            continue
        s = np.sign(row)
        after = np.roll(s, -1)
        idx = np.nonzero((s != after) & (s != 0) & (after != 0) & keep)[0]
        out.append(tuple(sorted(zip(after[idx].astype(int).tolist(), (-np.sign(radial[idx])).astype(int).tolist(),
                                    strict=True))))
    return out


@cache
def _keep(skip: tuple) -> np.ndarray:
    """The mask of the grid angles off the arcs ``skip`` (``(centre, half-width)`` in radians)."""
    keep = np.ones(N_ANGLES, dtype=bool)
    for centre, half in skip:
        keep &= np.abs(np.angle(np.exp(1j * (_PHI - centre)))) > half
    return keep


class SignatureCache:
    """The signatures of one walk's leaf corners and centres, each point computed once. With arcs
    ``skip``, a leaf is also tried when its signatures agree with the zeros on those arcs left out
    (:func:`_signatures`)."""

    def __init__(self, values: Callable | None, beta: float, sigma2: float, skip=()):
        self.values, self.beta, self.sigma2, self.skip = values, beta, sigma2, tuple(skip)
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
            T, lam = _rows(self.values, new, self.beta, self.sigma2)
            full = _signatures(T, lam, _keep(()))
            off = _signatures(T, lam, _keep(self.skip)) if self.skip else full
            self.known.update(zip(new, zip(full, off, strict=True), strict=True))
        both = [self.known[p] for p in pts]
        if any(x[0] is None for x in both) or any(len({x[i] for x in both}) == 1 for i in (0, 1)):
            return None
        s = [x[0] for x in both]
        across_theta = s[0] != s[1] or s[2] != s[3]
        across_alpha = s[0] != s[2] or s[1] != s[3]
        if across_theta != across_alpha:
            return 0 if across_theta else 1
        return -1


#: Newton's starts for the interior zeros of ``g``: a grid inside the disk
_GRID = np.linspace(-0.9, 0.9, 7)
_STARTS = np.array([(x, y) for x in _GRID for y in _GRID if x * x + y * y < 0.95])
#: zeros of ``g`` this close to the disk are reported too (one just outside it hinders the covering)
_NEAR = 1.25
#: the margin of a zero box, relative to its extent, and at least
ZERO_MARGIN, ZERO_MARGIN_MIN = 0.5, 2.0 ** -9


def interior_zeros(values: Callable, theta: float, alpha: float, beta: float, sigma2: float) -> list:
    """The zeros of ``g`` with ``|r| < _NEAR`` that Newton's method reaches from :data:`_STARTS`, as
    ``(x, y)``; ``values(r1, r2, theta, alpha, beta, sigma2) -> (g1, g2, H11, H12, H22)`` in numpy."""
    x, y = _STARTS[:, 0].copy(), _STARTS[:, 1].copy()
    with np.errstate(all="ignore"):
        for _ in range(40):
            g1, g2, h11, h12, h22 = (np.broadcast_to(v, x.shape) for v in values(x, y, theta, alpha, beta, sigma2))
            det = h11 * h22 - h12 * h12
            x, y = x - (h22 * g1 - h12 * g2) / det, y - (h11 * g2 - h12 * g1) / det
        g1, g2 = (np.broadcast_to(v, x.shape) for v in values(x, y, theta, alpha, beta, sigma2)[:2])
        ok = np.isfinite(x) & np.isfinite(y) & (x * x + y * y < _NEAR ** 2) & (np.abs(g1) + np.abs(g2) < 1e-9)
    out: list = []
    for p in zip(x[ok].tolist(), y[ok].tolist(), strict=True):
        if all(_distance(p, q) > 1e-7 for q in out):
            out.append(p)
    return out


def _distance(p: tuple, q: tuple) -> float:
    return abs(p[0] - q[0]) + abs(p[1] - q[1])


def zero_boxes(values: Callable | None, bounds: tuple, beta: float, sigma2: float) -> list:
    """``(core, band)`` for each float zero of ``g`` at the centre of the leaf ``bounds`` (``(t0, t1, a0,
    a1)``), boxes ``(x_lo, x_hi, y_lo, y_hi)``: ``core`` holds the nearest zeros at its corners, ``band`` is
    ``core`` widened by :data:`ZERO_MARGIN` of its extent (at least :data:`ZERO_MARGIN_MIN`). Where the disk covering
    splits squares (a split through the path of a zero leaves both halves undecided); ``[]`` when
    ``values`` is ``None``."""
    if values is None:
        return []
    t0, t1, a0, a1 = bounds
    corners = [interior_zeros(values, t, a, beta, sigma2) for t in (t0, t1) for a in (a0, a1)]
    out = []
    for z in interior_zeros(values, 0.5 * (t0 + t1), 0.5 * (a0 + a1), beta, sigma2):
        near = [min(c, key=lambda q: _distance(q, z)) for c in corners if c]
        near = [q for q in near if _distance(q, z) < 0.5]
        xs, ys = [z[0], *(q[0] for q in near)], [z[1], *(q[1] for q in near)]
        margin = max(ZERO_MARGIN * max(max(xs) - min(xs), max(ys) - min(ys)), ZERO_MARGIN_MIN)
        core = (min(xs), max(xs), min(ys), max(ys))
        out.append((core, (core[0] - margin, core[1] + margin, core[2] - margin, core[3] + margin)))
    return out
