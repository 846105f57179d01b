r"""The tokens a tolerance needs and the distance over ``(beta, L)``, from :mod:`._finite_field`.

* **Tokens needed** (:func:`tokens_needed`): the smallest ``L`` at which the distance of the limit
  field to the finite system (or, at a step ``eta``, the error of the ``O(eta)`` expansion) is below a
  tolerance, on a doubling ladder of sizes refined by bisection in ``log L``.
* **The map** (:func:`limit_map`): the distance at every ``(beta, L)`` of a grid, with the size from
  which on each ``beta`` is below a tolerance (:meth:`LimitMap.crossing`).

Everything here is numerical evidence (Monte Carlo of the exact reduced chain), never a certificate.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.validate import instance, integer, real
from ...theory import Model
from ._finite_field import EVIDENCE, LABEL, SE, LimitDistance, Measurement, instance_of, limit_distance

#: the ladder of :func:`tokens_needed`: its smallest size and its largest
L_MIN, L_MAX = 16, 2**14
#: ... and the informative tokens at its smallest size (below ``R ~ 10`` the error is pre-asymptotic,
#: as ``finite_size.rate`` found, and a draw's variance is large: tens of thousands of draws per alignment)
MIN_INFORMATIVE = 10
#: bisection steps in ``log L`` between the last ladder size above the tolerance and the first below
REFINE = 2
#: a tolerance of at least this many standard errors (the noise floor of a maximum over the grid)
TOL_OVER_SE = 3.0


@dataclass(frozen=True)
class TokensNeeded:
    """The smallest ``L`` at which the distance is below ``tol`` (:func:`tokens_needed`).

    Attributes
    ----------
    model : theory.Model
    d : int
    tol : float
    eta : float or None
        With a step, the criterion is the ``O(eta)`` expansion's error at it, else the limit's distance.
    criterion : {"limit", "expansion"}
    L, R : int or None
        The tokens needed and the informative ones among them (``None`` unless ``status`` is ``ok``
        or ``limited``).
    ladder : tuple of dict
        Every size evaluated, in order: ``L``, ``R``, ``distance``, ``distance_se`` (and
        ``expansion``, ``expansion_se`` with ``eta``), ``below`` (the criterion under ``tol``),
        ``stage`` (``ladder``, ``confirm`` or ``bisect``), ``status``.
    status : {"ok", "limited", "beyond"}
        ``beyond``: the largest size tried is not enough (``reason``); ``limited``: found, but an
        evaluation fell short of its requested error (``reason``).
    reason : str
    se : float
        The requested standard error of each distance (relative to ``max|F|``).
    seconds : float
    evidence : str
        ``"numerical"``.
    """

    model: Model
    d: int
    tol: float
    eta: float | None
    criterion: str
    L: int | None
    R: int | None
    ladder: tuple
    status: str
    reason: str
    se: float
    seconds: float
    evidence: str = EVIDENCE

    def as_dict(self) -> dict:
        return {"model": self.model.as_dict(), "d": self.d, "tol": self.tol, "eta": self.eta,
                "criterion": self.criterion, "L": self.L, "R": self.R, "ladder": list(self.ladder),
                "status": self.status, "reason": self.reason, "se": self.se, "seconds": self.seconds,
                "evidence": self.evidence}


def _row(res: LimitDistance, tol: float, stage: str) -> dict:
    row: dict[str, Any] = {"L": res.problem.L, "R": res.problem.R, "distance": res.distance,
                           "distance_se": res.distance_se}
    if res.eta is not None:
        row.update(expansion=res.expansion, expansion_se=res.expansion_se)
    row.update(below=bool(res.value() < tol), stage=stage, status=res.status)
    return row


def ladder_sizes(model: Model, L_min: int | None, L_max: int) -> list[int]:
    """The doubling ladder ``L_min 2^j <= L_max``; ``L_min`` defaults to ``max(16, ceil(10 / alpha))``
    (:data:`MIN_INFORMATIVE`)."""
    instance("model", model, Model, "theory.Model")
    if model.alpha <= 0:
        raise ValueError(f"`alpha` must be > 0: a finite instance has R >= 1 informative tokens, got {model.alpha!r}")
    lo = integer("L_min", max(L_MIN, math.ceil(MIN_INFORMATIVE / model.alpha - 1e-9)) if L_min is None else L_min, 2)
    hi = integer("L_max", L_max, lo)
    return [lo * 2**j for j in range(int(math.log2(hi / lo)) + 1)]


def tokens_needed(model: Model, tol: float = 0.05, *, d: int, L_min: int | None = None, L_max: int = L_MAX,
                  refine: int = REFINE, progress: Callable[[int, int], None] | None = None,
                  **measure: Any) -> TokensNeeded:
    """The smallest ``L`` at which the limit's distance (with ``eta``: the expansion's error) is below ``tol``.

    A doubling ladder from ``L_min`` climbs to the first size below ``tol`` whose double is below
    too (at large ``beta`` the finite-size error changes sign in ``L``, so one size below ``tol``
    can be a node); then ``refine`` bisections in ``log L`` between it and the size before it.
    Each size's distance has its own seed (``seed`` and ``L``), so it does not depend on the path
    that reached it, and the answer is monotone in ``tol``. Numerical evidence: each comparison
    with ``tol`` is at the Monte Carlo error ``se``, and the bisection takes the distance as
    decreasing between the two ladder sizes.

    Parameters
    ----------
    model : theory.Model
        ``k = H = 1``, ``alpha > 0``, ``theta > 0``; ``R = max(1, round(alpha L))``.
    tol : float
        The tolerance, relative to ``max|F|``, at least :data:`TOL_OVER_SE` times ``se``.
    d : int
    L_min, L_max : int
        The ladder (:func:`ladder_sizes`).
    refine : int
        Bisection steps (each halves ``log L`` of the bracket).
    progress : callable, optional
        ``progress(done, total)`` after each size (``total`` an estimate).
    **measure
        The keywords of :class:`Measurement`: with ``eta``, judge the ``O(eta)`` expansion's error at
        this step instead; ``se``, ``rho_grid``, ``seed``, ``max_normals`` as in :func:`limit_distance`.
    """
    t0 = time.perf_counter()
    tol = real("tol", tol, lower=0.0, strict=True)
    m = Measurement(**measure)
    se = real("se", m.se, lower=0.0, strict=True)
    if tol < TOL_OVER_SE * se * (1 - 1e-12):  # (3 x 0.05 is 0.15000000000000002 in floats)
        raise ValueError(f"`tol` must be at least {TOL_OVER_SE:g} times `se` (the Monte Carlo error of each "
                         f"distance), got tol = {tol!r} with se = {se!r}")
    refine = integer("refine", refine, 0, 20)
    eta = None if m.eta is None else real("eta", m.eta, lower=0.0, upper=1.0, strict=True)
    m = dataclasses.replace(m, eta=eta, se=se)
    sizes = ladder_sizes(model, L_min, L_max)
    instance_of(model, sizes[0], d)  # refuses the model and d before any draw
    seen: dict[int, LimitDistance] = {}
    rows: list[dict] = []

    def below(L: int, stage: str) -> bool:
        if L not in seen:
            seen[L] = m.distance(model, L, d)
            rows.append(_row(seen[L], tol, stage))
            if progress is not None:
                progress(len(rows), len(rows) + refine + 1)
        return seen[L].value() < tol

    found = next((j for j, L in enumerate(sizes)
                  if below(L, "ladder") and (j + 1 == len(sizes) or below(sizes[j + 1], "confirm"))), None)
    criterion = "limit" if eta is None else "expansion"

    def result(**kw: Any) -> TokensNeeded:
        return TokensNeeded(model=model, d=d, tol=tol, eta=eta, criterion=criterion, se=se, ladder=tuple(rows),
                            seconds=time.perf_counter() - t0, **kw)

    if found is None:
        top = seen[sizes[-1]]
        reason = (f"the {criterion} distance at the largest size tried, L = {sizes[-1]}, is "
                  f"{top.value():.3g} ± {top.value_se():.2g} >= tol = {tol:g}: more tokens are needed "
                  f"(raise `L_max`)")
        return result(L=None, R=None, status="beyond", reason=reason)
    hi = sizes[found]
    lo = sizes[found - 1] if found else None
    for _ in range(refine if lo is not None else 0):
        assert lo is not None
        mid = round(math.sqrt(lo * hi))
        if mid in (lo, hi):
            break
        if below(mid, "bisect"):
            hi = mid
        else:
            lo = mid
    return result(L=hi, R=seen[hi].problem.R, **_verdict(seen, sizes, found, hi, lo, tol))


def _verdict(seen: dict, sizes: list[int], found: int, hi: int, lo: int | None, tol: float) -> dict:
    """``status`` and ``reason`` of a found size ``hi`` (``lo`` the largest size above ``tol``)."""
    notes = []
    if lo is None:
        notes.append(f"already below tol = {tol:g} at the smallest size tried, L = {hi} (fewer may do)")
    if found + 1 == len(sizes):
        notes.append(f"not confirmed at 2L: L = {hi} is the largest ladder size")
    limited = sorted(L for L, res in seen.items() if res.status != "ok")
    if limited:
        notes.append(f"short of the requested error at L = {', '.join(map(str, limited))}: "
                     + seen[limited[0]].reason)
    return {"status": "limited" if limited else "ok", "reason": "; ".join(notes)}


@dataclass(frozen=True)
class LimitMap:
    """The distance on a ``(beta, L)`` grid (:func:`limit_map`).

    Attributes
    ----------
    model : theory.Model
        The model whose ``beta`` is replaced (``theta``, ``alpha``, ``sigma2``, prior kept).
    d : int
    betas, Ls : ndarray, shapes (nb,), (nL,)
    R : ndarray of int, shape (nL,)
        ``max(1, round(alpha L))``.
    distance, distance_se : ndarray, shape (nb, nL)
    at_rho : ndarray, shape (nb, nL)
    status : ndarray of str, shape (nb, nL)
    eta : float or None
    expansion, expansion_se : ndarray or None, shape (nb, nL)
    se : float
    seconds : float
    evidence : str
    """

    model: Model
    d: int
    betas: np.ndarray = field(repr=False)
    Ls: np.ndarray = field(repr=False)
    R: np.ndarray = field(repr=False)
    distance: np.ndarray = field(repr=False)
    distance_se: np.ndarray = field(repr=False)
    at_rho: np.ndarray = field(repr=False)
    status: np.ndarray = field(repr=False)
    se: float
    seconds: float
    eta: float | None = None
    expansion: np.ndarray | None = field(default=None, repr=False)
    expansion_se: np.ndarray | None = field(default=None, repr=False)
    evidence: str = EVIDENCE

    def crossing(self, tol: float) -> np.ndarray:
        """Per ``beta``, the ``L`` from which on every grid size is below ``tol``, interpolated
        linearly in ``(log L, log distance)`` from the size before it (``nan`` when the largest is
        above; the smallest grid size when all are below: an upper bound)."""
        tol = real("tol", tol, lower=0.0, strict=True)
        D = self.distance if self.expansion is None else self.expansion
        logL = np.log(self.Ls.astype(float))
        out = np.full(self.betas.size, math.nan)
        for b, row in enumerate(D):
            above = np.flatnonzero(row >= tol)
            k = 0 if above.size == 0 else int(above[-1]) + 1
            if k == row.size:
                continue
            if k == 0:
                out[b] = float(self.Ls[0])
                continue
            y0, y1 = math.log(row[k - 1]), math.log(max(row[k], 1e-300))
            f = (math.log(tol) - y0) / (y1 - y0)
            out[b] = float(np.exp(logL[k - 1] + f * (logL[k] - logL[k - 1])))
        return out

    def dataset(self):
        """The map as an ``xarray.Dataset`` (dimensions ``beta`` and ``L``)."""
        import xarray as xr  # xarray loads only when asked for

        data = {"distance": (("beta", "L"), self.distance), "distance_se": (("beta", "L"), self.distance_se),
                "at_rho": (("beta", "L"), self.at_rho), "status": (("beta", "L"), self.status.astype(str))}
        if self.expansion is not None and self.expansion_se is not None:
            data.update(expansion=(("beta", "L"), self.expansion), expansion_se=(("beta", "L"), self.expansion_se))
        return xr.Dataset(data, coords={"beta": self.betas, "L": self.Ls, "R": ("L", self.R)},
                          attrs={"model": str(self.model.as_dict()), "d": self.d, "se": self.se,
                                 "eta": "none" if self.eta is None else self.eta, "evidence": LABEL})

    def as_dict(self) -> dict:
        out = {"model": self.model.as_dict(), "d": self.d, "betas": self.betas.tolist(), "Ls": self.Ls.tolist(),
               "R": self.R.tolist(), "distance": self.distance.tolist(), "distance_se": self.distance_se.tolist(),
               "at_rho": self.at_rho.tolist(), "status": self.status.tolist(), "se": self.se, "eta": self.eta,
               "seconds": self.seconds, "evidence": self.evidence}
        if self.expansion is not None and self.expansion_se is not None:
            out.update(expansion=self.expansion.tolist(), expansion_se=self.expansion_se.tolist())
        return out


def limit_map(model: Model, betas, Ls, *, d: int, progress: Callable[[int, int], None] | None = None,
              **measure: Any) -> LimitMap:
    """The distance (:func:`limit_distance`) at every ``(beta, L)`` of a grid: ``model`` with its
    ``beta`` replaced, ``alpha`` fixed, ``R = max(1, round(alpha L))``, measured as the keywords of
    :class:`Measurement` say. ``progress(done, total)`` after each cell."""
    m = Measurement(**measure)
    t0 = time.perf_counter()
    instance("model", model, Model, "theory.Model")
    b = np.asarray(betas, dtype=float)
    if b.ndim != 1 or b.size < 1 or not np.all(np.isfinite(b)) or np.any(b <= 0) or np.any(np.diff(b) <= 0):
        raise ValueError(f"`betas` must be increasing numbers > 0, got {betas!r}")
    sizes = np.asarray(Ls)
    if sizes.ndim != 1 or sizes.size < 1 or np.any(np.diff(sizes) <= 0):
        raise ValueError(f"`Ls` must be increasing token counts, got {Ls!r}")
    sizes = np.array([integer("Ls", L, 2) for L in sizes.tolist()])
    cells = []
    for beta in b:
        cell_model = Model(model.theta, model.alpha, float(beta), model.sigma2, model.law, model.heads)
        for L in sizes:
            cells.append(m.distance(cell_model, int(L), d))
            if progress is not None:
                progress(len(cells), b.size * sizes.size)
    shape = (b.size, sizes.size)

    def grid(get) -> np.ndarray:
        return np.array([get(c) for c in cells]).reshape(shape)

    exp = None if m.eta is None else (grid(lambda c: c.expansion), grid(lambda c: c.expansion_se))
    return LimitMap(model=model, d=cells[0].problem.d, betas=b, Ls=sizes,
                    R=np.array([c.problem.R for c in cells[: sizes.size]]), distance=grid(lambda c: c.distance),
                    distance_se=grid(lambda c: c.distance_se), at_rho=grid(lambda c: c.at_rho),
                    status=grid(lambda c: c.status), se=m.se, seconds=time.perf_counter() - t0, eta=cells[0].eta,
                    expansion=None if exp is None else exp[0], expansion_se=None if exp is None else exp[1])


@dataclass(frozen=True)
class LimitRequest:
    """What ``sigrec limit`` asks of :func:`limit_study`.

    Attributes
    ----------
    d : int
    tol : float
        The tolerance of :func:`tokens_needed`.
    eta : float or None
        Judge the ``O(eta)`` expansion's error at this step instead of the limit's distance.
    se : float
    L_max, seed : int
    L : int or None
        Also the distance at these tokens (the model's own counts).
    betas : tuple or None
        Also the map over these ``beta`` and the ladder's sizes (the figure's data).
    """

    d: int
    tol: float = 0.05
    eta: float | None = None
    se: float = SE
    L_max: int = L_MAX
    seed: int = 0
    L: int | None = None
    betas: tuple | None = None


@dataclass(frozen=True)
class LimitStudy:
    """The tokens a tolerance needs, with the distance at the model's own size and the map.

    Attributes
    ----------
    model : theory.Model
    request : LimitRequest
    found : TokensNeeded
    at : LimitDistance or None
        With ``request.L``.
    lmap : LimitMap or None
        With ``request.betas``.
    crossing : ndarray or None
        :meth:`LimitMap.crossing` at ``request.tol`` (``nan`` where the grid is not enough).
    wall_s : float
    evidence : str
        How the command and the documents label the numbers (numerical evidence).
    """

    model: Model
    request: LimitRequest
    found: TokensNeeded
    at: LimitDistance | None
    lmap: LimitMap | None
    crossing: np.ndarray | None
    wall_s: float
    evidence: str = LABEL

    def as_dict(self, figure: str | None = None) -> dict:
        q = self.request
        out: dict[str, Any] = {"model": self.model.as_dict(), "d": q.d, "tol": q.tol, "eta": q.eta, "se": q.se,
                               "evidence": self.evidence}
        if self.lmap is not None and self.crossing is not None:
            out["map"] = {**self.lmap.as_dict(), "tokens_needed": [None if x != x else x for x in self.crossing]}
        out["tokens_needed"] = self.found.as_dict()
        if self.at is not None:
            out["distance"] = self.at.as_dict()
        return {**out, "figure": figure, "wall_s": self.wall_s}


def limit_study(model: Model, request: LimitRequest,
                progress: Callable[[str], Callable[[int, int], None]] | None = None) -> LimitStudy:
    """:func:`tokens_needed` for ``request.tol`` (refused as its reason when the ladder is not
    enough), then :func:`limit_distance` at ``request.L`` and :func:`limit_map` over ``request.betas``
    and the ladder's sizes when asked; ``progress(label)`` gives each stage's ``progress(done, total)``."""
    t0 = time.perf_counter()
    q = request
    sizes = ladder_sizes(model, None, q.L_max)  # refuses alpha = 0 and a bad L-max before any work
    found = tokens_needed(model, q.tol, d=q.d, eta=q.eta, se=q.se, L_max=q.L_max, seed=q.seed,
                          progress=None if progress is None else progress("tokens needed"))
    if found.status == "beyond":  # numbers or a refusal: no tokens count to print
        raise ValueError(found.reason)
    at = None if q.L is None else limit_distance(model, q.L, q.d, eta=q.eta, se=q.se, seed=q.seed)
    lmap = crossing = None
    if q.betas is not None:
        lmap = limit_map(model, q.betas, sizes, d=q.d, eta=q.eta, se=q.se, seed=q.seed,
                         progress=None if progress is None else progress("map"))
        crossing = lmap.crossing(q.tol)
    return LimitStudy(model, request, found, at, lmap, crossing, time.perf_counter() - t0)
