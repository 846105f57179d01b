"""``report.json`` and ``report.md`` (docs/design.md section 4)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from ..suite import check_costs, environment, moved
from ._json import to_json
from .figures import draw_records


def _cell(text: str) -> str:
    """Text for a Markdown table cell: ``|`` escaped (so ``|rho|`` stays ``|rho|``), one line."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def _with_kind(x, kind: str | None) -> str:
    """A value or threshold with what it is (``CheckRecord.value_kind``): ``0.0366 (least KS p-value (4
    tests))``; ``—`` alone when there is no number."""
    return _fmt(x) if x is None or not kind else f"{_fmt(x)} ({_cell(kind)})"


def _record_table(records: list[dict]) -> list[str]:
    """The Markdown rows of ``records`` (JSON form), with what each ran on and what its numbers are."""
    lines = ["| check | case | ran on | kind | status | value | threshold | evidence | message |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        evidence = "certified" if r["certified"] else "numerical"
        lines.append(
            f"| `{r['id']}` | {r['details'].get('case', '')} | {_cell(r['details'].get('ran_on', ''))} | {r['kind']} | "
            f"**{r['status']}** | {_with_kind(r['value'], r.get('value_kind'))} | "
            f"{_with_kind(r['threshold'], r.get('threshold_kind'))} | {evidence} | {_cell(r['message'])} |")
    return lines


def _cost_table(report: dict) -> list[str]:
    """The section of what each check run cost (CPU seconds and token-steps, :func:`verify.suite.check_costs`),
    with the totals; nothing for a report written before records had a cost."""
    costs = check_costs(report["checks"])
    if not costs:
        return []
    s = report["summary"]
    lines = ["", "## Cost", "",
             "What each check run cost: CPU seconds (this process, and the workers its blocks of runs ran on) and "
             "token-steps (tokens drawn, summed over steps and runs). Checks that share a simulation count it once, "
             "on the first of them to run.", "",
             "| check | case | records | CPU s | token-steps |", "|---|---|---|---|---|"]
    lines += [f"| `{c['check']}` | {_cell(c['case'] or '')} | {c['records']} | {c['cpu_seconds']:.2f} | "
              f"{c['token_steps']:.4g} |" for c in costs]
    total = s.get("token_steps", sum(c["token_steps"] for c in costs))
    cpu = s.get("cpu_seconds", sum(c["cpu_seconds"] for c in costs))
    lines.append(f"| **total** | | {sum(c['records'] for c in costs)} | {cpu:.2f} | {total:.4g} |")
    return lines


def _cache_lines(summary: dict) -> list[str]:
    """The paragraph on what was read from the result store (``summary["cache"]``), if anything."""
    c = summary.get("cache")
    if c and c.get("refused"):
        return [f"The result cache was not used: {c['refused']}.", ""]
    if not c or not c["read"]:
        return []
    return [f"Read from the result cache (`{c['dir']}`): {len(c['read'])} of {c['units']} units "
            f"({', '.join(_cell(u) for u in c['read'])}), computed before by the same code (every source file, "
            "library version and CPU feature the same) on the same inputs and seed, so their records are those a "
            "new run computes; their cost is that of the run that computed them. `sigrec verify --no-cache` "
            "computes everything again.", ""]


def report_dict(result) -> dict:
    """The JSON report of a :class:`verify.suite.SuiteResult`."""
    return {
        "checks": [r.as_dict() for r in result.records],
        "claims": [c.as_dict() for c in result.claims],
        "summary": dict(result.summary, seconds=round(result.seconds, 3)),
        "config": result.config.as_dict(),
        "figures": list(result.figures),
        "environment": environment(),
    }


def markdown(report: dict) -> str:
    """The Markdown text of ``report.md`` for a suite report.

    A header (preset, seed, number of checks, time, whether any consistency check fails, the
    inconclusive counts and the checks not run on a case), the table of records (on a run of your
    own cases the built-in checks in a table of their own), what each check run cost (CPU seconds and
    token-steps), the paper's claims with their
    verdicts and caveats, the cases, links to the figures (relative to ``report["out"]`` when it
    is set) and the environment.

    Parameters
    ----------
    report : dict
        A report in JSON form: :func:`report_dict` of a :class:`verify.suite.SuiteResult`, with
        the summary's ``seconds`` (and, as :func:`write_report` adds, ``out``), or a
        ``report.json`` read back.

    Returns
    -------
    str
        The Markdown document.
    """
    s = report["summary"]
    lines = [
        "# sigrec verification report",
        "",
        f"Preset `{report['config']['preset']}`, seed {report['config']['seed']}, "
        + (f"{s['checks']} checks on your cases and {s['builtin']['checks']} built-in"
           if "builtin" in s else f"{s['checks']} checks") + f" in {s['seconds']:.1f} s"
        + (f" ({s['cpu_seconds']:.1f} CPU-s in the checks, {s['token_steps']:.3g} token-steps). "
           if "token_steps" in s and "cpu_seconds" in s else ". ")
        + f"**{'No consistency check fails.' if s['ok'] else 'Some consistency checks FAIL.'}**"
        + (f" Inconclusive (nothing decisive measured; each message says what budget would decide it): "
           f"{s.get('consistency_inconclusive', 0)} consistency, {s.get('conditions_inconclusive', 0)} conditions."
           if s.get("consistency_inconclusive") or s.get("conditions_inconclusive") else "")
        + "".join(f" Not run on {na['case']}: `{na['check']}` {na['reason']}." for na in s.get("not_applicable", ())),
        "",
        *_cache_lines(s),
        "Consistency checks compare theory with numerics and must pass. Conditions are "
        "hypotheses or claims of the theorem: one that does not hold is a finding, not a failure. "
        "*Certified* means proved by exact symbolic computation or interval arithmetic; anything "
        "else is numerical evidence.",
        "",
    ]
    # on the user's cases the model-independent checks (built-in instances) are a table of their own
    apart = "builtin" in s
    lines += _record_table([r for r in report["checks"] if not apart or r["details"].get("case")])
    if apart and s["builtin"]["checks"]:
        lines += ["", "### Built-in checks", "",
                  "Model-independent checks on the toolkit's own instances (each row says which): they test "
                  "the derivation and the simulators, not your cases, and are not counted with them.", "",
                  *_record_table([r for r in report["checks"] if not r["details"].get("case")])]
    lines += _cost_table(report)
    if report.get("claims"):
        lines += ["", "## The paper's claims", "",
                  "| claim | status | verdict | regime | evidence |", "|---|---|---|---|---|"]
        for c in report["claims"]:
            lines.append(f"| {c['number']}. {_cell(c['statement'])} | **{c['status']}** | {_cell(c['verdict'])} | "
                         f"{_cell(c['regime'])} | {_cell(c['evidence'])} |")
        caveats = [f"* Claim {c['number']} {c['status']} although {c['caveat']}" for c in report["claims"]
                   if c.get("caveat")]
        if caveats:
            lines += ["", *caveats]
    cases = report["config"].get("cases", [])
    if cases:
        lines += ["", "## Cases", ""]
        for c in cases:
            counts = f", R={c['R']}, L={c['L']}, d={c['d']}" if c.get("R") is not None else ""
            heads = f", {c['heads']} heads" if c.get("heads", 1) > 1 else ""
            # a `$` in a user's name or description would open a formula in Markdown readers with math
            name, text = (str(c[k]).replace("$", "\\$") for k in ("name", "description"))
            lines.append(f"* **{name}** ({c['prior']} prior, theta={c['theta']:g}, alpha={c['alpha']:.4g}, "
                         f"beta={c['beta']:g}, sigma2={c['sigma2']:g}{counts}{heads}): {text}")
    if report.get("figures"):
        lines += ["", "## Figures", ""]
        for f in report["figures"]:
            rel = Path(f).relative_to(report["out"]) if report.get("out") else Path(f)
            # a case name in the file name may hold spaces, brackets or other scripts: the link is
            # percent-encoded and the alt text escaped, so that every Markdown reader shows the image
            alt = "".join("\\" + ch if ch in "\\[]" else ch for ch in Path(f).stem)
            lines.append(f"![{alt}]({quote(rel.as_posix())})")
    env = report["environment"]
    lines += [
        "",
        "## Environment",
        "",
        f"Python {env['python']} on {env['platform']}; git commit `{env['git_commit']}`.",
        "",
        ", ".join(f"{k} {v}" for k, v in env["packages"].items() if v),
        "",
    ]
    return "\n".join(lines)


def write_report(result, out: Path, final: Path | None = None, store=None) -> dict:
    """Write ``report.json`` and ``report.md`` into ``out``; return the report dict.

    ``final``: the folder ``out`` will be renamed to (``out`` is then a temporary
    folder); paths under ``out`` in the report are written as paths under ``final``. The
    figure specs the records carry are drawn first (PNG and PDF, at the paths the report
    lists; with ``store``, a :class:`verify.suite.ResultStore`, a figure this code drew before
    from the same data is copied from it: :func:`verify.render.figures.draw_records`)."""
    out.mkdir(parents=True, exist_ok=True)
    draw_records(getattr(result, "records", ()), store=store)
    rep = report_dict(result)
    if final is not None:
        rep = moved(rep, str(out), str(final))
    rep["out"] = str(out if final is None else final)
    (out / "report.json").write_text(to_json(rep) + "\n")
    (out / "report.md").write_text(markdown(rep))
    return rep
