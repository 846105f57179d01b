"""``sigrec sweep``: a parameter grid simulated cell by cell into a resumable Zarr store
(docs/design.md section 8)."""

from __future__ import annotations

import sys

from ...numerics import describe
from ...theory import parse_law
from ..render import plot_sweep
from ..studies import SWEEP_PRESETS, SubspaceSweepSpec, run_subspace_sweep, run_sweep, sweep_figure_data, sweep_spec
from ._args import add_executor_arguments, add_json_flag, add_out_argument, executor_from_args, prior_arg
from ._limits import bounded, count, finite_float
from ._output import emit_json, stderr_progress

#: flags that take a list of values (one grid dimension each); ``N`` has no documented
#: limit of its own (``L = R + N`` is checked by the library)
_LISTS = (("theta", finite_float, "signal strengths"), ("N", int, "nuisance token counts (L = R + N)"),
          ("alpha", finite_float, "informative fractions (R = round(alpha L)); instead of --N"),
          ("d", count("d"), "dimensions, default 3"),
          ("beta", finite_float, "inverse temperatures (a dimension when given)"),
          ("sigma2", finite_float, "noise variances (a dimension when given)"))
_SCALARS = (("R", count("R"), "informative tokens with --N"), ("L", count("L"), "tokens with --alpha"),
            ("runs", count("runs"), "runs per cell"), ("steps", count("steps"), "steps per run"),
            ("eta0", finite_float, "step scale"), ("k0", bounded("k0"), "step offset"),
            ("power", bounded("power"), "eta_k = eta0/(k+k0)^power; 0 = constant"),
            ("seed", count("seed"), "root seed of the cells' SeedSequences"))


def register(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="simulate a parameter grid into a resumable Zarr store",
        description="Simulate every cell of a grid over --theta, --N (with --R) or --alpha (with --L), --d, "
        "--beta, --sigma2, --prior (each a list of values) with the exact reduced simulator from uniform "
        "starts, compare each cell with the certified landscape and the ODE basin of -xi, and write it to "
        "--store as soon as it finishes. Rerunning the same command resumes: finished cells whose data match "
        "their checksum are skipped, damaged ones recomputed; a store made by other flags is refused, and so "
        "is a second sweep while one writes the store (its lock file STORE.lock). Read the store with "
        "xarray.open_zarr. With a k-dimensional law (--prior 'onehot(k=2)') the sweep maps the "
        "mixture/specialisation transition over --theta instead: per cell the fraction of runs of one query "
        "that specialise on one xi_j, against the certified equilibria and the certified theta_c; its --store is "
        "a folder of JSON cells (resumed the same way).",
    )
    p.add_argument("--preset", choices=SWEEP_PRESETS, default=None,
                   help="quick: 4 small cells (under a minute on 2 cores); paper: the paper's grid at d = 3, 10; "
                   "flags given as well override the preset's")
    for name, kind, text in _LISTS:
        p.add_argument(f"--{name}", type=kind, nargs="+", default=None, help=text)
    p.add_argument("--prior", type=prior_arg, nargs="+", default=None, metavar="PRIOR",
                   help="signal priors (a dimension when given), each as in simulate: fixed, rademacher(p), "
                        "bernoulli(p), gaussian(mu, tau), discrete(values=[...], probs=[...])")
    for name, kind, text in _SCALARS:
        p.add_argument(f"--{name}", type=kind, default=None, help=text)
    p.add_argument("--store", required=True, metavar="PATH", help="Zarr store (created, or resumed)")
    add_out_argument(p, "sigrec-report", "folder for the figures")
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def spec_from_args(args):
    """The :class:`sigrec.verify.studies.SweepSpec` of the flags (the preset's values
    where a flag is not given)."""
    given = {name: getattr(args, name) for name, _, _ in _LISTS + _SCALARS}
    return sweep_spec(args.preset, prior=args.prior, **given)


#: damaged cells named in the resume message (the JSON lists them all)
_NAMED = 4


def resume_message(store, status, spec) -> str | None:
    """The line that says what a resumed store held, or ``None`` for a fresh one."""
    parts = []
    finished = int(status.done.sum())
    if finished:
        parts.append(f"{finished} of {spec.cells} cells already finished, skipped")
    if status.damaged:
        labels = [spec.label(idx) for idx in status.damaged]
        more = f" and {len(labels) - _NAMED} more" if len(labels) > _NAMED else ""
        parts.append(f"{len(labels)} cells marked finished failed their checksum and are recomputed "
                     f"({'; '.join(labels[:_NAMED])}{more})")
    if status.repaired:
        parts.append("repaired: " + ", ".join(status.repaired))
    return f"resuming {store}: " + "; ".join(parts) if parts else None


def _subspace_prior(args) -> bool:
    """True when ``--prior`` names a k-dimensional law (``k >= 2``): the subspace route."""
    laws = [parse_law(p) for p in (args.prior or ())]
    if any(law.k > 1 for law in laws):
        if len(laws) > 1:
            raise ValueError("`prior`: a subspace sweep takes one k-dimensional law (a grid over theta), "
                             f"got {len(laws)} priors")
        return True
    return False


def _one(args, name):
    """The single value of the list flag ``name`` (``None`` when not given)."""
    values = getattr(args, name)
    if values is None:
        return None
    if len(values) != 1:
        raise ValueError(f"`{name}`: a subspace sweep takes one value (its grid is over theta), got {len(values)}")
    return values[0]


def subspace_spec_from_args(args) -> SubspaceSweepSpec:
    """The :class:`SubspaceSweepSpec` of the flags (``--theta`` a list; one ``R``/``L``/``N``/``alpha``,
    ``d``, ``beta``, ``sigma2``; defaults of the spec for runs, steps and the schedule)."""
    if args.preset is not None:
        raise ValueError("`preset`: the subspace sweep has no preset; give --theta, --R with --L or --N "
                         "(or --alpha with --L) and --d")
    if not args.theta:
        raise ValueError("`theta`: a subspace sweep needs --theta (its grid)")
    N, alpha, R, L = _one(args, "N"), _one(args, "alpha"), args.R, args.L
    if alpha is not None:
        if L is None or N is not None or R is not None:
            raise ValueError("give --alpha with --L (R = round(alpha L)), or --R with --L or --N")
        R = round(alpha * L)
    elif N is not None:
        if R is None or L is not None:
            raise ValueError("give --N with --R (L = R + N), not with --L")
        L = R + N
    if R is None or L is None:
        raise ValueError("a subspace sweep needs --R with --L or --N (or --alpha with --L)")
    d = _one(args, "d")
    if d is None:
        raise ValueError("`d`: a subspace sweep needs --d")
    kw = {name: getattr(args, name) for name in ("runs", "steps", "eta0", "k0", "power", "seed")
          if getattr(args, name) is not None}
    for name in ("beta", "sigma2"):
        v = _one(args, name)
        if v is not None:
            kw[name] = v
    return SubspaceSweepSpec(args.prior[0], tuple(args.theta), R=R, L=L, d=d, **kw)


def run_subspace(args) -> int:
    spec = subspace_spec_from_args(args)
    with executor_from_args(args), stderr_progress() as bar:
        task = bar.add_task("cells", total=None)
        result = run_subspace_sweep(spec, args.store, progress=lambda d, n: bar.update(task, completed=d, total=n))
    doc = result.as_dict()
    if args.json:
        emit_json(doc)
        return 0
    tc = ("certified theta_c in [" + ", ".join(f"{x:.13f}" for x in result.theta_c) + "]"
          if result.theta_c else "; ".join(result.notes))
    print(f"subspace sweep, {spec.prior}, alpha = {spec.alpha:.4g}, beta = {spec.beta:g}, sigma2 = {spec.sigma2:g}, "
          f"R = {spec.R}, L = {spec.L}, d = {spec.d}; {spec.runs} runs x {spec.steps} steps per cell, "
          f"eta_k = {spec.eta0:g}/(k + {spec.k0:g})^{spec.power:g}; {tc}")
    print(f"{'theta':>8}  {'specialised':>11}  {'certified prediction':<20}  attractors")
    for c in result.cells:
        print(f"{c['theta']:>8.4g}  {c['fraction_specialised']:>11.2f}  {c['predicted']:<20}  "
              f"{', '.join(c['certified_attractors'])}")
    print(f"{len(result.cells)} cells: {result.computed} computed, {result.skipped} skipped (already in the store), "
          f"{result.seconds:.1f} s; store {result.store}")
    return 0


def run(args) -> int:
    if _subspace_prior(args):
        return run_subspace(args)
    spec = spec_from_args(args)

    def on_resume(status):
        line = resume_message(args.store, status, spec)
        # a note for a person: under --json only when someone watches stderr
        if line and (not args.json or sys.stderr.isatty()):
            print(line, file=sys.stderr)

    with executor_from_args(args) as ex, stderr_progress() as bar:
        task = bar.add_task("cells", total=None)
        result = run_sweep(spec, args.store, on_resume=on_resume,
                           progress=lambda d, n: bar.update(task, completed=d, total=n))
        where = describe(ex)
    figures = plot_sweep(sweep_figure_data(args.store), args.out)
    doc = {**result.as_dict(), "figures": figures, "executor": where}
    if args.json:
        emit_json(doc)
    else:
        rate = doc["cells_per_minute"]
        again = f" ({len(result.damaged)} of them damaged in the store)" if result.damaged else ""
        print(f"{result.cells} cells ({' x '.join(f'{d}' for d in spec.dims)}): {result.computed} computed{again}, "
              f"{result.skipped} skipped (already in the store), {result.seconds:.1f} s"
              + (f", {rate:.1f} cells/min" if rate else "") + f"; store {result.store}; figures "
              + ", ".join(figures))
    return 0
