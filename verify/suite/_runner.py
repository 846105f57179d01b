"""The suite runner: which check runs on which case, in what order; the result."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ...numerics import count_token_steps, current_executor
from ..checks import REGISTRY, Case, Check, CheckContext, CheckRecord, select
from ._cases import SuiteConfig, left_out
from ._claims import Claim, claims
from ._store import ResultStore, moved, stored_key
from ._units import _groups, _run_check, _run_distributed


@dataclass(frozen=True)
class SuiteResult:
    """Records of one suite run, with its configuration, summary and claim verdicts.

    Attributes
    ----------
    config : SuiteConfig
        The configuration that was run.
    records : tuple of CheckRecord
        Every record emitted, in plan order; each names its case (``details["case"]``, none for a
        built-in check) and what it ran on (``details["ran_on"]``).
    seconds : float
        Seconds of wall time of the run.
    summary : dict
        Counts of the records by kind and status and ``"ok"`` (:func:`summarize`; on a run of the
        user's own cases the built-in checks' records are counted apart under ``"builtin"``),
        ``"applied"`` (the checks run on each case), the run's cost: ``"token_steps"`` (every token
        the samplers drew, in the checks and in planning them: :func:`numerics.count_token_steps`)
        and ``"cpu_seconds"`` (the checks', :func:`check_costs`), and, when some were left out,
        ``"not_applicable"`` (``{"check", "case", "reason"}`` each).
    figures : tuple of str
        The paths of the records' figures (``details["figures"]``, each once), drawn by the report
        writer.
    claims : tuple of Claim
        The verdict on each claim the records decide, by number.
    """

    config: SuiteConfig
    records: tuple[CheckRecord, ...]
    seconds: float
    summary: dict = field(default_factory=dict)
    figures: tuple = ()
    claims: tuple[Claim, ...] = ()

    @property
    def ok(self) -> bool:
        """True iff every consistency check passed."""
        return not any(r.failed for r in self.records)


def check_costs(records) -> list[dict]:
    """One entry per check run in ``records`` (a :class:`SuiteResult`'s, or their JSON form), in
    order: ``{"check", "case", "records", "token_steps", "cpu_seconds"}`` (the case ``None`` for a
    model-independent check; records without a cost, from a report written before they had one,
    are left out)."""
    out: list[dict] = []
    for r in records:
        d = r["details"] if isinstance(r, dict) else r.details
        if "token_steps" not in d:
            continue
        key = (d.get("check"), d.get("case"))
        if out and (out[-1]["check"], out[-1]["case"]) == key:
            out[-1]["records"] += 1
            continue
        out.append({"check": key[0], "case": key[1], "records": 1, "token_steps": d["token_steps"],
                    "cpu_seconds": d.get("cpu_seconds", 0.0)})
    return out


def context(config: SuiteConfig, figure_dir: Path | None = None) -> CheckContext:
    """The :class:`CheckContext` every check of a run of ``config`` receives."""
    return CheckContext(seed=config.seed, preset=config.preset, figure_dir=figure_dir,
                        quadrature_points=config.quadrature_points, quadrature_dps=config.quadrature_dps,
                        budget=config.budget, method=config.method, drift_se=config.drift_se,
                        sequential=config.sequential)


def plan(config: SuiteConfig) -> list[tuple[str, Check, Case | None]]:
    """``(label, check, case)`` in run order.

    Model-independent checks listed before the first per-case check in the registry run
    first; then every case with the checks that apply to it (``Check.applies``); then the
    remaining model-independent ones.
    """
    ctx = context(config)
    chosen = select(config.checks)
    order = list(REGISTRY.values())
    first_case_check = next(i for i, c in enumerate(order) if c.scope != "once")
    # the model-independent checks are of the scalar model: a run whose cases are all subspace
    # cases does not run them (and a run without cases runs them)
    scalar = not config.cases or any(not getattr(c, "subspace", False) for c in config.cases)
    once = [c for c in chosen if c.scope == "once" and (scalar or c.model == "subspace")]
    before = [c for c in once if order.index(c) < first_case_check]
    after = [c for c in once if order.index(c) > first_case_check]
    steps: list[tuple[str, Check, Case | None]] = [(c.id, c, None) for c in before]
    for case in config.cases:
        wanted = {c.id for c in select(case.checks)}
        steps += [(f"{c.id}: {case.name}", c, case) for c in chosen
                  if c.scope != "once" and c.id in wanted and c.applies(case, ctx)]
    steps += [(c.id, c, None) for c in after]
    return steps


def not_applicable(config: SuiteConfig) -> list[dict]:
    """The checks a case selects that do not apply to it (not run, not counted): ``{"check",
    "case", "reason"}``, the reason from ``Check.reason`` (the certified landscape lacks what
    the check needs, or the case lies outside the region where the check's prediction, a
    finite-step / finite-``L`` expansion, is accurate, with what would bring it inside)."""
    ctx = context(config)
    chosen = select(config.checks)
    out = []
    for case in config.cases:
        wanted = {c.id for c in select(case.checks)}
        for c in chosen:
            if (c.needs and c.id in wanted and c.scope != "once" and (c.scope == "model" or case.simulated)
                    and c.for_case(case)):
                reason = c.reason(case, ctx)
                if reason is not None:
                    out.append({"check": c.id, "case": case.name, "reason": reason})
    return out


def model_of(case) -> str:
    """``"subspace (onehot(k=2), H = 2 heads)"`` or ``"scalar (fixed prior)"``: the model a case is of."""
    if getattr(case, "subspace", False):
        return f"subspace ({case.prior}, H = {case.heads} head{'s' if case.heads > 1 else ''})"
    return f"scalar ({case.prior} prior)"


def applied(config: SuiteConfig, steps=None) -> list[dict]:
    """Which checks ran on each case and which were left out because they are for the other
    model (scalar vs subspace): ``{"case", "model", "run", "other_model"}``, ids in registry
    order (``run`` as planned: the steps of :func:`plan`, or ``steps`` when given)."""
    steps = plan(config) if steps is None else steps
    chosen = select(config.checks)
    out = []
    for case in config.cases:
        wanted = {c.id for c in select(case.checks)}
        per = [c for c in chosen if c.scope != "once" and c.id in wanted]
        out.append({"case": case.name, "model": model_of(case),
                    "run": [c.id for _, c, k in steps if k is case],
                    "other_model": [c.id for c in per if not c.for_case(case)]})
    return out


def builtin_apart(config: SuiteConfig) -> bool:
    """Whether the records of model-independent checks (on built-in instances) are counted apart: on
    a run of the user's own cases, whose verdicts they are not."""
    return tuple(config.cases) != tuple(SuiteConfig.preset_config(config.preset.name).cases)


def summarize(records, apart: bool = False) -> dict:
    """The counts of ``records`` by kind and status; with ``apart``, the records of built-in runs
    (no case) are counted under ``"builtin"`` alone, not with the cases'."""
    if apart:
        own = [r for r in records if r.details.get("case")]
        out = summarize(own)
        out["builtin"] = summarize([r for r in records if not r.details.get("case")])
        out["ok"] = not any(r.failed for r in records)
        return out
    consistency = [r for r in records if r.kind == "consistency"]
    conditions = [r for r in records if r.kind == "condition"]
    return {
        "checks": len(records),
        "consistency_passed": sum(r.status == "pass" for r in consistency),
        "consistency_failed": sum(r.status == "fail" for r in consistency),
        "consistency_inconclusive": sum(r.status == "inconclusive" for r in consistency),
        "conditions_holding": sum(r.status == "holds" for r in conditions),
        "conditions_failing": sum(r.status == "fails" for r in conditions),
        "conditions_undecided": sum(r.status == "undecided" for r in conditions),
        "conditions_inconclusive": sum(r.status == "inconclusive" for r in conditions),
        "certified": sum(r.certified for r in records),
        "ok": not any(r.failed for r in records),
    }


#: what stands for the run's figure folder in a stored record (its figures are drawn under the
#: folder of the run that reads it)
_FIGURES = "\0figures"


def _relocated(records, src: str, dst: str, **extra) -> list[CheckRecord]:
    """``records`` with their figure paths (``details["figures"]`` and the specs') moved from under
    ``src`` to under ``dst``, and ``extra`` added to their details."""
    return [replace(r, details={**moved(r.details, src, dst), **extra},
                    figures=tuple(replace(f, path=moved(f.path, src, dst)) for f in r.figures))
            for r in records]


def _unit_key(checks, case, ctx: CheckContext) -> str | None:
    """The store key of one unit's records (``None``: not stored): its checks, case and context,
    the figure folder only as whether there is one."""
    return stored_key("unit", checks, case, replace(ctx, figure_dir=None), ctx.figure_dir is not None)


def _run_groups(ex, steps, ctx, progress, store: ResultStore | None) -> tuple[list[CheckRecord], list[str]]:
    """The records of ``steps`` in plan order, and the labels of the units read from ``store``:
    the units (:func:`_groups`) found there are read, the others run (in-process one check after
    another, or as fan-out units on a cluster), each stored as it finishes (a run stopped halfway
    keeps the units it finished)."""
    groups = _groups(steps)
    here = "" if ctx.figure_dir is None else str(ctx.figure_dir)
    keys = [None if store is None else _unit_key(checks, case, ctx) for checks, case in groups]
    parts: list = [None if k is None or store is None else store.get("unit", k) for k in keys]
    parts = [None if p is None else _relocated(p, _FIGURES, here, cached=True) for p in parts]
    read = [checks[0] if case is None else case.name for (checks, case), p in zip(groups, parts, strict=True)
            if p is not None]
    todo = [i for i, p in enumerate(parts) if p is None]
    done0 = sum(len(groups[i][0]) for i, p in enumerate(parts) if p is not None)

    def keep(i, records):
        k = keys[i]
        if store is not None and k is not None:
            store.put("unit", k, _relocated(records, here, _FIGURES) if here else records)

    if ex.backend == "inline" or not todo:
        done = done0
        for i in todo:
            checks, case = groups[i]
            parts[i] = []
            for cid in checks:
                if progress:
                    progress(f"{cid}: {case.name}" if case else cid, done, len(steps))
                parts[i].extend(_run_check(REGISTRY[cid], case, ctx))
                done += 1
            keep(i, parts[i])
    else:
        ran = _run_distributed(ex, [groups[i] for i in todo], len(steps), ctx, progress, done0,
                               lambda j, records: keep(todo[j], records))
        for i, recs in zip(todo, ran, strict=True):
            parts[i] = recs
    return [r for p in parts for r in p], read


def _planned(config: SuiteConfig, store: ResultStore | None) -> tuple[list, float]:
    """The steps of :func:`plan` and the token-steps deciding them drew, read from ``store`` when
    there (stored as check ids and case positions)."""
    k = None if store is None else stored_key("plan", config)
    got = None if k is None or store is None else store.get("plan", k)
    if got is not None:
        ids, tokens = got
        cases = config.cases
        return [(label, REGISTRY[cid], None if j is None else cases[j]) for label, cid, j in ids], tokens
    with count_token_steps() as planning:  # what deciding which checks apply draws, outside every check
        steps = plan(config)
    if k is not None and store is not None:
        index = {id(c): j for j, c in enumerate(config.cases)}
        store.put("plan", k, ([(label, c.id, None if case is None else index[id(case)]) for label, c, case in steps],
                              planning.token_steps))
    return steps, planning.token_steps


def _left_out(config: SuiteConfig, steps, store: ResultStore | None) -> tuple[list, list, float]:
    """``(skipped, applied, token-steps)``: the checks not run on each case with why
    (:func:`not_applicable` and :func:`left_out`), which ran (:func:`applied`), and what deciding
    it drew; read from ``store`` when there."""
    k = None if store is None else stored_key("left out", config)
    got = None if k is None or store is None else store.get("left out", k)
    if got is not None:
        return got
    with count_token_steps() as reasons:
        skipped = not_applicable(config) + left_out(config)
        per_case = applied(config, steps)
    out = (skipped, per_case, reasons.token_steps)
    if k is not None and store is not None:
        store.put("left out", k, out)
    return out


def run_suite(config: SuiteConfig, progress=None, figure_dir: Path | None = None,
              store: ResultStore | None = None) -> SuiteResult:
    """Run every check of ``config``; the records come in plan order.

    In-process (no executor, or ``--workers 1``) the checks run one after another and
    ``progress(label, done, total)`` is called before each step. On a cluster each
    model-independent check and each case (with all its checks) is one unit of the
    executor, a fan-out unit whose simulations spread their blocks of runs over every
    worker (docs/design.md section 8); ``progress`` is then called as a worker starts
    each check (relayed by dask events) and as each unit finishes. Either way
    ``progress`` is called once more at the end, and every record is the same (each
    check draws from its own seed identity). With ``figure_dir`` the records carry figure
    specs (``CheckRecord.figures``) whose paths are under ``figure_dir``; nothing is drawn
    here: ``verify.render.write_report`` (or ``render.figures.draw_records``) draws them.

    With ``store`` (:class:`verify.suite.ResultStore`, off by default: module doc of
    :mod:`verify.suite._store`) the plan, the reasons checks were left out and each unit's
    records are read from it when this code ran the same inputs before, and stored otherwise.
    A record read back carries ``details["cached"] = True`` and the cost of the run that computed
    it; ``summary["cache"]`` says where the store is, which units were read and, when the store's
    folder cannot be trusted (then it is not used), why (``"refused"``).
    """
    t0 = time.perf_counter()
    if figure_dir is not None:
        figure_dir.mkdir(parents=True, exist_ok=True)
    ctx = context(config, figure_dir)
    steps, planned = _planned(config, store)
    records, read = _run_groups(current_executor(), steps, ctx, progress, store)
    if progress:
        progress("done", len(steps), len(steps))
    # one path once: checks that share a simulation (sga.convergence, sga.filtering) name its figure each
    figures = tuple(dict.fromkeys(f for r in records for f in r.details.get("figures", [])))
    summary = summarize(records, builtin_apart(config))
    skipped, per_case, reasons = _left_out(config, steps, store)
    summary["applied"] = per_case
    costs = check_costs(records)
    summary["token_steps"] = sum(c["token_steps"] for c in costs) + planned + reasons
    summary["cpu_seconds"] = round(sum(c["cpu_seconds"] for c in costs), 3)
    if store is not None:
        summary["cache"] = {"dir": str(store.root), "units": len(_groups(steps)), "read": read}
        if store.refused is not None:
            summary["cache"]["refused"] = store.refused
    if any(c["model"].startswith("subspace") for c in per_case):
        # say it where the report and the command already list what was not run
        skipped = skipped + [{"check": "the checks of the other model", "case": c["case"],
                              "reason": f"({', '.join(c['other_model'])}): the case is {c['model']}; "
                                        f"run on it: {', '.join(c['run']) or 'none'}"}
                             for c in per_case if c["other_model"]]
    if skipped:
        summary["not_applicable"] = skipped
    return SuiteResult(config, tuple(records), time.perf_counter() - t0, summary, figures, claims(records))
