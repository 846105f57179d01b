"""Where each certified state of H heads exists: :func:`theory.certify` at every point of a
``(theta, alpha)`` grid, summarised per point (the stable kinds, the counts per status, the undecided
boxes), for ``sigrec phase --heads H`` (docs/guide/subspace.md).

**Starts.** Random frames do not reach every stable state: the states with several heads on one
signal direction (``shared-direction``, ``recovered-shared``) are reached from rank-one starts (every
column of ``M`` near one direction) and rarely from a random frame. Each point is searched from
the ``n_random`` random frames :func:`theory.certify` uses by default (the same generator,
seed and ``d = k + H + 1``) *and* from :func:`rank_one_starts`: for each direction ``xi_j`` and sign,
every column ``c xi_j`` (``c = 0.9 / sqrt H``: the singular value of the rank-one part is 0.9) plus
a small deterministic perturbation that differs between heads, so that neither the integration nor
the polish sits on the symmetric saddle of equal columns.

What is certified is each box (:mod:`theory._certify._heads`); the list of boxes at a point holds the
equilibria found from those starts and is not proved complete, so a kind missing at a point is not a
proof that no such state exists there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...numerics import current_executor
from ...theory import HeadsCertificate, Model, certify
from ...theory import heads_random_starts as random_starts

#: the statuses of a certified box (:data:`theory._certify._heads.STATUSES`)
STATUSES = ("stable", "saddle", "unstable", "undecided")
#: the kinds with two heads on one signal direction
SHARED_KINDS = ("shared-direction", "recovered-shared")
#: the singular value of the rank-one part of a rank-one start, times ``sqrt H`` (``c = 0.9 / sqrt H``)
RANK_ONE_SCALE = 0.9
#: size of the perturbation of a rank-one start, relative to ``c``
PERTURBATION = 0.05


def rank_one_starts(k: int, heads: int) -> list:
    """``2 k`` starts, for each signal direction ``j`` and sign ``s``: every column ``s c xi_j``
    (``c = 0.9 / sqrt H``) plus ``PERTURBATION c (-1)^(i+h) (h+1)/H`` at entry ``(i, h)``, different in
    each column so that the heads are not exactly equal (module doc). The perturbation's Frobenius
    norm is ``<= 0.045 sqrt(k)``, so the largest singular value is near 0.9 (0.89 to 0.92 for
    ``k <= 5``); a start above 0.95 would be scaled down to 0.95 (a feasible frame)."""
    c = RANK_ONE_SCALE / math.sqrt(heads)
    i, h = np.indices((k, heads))
    tilt = PERTURBATION * c * (-1.0) ** (i + h) * (h + 1) / heads
    out = []
    for j in range(k):
        for s in (1.0, -1.0):
            M = tilt.copy()
            M[j] += s * c
            top = float(np.linalg.norm(M, 2))
            out.append(M if top <= 0.95 else M * (0.95 / top))
    return out


@dataclass(frozen=True)
class HeadsCell:
    """The certificate of one grid point, summarised.

    Attributes
    ----------
    theta, alpha : float
        The grid point.
    stable_kinds : tuple of str
        The kinds of the boxes certified stable there, sorted, each once (e.g.
        ``("shared-direction", "specialised")``); empty when none is.
    counts : dict
        Number of boxes per status, every status of :data:`STATUSES` present (0 when absent).
    undecided : int
        Number of undecided boxes (``counts["undecided"]``).
    certified : bool
        :attr:`theory.HeadsCertificate.certified`: every box decided and no two overlap.
    stable : tuple of dict
        One per stable box: ``kind``, ``directions`` (per head, the direction ``j`` from 1, ``0``
        spread), ``unit_singular_values`` and ``start`` (the numerical equilibrium the box holds, a
        ``k x H`` nested list).
    seconds : float
        Wall time of the search and certification at this point.
    """

    theta: float
    alpha: float
    stable_kinds: tuple
    counts: dict
    undecided: int
    certified: bool
    stable: tuple
    seconds: float

    @property
    def shared(self) -> tuple:
        """The shared kinds (:data:`SHARED_KINDS`) certified stable here."""
        return tuple(k for k in SHARED_KINDS if k in self.stable_kinds)

    def as_dict(self) -> dict:
        return {"theta": self.theta, "alpha": self.alpha, "stable_kinds": list(self.stable_kinds),
                "counts": dict(self.counts), "undecided": self.undecided, "certified": self.certified,
                "stable": [dict(s) for s in self.stable], "seconds": self.seconds}


@dataclass(frozen=True)
class HeadsDiagram:
    """The certified states of ``H`` heads over a ``(theta, alpha)`` grid (:func:`heads_diagram`).

    Attributes
    ----------
    law : str
        The law's canonical spec, e.g. ``"onehot(k=2)"``.
    k : int
        Its dimension.
    heads : int
        The number ``H`` of heads.
    beta, sigma2 : float
        Inverse temperature and noise variance, fixed over the grid.
    thetas, alphas : tuple of float
        The grid, as given.
    n_random, seed : int
        The random frames of each search (with the ``2 k`` rank-one starts, module doc).
    cells : tuple of HeadsCell
        One per grid point, ``alpha``-major: ``cells[i * len(thetas) + j]`` is at
        ``(thetas[j], alphas[i])``.
    """

    law: str
    k: int
    heads: int
    beta: float
    sigma2: float
    thetas: tuple
    alphas: tuple
    n_random: int
    seed: int
    cells: tuple

    def cell(self, theta: float, alpha: float) -> HeadsCell:
        """The cell at the grid point ``(theta, alpha)`` (exact grid values); ``KeyError`` when absent."""
        for c in self.cells:
            if c.theta == theta and c.alpha == alpha:
                return c
        raise KeyError(f"no grid point at theta={theta!r}, alpha={alpha!r}")

    @property
    def all_certified(self) -> bool:
        """True iff every cell's certificate is certified (completeness is never claimed)."""
        return all(c.certified for c in self.cells)

    @property
    def seconds(self) -> float:
        """Summed wall time of the cells (one core's time when they ran in parallel)."""
        return float(sum(c.seconds for c in self.cells))

    def as_dict(self) -> dict:
        return {"mode": "heads", "law": self.law, "k": self.k, "heads": self.heads, "beta": self.beta,
                "sigma2": self.sigma2, "thetas": list(self.thetas), "alphas": list(self.alphas),
                "n_random": self.n_random, "seed": self.seed, "rank_one_starts": 2 * self.k,
                "shared_kinds": list(SHARED_KINDS), "complete": False, "all_certified": self.all_certified,
                "seconds": self.seconds, "cells": [c.as_dict() for c in self.cells]}


def _cell(unit) -> HeadsCell:
    """Certify one grid point from the random and the rank-one starts (one executor unit)."""
    law, heads, theta, alpha, beta, sigma2, n_random, seed = unit
    model = Model(theta, alpha, beta, sigma2, law, heads=heads)
    starts = random_starts(model.k, heads, n_random, seed) + rank_one_starts(model.k, heads)
    cert = certify(model, starts=starts)
    assert isinstance(cert, HeadsCertificate)
    stable = [b for b in cert.boxes if b.status == "stable"]
    counts = {s: sum(b.status == s for b in cert.boxes) for s in STATUSES}
    return HeadsCell(
        theta, alpha, tuple(sorted({b.kind for b in stable})), counts, counts["undecided"], bool(cert.certified),
        tuple({"kind": b.kind, "directions": list(b.directions), "unit_singular_values": b.unit_singular_values,
               "start": np.asarray(b.start).reshape(b.shape).tolist()} for b in stable),
        float(cert.seconds))


def _grid(name: str, values) -> tuple:
    out = tuple(float(v) for v in np.atleast_1d(np.asarray(values, dtype=float)))
    if not out:
        raise ValueError(f"`{name}` must hold at least one value")
    return out


def heads_diagram(model: Model, thetas, alphas, *, executor=None, n_random: int = 8, seed: int = 0,
                  progress=None) -> HeadsDiagram:
    """Certify the equilibria of the model's heads at every grid point ``(theta, alpha)``.

    Parameters
    ----------
    model : theory.Model
        The law (k-dimensional, ``k >= 2``, e.g. ``"onehot(k=2)"``), the number ``H`` of heads, ``beta``
        and ``sigma2`` of every point; its ``theta`` and ``alpha`` are replaced by the grid's.
    thetas, alphas : sequence of float
        The grid; every point must be a valid model (``theta > 0``, ``alpha in [0, 1]``).
    executor : numerics.Executor, optional
        Runs one unit per grid point; default :func:`numerics.current_executor`.
    n_random, seed : int
        The random frames of each search; the ``2 k`` rank-one starts are added (module doc).
    progress : callable, optional
        ``progress(done, total)`` as grid points finish.

    Returns
    -------
    HeadsDiagram
        Each point's certified boxes summarised; the lists are not proved complete.
    """
    thetas, alphas = _grid("thetas", thetas), _grid("alphas", alphas)
    if n_random < 0 or seed < 0:
        raise ValueError(f"`n_random` and `seed` must be >= 0, got {n_random!r} and {seed!r}")
    law, heads, beta, sigma2 = model.law, model.heads, model.beta, model.sigma2
    if law.k < 2:
        raise ValueError(f"`prior` {law.spec}: the map of the heads' states needs a k-dimensional law (k >= 2), "
                         "e.g. 'onehot(k=2)'; with k = 1 at most one head can align")
    for t in thetas:
        if not t > 0:
            raise ValueError(f"every theta must be > 0 (at theta = 0 every M is an equilibrium), got {t!r}")
        for a in alphas:
            Model(t, a, beta, sigma2, law.spec, heads=heads)  # validates the point before any work
    units = [(law.spec, int(heads), t, a, float(beta), float(sigma2), int(n_random), int(seed))
             for a in alphas for t in thetas]
    ex = current_executor() if executor is None else executor
    cells = ex.map(_cell, units, progress=progress)
    return HeadsDiagram(law.spec, law.k, int(heads), float(beta), float(sigma2), thetas, alphas, int(n_random),
                        int(seed), tuple(cells))
