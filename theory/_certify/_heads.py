"""Interval certificates for the equilibria of H orthonormal heads: the reduced flow of ``M = U^T Q``
(:mod:`theory._field._heads`, docs/subspace-certificates.md section 3).

**The map.** ``Phi(M) = Gamma(M) - M sym(M^T Gamma(M))`` from ``R^{k x H}`` to itself (row-major
``M.reshape(-1)``, ``n = kH`` unknowns), ``Gamma = [g(m_1) ... g(m_H)]`` and ``g = grad_r j`` the
one-query gradient. ``g`` and its Hessian come in python-flint balls from the sympy derivation
(:func:`theory._certify._subspace_balls.ball_field`); the Jacobian of ``Phi`` is
``E -> [H(m_h) e_h]_h - E S - M sym(E^T Gamma + M^T [H(m_h) e_h]_h)``, ``S = sym(M^T Gamma)``,
enclosed entrywise on a box.

**What is proved per box** (at ``prec`` bits; every claim holds for the derived field, i.e. given
that the sympy derivation is right):

* *one zero*: the Krawczyk test (:func:`theory._certify._subspace_balls.krawczyk`) on ``Phi``
  proves that the box ``Z`` in ``R^{kH}`` holds exactly one zero ``M*`` of ``Phi``, inside the
  tighter enclosure ``K(Z)``;
* *feasibility* (``M*`` is ``U^T Q`` of an orthonormal frame: singular values ``<= 1``).
  With ``P = M^T M`` and ``X = I - P``, a zero satisfies ``d(M^T M)/dt = S X + X S = 0`` (the
  flow of ``M^T M``). In an eigenbasis of ``S*`` this reads ``(s_i + s_j) X_ij = 0``. Let ``Z0``
  be the indices whose certified eigenvalue enclosure ``s_i`` (:func:`symmetric_eigenvalues`:
  Gershgorin discs of a similar matrix) contains 0. When ``s_i + s_j`` excludes 0 for every pair not both in
  ``Z0``, ``X*`` lives on the eigenvectors of ``Z0``: ``P*`` has the eigenvalue 1 with
  multiplicity ``>= H - |Z0|`` and its other ``|Z0|`` eigenvalues are those of a ``|Z0|``-block.
  If the ``|Z0|``-th smallest eigenvalue enclosure of ``P`` lies below 1, all ``|Z0|`` of that
  block are ``< 1``: exactly ``H - |Z0|`` singular values of ``M*`` equal 1, the others are
  ``< 1`` (``feasibility = "boundary"``; ``Z0`` empty: ``M*^T M* = I``, every head inside the
  span). ``"interior"`` when the largest eigenvalue of ``P`` is below 1 on the box. Otherwise
  ``"undecided"`` with the enclosure of the largest singular value. A feasible zero of ``Phi``
  is also an equilibrium of the full flow: ``dQ_perp/dt = -Q_perp S`` vanishes, since
  ``|Q_perp S|^2 = tr(S X S)`` with ``X = Q_perp^T Q_perp >= 0``, and in an eigenbasis of ``X``
  (eigenvalues ``a_i >= 0``) ``(a_i + a_j) S_ij = 0`` gives ``X S = 0`` (:mod:`theory._field._heads`);
* *stability*: rigorous enclosures of the eigenvalues of the Jacobian of ``Phi`` on ``K(Z)``
  (python-flint ``acb_mat.eig``, Rump's algorithm, which proves ``n`` isolated eigenvalues of
  every matrix in the ball; ``multiple=True`` when some are clustered, e.g. by a symmetry). The
  label is ``stable`` (every real part ``< 0``), ``unstable`` (every real part ``> 0``) or
  ``saddle`` (some of each); ``undecided`` with the reason when a real part's enclosure holds 0,
  the eigenvalues cannot be enclosed, the Krawczyk test fails or feasibility is undecided.
  The eigenvalues are those of the flow on ``R^{k x H}``; they include the directions that move
  heads out of the span (``X``: eigenvalues ``-(s_i + s_j)`` on the invariant set
  ``M^T M = I``), as the radial eigenvalue does for one query.

**Kinds** (from the certified enclosure ``K(Z)``). Head ``h`` is *on direction* ``j`` when
``M_jh^2 > (3/4) |m_h|^2`` holds on the box (more than three quarters of its in-span mass), and
*spread* when ``M_jh^2 < (3/4) |m_h|^2`` holds for every ``j`` (3/4 stays clear of the shares
``1/2`` and ``1/k`` of the symmetric mixtures, so both tests decide there).

* ``"specialised"``: every head is on a direction and the directions are distinct (``H <= k``);
* ``"mixture"``: some head is spread over the signal directions;
* ``"shared-direction"``: two heads are on the same direction and some signal direction is not in
  ``span Q`` (the ``k``-th singular value of ``M``, 0 for ``H < k``, certified ``< 1``);
* ``"recovered-shared"``: two heads are on the same direction and ``span U`` lies in ``span Q``
  (``k`` singular values certified equal to 1, ``H > k``);
* ``"tilted"``: otherwise (a head neither on a direction nor spread, on the box).

The principal angles between ``span Q`` and ``span U`` are ``arccos`` of the singular values
(``min(k, H)`` of them; exactly 0 for a singular value certified equal to 1).

**Symmetries.** Permuting heads maps a zero to another, isolated zero (a distinct box each). A
continuous symmetry (an isotropic law, ``gaussian(k=2, tau=1)``: ``Phi(R M) = R Phi(M)`` for
every rotation ``R``) makes the zeros a manifold: the Jacobian is singular there, the Krawczyk
test fails and the equilibrium is reported ``undecided`` with that reason.

**Not proved: completeness.** The list holds the equilibria found numerically from the starts
(the ends of :func:`theory._field._heads.integrate_heads` from random frames, polished, and the
starts polished directly, :func:`theory._field._heads.find_heads_equilibria`); there may be
others.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from flint import acb_mat, arb, arb_mat

from .._field._heads import find_heads_equilibria
from .._model import Model
from ._heads_balls import _columns, _eig, _interval, _mtg, _phi, heads_system, symmetric_eigenvalues
from ._roots import precision, sign
from ._seal import digest
from ._subspace import MAX_PREC, BoxesByStatus, _check_prec, _outward, _params, to_ball
from ._subspace_balls import ball_field, krawczyk, newton_refine

#: the labels of a certified equilibrium
STATUSES = ("stable", "unstable", "saddle", "undecided")


# ----------------------------------------------------------------------------------
# the certified box


@dataclass(frozen=True)
class HeadsBox:
    """One equilibrium of the reduced heads flow, certified or undecided (module doc).

    Attributes
    ----------
    start : tuple of float
        The numerical equilibrium it started from, ``M`` row-major (``k H`` numbers).
    shape : tuple of int
        ``(k, H)``.
    status : {"stable", "unstable", "saddle", "undecided"}
        Certified sign pattern of the real parts of the Jacobian's eigenvalues: all negative,
        all positive, or some of each; ``undecided`` when something below is not certified.
    kind : str
        ``"specialised"``, ``"mixture"``, ``"shared-direction"``, ``"recovered-shared"``,
        ``"tilted"`` (module doc); ``""`` when the Krawczyk test failed.
    directions : tuple
        Per head the signal direction ``xi_j`` it is on (``j`` counts from 1), ``0`` when it is
        spread, ``None`` when neither is certified on the box (module doc).
    box : tuple of arb
        The Krawczyk box ``Z`` (row-major ``M``) holding exactly one zero of ``Phi``; empty when the
        test failed.
    enclosure : tuple of arb
        ``K(Z)``, a tighter box inside :attr:`box` holding that zero; empty when the test failed.
    eigenvalues : tuple of acb
        Enclosures of the ``k H`` eigenvalues of the Jacobian of ``Phi`` at the zero (empty when not
        enclosed).
    inertia : tuple or None
        ``(n_negative, n_positive)`` real parts, when every real part is decided.
    feasibility : {"interior", "boundary", "undecided", ""}
        ``interior``: every singular value of ``M`` certified ``< 1``; ``boundary``: exactly
        :attr:`unit_singular_values` of them equal 1 and the others are ``< 1`` (module doc);
        ``""`` when the Krawczyk test failed.
    unit_singular_values : int or None
        How many singular values of ``M`` are exactly 1 (``boundary``; 0 for ``interior``).
    singular_values : tuple of arb
        Enclosures of the ``min(k, H)`` singular values of ``M``, descending (the largest is exactly
        1 on the boundary, its ball may still be wider).
    angles : tuple of arb
        The principal angles between ``span Q`` and ``span U``, ascending (``arccos`` of
        :attr:`singular_values`; exactly 0 for a unit singular value).
    reason : str
        Why it is undecided (empty otherwise).
    """

    start: tuple
    shape: tuple
    status: str
    kind: str = ""
    directions: tuple = ()
    box: tuple = ()
    enclosure: tuple = ()
    eigenvalues: tuple = ()
    inertia: tuple | None = None
    feasibility: str = ""
    unit_singular_values: int | None = None
    singular_values: tuple = ()
    angles: tuple = ()
    reason: str = ""

    @property
    def certified(self) -> bool:
        return self.status != "undecided"

    @property
    def M(self) -> np.ndarray:
        """The centre of the certified box as a float ``k x H`` array (the start when undecided)."""
        values = [float(b.mid()) for b in self.box] if self.box else list(self.start)
        return np.array(values).reshape(self.shape)

    def contains(self, M, enclosure: bool = False) -> bool:
        """Whether the box (or with ``enclosure``, ``K(Z)``) contains ``M`` (``k x H``; floats, mpf,
        fractions or balls, converted exactly)."""
        boxes = self.enclosure if enclosure else self.box
        flat = list(np.asarray(M, dtype=object).reshape(-1))
        with precision(MAX_PREC):
            return bool(boxes) and all(b.contains(to_ball(x)) for b, x in zip(boxes, flat, strict=True))

    def bounds(self) -> tuple:
        """The box as float ``(lo, hi)`` pairs, rounded outward."""
        return tuple(_outward(b) for b in self.box)

    def as_dict(self) -> dict:
        return {"start": list(self.start), "shape": list(self.shape), "status": self.status, "kind": self.kind,
                "directions": list(self.directions), "box": [list(b) for b in self.bounds()],
                "eigenvalues": [{"real": list(_outward(e.real)), "imag": list(_outward(e.imag))}
                                for e in self.eigenvalues],
                "inertia": None if self.inertia is None else list(self.inertia), "feasibility": self.feasibility,
                "unit_singular_values": self.unit_singular_values,
                "singular_values": [list(_outward(s)) for s in self.singular_values],
                "angles": [list(_outward(a)) for a in self.angles], "reason": self.reason}


@dataclass(frozen=True)
class HeadsCertificate(BoxesByStatus):
    """Outcome of :func:`certify_heads`: one :class:`HeadsBox` per numerical equilibrium.

    ``certified`` is True iff every box is decided (stability and feasibility) and the boxes are
    pairwise disjoint. Completeness of the list is *not* part of the claim.

    Attributes
    ----------
    model : Model
        The model certified (``k``, ``H`` heads).
    boxes : tuple of HeadsBox
        One per numerical equilibrium, in the order they were found; empty when ``theta = 0``.
    certified : bool
        True iff every box is decided and no two boxes overlap.
    prec : int
        Bits of ball precision.
    notes : tuple of str
        Remarks: overlapping boxes, how many are undecided, that completeness is not certified.
    seconds : float
        Wall time of the numerical search and of the certification.
    """

    model: Model
    boxes: tuple
    certified: bool
    prec: int
    notes: tuple = field(default=())
    seconds: float = 0.0

    @property
    def checksum(self) -> str:
        """SHA-256 of :meth:`as_dict` in canonical JSON (:func:`theory._certify._seal.digest`)."""
        return digest(self.as_dict())

    def as_dict(self) -> dict:
        return {"model": self.model.as_dict(), "certified": self.certified, "complete": False, "prec": self.prec,
                "boxes": [b.as_dict() for b in self.boxes], "notes": list(self.notes), "seconds": self.seconds}


# ----------------------------------------------------------------------------------
# what the box proves


class Feasibility(NamedTuple):
    """Where the box's ``M`` lies (module doc): ``"interior"``, ``"boundary"`` or ``"undecided"``, how many
    singular values are 1, the singular value balls (descending), and why it is undecided."""

    feasibility: str
    units: int | None
    singular_values: tuple
    reason: str


class Stability(NamedTuple):
    """The stability of the box's equilibrium from its Jacobian: ``status``, the eigenvalue enclosures
    (by decreasing real part), the inertia ``(neg, pos)`` and why it is undecided."""

    status: str
    eigenvalues: tuple
    inertia: tuple | None
    reason: str


def _feasibility(M: list, S: list) -> Feasibility:
    """The :class:`Feasibility` of ``M`` (module doc)."""
    k, n = len(M), len(M[0])
    p = symmetric_eigenvalues(_mtg(M, M))
    s = symmetric_eigenvalues(S)
    if p is None or s is None:
        return Feasibility("undecided", None, (), "the eigenvalues of M^T M or S could not be enclosed")
    top = sorted(p, key=lambda x: -float(x.mid()))[:min(k, n)]
    if p[-1] < 1:
        return Feasibility("interior", 0, tuple(_root(x) for x in top), "")
    zero = [i for i in range(n) if s[i].contains(0)]
    clear = all(not (s[i] + s[j]).contains(0) for i in range(n) for j in range(i, n)
                if not (i in zero and j in zero))
    if clear and (not zero or p[len(zero) - 1] < 1):
        units = n - len(zero)
        sv = tuple(arb(1) if i < units else _root(x) for i, x in enumerate(top))
        return Feasibility("boundary", units, sv, "")
    return Feasibility("undecided", None, tuple(_root(x) for x in top), (
        f"feasibility undecided: largest singular value in [{_outward(_root(p[-1]))[0]:.6g}, "
        f"{_outward(_root(p[-1]))[1]:.6g}] and the structure of S does not fix it"))


def _root(x: arb) -> arb:
    """``sqrt`` of the nonnegative part of a ball (an eigenvalue of ``M^T M``), outward in float."""
    lo, hi = _outward(x)
    return _interval(math.nextafter(math.sqrt(max(lo, 0.0)), -math.inf) if lo > 0 else 0.0,
                     math.nextafter(math.sqrt(max(hi, 0.0)), math.inf))


def _angles(sv: tuple) -> tuple:
    """``arccos`` of the singular value balls (decreasing: the ends swap), exactly 0 for a unit one."""
    out = []
    for s in sv:
        if s == 1:
            out.append(arb(0))
            continue
        lo, hi = (min(max(v, 0.0), 1.0) for v in _outward(s))
        out.append(arb(hi).acos().union(arb(lo).acos()))
    return tuple(sorted(out, key=lambda a: float(a.mid())))


#: a head is on direction ``j`` when ``M_jh^2 > SHARE |m_h|^2`` (certified), spread when below for every ``j``
SHARE = 3 / 4


def _directions(M: list) -> tuple:
    """Per head the certified direction ``j`` (from 1), ``0`` (spread) or ``None`` (undecided), module doc."""
    k, n = len(M), len(M[0])
    out = []
    for h in range(n):
        sq = [M[i][h] * M[i][h] for i in range(k)]
        excess = [sq[j] - SHARE * sum(sq, arb(0)) for j in range(k)]  # M_jh^2 - SHARE |m_h|^2
        dominant = [j for j in range(k) if excess[j] > 0]
        out.append(dominant[0] + 1 if dominant else (0 if all(e < 0 for e in excess) else None))
    return tuple(out)


def _kind(directions: tuple, sv: tuple, units: int | None, k: int) -> str:
    if None in directions:
        return "tilted"
    if 0 in directions:
        return "mixture"
    if len(set(directions)) == len(directions):
        return "specialised"
    kth = sv[k - 1] if len(sv) >= k else arb(0)
    if units is not None and units >= k:
        return "recovered-shared"
    return "shared-direction" if kth < 1 else "tilted"


def _stability(J: list) -> Stability:
    """The :class:`Stability` from the Jacobian balls on ``K(Z)``."""
    ev = _eig(acb_mat(arb_mat(J)))
    if ev is None:
        return Stability("undecided", (), None, "the eigenvalues of the Jacobian could not be enclosed (isolated)")
    ev = sorted(ev, key=lambda e: -float(e.real.mid()))
    signs = [sign(e.real) for e in ev]
    if 0 in signs:
        return Stability("undecided", tuple(ev), None,
                         "a real part of an eigenvalue of the Jacobian is not separated from 0")
    neg, pos = signs.count(-1), signs.count(1)
    status = "stable" if pos == 0 else "unstable" if neg == 0 else "saddle"
    return Stability(status, tuple(ev), (neg, pos), "")


def certify_heads_point(model: Model, M0, *, params=None, field_fn=None, rad: float = 1e-20) -> HeadsBox:
    """Certify the equilibrium of the reduced heads flow near ``M0`` (``k x H``) at the current flint
    precision: one zero in a Krawczyk box, its feasibility, its stability and kind (module doc).
    ``field_fn`` replaces the derived ball field (tests perturb it)."""
    k, n = model.k, model.heads
    M0 = np.asarray(M0, dtype=float).reshape(k, n)
    start, shape = tuple(float(x) for x in M0.reshape(-1)), (k, n)
    fld = field_fn or ball_field(model.law)
    params = _params(model) if params is None else params
    system = heads_system(fld, k, n)
    z = newton_refine(system, list(start), params)
    Z, K, reason = krawczyk(system, z, params, rad)
    if Z is None:
        return HeadsBox(start, shape, "undecided", reason=f"Krawczyk: {reason}")
    MK = [[K[i * n + h] for h in range(n)] for i in range(k)]
    G, _ = _columns(fld, MK, params)
    _, S = _phi(MK, G)
    feas, units, sv, why = _feasibility(MK, S)
    _, J = system(K, params)
    status, ev, inert, why_eig = _stability(J)
    directions = _directions(MK)
    reason = "; ".join(r for r in (why, why_eig) if r)
    return HeadsBox(start, shape, "undecided" if reason else status, _kind(directions, sv, units, k), directions,
                    tuple(Z), tuple(K), ev, inert, feas, units, sv, _angles(sv), reason)


def _overlap(a: HeadsBox, b: HeadsBox) -> bool:
    return bool(a.box and b.box) and all(x.overlaps(y) for x, y in zip(a.box, b.box, strict=True))


def certify_heads(model: Model, starts=None, equilibria=None, prec: int = 128, n_random: int = 8, seed: int = 0,
                  field_fn=None) -> HeadsCertificate:
    """Certify the equilibria of the reduced flow of ``H = model.heads`` heads (module doc).

    Parameters
    ----------
    model : Model
        Any law (``k`` from it) and ``H >= 1`` heads.
    starts : sequence of array_like, optional
        Starts ``M0`` (``k x H``) of the numerical search
        (:func:`theory._field._heads.find_heads_equilibria`); default ``n_random`` random frames.
    equilibria : sequence of array_like, optional
        Numerical equilibria to certify directly (no search); excludes ``starts``.
    prec : int
        Working precision in bits (the flint context is restored on exit).
    n_random, seed : int
        Number of random frames and their seed when ``starts`` is not given.
    field_fn : callable, optional
        A replacement ball field ``(r, params) -> (g, H)`` (for tests).

    Returns
    -------
    HeadsCertificate
        The list of the equilibria found from the starts, each certified or undecided; not a
        proof that there are no others.
    """
    if not isinstance(model, Model):
        raise ValueError(f"`model` must be a theory.Model, got {type(model).__name__}")
    if starts is not None and equilibria is not None:
        raise ValueError("give `starts` (a numerical search from them) or `equilibria` (certified as they are), "
                         "not both")
    prec = _check_prec(prec)
    t0 = time.perf_counter()
    if model.theta == 0:
        return HeadsCertificate(model, (), False, prec,
                                ("theta = 0: the objective is constant, every M is an equilibrium",))
    eqs = (find_heads_equilibria(model, starts, n_random=n_random, seed=seed) if equilibria is None
           else [np.asarray(e, dtype=float).reshape(model.k, model.heads) for e in equilibria])
    with precision(prec):
        boxes = tuple(certify_heads_point(model, M, field_fn=field_fn) for M in eqs)
    notes = [f"boxes of {tuple(np.round(a.start, 6))} and {tuple(np.round(b.start, 6))} overlap "
             "(the same equilibrium twice?)" for i, a in enumerate(boxes) for b in boxes[i + 1:] if _overlap(a, b)]
    disjoint = not notes
    undecided = [b for b in boxes if not b.certified]
    if undecided:
        notes.append(f"{len(undecided)} of {len(boxes)} equilibria undecided")
    notes.append("completeness is not certified: the list holds the equilibria found from the starts")
    return HeadsCertificate(model, boxes, bool(boxes) and not undecided and disjoint, prec, tuple(notes),
                            time.perf_counter() - t0)

