"""What a suite run costs with and without sequential stopping (``sigrec bench --preset-cost``).

The same configuration runs twice in this process, in-process (no cluster, so that this
process's CPU clock sees every computation): first with the fixed designs (``sequential=False``,
"before"), then with the checks stopping once their verdict is decided (``sequential=True``,
"after"). The cost of each check run is what :func:`verify.suite.run_suite` records:
``details["cpu_seconds"]`` and ``details["token_steps"]`` (:func:`numerics.count_token_steps`).

So that neither run reuses the other's work, every cache of ``sigrec``'s modules (the simulations,
measured laws and certificates the checks keep per process) is emptied before each; the costs paid
once per process whatever runs (imports, loading the compiled kernels, the generated code of the
derivation) are paid before the first, by planning the run and a few tiny draws of each sampler,
so that they fall on neither.
"""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import replace

import numpy as np

from ...numerics import Problem, Schedule, executor, measured_law, simulate
from ._runner import check_costs, plan, run_suite

#: the two runs compared, in the order they run: (name, ``SuiteConfig.sequential``)
RUNS = (("before", False), ("after", True))


def clear_caches() -> int:
    """Empty every ``functools`` cache of the loaded ``sigrec`` modules, and sympy's cache; how many
    of sigrec's were emptied."""
    emptied = 0
    for name, module in list(sys.modules.items()):
        if not (name == "sigrec" or name.startswith("sigrec.")) or module is None:
            continue
        for obj in list(vars(module).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear) and getattr(obj, "__module__", None) == name:
                clear()
                emptied += 1
    sympy = sys.modules.get("sympy")
    if sympy is not None:  # its own cache of expressions, which the derivations fill
        sympy.core.cache.clear_cache()
    gc.collect()
    return emptied


def _warm_up(config) -> None:
    """The once-per-process costs (module docstring): the plan, and one tiny draw of each sampler."""
    plan(config)
    for d in (2, 3):
        p = Problem(theta=1.0, R=2, L=8, d=d)
        simulate(p, Schedule.constant(0.1), steps=1, runs=1, seed=0)
        measured_law(p, 0.1, grid=np.array([-0.5, 0.5]), runs=500, seed=0)
    simulate(Problem(theta=1.0, R=2, L=8, d=8, prior="onehot(k=2)").with_heads(2), Schedule.constant(0.1), steps=1,
             runs=1, seed=0)


def _measure(config, progress) -> dict:
    """One run of ``config`` from empty caches: its result, CPU seconds and wall seconds."""
    clear_caches()
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = run_suite(config, progress=progress)
    return {"result": result, "cpu_seconds": time.process_time() - cpu0, "seconds": time.perf_counter() - wall0}


def _ratio(after: float, before: float) -> float | None:
    return after / before if before else None


def _per_check(before, after) -> list[dict]:
    """The check runs of both results side by side (matched by check and case, in the order of
    ``before``'s, then any only ``after`` has)."""
    b = {(c["check"], c["case"]): c for c in check_costs(before.records)}
    a = {(c["check"], c["case"]): c for c in check_costs(after.records)}
    rows = []
    for key in [*b, *(k for k in a if k not in b)]:
        cb, ca = b.get(key, {}), a.get(key, {})
        row = {"check": key[0], "case": key[1]}
        for what in ("cpu_seconds", "token_steps"):
            x, y = cb.get(what, 0.0), ca.get(what, 0.0)
            row.update({f"{what}_before": x, f"{what}_after": y, f"{what}_ratio": _ratio(y, x)})
        rows.append(row)
    return rows


def _differences(before, after) -> list[str]:
    """What differs between the two results' records (id, case, status) and claims (number,
    status): one line each, none when they agree."""
    def recs(res):
        return [(r.id, r.details.get("case"), r.status) for r in res.records]

    def verdicts(res):
        return [(c.number, c.status) for c in res.claims]

    out = []
    rb, ra = recs(before), recs(after)
    if [r[:2] for r in rb] != [r[:2] for r in ra]:
        out.append(f"the records differ: before {len(rb)} ({', '.join(f'{i}: {c}' for i, c, _ in rb)}), "
                   f"after {len(ra)} ({', '.join(f'{i}: {c}' for i, c, _ in ra)})")
    else:
        out += [f"record {i} on {c or 'built-in'}: {s} before, {t} after"
                for (i, c, s), (_, _, t) in zip(rb, ra, strict=True) if s != t]
    cb, ca = dict(verdicts(before)), dict(verdicts(after))
    out += [f"claim {n}: {cb.get(n, 'absent')} before, {ca.get(n, 'absent')} after"
            for n in sorted(set(cb) | set(ca)) if cb.get(n) != ca.get(n)]
    return out


def preset_cost(config, progress=None) -> dict:
    """The cost of ``config`` (a :class:`verify.suite.SuiteConfig`) before and after sequential
    stopping, measured in this process (module docstring).

    Parameters
    ----------
    config : SuiteConfig
        The run; its ``sequential`` is set to each of :data:`RUNS` in turn.
    progress : callable, optional
        ``progress(run, label, done, total)``, ``run`` being ``"before"`` or ``"after"``.

    Returns
    -------
    dict
        ``preset``, ``seed``, ``checks`` (per check run: ``check``, ``case`` and, for ``cpu_seconds``
        and ``token_steps``, ``*_before``, ``*_after`` and ``*_ratio``, after over before), ``totals``
        (the same over the run: the checks' CPU seconds, the process's CPU seconds of the whole
        run, its wall seconds and token-steps), ``identical`` (whether the records' ids, cases and
        statuses and the claims' verdicts agree) and ``differences`` (one line each where not).
    """
    with executor(workers=1) as ex:
        if ex.backend != "inline":
            raise ValueError("`--preset-cost` measures in this process, without a cluster: unset $SIGREC_SCHEDULER")
        _warm_up(config)
        done = {}
        for name, sequential in RUNS:
            tick = None if progress is None else (lambda label, i, n, run=name: progress(run, label, i, n))
            done[name] = _measure(replace(config, sequential=sequential), tick)
    clear_caches()
    before, after = done["before"]["result"], done["after"]["result"]
    totals = {}
    for what, of in (("cpu_seconds", lambda m: m["result"].summary["cpu_seconds"]),
                     ("process_cpu_seconds", lambda m: m["cpu_seconds"]), ("seconds", lambda m: m["seconds"]),
                     ("token_steps", lambda m: m["result"].summary["token_steps"])):
        x, y = of(done["before"]), of(done["after"])
        totals.update({f"{what}_before": x, f"{what}_after": y, f"{what}_ratio": _ratio(y, x)})
    diffs = _differences(before, after)
    return {"preset": config.preset.name, "seed": config.seed, "checks": _per_check(before, after),
            "totals": totals, "identical": not diffs, "differences": diffs}
