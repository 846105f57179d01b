"""The text of ``sigrec validate``: the pass table, the worst cases and the failures, in
Markdown, from the JSON document of the run (``Validation.as_dict()``). Formats only."""

from __future__ import annotations


def _cell(rate: dict) -> str:
    if not rate or not rate["judged"]:
        return "—"
    return f"{rate['passed']}/{rate['judged']} ({rate['rate']:.0%})"


def _row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "/").replace("\n", " ") for c in cells) + " |"


def _fmt(x) -> str:
    return "—" if x is None or x != x else f"{x:.4g}"


#: the order of the pass table's routes and what each row means
ROUTE_NAMES = {"expansion": "expansion", "measured": "measured",
               "auto": "auto (the default: expansion inside, measured outside)"}


def _region_order(name: str) -> tuple:
    return (not name.startswith("inside"), not name.startswith("outside"), name)


def pass_table(doc: dict) -> str:
    """Pass rate per route and region (rows) and quantity (columns): every route on all models,
    inside/outside the stated validity, beta below/above the split; then the n/a and error counts."""
    s = doc["summary"]
    quantities = list(s["quantities"])
    head = ["route", "region", *quantities]
    lines = [_row(head), "|" + "---|" * len(head),
             _row(["", "rel. tol", *(f"{doc['tolerances'][q]['relative']:.0%}" for q in quantities)])]
    for route in (r for r in ROUTE_NAMES if r in s.get("routes", {})):
        tally = s["routes"][route]
        lines.append(_row([ROUTE_NAMES[route], "all", *(_cell(tally["all"][q]) for q in quantities)]))
        for region in sorted(tally["regions"], key=_region_order):
            lines.append(_row(["", region, *(_cell(tally["regions"][region][q]) for q in quantities)]))
    lines.append(_row(["", "n/a (all routes)", *(s["quantities"][q]["n/a"] for q in quantities)]))
    lines.append(_row(["", "errors", *(s["quantities"][q].get("errors", 0) for q in quantities)]))
    return "\n".join(lines)


def _case_rows(cases: list[dict]) -> list[str]:
    head = ["model", "quantity", "route", "rho / step", "prior", "theta", "R / L", "d", "beta", "sigma2", "B", "eta",
            "validity", "theory", "MC ± SE", "theory/MC", "excess"]
    lines = [_row(head), "|" + "---|" * len(head)]
    for c in cases:
        p = c["problem"]
        at = _fmt(c["rho"]) if c["rho"] is not None else (f"k = {c['step']}" if c.get("step") is not None else "—")
        lines.append(_row([c["model"], c["quantity"], c.get("route", "expansion"), at, p["prior"],
                           f"{p['theta']:.3g}",
                           f"{p['R']} / {p['L']}", p["d"], f"{p['beta']:.3g}", f"{p['sigma2']:.3g}", p["batch"],
                           f"{c['eta']:.3g}", "inside" if c["inside"] else "outside", _fmt(c["theory"]),
                           f"{_fmt(c['mc'])} ± {_fmt(c['se'])}", _fmt(c["ratio"]), f"{c['excess']:.2f}"]))
    return lines


def _listed(tally: dict[str, dict[str, int]], status: str) -> str:
    """The quantities of a model with comparisons of ``status``, each with its count (``"none"``)."""
    return ", ".join(f"{q} {n}" for q, n in tally.get(status, {}).items()) or "none"


def model_rows(doc: dict) -> list[str]:
    """One row per model: its parameters, its region, and the quantities that failed (count of points)."""
    head = ["model", "prior", "theta", "R / L", "d", "beta", "sigma2", "B", "eta", "A2/L", "eta^2 E/P g/^2", "d/L",
            "validity", "failed", "n/a", "errors"]
    lines = [_row(head), "|" + "---|" * len(head)]
    for rec in doc["models"]:
        p, reg = rec["problem"], rec["region"]
        tally: dict[str, dict[str, int]] = {}  # status -> quantity -> points
        for c in rec["comparisons"]:
            key = c["quantity"] if c.get("route", "expansion") == "expansion" else f"{c['quantity']} [{c['route']}]"
            tally.setdefault(c["status"], {}).setdefault(key, 0)
            tally[c["status"]][key] += 1
        lines.append(_row([rec["index"], p["prior"], f"{p['theta']:.3g}", f"{p['R']} / {p['L']}", p["d"],
                           f"{p['beta']:.3g}", f"{p['sigma2']:.3g}", p["batch"], f"{rec['eta']:.3g}",
                           f"{reg['concentration']:.3g}", f"{reg['step']:.3g}",
                           f"{reg.get('dimension', p['d'] / p['L']):.3g}",
                           "inside" if reg["inside"] else "outside", _listed(tally, "fail"), _listed(tally, "n/a"),
                           _listed(tally, "error")]))
    return lines


def validate_markdown(doc: dict) -> str:
    """``validate.md``: the run's parameters, the pass table, the worst cases, every failure."""
    s, p = doc["summary"], doc["profile"]
    out = [f"# sigrec validate\n\nSeed {doc['seed']}, profile `{p['name']}`, {s['models']} models "
           f"({s['inside']} inside the stated validity); one-step samples {p['one_step_runs']} at rho = "
           f"{', '.join(f'{r:g}' for r in p['moment_rhos'])} "
           f"(E|P g|^2 at {', '.join(f'{r:g}' for r in p['drag_rhos'])}); "
           f"plateau {p['plateau_runs']} runs, burn-in {p['burn']:g} and window {p['window']:g} relaxation times "
           f"(at most {p['max_steps']} steps); decaying-step chain {p['trajectory_runs']} runs of at most "
           f"{p['trajectory_steps']} steps against {p['prediction_runs']} diffusion paths; splitting "
           f"{p['split_runs']} runs of at most {p['split_steps']} steps; at most {p['max_draws']:.3g} normals per "
           f"chain. Routes: {', '.join(p.get('routes', ['expansion']))} (the measured law's drift error "
           f"{'its default' if p.get('law_drift_se') is None else format(p['law_drift_se'], 'g')}). "
           f"Pass: |theory - MC| <= {doc['sigmas']:g} SE + tol |theory|.\n",
           pass_table(doc), "\n## Worst cases (largest |theory - MC| / allowed)\n", *_case_rows(s["worst"]),
           f"\n## Failures ({len(s['failures'])})\n"]
    out += _case_rows(s["failures"]) if s["failures"] else ["none"]
    out += [f"\n## Every model ({len(doc['models'])})\n", *model_rows(doc)]
    if s.get("errors"):
        out.append(f"\n## Errors ({len(s['errors'])})\n")
        out += [f"- model {e['model']}, {e['quantity']} ({e.get('route', 'expansion')}): {e['error']}"
                for e in s["errors"]]
    if s["not_applicable"]:
        out.append(f"\n## Not applicable ({len(s['not_applicable'])})\n")
        out += [f"- model {n['model']}, {n['quantity']} ({n.get('route', 'expansion')}): {n['reason']}"
                for n in s["not_applicable"]]
    return "\n".join(out) + "\n"
