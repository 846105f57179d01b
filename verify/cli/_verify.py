"""``sigrec verify``: run the verification suite and write the report."""

from __future__ import annotations

from dataclasses import replace

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..checks import select
from ..render import write_report
from ..suite import (
    PRESETS,
    ResultStore,
    SuiteConfig,
    cases_from_toml,
    check_selection,
    make_case,
    run_plan,
    run_suite,
)
from ._args import (
    PRIOR_HELP,
    add_executor_arguments,
    add_json_flag,
    add_method_arguments,
    add_out_argument,
    executor_from_args,
    finite_float,
    prior_arg,
)
from ._atomic import atomic_folder
from ._limits import MAX_CASES_BYTES, MAX_TOML_DEPTH, NAME_CHARS, count
from ._output import emit_json, stderr_progress
from ._subspace import heads_count

#: the flags that define one case of the user's own
_CASE_FLAGS = ("theta", "alpha", "R", "L", "N", "d", "beta", "sigma2", "prior", "heads", "name")

_STYLE = {"pass": "green", "holds": "green", "fail": "bold red", "fails": "yellow", "undecided": "magenta",
          "inconclusive": "magenta", "partial": "yellow"}


#: most heads a case of the command line may ask for (each adds k + 2 overlaps per token and step)
MAX_HEADS = 16


def register(sub) -> None:
    p = sub.add_parser(
        "verify",
        help="run the verification suite and write report.json / report.md",
        description="Run every check; exit 0 iff no consistency check fails "
        "(conditions that do not hold are findings, not failures; inconclusive checks are listed, "
        "with the budget that would decide them, and do not fail the run). Without case flags the "
        "suite runs on its built-in cases; --theta with --R --L --d (a simulated case) or with --alpha "
        "(theory only; 0 = sparse regime) runs it on your own model, --cases FILE.toml on several.",
    )
    own = p.add_argument_group("your own case (instead of the built-in cases)")
    own.add_argument("--theta", type=finite_float, help="signal strength (>= 0)")
    own.add_argument("--alpha", type=finite_float, help="informative fraction for a theory-only case (0 = sparse)")
    own.add_argument("--R", type=count("R"), help="informative tokens of a simulated case")
    own.add_argument("--L", type=count("L"), help="tokens of a simulated case (R <= L); or --N")
    own.add_argument("--N", type=count("N"), help="nuisance tokens of a simulated case (L = R + N); or --L")
    own.add_argument("--d", type=count("d"), help="dimension of a simulated case (>= 2)")
    own.add_argument("--beta", type=finite_float, help="inverse temperature (> 0), default 1")
    own.add_argument("--sigma2", type=finite_float, help="noise variance (> 0), default 1")
    own.add_argument("--prior", type=prior_arg, metavar="PRIOR", help=PRIOR_HELP + "; a k-dimensional law such as "
                     "'onehot(k=2)' makes a subspace case (the subspace.* and heads.* checks run on it)")
    own.add_argument("--heads", type=heads_count(MAX_HEADS), metavar="H",
                     help="H orthonormal queries (default 1; H >= 2 makes a subspace case)")
    own.add_argument("--name", help="the case's name in the report and in figure file names (default: mine; "
                     f"printable, at most {NAME_CHARS} characters, none of / \\ : * ? \" < > |)")
    p.add_argument("--cases", metavar="FILE.toml", help="several cases of your own: one [[case]] table each "
                   "(keys name, theta, R, L or N, d or alpha, beta, sigma2, prior, heads, checks, description)")
    p.add_argument("--budget", type=finite_float, metavar="TOKEN_STEPS",
                   help="token-steps (runs x steps x L) a planned, decisive simulation may cost "
                   "(default: the preset's; the report says what an undecided check needs)")
    p.add_argument("--checks", metavar="ID,...", help="run only these checks: ids or families such as field.* "
                   "(default: every check that applies)")
    p.add_argument("--preset", choices=PRESETS, default="quick", help="quick (default) or paper")
    add_out_argument(p, "sigrec-report", "output folder")
    p.add_argument("--seed", type=count("seed"), default=None, help="override the preset's seed")
    add_method_arguments(p, "the diffusion checks' predictions (sga.fluctuations, sga.hitting_time, sga.splitting)")
    p.add_argument("--fixed-counts", action="store_true",
                   help="run every counted check's full run count (the preset's fixed design) instead of stopping "
                   "at the first look that decides its verdict (false pass <= 2%% against a deviation the full count "
                   "detects, false fail + 0.1%%)")
    p.add_argument("--no-cache", action="store_true",
                   help="compute everything again instead of reading what this code computed before on the same "
                   "inputs from the result cache (the folder results of $SIGREC_CACHE_DIR, default ~/.cache/sigrec; "
                   "SIGREC_RESULT_CACHE=off turns it off)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the run's plan instead of running it: each check on each case, what it computes "
                   "(designs, certificates, tables, simulations with their token-steps) and what it shares with "
                   "earlier steps; computes the designs (recovery plans, diffusion horizons), simulates nothing "
                   "but their small pilots, writes nothing")
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def _config(args) -> SuiteConfig:
    """The suite configuration: preset, seed, and the user's cases and check selection."""
    config = SuiteConfig.preset_config(args.preset)
    if args.seed is not None:
        config = config.with_seed(args.seed)
    flags = {k: getattr(args, k) for k in _CASE_FLAGS if getattr(args, k) is not None}
    if flags and args.cases:
        raise ValueError("give either case flags (--theta ...) or --cases FILE.toml, not both")
    if flags:
        if "theta" not in flags:
            raise ValueError("a case of your own needs --theta (with --R, --L or --N, and --d; or with --alpha)")
        name = flags.pop("name", "mine")
        config = replace(config, cases=(make_case(name, **flags),))
    elif args.cases:
        config = replace(config, cases=cases_from_toml(args.cases, max_bytes=MAX_CASES_BYTES,
                                                       max_depth=MAX_TOML_DEPTH))
    if args.budget is not None:
        if not args.budget > 0:
            raise ValueError(f"`budget` must be > 0 token-steps, got {args.budget!r}")
        config = replace(config, budget=float(args.budget))
    config = replace(config, method=args.method, drift_se=args.drift_se, sequential=not args.fixed_counts)
    if args.checks is not None:
        checks = check_selection(args.checks.split(","))
        select(checks)  # refuses unknown ids before anything runs
        config = replace(config, checks=checks)
    return config


def run(args) -> int:
    config = _config(args)
    if args.dry_run:
        return _dry_run(args, config)
    with atomic_folder(args.out) as tmp, executor_from_args(args), stderr_progress() as bar:
        task = bar.add_task("checks", total=None)

        def progress(label, done, total):
            bar.update(task, description=label, completed=done, total=total)

        store = None if args.no_cache else ResultStore.default()
        result = run_suite(config, progress=progress, figure_dir=tmp / "figures", store=store)
        report = write_report(result, tmp, final=args.out, store=store)
    if args.json:
        emit_json(report)
    else:
        probe = Console()
        out = probe if probe.is_terminal else Console(width=160)  # no truncation in logs
        # user strings (case names, messages quoting them) are printed as text, never as rich markup
        names = escape(", ".join(c.name for c in config.cases))
        s = result.summary
        # on the user's cases, the model-independent checks (built-in instances) are listed apart
        apart = "builtin" in s
        own = [r for r in result.records if not apart or r.details.get("case")]
        out.print(_table(f"sigrec verify --preset {config.preset.name}: {names}", own))
        if apart and s["builtin"]["checks"]:
            out.print(_table("built-in checks: model-independent, on the toolkit's own instances (not your cases)",
                             [r for r in result.records if not r.details.get("case")]))
        for r in result.records:
            if r.status in ("inconclusive", "undecided"):
                where = f" ({r.details['case']})" if r.details.get("case") else ""
                out.print(f"[{_STYLE[r.status]}]{r.status}[/] {r.id}{escape(where)}: {escape(r.message)}",
                          soft_wrap=True)
        _print_claims(out, result.claims)
        for na in s.get("not_applicable", ()):
            out.print(escape(f"not run on {na['case']}: {na['check']} {na['reason']}"), soft_wrap=True)
        if s.get("cache", {}).get("refused"):
            out.print(escape(f"the result cache was not used: {s['cache']['refused']}"), soft_wrap=True)
        elif s.get("cache", {}).get("read"):
            c = s["cache"]
            out.print(escape(f"read from the result cache ({c['dir']}): {len(c['read'])} of {c['units']} units, "
                             "computed before by this code on the same inputs; --no-cache computes them again"),
                      soft_wrap=True)
        b = s.get("builtin")
        builtin = (f"; built-in checks (not your cases): {b['consistency_passed']} passed, "
                   f"{b['consistency_failed']} failed, {b['consistency_inconclusive']} inconclusive"
                   if b and b["checks"] else "")
        out.print(
            f"{s['consistency_passed']} consistency checks passed, {s['consistency_failed']} failed, "
            f"{s['consistency_inconclusive']} inconclusive; conditions: {s['conditions_holding']} hold, "
            f"{s['conditions_failing']} do not, {s['conditions_undecided']} undecided, "
            f"{s['conditions_inconclusive']} inconclusive"
            + (" on your cases" if apart else "") + escape(builtin)
            + f". Report: {escape(str(args.out / 'report.md'))} ({result.seconds:.1f} s)"
        )
    return 0 if result.ok else 1


def _dry_run(args, config: SuiteConfig) -> int:
    """Print the run's plan (:func:`verify.suite.run_plan`): nothing is run or written."""
    with executor_from_args(args):
        the_plan = run_plan(config)
    if args.json:
        emit_json({"preset": config.preset.name, "seed": config.seed, **the_plan.as_dict()})
    else:
        head = f"sigrec verify --preset {config.preset.name} --dry-run (seed {config.seed})\n"
        Console(width=160, soft_wrap=True).print(escape(head + the_plan.describe()))
    return 0


def _table(title: str, records) -> Table:
    """One table of records: what each is, its status, its numbers and what they are."""
    t = Table(title=title)
    for col in ("check", "case", "kind", "status", "value", "threshold", "evidence"):
        t.add_column(col, no_wrap=True)
    t.add_column("value is; threshold is", overflow="fold", min_width=24)
    for r in records:
        t.add_row(
            r.id, escape(r.details.get("case", "")), r.kind, f"[{_STYLE.get(r.status, '')}]{r.status}[/]",
            "—" if r.value is None else f"{r.value:.3g}",
            "—" if r.threshold is None else f"{r.threshold:.3g}",
            "certified" if r.certified else "numerical",
            escape(f"{r.value_kind or '—'}; {r.threshold_kind or '—'}"),
        )
    return t


def _print_claims(out, claims) -> None:
    """The paper's claims, one row each, then why a claim stands beside an undecided run."""
    if not claims:
        return
    t = Table(title="the paper's claims")
    t.add_column("claim", overflow="fold", max_width=48)
    t.add_column("status", no_wrap=True)
    t.add_column("verdict", overflow="fold")
    for c in claims:
        t.add_row(escape(f"{c.number}. {c.statement}"), f"[{_STYLE.get(c.status, '')}]{c.status}[/]",
                  escape(c.verdict))
    out.print(t)
    for c in claims:
        if c.caveat:
            out.print(escape(f"claim {c.number} {c.status} although {c.caveat}"), soft_wrap=True)
