"""The figures of the verification report: one function per figure kind, spec in, file out.

Checks compute (``verify.checks`` builds a frozen figure spec with every array a figure
shows); these functions only draw a spec: no theory or numerics call is made here.
:func:`draw` dispatches on the spec's kind; :func:`draw_records` draws the specs a run's
records carry (the report writer calls it).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .style import (
    PLUS,
    errorbar_log,
    figure,
    legend_below,
    log_axis,
    params,
    plain,
    runs_by_basin,
    save,
    supports,
)
from .style import title as _title

if TYPE_CHECKING:  # annotations only: drawing needs nothing of the checks
    from ..checks import FigureSpec


def field(spec) -> str:
    """The field ``F(rho)`` with certified interior equilibria and pole stability marked; on a
    symlog axis when a stretch between zeros is too small to see on a linear one.

    The title is ``spec.title`` (the case, as plain text) followed by the model's parameters in math.
    """
    model, cert = spec.model, spec.certificate
    fig, ax = figure()
    ax.plot(spec.rho, spec.field, "C0-", lw=1.4, label=r"limit field $F(\rho)$")
    ax.axhline(0, color="k", lw=0.6)
    linthresh = _small_stretch(np.asarray(spec.rho), np.asarray(spec.field))
    if linthresh is not None:  # a stretch between zeros would be flat on a linear axis: symlog shows it
        ax.set_yscale("symlog", linthresh=linthresh)
        F = np.asarray(spec.field)
        ticks = [0.0]
        for sgn, edge in ((1.0, float(np.max(F))), (-1.0, float(-np.min(F)))):
            if edge > 0:
                k0, k1 = math.ceil(math.log10(linthresh)), math.floor(math.log10(edge))
                ticks += [sgn * 10.0**k for k in range(k0, k1 + 1)]
        ax.set_yticks(sorted(ticks))
    plus, minus = spec.poles
    for x, ex in ((1.0, plus), (-1.0, minus)):
        ax.plot([x], [0], "o", ms=7, mfc="C2" if ex < 0 else "white", mec="C2", clip_on=False,
                label=("attracting pole" if ex < 0 else "repelling pole"))
    for e in cert.equilibria:
        ax.plot([e.midpoint], [0], "s", ms=6, mfc="C3" if e.stability == "stable" else "white", mec="C3",
                label=rf"certified $\rho^*\in[{e.lo:.4f},{e.hi:.4f}]$ ({e.stability})")
    handles, labels = ax.get_legend_handles_labels()
    unique = dict(zip(labels, handles, strict=True))
    ax.legend(unique.values(), unique.keys(), loc="best", frameon=True, framealpha=0.9)
    ax.set_xlabel(r"$\rho$")
    ax.set_ylabel((r"$F(\rho)/\alpha$ (sparse limit)" if model.sparse else r"$F(\rho)$")
                  + (" (symmetric log scale)" if linthresh is not None else ""))
    status = f"{cert.status} ({'certified' if cert.certified else 'not certified'})"
    _title(ax, plain(spec.title or status), params(model))
    supports(fig, "claims 1 and 2: the limit field and the sign of j' (field.*)")
    return save(fig, spec.path)


#: a stretch of the field between two zeros whose peak is below this fraction of the largest peak
#: is drawn on a symlog axis (linear within a tenth of that peak)
SMALL_STRETCH = 0.02


def _small_stretch(rho: np.ndarray, F: np.ndarray) -> float | None:
    """The symlog threshold when some sign-constant stretch of ``F`` peaks below
    :data:`SMALL_STRETCH` of ``max |F|`` (e.g. the stretch near -1 of a bistable field), else ``None``."""
    a = np.abs(F)
    top = float(np.max(a, initial=0.0))
    if not top > 0:
        return None
    sign = np.sign(F)
    cuts = np.flatnonzero(sign[1:] != sign[:-1]) + 1
    peaks = [float(np.max(x)) for x in np.split(a, cuts) if x.size and np.max(x) > 0]
    small = min(peaks, default=top)
    return small / 10 if small < SMALL_STRETCH * top else None


def trajectories(spec) -> str:
    """SGA iterates and the ODE from the same starts, run by run, coloured by final basin.

    A median across runs that split between ``+xi`` and ``-xi`` shows nothing, so every
    run is drawn thinly, in the colour of the basin its iterate ends in, with each
    basin's mean; the ODE from each run's start is drawn dashed in grey. ``spec.title``
    (what is compared) is followed by the simulated instance's parameters, taken from
    the spec's problem and schedule (the simulation's own).
    """
    t = spec.times
    fig, ax = figure()
    # the ODE beneath the runs (a run that follows its ODE curve closely must stay visible)
    ode = ax.plot(t, spec.ode.T, color="0.55", lw=0.6, ls="--", alpha=0.5, zorder=2)
    ode[0].set_label("ODE, same starts")
    runs_by_basin(ax, t, spec.rho, label="SGA", lw=0.8, alpha=0.75)
    ax.set_xlabel(r"ODE time $t_k$")
    ax.set_ylabel(r"$\rho$")
    ax.set_ylim(-1.05, 1.05)
    title = spec.title
    what = title.split(",")[0].split(" from ")[0].split(" (")[0] if title else "SGA vs ODE"
    r0 = np.asarray(spec.initial_rho)
    start = (rf"from $\rho_0={float(r0[0]):.3g}$" if np.allclose(r0, r0[0]) else "from uniform starts")
    _title(ax, f"{plain(what)}, {spec.runs} runs {start}", params(problem=spec.problem, schedule=spec.schedule))
    legend_below(ax, ncol=3)
    supports(fig, getattr(spec, "claim", ""))
    return save(fig, spec.path)


def nuisance_mass(spec) -> str:
    """Measured nuisance attention mass (binned by alignment) against the limit curve."""
    fig, ax = figure()
    r = spec.rho.ravel()
    measured = spec.measured
    bins = np.linspace(r.min(), r.max(), 21)
    which = np.clip(np.digitize(r, bins) - 1, 0, bins.size - 2)
    centres, mm, ms = [], [], []
    for b in range(bins.size - 1):
        sel = which == b
        if sel.sum() >= 5:
            centres.append(r[sel].mean())
            mm.append(measured.ravel()[sel].mean())
            ms.append(measured.ravel()[sel].std(ddof=1) / math.sqrt(sel.sum()))
    ax.plot(spec.grid, spec.limit, color="C1", label=r"limit $\nu(\rho)$")
    ax.errorbar(centres, mm, yerr=2 * np.array(ms), fmt="o", ms=3, color="C0", label="measured (binned, 2 SE)")
    ax.axhline(spec.at1, color="gray", ls=":", lw=0.8, label=rf"$\nu(1)={spec.at1:.3g}$")
    ax.set_xlabel(r"$\rho$")
    ax.set_ylabel(r"nuisance attention mass $\nu$")
    _title(ax, "nuisance attention mass", params(spec.model))
    ax.legend(frameon=True, framealpha=0.9)
    supports(fig, "claim 5: the nuisance attention mass (sga.filtering)")
    return save(fig, spec.path)


def tracking(spec) -> str:
    """``E_T(t)`` over start times, and its median sup against the step and against ``1/L``."""
    fig, axes = figure(ncols=3)
    starts_t, T = spec.start_times, spec.T
    ax = axes[0]
    for eta, E in spec.curves:
        q = np.quantile(E, [0.1, 0.5, 0.9], axis=0)
        ax.plot(starts_t + T, q[1], "o-", ms=3, label=rf"$\eta={eta:.3g}$")
        ax.fill_between(starts_t + T, np.maximum(q[0], 1e-300), q[2], alpha=0.2)
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set_xlabel(r"$t+T$")
    ax.set_ylabel(r"$E_T(t)$ (median, 10–90%)")
    ax.legend()
    ax = axes[1]
    etas = np.array(spec.etas)
    ax.plot(etas, list(spec.S_eta), "o-", label=f"slope ${spec.p_eta:.2f}\\pm{spec.se_eta:.2f}$")
    ax.axhline(spec.D / 4, color="gray", ls=":", label=r"$D/4$")
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set_xlabel(r"step $\eta$")
    ax.set_ylabel(r"median of $\mathrm{sup}_t\,E_T$")
    ax.legend()
    ax = axes[2]
    Ls = np.array(spec.Ls)
    ax.plot(1.0 / Ls, list(spec.S_L), "o-", label=f"slope ${spec.p_L:.2f}\\pm{spec.se_L:.2f}$")
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set_xlabel(r"$1/L$")
    ax.set_ylabel(r"median of $\mathrm{sup}_t\,E_T$")
    ax.legend()
    fig.suptitle(f"pseudotrajectory error, {params(problem=spec.base)}, $T={T:.3g}$", fontsize=8)
    supports(fig, "claim 3: SGA tracks the ODE (sga.tracking)")
    return save(fig, spec.path)


def finite_size(spec) -> str:
    """``|mean - F|`` against ``L`` on log-log axes with the fitted ``C / L`` and the theory's.

    Error bars (2 standard errors) whose lower end would reach zero are clipped inside
    the log axis and marked (:func:`style.errorbar_log`).
    """
    rows, model, slope, slope_se = spec.rows, spec.model, spec.slope, spec.slope_se
    fig, ax = figure()
    Larr = np.array([r["L"] for r in rows], float)
    err = np.array([r["err"] for r in rows])
    se = np.array([r["se"] for r in rows])
    for i, rho in enumerate(spec.rhos):
        sel = np.array([r["rho"] == rho for r in rows])
        errorbar_log(ax, Larr[sel], np.abs(err[sel]), 2 * se[sel], fmt="o", ms=4, color=f"C{i}", capsize=2,
                     label=rf"$|\bar g-F|$ at $\rho={rho}$")
        fitted = spec.C_over_L[str(rho)]
        C = fitted["C"]
        if C != 0:
            ax.plot(Larr[sel], abs(C) / Larr[sel], "--", lw=1, color=f"C{i}", label=rf"fitted $|C|/L$, $C={C:.3g}$")
        if fitted.get("D_se", math.inf) < math.inf and abs(fitted["D"]) > 3 * fitted["D_se"]:  # next order resolved
            grid = np.geomspace(Larr[sel].min(), Larr[sel].max(), 50)
            ax.plot(grid, np.abs(fitted["C2"] / grid + fitted["D"] / grid**2), "-.", lw=1, color=f"C{i}",
                    label=rf"fitted $|C/L + D/L^2|$, $C={fitted['C2']:.3g}$, $D={fitted['D']:.3g}$")
        Ct = (spec.C_theory or {}).get(str(rho))
        if Ct:
            ax.plot(Larr[sel], abs(Ct) / Larr[sel], ":", lw=1.5, color=f"C{i}",
                    label=rf"theory $|C|/L$, $C={Ct:.3g}$ (leading order)")
    log_axis(ax, "x")
    log_axis(ax, "y")
    ax.set_xlabel(r"$L$ ($\alpha$ fixed)")
    ax.set_ylabel(r"$|\bar g-F|$ (2 SE bars)")
    _title(ax, "Monte Carlo mean projected gradient against $F$" + (f", {params(model)}" if model is not None else ""),
           "free log-log slope " + (f"${slope:.2f}\\pm{slope_se:.2f}$" if slope is not None
                                    else "undetermined (bias below the Monte Carlo error)"))
    ax.legend(frameon=True, framealpha=0.9)
    supports(fig, "the O(1/L) approach to the limit field (finite_size.rate)")
    return save(fig, spec.path)


def effective_drift(spec) -> str:
    """Plain ODE, corrected ODE and the simulated mean with 10-90% and 25-75% bands.

    The runs start at one ``rho_0`` in the monotone regime and stay in one basin, so
    bands across runs are meaningful here. The title is the part of ``spec.title``
    before ``:`` (the configuration's name) and the simulation's parameters.
    """
    t, rho = spec.times, spec.rho
    q10, q25, q75, q90 = np.quantile(rho, [0.1, 0.25, 0.75, 0.9], axis=0)
    fig, ax = figure()
    ax.fill_between(t, q10, q90, color=PLUS, alpha=0.15, lw=0, label="simulation 10–90%")
    ax.fill_between(t, q25, q75, color=PLUS, alpha=0.3, lw=0, label="simulation 25–75%")
    ax.plot(t, rho.mean(axis=0), color=PLUS, lw=1.2, label=f"simulated mean ({spec.runs} runs)")
    ax.plot(spec.ode_time, spec.rho_plain, "k--", lw=1.2, label="limit ODE")
    ax.plot(spec.ode_time, spec.rho_corrected, color="C3", lw=1.5, label="corrected ODE")
    ax.set_xlabel(r"ODE time $t_k$")
    ax.set_ylabel(r"$\rho$")
    name = (spec.title or "").split(":")[0].strip()
    _title(ax, plain(name), params(problem=spec.problem, schedule=spec.schedule))
    ax.legend(loc="lower right")
    supports(fig, "claim 3 at finite steps (sga.effective_drift)")
    return save(fig, spec.path)


#: the drawing function of each kind of spec
_DRAW = {"field": field, "trajectories": trajectories, "nuisance_mass": nuisance_mass, "tracking": tracking,
         "finite_size": finite_size, "effective_drift": effective_drift}


def draw(spec, path=None) -> str:
    """Draw ``spec`` into ``path`` (default: ``spec.path``; its folder is created); return the PNG path."""
    if path is not None:
        spec = replace(spec, path=str(path))
    Path(spec.path).parent.mkdir(parents=True, exist_ok=True)
    return _DRAW[spec.kind](spec)


def draw_records(records, store=None) -> list[str]:
    """Draw every figure spec the ``records`` carry (``CheckRecord.figures``), in order,
    each path once (records of one run share a figure); returns the PNG paths.

    With ``store`` (a :class:`verify.suite.ResultStore`) a figure is keyed by its spec without its
    path: one this code drew before from the same data is written from the store (the PNG and PDF
    bytes), and one drawn here is kept there."""
    specs: dict[str, FigureSpec] = {}  # path -> the first spec drawn there
    for r in records:
        for spec in getattr(r, "figures", ()):
            specs.setdefault(spec.path, spec)
    for spec in specs.values():
        if hasattr(spec, "save_data"):  # its data too, so that the appendix can redraw it
            Path(spec.path).parent.mkdir(parents=True, exist_ok=True)
            spec.save_data(Path(spec.path).with_suffix(".npz"))
    return [_drawn(spec, store) for spec in specs.values()]


def _drawn(spec, store) -> str:
    """:func:`draw` of ``spec``, or its files from ``store`` (:func:`draw_records`)."""
    k = None if store is None else store.key("figure", replace(spec, path=""))
    files = None if k is None else store.get("figure", k)
    png, pdf = Path(spec.path), Path(spec.path).with_suffix(".pdf")
    if files is not None:
        png.parent.mkdir(parents=True, exist_ok=True)
        png.write_bytes(files["png"])
        pdf.write_bytes(files["pdf"])
        return str(png)
    out = draw(spec)
    if k is not None:
        store.put("figure", k, {"png": png.read_bytes(), "pdf": pdf.read_bytes()})
    return out
