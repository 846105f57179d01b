"""The data of the appendix's section on the signal subspace (``sigrec notes``).

:func:`subspace_data` computes, once and before any typesetting, everything the section
"The signal subspace" shows: the display forms of the one-query limit of ``onehot(k)``
(each checked by sympy against the objects of ``theory.derive``), the certified
brackets of the mixture/specialisation transition (``theory.certify_transition``), the
certified statement at the paper's weak signal, and the arrays of its two figures: the
projected flow on the disk with every equilibrium certified (``certify_circle`` and
``certify_disk``) and ODE paths, and the principal angles of two heads over time
(the reduced flow ``heads_flow``), and the region certificate of ``onehot(k=2)`` on the CLI's
default region (``theory.certify`` of a ``ModelBox``, the longest part). Everything here
is theory and float ODEs, so nothing is saved beside the figures (unlike the effective-drift
figure, whose data is a suite run's simulation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy as sp
from flint import arb

from ...theory import (
    DEFAULT_REGION,
    K2RegionCertificate,
    Model,
    ModelBox,
    SubspaceCertificate,
    TransitionBracket,
    certify,
    certify_transition,
    derive,
    evaluate,
    heads_equilibrium,
    heads_flow,
    integrate_heads,
    mixture_eigenvalues,
    principal_angles,
    same,
    symbols,
)
from ._bounds import Bound, below

beta, theta, alpha, sigma2, rho = symbols.beta, symbols.theta, symbols.alpha, symbols.sigma2, symbols.rho

#: the law of the section's displays and figures
SUBSPACE_LAW = "onehot(k=2)"
#: (k, alpha) of the certified transition table (beta = sigma2 = 1)
TRANSITION_CASES = ((2, 0.05), (2, 0.3), (3, 0.05), (3, 0.3))
#: the paper's weak signal, and the upper end of the range certified from it
WEAK_THETA = 0.25
WEAK_RANGE_END = 2.0
#: the flow figure: one panel on each side of theta_c (alpha = 0.05), starts of the ODE paths
FLOW_PANELS = ((0.5, 0.05), (1.3, 0.05))
FLOW_STARTS = ((0.3, 0.1), (0.05, 0.04), (-0.2, 0.3), (-0.5, -0.45), (0.6, -0.7), (-0.85, 0.2))
FLOW_GRID = 41
FLOW_TIME = 400.0
#: the heads figure: (theta, alpha, seeds of the random starting frames in d = HEADS_D)
HEADS_PANELS = ((1.5, 0.05, (0, 1, 2, 3)), (3.0, 0.3, (0, 4)))
HEADS_D = 5
HEADS_TIMES = np.concatenate([[0.0], np.geomspace(0.01, 200.0, 64)])
#: three heads on k = 2: (theta, alpha, seeds of the random starting frames in d = HEADS_D + 1)
EXTRA_HEAD = (1.5, 0.05, (0, 1, 2, 3))
#: the region of the k = 2 region proposition: :data:`theory.DEFAULT_REGION` (alpha in log scale) with the
#: leaf width of ``sigrec phase --prior 'onehot(k=2)' --region``
REGION_K2: dict = {**DEFAULT_REGION, "min_width": 2.0 ** -7}
#: a principal angle within this of 0 or pi/2 counts as such at the end of a run
ANGLE_TOL = 1e-6
#: the bound printed for |M M^T - I| at the end of the extra-head runs, as a power of ten: the runs stop at
#: |dM/dt| < 1e-13 and the slowest rate at the end is about 0.19, so the end lies within about 1e-12 of the
#: equilibrium; the residue itself is 1e-16 to 1e-13 and depends on the CPU's BLAS kernels
SPAN_BOUND = -10


@dataclass(frozen=True)
class FlowPanel:
    """One panel of the flow figure: the projected field ``dr/dt = g - <r, g> r`` on a grid of
    the square (``nan`` outside the closed disk), every equilibrium as ``(r1, r2, stable,
    where, kind)`` with ``where`` ``"circle"`` or ``"interior"`` and ``kind`` its certified kind
    (:mod:`theory._field._kinds`; certified; ``complete``: no angle and no box undecided), and ODE
    paths ``(n, 2)``."""

    theta: float
    alpha: float
    grid: np.ndarray
    u: np.ndarray
    v: np.ndarray
    equilibria: tuple
    complete: bool
    paths: tuple


@dataclass(frozen=True)
class HeadsPanel:
    """One panel of the heads figure: ``angles[run, time, i]`` (ascending principal angles
    between ``span Q`` and ``span U``), each run's end (``"recovered"``: both angles 0;
    ``"shared direction"``: angles ``(0, pi/2)``; else ``"other"``), summed objective, and the
    classification of the end by ``heads_equilibrium`` (``stable``: every Jacobian eigenvalue has
    negative real part; ``top_eigenvalue``: the largest real part)."""

    theta: float
    alpha: float
    seeds: tuple
    times: np.ndarray
    angles: np.ndarray
    ends: tuple
    objectives: tuple
    stable: tuple
    top_eigenvalue: tuple


@dataclass(frozen=True)
class ExtraHead:
    """``H = 3`` heads on ``k = 2`` (:data:`EXTRA_HEAD`): per run, at the settled end,
    ``|M M^T - I|`` (0 when ``span U`` lies inside ``span Q``), the heads' overlap norms
    ``|m_h|`` (descending) and the final speed ``|dM/dt|``; ``span_bound``: the printed bound
    :data:`SPAN_BOUND`, checked against every run's ``|M M^T - I|``."""

    theta: float
    alpha: float
    seeds: tuple
    span_error: tuple
    norms: tuple
    speed: tuple
    span_bound: Bound


@dataclass(frozen=True)
class WeakSignal:
    """The mixture at ``theta = WEAK_THETA``: the float eigenvalues of the closed form and the
    certified bracket of route 1 on ``[WEAK_THETA, WEAK_RANGE_END]`` (``bracket.lo``: the mixture
    is certified stable for every theta from ``WEAK_THETA`` to it)."""

    k: int
    alpha: float
    tangent: float
    radial: float
    bracket: TransitionBracket


@dataclass(frozen=True)
class SubspaceData:
    """Everything the subspace section shows (:func:`subspace_data`). ``forms`` maps a display's
    name to the sympy expression printed (each checked equal to the derived object)."""

    law: str
    forms: dict
    transitions: tuple
    weak: tuple
    flow: tuple
    heads: tuple
    extra: ExtraHead
    region: K2RegionCertificate


def _checked(display, derived, what: str):
    if not same(display, derived):
        raise AssertionError(f"the display form of {what} differs from the derived object")
    return display


def subspace_forms() -> dict:
    """The displays of the section, each checked by sympy against ``theory.derive``.

    With symbols ``m_i`` for the informative coefficients, ``j`` and ``g_1`` are written
    through them (:math:`j = \\beta^2\\sigma^4 + \\theta^2|m|^2 + 2\\beta\\sigma^2\\theta\\langle r,
    m\\rangle`, :math:`g_i = 2\\theta m_i[b\\theta(m_i-|m|^2) + \\beta\\sigma^2(1 + b(r_i -
    \\langle r, m\\rangle))]`) and equal the derived objects once the derived ``m`` is substituted
    (``k = 2`` and ``k = 3``); ``k = 1`` (the law ``fixed``) is the scalar objective; the mixture
    eigenvalues in closed form equal ``H_11 - H_12 - lam`` and ``-2 lam`` of the sympy Hessian at
    ``r* = 1/sqrt(k) 1`` (``k = 2, 3``).
    """
    forms: dict[str, object] = {}
    for k in (2, 3):
        d = derive(f"onehot(k={k})", engine="subspace")
        ms = sp.symbols(f"m1:{k + 1}", real=True)
        sub = dict(zip(ms, d.pooled[1], strict=True))
        b = beta * theta
        mm = sum(x**2 for x in ms)
        rm = sum(ri * mi for ri, mi in zip(d.r, ms, strict=True))
        j_m = beta**2 * sigma2**2 + theta**2 * mm + 2 * beta * sigma2 * theta * rm
        g_m = 2 * theta * ms[0] * (b * theta * (ms[0] - mm) + beta * sigma2 * (1 + b * (d.r[0] - rm)))
        _checked(j_m.subs(sub), d.objective, f"j (k = {k})")
        _checked(g_m.subs(sub), d.gradient[0], f"g_1 (k = {k})")
        if d.pooled[0] != beta * sigma2:
            raise AssertionError("the q-coefficient of the pooled output is not beta sigma2")
        # the mixture eigenvalues: closed form (w the informative mass, mu = w/k) against the Hessian
        w, kk = sp.Symbol("w", positive=True), sp.Symbol("k", positive=True)
        mu = w / kk
        lam = 2 * theta * mu * (theta * b * w * (1 - w) / sp.sqrt(kk) + beta * sigma2 * (sp.sqrt(kk) + b * (1 - w)))
        tangent = 2 * theta * mu * (theta * b**2 * mu * (2 - w) + beta * sigma2 * b * (2 + b * (1 - w) / sp.sqrt(kk)))
        star = {ri: 1 / sp.sqrt(k) for ri in d.r}
        e = sp.exp(b / sp.sqrt(kk))
        w_of = alpha * e / (alpha * e + 1 - alpha)
        at = {w: w_of.subs(kk, k), kk: k}
        lam_d = sum(ri * gi for ri, gi in zip(d.r, d.gradient, strict=True)).subs(star)
        _checked(lam.subs(at), lam_d, f"lambda at the mixture (k = {k})")
        _checked((tangent - lam).subs(at), (d.hessian[0][0] - d.hessian[0][1]).subs(star) - lam_d,
                 f"the tangent eigenvalue at the mixture (k = {k})")
        if k == 2:
            forms.update(mgf=d.mgf, t=sp.symbols("t1:3", real=True), m=d.pooled[1], r=d.r, m_symbols=ms,
                         j=j_m, g1=g_m, c_q=d.pooled[0], w=w, k=kk, lam=lam, tangent=tangent,
                         w_of=w_of)
    one, scalar = derive("fixed", engine="subspace"), derive("fixed", engine="scalar")
    _checked(one.objective.subs(one.r[0], rho), scalar.objective, "j for k = 1")
    return forms


def _flow_panel(theta_: float, alpha_: float) -> FlowPanel:
    model = Model(theta_, alpha_, prior=SUBSPACE_LAW)
    grid = np.linspace(-1.0, 1.0, FLOW_GRID)
    u = np.full((grid.size, grid.size), np.nan)
    v = np.full_like(u, np.nan)
    for i, y in enumerate(grid):
        for j, x in enumerate(grid):
            if x * x + y * y <= 1.0:
                u[i, j], v[i, j] = evaluate(model, (x, y), engine="subspace").flow
    cert = certify(model)
    assert isinstance(cert, SubspaceCertificate) and cert.completeness is not None  # k = 2: circle and disk ran
    assert cert.completeness.circle is not None and cert.completeness.disk is not None
    circle, disk = cert.completeness.circle, cert.completeness.disk
    eqs = []
    for e in circle.equilibria:
        phi = (e.lo + e.hi) / 2
        eqs.append((math.cos(phi), math.sin(phi), bool(e.stable), "circle", _kind_on_circle(cert, e.lo, e.hi)))
    for box, inertia in disk.equilibria:
        stable = inertia is not None and inertia[1] == 0 and inertia[0] == 2
        eqs.append((float(box[0].mid()), float(box[1].mid()), stable, "interior", _kind_in_box(cert, box)))
    paths = tuple(_path(model, r0) for r0 in FLOW_STARTS)
    return FlowPanel(theta_, alpha_, grid, u, v, tuple(eqs), circle.complete and disk.complete, paths)


def _kind_on_circle(cert, lo: float, hi: float) -> str:
    """The certified kind (:attr:`theory.SubspaceBox.classification`) of the circle's one zero in
    the angle bracket ``[lo, hi]``: that of the Krawczyk box whose enclosure's angle lies inside
    the bracket (then both hold the same zero), else ``"undecided"``."""
    for b in cert.boxes:
        if b.kind == "sphere" and b.enclosure:
            angle = arb.atan2(b.enclosure[1], b.enclosure[0])
            for shift in (0.0, 2 * math.pi, -2 * math.pi):
                if lo <= float(angle.lower()) + shift and float(angle.upper()) + shift <= hi:
                    return b.classification
    return "undecided"


def _kind_in_box(cert, box) -> str:
    """The certified kind of the disk's one interior zero in ``box``: that of the Krawczyk box whose
    enclosure lies inside it, else ``"undecided"``."""
    for b in cert.boxes:
        if b.kind == "interior" and b.enclosure and all(x.contains(y) for x, y in zip(box, b.enclosure, strict=True)):
            return b.classification
    return "undecided"


def _path(model: Model, r0) -> np.ndarray:
    """The ODE path from ``r0`` at log-spaced times up to :data:`FLOW_TIME` (scipy LSODA on the
    derived field; a trial point a rounding error outside the disk is evaluated at its radial
    projection)."""
    from scipy.integrate import solve_ivp

    def rhs(_t, r):
        return evaluate(model, r / max(1.0, float(np.linalg.norm(r))), engine="subspace").flow

    times = np.concatenate([[0.0], np.geomspace(0.05, FLOW_TIME, 160)])
    sol = solve_ivp(rhs, (0.0, FLOW_TIME), np.asarray(r0, float), method="LSODA", t_eval=times, rtol=1e-10,
                    atol=1e-12)
    return sol.y.T.copy()


def start_frame(seed: int, k: int = 2, heads: int = 2, d: int = HEADS_D) -> np.ndarray:
    """``M0 = U^T Q`` of a uniformly random orthonormal ``d x H`` frame (``U`` the first ``k``
    coordinates), from ``numpy.random.default_rng(seed)``."""
    Q, R = np.linalg.qr(np.random.default_rng(seed).normal(size=(d, heads)))
    return (Q * np.sign(np.diag(R)))[:k]


def _end(angles: np.ndarray) -> str:
    if np.all(angles < ANGLE_TOL):
        return "recovered"
    if angles[0] < ANGLE_TOL and abs(angles[-1] - math.pi / 2) < ANGLE_TOL:
        return "shared direction"
    return "other"


def _feasible(M: np.ndarray) -> np.ndarray:
    """``M`` with its singular values clipped to 1 (a trial step of the integrator may leave the
    feasible set by a rounding error)."""
    u, s, vt = np.linalg.svd(M, full_matrices=False)
    return (u * np.minimum(s, 1.0)) @ vt


def _heads_panel(theta_: float, alpha_: float, seeds) -> HeadsPanel:
    """Principal angles along the reduced flow (scipy LSODA on ``heads_flow``) from each seed's
    frame; each end, settled by ``integrate_heads``, named by its angles."""
    from scipy.integrate import solve_ivp

    model = Model(theta_, alpha_, prior=SUBSPACE_LAW, heads=2)
    all_angles, ends, objectives, stable, top = [], [], [], [], []
    for seed in seeds:
        M0 = start_frame(seed)
        shape = M0.shape

        def rhs(_t, y, shape=shape):
            return heads_flow(model, _feasible(y.reshape(shape))).reshape(-1)

        sol = solve_ivp(rhs, (0.0, float(HEADS_TIMES[-1])), M0.reshape(-1), method="LSODA", t_eval=HEADS_TIMES,
                        rtol=1e-10, atol=1e-12)
        all_angles.append([principal_angles(y.reshape(shape)) for y in sol.y.T])
        final = integrate_heads(model, _feasible(sol.y[:, -1].reshape(shape)), t_max=5000.0)
        ends.append(_end(final.angles))
        objectives.append(final.objective)
        eq = heads_equilibrium(model, final.M)
        stable.append(bool(eq.stable))
        top.append(float(eq.eigenvalues[0].real))
    return HeadsPanel(theta_, alpha_, tuple(seeds), HEADS_TIMES.copy(), np.array(all_angles), tuple(ends),
                      tuple(objectives), tuple(stable), tuple(top))


def _extra_head(theta_: float, alpha_: float, seeds) -> ExtraHead:
    model = Model(theta_, alpha_, prior=SUBSPACE_LAW, heads=3)
    errs, norms, speeds = [], [], []
    for seed in seeds:
        run = integrate_heads(model, start_frame(seed, heads=3, d=HEADS_D + 1), t_max=5000.0)
        errs.append(float(np.abs(run.M @ run.M.T - np.eye(2)).max()))
        norms.append(tuple(sorted((float(x) for x in np.linalg.norm(run.M, axis=0)), reverse=True)))
        speeds.append(run.speed)
    bound = below(max(errs), SPAN_BOUND, "max|M M^T - I| at the end of the extra-head runs")
    return ExtraHead(theta_, alpha_, tuple(seeds), tuple(errs), tuple(norms), tuple(speeds), bound)


def subspace_data() -> SubspaceData:
    """Compute the subspace section's data (module doc)."""
    transitions = tuple(certify_transition(k, a) for k, a in TRANSITION_CASES)
    weak = []
    for k, a in TRANSITION_CASES:
        tan, rad = mixture_eigenvalues(k, WEAK_THETA, a)
        weak.append(WeakSignal(k, a, float(tan), float(rad),
                               certify_transition(k, a, theta_range=(WEAK_THETA, WEAK_RANGE_END))))
    region = certify(ModelBox(REGION_K2["theta"], REGION_K2["alpha"], REGION_K2["beta"], REGION_K2["sigma2"],
                              SUBSPACE_LAW), min_width=REGION_K2["min_width"])
    assert isinstance(region, K2RegionCertificate)
    return SubspaceData(
        law=SUBSPACE_LAW,
        forms=subspace_forms(),
        transitions=transitions,
        weak=tuple(weak),
        flow=tuple(_flow_panel(t, a) for t, a in FLOW_PANELS),
        heads=tuple(_heads_panel(t, a, s) for t, a, s in HEADS_PANELS),
        extra=_extra_head(*EXTRA_HEAD),
        region=region,
    )
