"""The figures of the reproduction (``sigrec reproduce``, the appendix).

Draws :class:`verify.studies.ConfigResult` objects as they are: their recorded curves
(``|rho_k|`` quantiles, plain and corrected ODE) and final numbers; nothing is simulated
or integrated here.
"""

from __future__ import annotations

import numpy as np

from .style import figure, save


def plot_reproduction(results, out, paper_mean: float) -> list[str]:
    """``reproduce-alignment`` (per configuration: |alignment| against iteration) and
    ``reproduce-final`` (final |alignment| and nuisance mass against ``N``), each as PNG
    with a PDF next to it.

    The curves are of ``|rho_k|``, which is the same in either basin, so the mean and the
    10-90% band over runs are meaningful even when runs split between ``+xi`` and ``-xi``.
    Panel titles name ``theta``, ``R``, ``N`` and ``d``; error bars (one standard deviation)
    are clipped at the bound ``|rho| <= 1``.
    """
    paths = []
    n = len(results)
    cols = min(3, n)
    rows = int(np.ceil(n / cols))
    fig, axes = figure(ncols=cols, nrows=rows, size=(5.0 if n == 1 else 7.0, 3.0 if n == 1 else 2.2 * rows))
    axes = np.atleast_1d(axes).ravel()
    for ax, r in zip(axes, results, strict=False):  # a full grid of axes: the spare ones are turned off
        c = r.curves
        ax.fill_between(c["steps"], c["q10"], c["q90"], color="C0", alpha=0.25, lw=0,
                        label=f"SGA, 10–90% of {r.runs} runs")
        ax.plot(c["steps"], c["mean"], "C0-", lw=1.4, label="SGA mean")
        ax.plot(c["steps"], c["ode"], "k--", lw=1.1, label="plain ODE")
        if c.get("corrected") is not None:
            ax.plot(c["corrected_steps"], c["corrected"], "C3:", lw=1.4, label="corrected ODE")
        N = f"{r.L - r.R:,}".replace(",", "{,}")
        ax.set_title(rf"$\theta={r.theta:g}$, $R={r.R}$, $N={N}$, $d={r.d}$ ({r.landscape})")
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(r"iteration $k$")
        ax.set_ylabel(r"$|\rho_k|$")
    for ax in axes[n:]:
        ax.axis("off")
    axes[0].legend(loc="lower right")
    p = out / "reproduce-alignment.png"
    paths.append(save(fig, p))

    thetas = sorted({r.theta for r in results})
    fig, (a1, a2) = figure(ncols=2, size=(7.0, 2.6))
    Ns_all = sorted({r.L - r.R for r in results})
    for i, t in enumerate(thetas):
        rs = sorted((r for r in results if r.theta == t), key=lambda r: r.L)
        Ns = np.array([r.L - r.R for r in rs], float)
        mean = np.array([r.mean_final_alignment for r in rs])
        sd = np.array([r.sd_final_alignment for r in rs])
        a1.errorbar(Ns, mean, yerr=[sd, np.minimum(sd, 1 - mean)], fmt="o-", color=f"C{i}", capsize=2,
                    label=rf"$\theta={t:g}$")
        a2.plot(Ns, [r.nuisance_mass_final for r in rs], "o-", color=f"C{i}", label=rf"measured, $\theta={t:g}$")
        a2.plot(Ns, [r.nuisance_mass_predicted for r in rs], "x:", color=f"C{i}")
    a1.axhline(paper_mean, color="k", lw=0.8, ls="--", label=f"paper: {paper_mean}")
    for ax in (a1, a2):
        ax.set_xscale("log")
        ax.set_xticks(Ns_all)
        ax.set_xticks([], minor=True)
        ax.set_xticklabels([f"{N:,}" for N in Ns_all])
        ax.set_xlabel(rf"nuisance tokens $N$ ($R={results[0].R:d}$)")
        if len(Ns_all) == 1:
            ax.set_xlim(Ns_all[0] / 2, Ns_all[0] * 2)
    lo = min(r.mean_final_alignment - r.sd_final_alignment for r in results)
    a1.set_ylim(min(lo, paper_mean) - 0.005, 1.0005)
    a1.set_ylabel(r"mean final $|\rho_K|$ ($\pm$ sd)")
    a1.legend(loc="lower left")
    a2.set_ylabel(r"nuisance mass $\nu$ (x: limit)")
    a2.set_ylim(0, 1)
    a2.legend(loc="lower left")
    p = out / "reproduce-final.png"
    paths.append(save(fig, p))
    return paths
