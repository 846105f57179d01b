"""The one plot style of sigrec's figures (report, notes, studies).

Every figure is made through :func:`figure` and written through :func:`save`, so the
backend (Agg, no display), sizes, fonts, resolution and file formats are set in one
place. :func:`save` writes the PNG it is asked for (Markdown, the README) and a vector
PDF next to it (LaTeX picks ``stem.pdf`` for ``\\includegraphics{stem}``), both without
timestamps so that regenerating a figure does not change its bytes needlessly.

The helpers keep the rules every figure follows: titles name the case and its
parameters in math (:func:`params`), axis labels use symbols, logarithmic axes get
at most a few labelled decades (:func:`log_axis`), error bars never leave the axes
(:func:`errorbar_log`), and runs of a bistable or symmetric model are drawn one by one,
coloured by the basin they end in (:func:`runs_by_basin`), never summarised by a median
across basins. A user's string (a case name, a prior spec) is drawn through :func:`plain`:
as text, never as math, and without a missing-glyph warning.
"""

from __future__ import annotations

import textwrap
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

#: inches: one figure at the text width of a paper (11pt article: 4.8 in) and a wide panel row
SIZE = (5.0, 3.1)
WIDE = (7.0, 2.6)
DPI = 150
STYLE = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "mathtext.fontset": "cm",
    "savefig.bbox": "standard",
}
#: the appendix's figures (:func:`body_text`): text at the 11pt body's size once a figure is
#: included at the text width, and panel rows at that width too
BODY = {"font.size": 10, "axes.titlesize": 10, "axes.labelsize": 10, "legend.fontsize": 9, "xtick.labelsize": 9,
        "ytick.labelsize": 9}
BODY_WIDE = (5.0, 2.5)
_body: list = []
#: colours of the two basins (+xi, -xi) and of reference curves
PLUS, MINUS, REFERENCE = "C0", "C1", "k"


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend with the sigrec style applied."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    params: Any = plt.rcParams  # matplotlib's stubs take literal keys; the style's are str
    params.update({**STYLE, **(BODY if _body else {})})
    return plt


@contextmanager
def body_text():
    """Within the block, figures are drawn for the appendix: text at the body's size and wide
    panel rows at the text width (:data:`BODY`, :data:`BODY_WIDE`)."""
    _body.append(True)
    try:
        yield
    finally:
        _body.pop()


def figure(ncols: int = 1, size=None, nrows: int = 1):
    """A new ``(fig, axes)`` with the house size (``WIDE`` for more than one panel)."""
    plt = pyplot()
    size = size or (SIZE if ncols == 1 and nrows == 1 else (BODY_WIDE if _body else WIDE))
    return plt.subplots(nrows, ncols, figsize=size, constrained_layout=True, squeeze=nrows == 1)


def save(fig, path) -> str:
    """Write ``fig`` to ``path`` (PNG) and to the same stem with ``.pdf``; close it.

    Returns
    -------
    str
        ``path`` as given (the PNG); the PDF is ``Path(path).with_suffix(".pdf")``.
    """
    plt = pyplot()
    path = Path(path)
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    fig.savefig(path.with_suffix(".pdf"), metadata={"CreationDate": None, "Producer": None, "Creator": None})
    plt.close(fig)
    return str(path)


@lru_cache(maxsize=8)
def _font(path: str):
    from matplotlib import ft2font

    return ft2font.FT2Font(path)


def _drawable(ch: str) -> bool:
    """True when the text font (the one ``font.family`` selects) has a glyph for ``ch``."""
    from matplotlib import font_manager

    return ch.isprintable() and _font(font_manager.findfont(font_manager.FontProperties())).get_char_index(ord(ch)) != 0


#: at most this many characters (as drawn) on one line of a user's string in a figure: a
#: title or legend line of 40 wide characters still fits the 5-inch figure
PLAIN_WIDTH = 40


def _unit(ch: str) -> str:
    """``ch`` as :func:`plain` draws it."""
    if ch == "$":
        return "\\$"
    if _drawable(ch):
        return ch
    return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"


def _wrap(units: list[str], width: int) -> list[str]:
    """Lines of at most ``width`` drawn characters (``\\$`` draws one), broken after the last
    space that fits, else between two characters (never inside an escape)."""
    def drawn(x: str) -> int:
        return 1 if x == "\\$" else len(x)

    lines: list[str] = []
    line: list[str] = []
    for u in units:
        if line and sum(map(drawn, line)) + drawn(u) > width:
            spaces = [i for i, x in enumerate(line) if x == " " and i > 0]
            cut = spaces[-1] if spaces else len(line)
            lines.append("".join(line[:cut]))
            line = line[cut + 1:] if spaces else []
        line.append(u)
    return [*lines, "".join(line)]


def plain(text: str, width: int = PLAIN_WIDTH) -> str:
    """A user's string ``text`` for a figure title, label or legend, drawn as it is.

    matplotlib reads ``$...$`` as math text, also inside a title with math parts of its
    own, so every ``$`` is escaped (``\\$``, drawn as ``$``); a character the text font has no
    glyph for (or one that is not printable) becomes its escape ``\\uXXXX`` (``\\UXXXXXXXX``
    beyond the basic plane) instead of a box and a warning; a line longer than ``width``
    drawn characters is wrapped (so that a long name or its escapes neither runs off the
    figure nor squeezes the axes away). The result may be joined with math text
    (:func:`title`, :func:`params`), but not followed directly by a ``$``. A leading ``_``
    gets a space before it: matplotlib leaves a legend label that begins with ``_`` out.
    """
    pyplot()  # the house style, so that the font asked is the font that draws
    out = "\n".join(line for raw in str(text).split("\n") for line in _wrap([_unit(ch) for ch in raw], width))
    return " " + out if out.startswith("_") else out


def _n(x) -> str:
    """A number for a math-text label: ``0.25``, ``10{,}500``."""
    if isinstance(x, (int, np.integer)) or (isinstance(x, float) and x.is_integer() and abs(x) >= 1000):
        return f"{int(x):,}".replace(",", "{,}")
    return f"{float(x):.3g}"


def params(model=None, problem=None, schedule=None, **extra) -> str:
    """The parameters of a case as math text: ``$\\theta=2$, $R=500$, $L=10{,}500$, $d=3$``.

    ``model`` (theory ``Model``), ``problem`` (numerics ``Problem``) and ``schedule``
    (numerics ``Schedule``) are optional; ``extra`` adds ``name=value`` pairs whose
    names are LaTeX (``rho_0=0.5`` becomes ``$\\rho_0=0.5$``).
    """
    parts = []
    src = problem if problem is not None else model
    if src is not None:
        parts.append(rf"\theta={_n(src.theta)}")
        if problem is not None:
            parts += [f"R={_n(problem.R)}", f"L={_n(problem.L)}", f"d={_n(problem.d)}"]
        elif getattr(model, "sparse", False):
            parts.append(r"\alpha\to0")
        else:
            parts.append(rf"\alpha={_n(model.alpha)}")
        if src.beta != 1 or src.sigma2 != 1:
            parts.append(rf"\beta={_n(src.beta)}, \sigma^2={_n(src.sigma2)}")
    if schedule is not None:
        if schedule.power == 0:
            parts.append(rf"\eta={_n(schedule.eta0)}")
        else:
            parts.append(rf"\eta_k={_n(schedule.eta0)}/(k+{_n(schedule.k0)})^{{{_n(schedule.power)}}}")
    names = {"rho0": r"\rho_0", "eta": r"\eta"}
    parts += [f"{names.get(k, k)}={_n(v)}" for k, v in extra.items()]
    text = "$" + "$, $".join(parts) + "$" if parts else ""
    prior = str(getattr(src, "prior", "fixed"))
    if prior == "fixed":
        return text
    return text + (", Rademacher prior" if prior == "rademacher" else f", prior {plain(prior)}")


def _short_log_ticks(lo: float, hi: float) -> list:
    """Ticks for a log axis spanning less than two decades: 1-2-5 times powers of ten inside
    ``[lo, hi]``, or the finer 1-1.5-2-3-4-5-6-8 set when fewer than two fall inside; at most five."""
    if not (lo > 0 and hi > lo):
        return []
    e0, e1 = int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1
    for subs in ((1, 2, 5), (1, 1.5, 2, 3, 4, 5, 6, 8)):
        ticks = [m * 10.0**e for e in range(e0, e1 + 1) for m in subs if lo <= m * 10.0**e <= hi]
        if len(ticks) >= 2:
            while len(ticks) > 5:
                ticks = ticks[::2]
            return ticks
    return []


def _plain(v: float) -> str:
    """A tick label as a plain number (``0.15``, ``200``), or in powers of ten when very small or large."""
    if 1e-3 <= abs(v) < 1e5:
        return f"{v:.4g}"
    e = int(np.floor(np.log10(abs(v))))
    m = v / 10.0**e
    return f"${m:.3g}\\times10^{{{e}}}$" if abs(m - 1) > 1e-9 else f"$10^{{{e}}}$"


def log_axis(ax, axis: str = "y") -> None:
    """Make ``axis`` logarithmic with labels that neither overlap nor vanish.

    Call it after plotting. Over two or more decades only whole decades are labelled
    (at most six); over a shorter range, where no decade may fall inside the axis,
    1, 2 and 5 times each power of ten are labelled instead. Minor ticks are never
    labelled.
    """
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogFormatterSciNotation, LogLocator, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    lo, hi = sorted(ax.get_ylim() if axis == "y" else ax.get_xlim())
    decades = np.log10(hi / lo) if lo > 0 else 10.0
    if decades >= 2:
        target.set_major_locator(LogLocator(base=10, numticks=6))
        target.set_major_formatter(LogFormatterSciNotation(base=10))
    else:
        # within a decade: every 1-2-5 tick inside the range, else (fewer than two of them, as on
        # [0.11, 0.25]) the finer 1-1.5-2-3-4-5-6-8 ticks, at most five; plain numbers as labels
        # (matplotlib's own fallback labels every minor tick, 1.2, 1.4, ..., in scientific form)
        ticks = _short_log_ticks(lo, hi)
        if len(ticks) >= 2:
            target.set_major_locator(FixedLocator(ticks))
            target.set_major_formatter(FuncFormatter(lambda v, _pos: _plain(v)))
        else:
            target.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=12))
            # minor_thresholds: label every 1-2-5 tick (the default would skip the 5s)
            target.set_major_formatter(LogFormatterSciNotation(base=10, labelOnlyBase=False,
                                                               minor_thresholds=(np.inf, np.inf)))
    target.set_minor_locator(LogLocator(base=10, subs=(np.arange(2, 10) * 0.1).tolist(), numticks=12))
    target.set_minor_formatter(NullFormatter())


def title(ax, *lines: str) -> None:
    """A title of one or more lines (what is shown; the case and its parameters)."""
    ax.set_title("\n".join(x for x in lines if x))


def supports(fig, claim: str) -> None:
    """The figure's caption line, above its title: which claim and check it supports."""
    if claim:
        fig.suptitle(textwrap.fill(f"Supports {claim}", 90), fontsize="small", color="0.3", x=0.01, ha="left")


def legend_below(ax, ncol: int = 2) -> None:
    """A legend under the axes, so that it never hides data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=ncol)


def errorbar_log(ax, x, y, err, **kw):
    """Error bars ``y +- err`` on a log y axis, the lower end clipped inside the axis.

    A bar whose lower end is at or below zero would run off a log axis; it is drawn
    down to ``y / 10`` (or the axis floor, if higher) and marked with a ``v`` there.
    Returns the artist of the points.
    """
    x, y, err = (np.asarray(a, float) for a in (x, y, err))
    pos = y > 0
    floor = np.nanmin(y[pos]) / 10 if pos.any() else 1e-12
    lo_end = np.maximum(y - err, np.maximum(y / 10, floor))
    lower = np.where(pos, y - lo_end, 0.0)
    art = ax.errorbar(x[pos], y[pos], yerr=[lower[pos], err[pos]], **kw)
    clipped = pos & (y - err <= 0)
    if clipped.any():
        ax.plot(x[clipped], lo_end[clipped], "v", ms=3, color=art[0].get_color(), lw=0)
    return art


def runs_by_basin(ax, t, rho, *, label: str = "runs", lw: float = 0.5, alpha: float = 0.45,
                  mean: bool = True) -> dict:
    """Each run as a thin line coloured by the sign of its final value, plus each basin's mean.

    Parameters
    ----------
    ax : matplotlib Axes
    t : ndarray, shape (n,)
    rho : ndarray, shape (runs, n)
    label : str
        Legend stem, e.g. ``"SGA"`` (the legend reads ``SGA -> +xi (n)``).

    Returns
    -------
    dict
        ``{"plus": count, "minus": count}`` of runs ending with ``rho >= 0`` and ``< 0``.
    """
    rho = np.atleast_2d(rho)
    plus = rho[:, -1] >= 0
    counts = {"plus": int(plus.sum()), "minus": int((~plus).sum())}
    for sel, colour, side in ((plus, PLUS, r"+\xi"), (~plus, MINUS, r"-\xi")):
        if not sel.any():
            continue
        lines = ax.plot(t, rho[sel].T, color=colour, lw=lw, alpha=alpha, zorder=3)
        lines[0].set_label(rf"{label} $\to{side}$ ({int(sel.sum())})")
        if mean and sel.sum() > 1:
            ax.plot(t, rho[sel].mean(axis=0), color=colour, lw=1.6, zorder=4,
                    label=rf"mean of the runs $\to{side}$")
    return counts


def params_text(**values) -> str:
    """``name=value`` pairs as math text, e.g. ``params_text(beta=1, sigma2=1)`` gives
    ``$\\beta=1$, $\\sigma^2=1$`` (names: ``theta``, ``alpha``, ``beta``, ``sigma2``, ``rho0``,
    ``eta``; any other name is used as is)."""
    names = {"theta": r"\theta", "alpha": r"\alpha", "beta": r"\beta", "sigma2": r"\sigma^2", "rho0": r"\rho_0",
             "eta": r"\eta"}
    return ", ".join(f"${names.get(k, k)}={_n(v)}$" for k, v in values.items())
