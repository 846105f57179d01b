"""``sigrec notes``: write (or check) the generated derivation appendix."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from ..render import compare_notes as compare
from ..render import to_json, write_notes
from ..studies import EVIDENCE_FILE, Evidence, appendix_data, configurations, run_config
from ..suite import SuiteConfig, run_suite
from ._args import add_json_flag, add_out_argument
from ._atomic import atomic_folder
from ._output import emit_json, stderr_progress


def register(sub) -> None:
    p = sub.add_parser(
        "notes",
        help="generate the derivation appendix (LaTeX + Markdown) from the sympy objects",
        description="Write appendix.tex, appendix.md and their figures. With --check, regenerate into a "
        "temporary folder and exit 1 if the formulas or text differ from those in --out.",
    )
    add_out_argument(p, "notes", "folder")
    p.add_argument("--check", action="store_true", help="compare with the files in --out instead of writing")
    p.add_argument("--evidence", metavar="REPORT_DIR",
                   help="take the claims and the evidence table from this `sigrec verify --out` folder (e.g. a "
                   f"--preset paper run) and save them as {EVIDENCE_FILE} in --out; default: the {EVIDENCE_FILE} "
                   "already in --out, else a fresh quick-preset run; 'quick' forces a fresh quick-preset run")
    add_json_flag(p)
    p.set_defaults(run=run)


#: the generated text files (the ones ``--check`` compares)
_FILES = ("appendix.tex", "appendix.md")


def _evidence(source, folder: Path):
    """The suite run the appendix cites: a report folder (``source``), the evidence file in
    ``folder``, or ``None`` (run the quick preset)."""
    if source == "quick":
        return None
    if source is not None:
        return Evidence.from_report(source)
    path = folder / EVIDENCE_FILE
    return Evidence.load(path) if path.is_file() else None


def _figure_file(figure, out: Path) -> str | None:
    """The file beside the evidence that holds its figure: the spec's data (``.npz``), or the
    PNG the appendix copies (``write_notes`` puts it there)."""
    if figure is None:
        return None
    if isinstance(figure, Path):
        return "effective_drift.png"
    figure.save_data(out / "effective_drift.npz")
    return "effective_drift.npz"


def _generate(out: Path, evidence) -> None:
    """The appendix into ``out``: from ``evidence`` (written beside it as evidence.json) or the
    quick suite, and the flagship reproduction, with a progress bar on stderr (a terminal only)."""
    configs = configurations("quick")
    with stderr_progress() as bar, tempfile.TemporaryDirectory(prefix="sigrec-notes-") as figs:
        task = bar.add_task("notes: the quick suite" if evidence is None else "notes", total=None)

        def progress(label, done, total):
            bar.update(task, description=f"notes: {label}", completed=done, total=total)

        if evidence is None:
            result = run_suite(SuiteConfig.preset_config("quick"), progress=progress, figure_dir=Path(figs))
        else:
            result = evidence
            (out / EVIDENCE_FILE).write_text(to_json(evidence.as_dict(_figure_file(evidence.figure, out))) + "\n")
        reproduction = []
        for i, cfg in enumerate(configs):
            bar.update(task, description=f"notes: reproduction {i + 1}/{len(configs)}", completed=i,
                       total=len(configs))
            reproduction.append(run_config(*cfg))
        data = appendix_data(result=result, reproduction=reproduction, progress=progress)
        bar.update(task, description="notes: writing the appendix", completed=None, total=None)
        write_notes(out, data)


def run(args) -> int:
    as_json = getattr(args, "json", False)
    files = [str(args.out / name) for name in _FILES]
    if not args.check:
        evidence = _evidence(args.evidence, args.out)
        with atomic_folder(args.out) as tmp:
            _generate(tmp, evidence)
        if as_json:
            emit_json({"out": str(args.out), "check": False, "files": files, "in_sync": True, "diffs": []})
        else:
            print(f"wrote {args.out / 'appendix.tex'} and {args.out / 'appendix.md'}")
        return 0
    if not (args.out / "appendix.tex").exists():
        raise ValueError(f"no appendix in {str(args.out)!r} to check (run `sigrec notes --out {args.out}` first)")
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        _generate(fresh, _evidence(args.evidence, args.out))
        diffs = compare(args.out, fresh)
    if as_json:
        emit_json({"out": str(args.out), "check": True, "files": files, "in_sync": not diffs, "diffs": diffs})
        return 1 if diffs else 0
    if diffs:
        print(f"notes out of date: {len(diffs)} file(s) differ from a fresh generation", file=sys.stderr)
        for d in diffs:
            lines = d.splitlines()
            print("\n".join(lines[:40]) + ("\n..." if len(lines) > 40 else ""), file=sys.stderr)
        return 1
    print(f"notes in {args.out} are up to date")
    return 0
