"""``sigrec bench``: run-steps per second of each simulator and the random-number bound."""

from __future__ import annotations

from ...numerics import benchmark

from ._args import add_json_flag
from ._output import emit_json


def register(sub) -> None:
    p = sub.add_parser(
        "bench",
        help="throughput of the full and reduced simulators vs their random-number bounds",
        description="At d=100, R=500, L=10500 (and d=1000 for the reduced simulator), 30 runs "
        "batched: run-steps per second of each simulator, the rate of drawing only their "
        "normals with the same generators, the ratios and the targets of issue 3.",
    )
    p.add_argument("--quick", action="store_true", help="few steps and one repeat (smoke run)")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    report = benchmark(quick=args.quick)
    if args.json:
        emit_json(report.as_dict())
        return 0
    c = report.config
    print(f"bench: d={c['d']} (reduced also d={c['d_large']}), R={c['R']}, L={c['L']}, "
          f"{c['runs']} runs batched; {c['unit']}")
    for name, rate in report.rates.items():
        print(f"  {name:<20} {rate:12.1f}")
    for name, ratio in report.ratios.items():
        print(f"  {name:<28} {ratio:8.3f}")
    for t in report.targets:
        print(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {t['value']:.3f} (>= {t['threshold']})")
    print(f"  total {report.wall_s:.1f} s")
    return 0
