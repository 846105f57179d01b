"""``sigrec verify``: run the verification suite and write the report."""

from __future__ import annotations


from rich.console import Console
from rich.table import Table

from ._args import add_json_flag, add_out_argument
from ._output import emit_json, stderr_progress
from ..render import write_report
from ..suite import PRESETS, SuiteConfig, run_suite

_STYLE = {"pass": "green", "holds": "green", "fail": "bold red", "fails": "yellow", "undecided": "magenta",
          "inconclusive": "magenta"}


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="run the verification suite and write report.json / report.md",
        description="Run every check; exit 0 iff no consistency check fails "
        "(conditions that do not hold are findings, not failures; inconclusive checks are listed, "
        "with the budget that would decide them, and do not fail the run).",
    )
    p.add_argument("--preset", choices=PRESETS, default="quick", help="quick (default) or paper")
    add_out_argument(p, "sigrec-report", "output folder")
    p.add_argument("--seed", type=int, default=None, help="override the preset's seed")
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    config = SuiteConfig.preset_config(args.preset)
    if args.seed is not None:
        config = config.with_seed(args.seed)
    with stderr_progress() as bar:
        task = bar.add_task("checks", total=None)

        def progress(label, done, total):
            bar.update(task, description=label, completed=done, total=total)

        result = run_suite(config, progress=progress, figure_dir=args.out / "figures")
    report = write_report(result, args.out)
    if args.json:
        emit_json(report)
    else:
        probe = Console()
        out = probe if probe.is_terminal else Console(width=160)  # no truncation in logs
        t = Table(title=f"sigrec verify --preset {config.preset}")
        for col in ("check", "case", "kind", "status", "value", "threshold", "evidence"):
            t.add_column(col, no_wrap=True)
        for r in result.records:
            t.add_row(
                r.id, r.details.get("case", ""), r.kind, f"[{_STYLE.get(r.status, '')}]{r.status}[/]",
                "—" if r.value is None else f"{r.value:.3g}",
                "—" if r.threshold is None else f"{r.threshold:.3g}",
                "certified" if r.certified else "numerical",
            )
        out.print(t)
        s = result.summary
        out.print(
            f"{s['consistency_passed']} consistency checks passed, {s['consistency_failed']} failed, "
            f"{s['consistency_inconclusive']} inconclusive; conditions: {s['conditions_holding']} hold, "
            f"{s['conditions_failing']} do not, {s['conditions_undecided']} undecided, "
            f"{s['conditions_inconclusive']} inconclusive. Report: {args.out / 'report.md'} ({result.seconds:.1f} s)"
        )
    return 0 if result.ok else 1
