"""``sigrec reproduce``: the paper's experiments with figures and a comparison table."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.console import Console

from ...numerics import describe
from ..render import plot_reproduction as plot
from ..render import reproduce_markdown, reproduce_summary
from ..studies import PAPER_MEAN_FINAL_ALIGNMENT, PROTOCOL, configurations, markdown_table, run_configs
from ..studies import REPRODUCE_PRESETS as PRESETS
from ..suite import environment
from ._args import add_executor_arguments, add_json_flag, add_out_argument, executor_from_args
from ._atomic import atomic_folder, relocate
from ._limits import count
from ._output import emit_json, stderr_progress, to_json


def register(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce the paper's experiments (30 runs per configuration)",
        description="Run the paper's configurations with the exact reduced simulator (or --simulator full) "
        "under a fixed, documented protocol; write figures, reproduce.json and reproduce.md.",
    )
    p.add_argument("--preset", choices=PRESETS, default="quick", help="quick: the flagship only; paper: 16 configs")
    add_out_argument(p, "sigrec-report", "output folder")
    p.add_argument("--simulator", choices=("reduced", "full"), default="reduced")
    p.add_argument("--seed", type=count("seed"), default=PROTOCOL.seed)
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    protocol = replace(PROTOCOL, simulator=args.simulator, seed=args.seed)
    configs = configurations(args.preset)
    with executor_from_args(args) as ex, stderr_progress() as bar:
        protocol = replace(protocol, workers=ex.workers)  # recorded: the workers actually used
        where = describe(ex)
        task = bar.add_task("configurations", total=len(configs))
        results = run_configs(configs, protocol, progress=lambda done, _: bar.update(task, completed=done))
    with atomic_folder(args.out) as tmp:
        doc = _write(args, protocol, results, tmp, where)
    _print(args, protocol, results, doc)
    return 0


def _write(args, protocol, results, tmp: Path, where: dict | None = None) -> dict:
    """Write the figures, reproduce.json and reproduce.md into ``tmp`` (renamed to
    ``--out`` afterwards); return the JSON document with the final paths."""
    figures = relocate(plot(results, tmp, PAPER_MEAN_FINAL_ALIGNMENT), tmp, args.out)
    doc = {
        "preset": args.preset,
        "protocol": {**protocol.__dict__, "schedule": protocol.schedule.as_dict(),
                     "robbins_monro": protocol.schedule.robbins_monro().as_dict(),
                     "note": "exact reduced simulator (docs/design.md section 2)" if protocol.simulator == "reduced"
                     else "full d-dimensional simulator"},
        "paper": {"mean_final_alignment": PAPER_MEAN_FINAL_ALIGNMENT, "runs": 30},
        "configs": [r.as_dict() for r in results],
        "figures": figures,
        "environment": environment(where),
    }
    (tmp / "reproduce.json").write_text(to_json(doc) + "\n")
    (tmp / "reproduce.md").write_text(reproduce_markdown(doc, markdown_table(results)))
    return doc


def _print(args, protocol, results, doc) -> None:
    if args.json:
        emit_json(doc)
    else:
        # soft_wrap: never hard-wrap at the terminal width, so the markdown table
        # keeps one line per row and can be pasted
        out = Console(soft_wrap=True)
        head, table, wrote = reproduce_summary(doc, markdown_table(results), args.out)
        out.print(head)
        out.print(table, markup=False, highlight=False)
        out.print(wrote)
