"""``sigrec bench``: run-steps per second of each simulator and the random-number bound."""

from __future__ import annotations

from ...numerics import benchmark
from ..checks import PAPER, QUICK
from ..studies import measure_scaling
from ..suite import PRESETS, SuiteConfig, preset_cost
from ._args import add_json_flag
from ._output import emit_json, stderr_progress


def register(sub) -> None:
    p = sub.add_parser(
        "bench",
        help="throughput of the full and reduced simulators vs their random-number bounds",
        description="At d=100, R=500, L=10500 (and d=1000 for the reduced simulator), 30 runs "
        "batched: run-steps per second of each simulator, the rate of drawing only their "
        "normals with the same generators, the ratios and the speed targets (reduced >= 25x "
        "full, d=1000 within 25 percent of d=100, reduced >= 60 percent of its random-number bound, and >= 90 "
        "percent of its floor paired: the same normals drawn alone by the same generators in the same 2 worker "
        "processes); and the reduced simulator's token-steps per second and peak memory at L = 1e4, 1e5, 1e6; "
        "and both subspace simulators (onehot(k=2), 2 heads) at d=100 and d=1000 with their reduced/full ratios.",
    )
    p.add_argument("--quick", action="store_true", help="few steps and one repeat (smoke run)")
    p.add_argument("--executor", action="store_true",
                   help="instead: sweep throughput (cells per minute) at 1 and --workers dask workers, and the "
                   "per-task scheduling overhead against the work of one cell (docs/design.md section 8)")
    p.add_argument("--workers", type=int, default=2, help="largest worker count for --executor, default 2")
    p.add_argument("--preset-cost", choices=PRESETS, default=None, metavar="NAME",
                   help="instead: what `sigrec verify --preset NAME` (quick or paper) costs, run twice in this "
                   "process without a cluster, with the fixed designs (before) and with the checks stopping once "
                   "decided (after): CPU seconds and token-steps per check and case and in total, their ratios, "
                   "and whether the records and claim verdicts agree")
    add_json_flag(p)
    p.set_defaults(run=run)


def expectation_line(report) -> str:
    """The measured reduced/full ratio next to what the random-number rates lead one to expect.

    Both simulators are bound by drawing normals, so reduced/full is expected near the
    ratio of the two *measured* random-number rates. That is an expectation, not a
    cap: exactly, ``reduced/full = (rng_bound_reduced / rng_bound_full) *
    (reduced_over_rng_bound / full_over_rng_bound)``, and the last factor can exceed 1.
    The draw count alone (``L*d`` vs ``3L + 2`` normals per run-step) gives a rougher
    figure still, since the cost per normal depends on the buffer size.
    """
    r, c = report.rates, report.config
    measured = r["reduced_d"] / r["full_d"]
    rng = r["rng_bound_reduced"] / r["rng_bound_full"]
    eff = (r["reduced_d"] / r["rng_bound_reduced"]) / (r["full_d"] / r["rng_bound_full"])
    draws = c["L"] * c["d"] / (3 * c["L"] + 2)
    return (f"  reduced/full {measured:.1f} = {rng:.1f} (expected when both simulators are random-number "
            f"bound: rng_bound_reduced / rng_bound_full, measured) x {eff:.3f} (reduced_over_rng_bound / "
            f"full_over_rng_bound); an expectation, not a cap (draw counts alone: L*d/(3L+2) = {draws:.1f})")


def sampler_floor_line(pf: dict) -> str:
    """The sampler's ratio to its random-number floor by both measures, one line: the median of the
    paired rounds (start-up excluded and included) and the lockstep CPU measure."""
    lockstep = f"{pf['lockstep_cpu']:.1%}" if "lockstep_cpu" in pf else "not measured"
    return (f"  sampler / its floor: by the median of paired rounds {pf['excluded']:.1%} (start-up excluded), "
            f"{pf['included']:.1%} (included); by the lockstep measure (CPU) {lockstep}")


def format_report(report) -> str:
    """The human-readable report printed by ``sigrec bench``."""
    c = report.config
    lines = [f"bench: d={c['d']} (reduced also d={c['d_large']}), R={c['R']}, L={c['L']}, "
             f"{c['runs']} runs batched; {c['unit']}"]
    lines += [f"  {name:<20} {rate:12.1f}" for name, rate in report.rates.items()]
    lines += [f"  {name:<28} {ratio:8.3f}" for name, ratio in report.ratios.items()]
    lines.append(expectation_line(report))
    lines += [f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['value']:.3f} (>= {t['threshold']})"
              for t in report.targets]
    pf = report.paired
    if pf:
        lines.append(f"  paired floor ({pf['runs']} runs x {pf['steps']} steps, {pf['workers']} workers, "
                     "same generators and "
                     f"blocks, {pf['repeats']} rounds): random numbers alone / simulated")
        for name, key, loop, call in (("start-up excluded (step loops) ", "excluded", "floor_loop_s", "sim_loop_s"),
                                      ("start-up included (whole calls)", "included", "floor_call_s", "sim_call_s")):
            per_round = pf.get(f"{key}_rounds")
            spread = f" (rounds {min(per_round):.1%} to {max(per_round):.1%})" if per_round else ""
            best = f"; best of each {pf[loop]:.2f} s / {pf[call]:.2f} s" if per_round else \
                f" = {pf[loop]:.2f} s / {pf[call]:.2f} s"
            lines.append(f"    {name} median of the rounds' ratios {pf[key]:.1%}{spread}{best}")
        lines.append(f"    (included: task shipping, generators, buffers, results; cluster start "
                     f"{pf['cluster_start_s']:.1f} s not in either)")
        if "lockstep_cpu" in pf:
            lines.append("    lockstep, CPU time (floor's draws and a step in turn) "
                         f"{pf['lockstep_cpu_floor_s']:7.2f} s / "
                         f"{pf['lockstep_cpu_sim_s']:7.2f} s = {pf['lockstep_cpu']:.1%}")
        lines.append(sampler_floor_line(pf))
    lc = report.long_context
    if lc:
        lines.append(f"  long context (reduced, {lc['runs']} runs, d={lc['d']}, alpha={lc['alpha']}): "
                     "token-steps per second, per token vs the first size, peak memory of a step")
        lines += [f"    L={int(L):>8}{' (chunked)' if v['chunked'] else '          '} {v['token_steps_per_s']:12.3g}"
                  f"  x{v['per_token_vs_first']:.2f}  {v['peak_bytes'] / 2**20:8.1f} MiB"
                  + (f"  ({v['steps']} steps)" if "steps" in v else "")
                  for L, v in lc["sizes"].items()]
    sub = report.subspace
    if sub:
        lines.append(f"  subspace ({sub['law']}, {sub['heads']} heads, R={sub['R']}, L={sub['L']}, {sub['runs']} runs; "
                     f"full at d={sub['d_large']} {sub['runs_full_d_large']} runs): run-steps per second")
        lines += [f"    {name:<26} {rate:12.1f}" for name, rate in sub["rates"].items()]
        lines += [f"    {name:<26} {ratio:12.3f}" for name, ratio in sub["ratios"].items()]
    ms = report.measured
    if ms:
        pr = ms["problem"]
        lines.append(f"  measured law (theta={pr['theta']}, beta={pr['beta']}, R={pr['R']}, L={pr['L']}, d={pr['d']}, "
                     f"eta={ms['eta']}): {ms['points']} points, {ms['draws']:,} one-step draws (drift error "
                     f"{ms['drift_se']}; control variate: median variance reduction {ms['reduction_median']:.1f}x), "
                     f"{ms['seconds']:.1f} s on {ms['workers']} workers; plateau {ms['plateau']:.3f} "
                     f"[{ms['plateau_low']:.3f}, "
                     f"{ms['plateau_high']:.3f}]")
    lines.append(f"  total {report.wall_s:.1f} s")
    return "\n".join(lines)


def format_scaling(report) -> str:
    """The human-readable report of ``sigrec bench --executor``."""
    c = report.config
    rates = ", ".join(f"{w} worker{'s' if w != '1' else ''}: {r:.1f}" for w, r in report.cells_per_minute.items())
    return "\n".join([
        f"bench --executor: {report.cells} sweep cells of {c['runs']} runs x {c['steps']} steps (R={c['R']})",
        f"  cells per minute: {rates} (speedup {report.speedup:.2f})",
        f"  work per cell {report.work_per_cell_s:.3f} s; scheduling overhead {report.task_overhead_ms:.2f} ms "
        f"per task ({100 * report.overhead_fraction:.2f}% of a cell), one-task round trip "
        f"{report.round_trip_ms:.1f} ms",
    ])


def _num(x, spec: str) -> str:
    return "—" if x is None else format(x, spec)


#: CPU seconds below which a check's before/after ratio is not printed (clock resolution and noise)
MIN_CPU_FOR_RATIO = 0.05


def format_preset_cost(cost: dict) -> str:
    """The human-readable report of ``sigrec bench --preset-cost NAME`` (:func:`verify.suite.preset_cost`)."""
    lines = [f"bench --preset-cost {cost['preset']} (seed {cost['seed']}, in-process, one run each): "
             "before = the fixed designs, after = the checks stop once decided; ratio = after / before",
             f"  {'check':<26} {'case':<26} {'CPU s before':>12} {'after':>9} {'ratio':>6} "
             f"{'token-steps before':>19} {'after':>10} {'ratio':>6}"]
    for c in cost["checks"]:
        cpu_ratio = c["cpu_seconds_ratio"] if c["cpu_seconds_before"] >= MIN_CPU_FOR_RATIO else None
        lines.append(f"  {c['check']:<26} {c['case'] or '(built-in)':<26} {c['cpu_seconds_before']:12.2f} "
                     f"{c['cpu_seconds_after']:9.2f} {_num(cpu_ratio, '6.3f'):>6} "
                     f"{c['token_steps_before']:19.4g} {c['token_steps_after']:10.4g} "
                     f"{_num(c['token_steps_ratio'], '6.3f'):>6}")
    t = cost["totals"]
    lines.append(f"  {'total of the checks':<53} {t['cpu_seconds_before']:12.2f} {t['cpu_seconds_after']:9.2f} "
                 f"{_num(t['cpu_seconds_ratio'], '6.3f'):>6} {t['token_steps_before']:19.4g} "
                 f"{t['token_steps_after']:10.4g} {_num(t['token_steps_ratio'], '6.3f'):>6}")
    lines.append(f"  whole run: CPU {t['process_cpu_seconds_before']:.1f} s -> {t['process_cpu_seconds_after']:.1f} s "
                 f"(x{_num(t['process_cpu_seconds_ratio'], '.3f')}), wall {t['seconds_before']:.1f} s -> "
                 f"{t['seconds_after']:.1f} s (x{_num(t['seconds_ratio'], '.3f')})")
    if cost["identical"]:
        lines.append("  records (ids, cases, statuses) and claim verdicts: identical before and after")
    else:
        lines.append("  RECORDS OR CLAIM VERDICTS DIFFER between before and after:")
        lines += [f"    {d}" for d in cost["differences"]]
    return "\n".join(lines)


def _run_preset_cost(args) -> int:
    if getattr(args, "executor", False) or args.quick:
        raise ValueError("`--preset-cost` runs a preset's suite; give it without `--executor` and `--quick`")
    with stderr_progress() as bar:
        task = bar.add_task("suite", total=None)

        def progress(run, label, done, total):
            bar.update(task, description=f"{run}: {label}", completed=done, total=total)

        cost = preset_cost(SuiteConfig.preset_config(args.preset_cost), progress=progress)
    if args.json:
        emit_json(cost)
    else:
        print(format_preset_cost(cost))
    return 0


def run(args) -> int:
    if getattr(args, "preset_cost", None) is not None:
        return _run_preset_cost(args)
    preset = QUICK if args.quick else PAPER  # --quick: the quick preset's sizes
    if getattr(args, "executor", False):  # callers may pass a Namespace of the older flags

        if args.workers < 2:
            raise ValueError(f"`workers` must be >= 2 for --executor, got {args.workers}")
        scaling = measure_scaling(workers=(1, args.workers), preset=preset)
        if args.json:
            emit_json(scaling.as_dict())
        else:
            print(format_scaling(scaling))
        return 0
    report = benchmark(quick=preset.bench_smoke)
    if args.json:
        emit_json(report.as_dict())
        return 0
    print(format_report(report))
    return 0
