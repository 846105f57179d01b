"""The text ``field``, ``predict``, ``simulate``, ``complexity`` and ``limit`` print: the records of
``verify.studies`` (``FieldPoints``, ``ScalarPrediction`` / ``SubspacePrediction``, ``SimulationRun``,
``ComplexityStudy``, ``LimitStudy``) as lines (a ``rich`` table for the scalar field)."""

from __future__ import annotations

from rich.table import Table

from ._certify_text import model_line


def _vec(x, fmt: str = ".8g") -> str:
    return "(" + ", ".join(f"{float(v):{fmt}}" for v in x) + ")"


def _matrix(M, fmt: str = "+.6f") -> str:
    return "[" + "; ".join(_vec(row, fmt) for row in M) + "]"


def _heads(H: int) -> str:
    return f"{H} head{'s' if H > 1 else ''}"


def route_text(routed, median_range, what: str) -> str:
    """One line saying which law fed the diffusion, why, and (measured) its Monte Carlo error and
    the range of ``what`` over the law's bootstrap replicates (:class:`sigrec.numerics.RoutedTables`)."""
    head = f"route: {routed.route} ({routed.reason})"
    law = routed.law
    if law is None:
        return head
    steps = f"eta = {law.eta:.4g}" + ("" if law.low is None else f" and {law.low.eta:.4g}")
    text = (f"{head}\n  measured one-step law at {steps}: {law.grid.size} alignments, {int(law.runs.sum()):,} "
            f"draws of the exact step, drift standard error <= {float(law.drift_se.max()):.3g}")
    if law.status != "ok":
        text += f" ({law.status}: {law.reason})"
    if median_range is not None:
        text += (f"\n  {what} from bootstrap replicates of the law, on the same paths: {median_range[0]:.4g} to "
                 f"{median_range[1]:.4g} (the law's Monte Carlo uncertainty)")
    return text


def field_text(res) -> Table | str:
    """A table of the scalar field, or the lines of the subspace field or of the heads' flow."""
    model = res.model
    if res.engine == "scalar":
        t = Table(title=f"limit field, {model.prior} prior, theta={model.theta:g}, alpha={model.alpha:g}"
                  + (" (sparse regime: rescaled by 1/alpha)" if model.sparse else "")
                  + f", beta={model.beta:g}, sigma2={model.sigma2:g}")
        for col in ("rho", "objective j", "slope j'", "field F", "nuisance mass"):
            t.add_column(col, justify="right")
        for pt in res.points():
            t.add_row(*(f"{pt[k]:.8g}" for k in ("rho", "objective", "slope", "field", "noise_mass")))
        return t
    if res.engine == "subspace":
        lines = [f"subspace limit field: {model_line(model)}",
                 "  r = U^T q; j(r); g = grad_r j; flow dr/dt = g - <r, g> r"]
        for pt in res.points():
            lines.append(f"  r = {_vec(pt['r'])}  |r| = {sum(x * x for x in pt['r']) ** 0.5:.6f}  "
                         f"j = {pt['objective']:.10g}")
            lines.append(f"      g = {_vec(pt['gradient'])}  dr/dt = {_vec(pt['field'])}")
        return "\n".join(lines)
    v = res.values
    lines = [f"heads' reduced flow: {model_line(model)}, H = {model.heads}",
             "  M = U^T Q (columns m_h); J = sum_h j(m_h); dM/dt = Gamma - M sym(M^T Gamma)"]
    for h in range(model.heads):
        m, dm = _vec(row[h] for row in v["M"]), _vec(row[h] for row in v["flow"])
        lines.append(f"  m_{h + 1} = {m}  dm_{h + 1}/dt = {dm}")
    lines.append(f"  J = {v['objective']:.10g}; principal angles {_vec(v['principal_angles'])}")
    return "\n".join(lines)


def prediction_text(res) -> str:
    """The table of the scalar prediction (ODEs and band), or of the overlaps' limit ODE."""
    if hasattr(res, "band"):
        problem, pred, bd = res.problem, res.pred, res.band
        lines = [f"theta={problem.theta} R={problem.R} L={problem.L} d={problem.d} beta={problem.beta} "
                 f"sigma2={problem.sigma2} prior={problem.prior} batch={problem.batch}; schedule "
                 f"{res.schedule.as_dict()}",
                 f"{'step':>8} {'t_k':>10} {'rho_plain':>10} {'rho_corrected':>14} {'q10':>9} {'median':>9} "
                 f"{'q90':>9}"]
        rows = zip(pred.step, pred.time, pred.rho_plain, pred.rho_corrected, bd.q10, bd.q50, bd.q90, strict=True)
        lines += [f"{int(k):>8} {t:>10.4f} {a:>10.6f} {b:>14.6f} {lo:>9.5f} {me:>9.5f} {hi:>9.5f}"
                  for k, t, a, b, lo, me, hi in rows]
        lines += [f"(q10/median/q90: {bd.runs} diffusion paths, {bd.method})",
                  route_text(res.routed, bd.median_range, "last-step median"), f"validity: {pred.validity.message}"]
        return "\n".join(lines)
    pred, H, limit, eq = res.pred, res.problem.heads, res.limit, res.equilibrium
    path = pred.path
    name = "r = U^T q" if H == 1 else "M = U^T Q (rows: directions xi_j; columns: heads)"
    lines = [f"limit ODE of the overlaps, {_heads(H)}: {model_line(res.problem.model)}; schedule "
             f"{res.schedule.as_dict()}", f"{'step':>8} {'t_k':>10}  {name}"]
    for i, (k, t, M) in enumerate(zip(pred.step, pred.time, path.M, strict=True)):
        text = _vec(M[:, 0], "+.6f") if H == 1 else _matrix(M) + "  angles " + _vec(res.angles[i], "+.6f")
        lines.append(f"{int(k):>8} {t:>10.4f}  {text}")
    end = _vec(path.M_limit[:, 0], "+.6f") if H == 1 else _matrix(path.M_limit)
    lines.append(f"long-time limit (t <= {path.t_limit:g}): {end}, |dM/dt| = {path.speed:.2g}"
                 + ("" if pred.settled else " -- NOT settled"))
    if "not_certified" in limit:
        lines.append(f"  no certified equilibrium: {limit['not_certified']}")
    if eq is not None and H == 1:
        word = "certified" if eq["certified"] else "NOT certified"
        radius = max((hi - lo) / 2 for lo, hi in eq["r"]) if eq["r"] else float("nan")
        lines.append(f"  equilibrium: {eq['kind']} ({eq['location']}), {eq['stability']} ({word}: a box of radius "
                     f"<= {radius:.0e} holding exactly one, at distance {eq['distance']:.1e} from the end of the flow)")
    elif eq is not None:
        lines.append(f"  equilibrium: {eq['stability']} (numerical: largest eigenvalue "
                     f"{eq['largest_eigenvalue']:.4g}), principal angles {_vec(eq['principal_angles'], '+.6f')}, "
                     f"objective {eq['objective']:.6g}")
    lines.append(f"note: {pred.note}")
    return "\n".join(lines)


def simulation_text(run, saved: str | None = None) -> str:
    """The final alignments (scalar engine) or overlaps and principal angles of a simulation."""
    sim, doc = run.sim, run.as_dict(saved)
    problem, schedule = sim.problem, sim.schedule
    size = f"{sim.runs} runs x {sim.steps} steps, d={problem.d}, R={problem.R}, L={problem.L}, seed={run.seed}, " \
           f"{sim.wall_s:.3g} s"
    if sim.engine == "scalar":
        lines = [f"{sim.simulator} simulator: {size}",
                 f"schedule {schedule.as_dict()}: {doc['schedule']['robbins_monro']['reason']}",
                 f"final rho: mean |rho| = {doc['mean_abs_final_rho']:.6f}, "
                 f"fraction |rho| >= 0.99: {doc['fraction_aligned_0.99']:.3f}",
                 "final rho per run: " + " ".join(f"{r:+.4f}" for r in sim.final_rho)]
        if saved:
            lines.append(f"trajectories written to {saved}")
        return "\n".join(lines)
    H = sim.heads
    lines = [f"{sim.simulator} subspace simulator, {_heads(H)}: {size}",
             f"  {model_line(problem.model)}; schedule {schedule.as_dict()}, "
             f"t_final = {doc['schedule']['t_final']:.6g}"]
    if H == 1:
        lines.append(f"  final overlaps r = U^T q (mean |r| = {doc['mean_final_norm']:.6f}):")
        lines += ["    " + _vec(r, "+.4f") for r in doc["final_r"]]
    else:
        lines.append("  mean final principal angles between span Q and span U (radians): "
                     + ", ".join(f"{a:.4f}" for a in doc["mean_final_principal_angles"]))
        for M, a in zip(doc["final_M"], doc["final_principal_angles"], strict=True):
            rows = "; ".join(", ".join(f"{x:+.4f}" for x in row) for row in M)
            lines.append(f"    M = [{rows}]  angles ({', '.join(f'{x:.4f}' for x in a)})")
    if saved:
        lines.append(f"  trajectories written to {saved}")
    return "\n".join(lines)


def _fmt(x) -> str:
    return "inf" if x is None else f"{x:.0f}"


def complexity_text(res) -> str:
    """The table of the given (and optimized) schedule's passage steps, the certified crossing,
    the search's verdict, the exponents, the route, the validity and the wall time."""
    problem, request, search, doc = res.problem, res.request, res.search, res.as_dict()
    rho0 = request.rho0
    lines = [f"theta={problem.theta} R={problem.R} L={problem.L} d={problem.d} batch={problem.batch} "
             f"prior={problem.prior}; start {doc['starts']}{'' if rho0 is None else f' rho0={rho0}'}; "
             f"target |rho| >= {request.target}",
             f"{'schedule':>10} {'eta0':>9} {'k0':>8} {'power':>6} {'median':>9} {'q10':>9} {'q90':>9} "
             f"{'plain ODE':>10} {'plateau':>8}"]
    rows = [("given", res.given.as_dict())] + ([("optimized", search.best.as_dict())] if search is not None else [])
    for name, r in rows:
        s = r["schedule"]
        lines.append(f"{name:>10} {s['eta0']:>9.4g} {s['k0']:>8.4g} {s['power']:>6.3g} {_fmt(r['median_steps']):>9} "
                     f"{_fmt(r['q10_steps']):>9} {_fmt(r['q90_steps']):>9} {_fmt(r['plain_ode_steps']):>10} "
                     f"{r['plateau']:>8.4f}")
    lines += [f"plateau ({name}): {r['plateau_note']}" for name, r in rows]
    cert = doc["certified_ode_steps"]
    if cert["status"] == "ok":
        lines.append(f"plain limit ODE from rho0 = {rho0:g}, certified (ball arithmetic): the ODE time "
                     f"T in [{cert['time_lo']:.10g}, {cert['time_hi']:.10g}] is crossed at step k in "
                     f"[{cert['k_lo']}, {cert['k_hi']}] of the {'given' if search is None else 'optimized'} schedule")
    if search is not None:
        verdict = ("better than the given schedule" if search.improved else
                   "not better than the given schedule, which is kept")
        lines.append(f"search: {search.candidates} candidates on {search.runs} common paths (grid, then Nelder-Mead); "
                     f"the winner's q90 {_fmt(search.winner.as_dict()['q90_steps'])} against the given "
                     f"{_fmt(res.given.as_dict()['q90_steps'])} on the same {search.final_runs} paths: {verdict}")
    for key, s in doc.get("scaling", {}).items():
        pairs = ", ".join(f"{v}: {_fmt(m)}" for v, m in zip(s["values"], s["median_steps"], strict=True))
        lines.append(f"median steps vs {key}: {pairs}; exponent {s['exponent']:.3f}")
    if res.routed is not None:
        lines.append(route_text(res.routed, res.given.median_range, "median passage step"))
    else:
        lines.append("route: expansion (the schedule search runs on the expansion's diffusion tables)")
    lines.append(f"validity: {res.given.validity.message}")
    if search is not None and search.improved:
        lines.append(f"validity of the optimized schedule: {search.best.validity.message}")
    lines.append(f"({doc['wall_s']:.1f} s" + ("; a given schedule's quantile beyond the horizon prints as 'inf')"
                                              if search is not None else ")"))
    return "\n".join(lines)


def limit_text(res, figure=None, drawn=None) -> str:
    """The distance at the model's size, the tokens needed with their ladder, and the figure drawn."""
    model, q, found, at = res.model, res.request, res.found, res.at
    what = "the limit field" if q.eta is None else f"the O(eta) expansion at eta = {q.eta:g}"
    lines = [f"limit: theta={model.theta:g} alpha={model.alpha:g} beta={model.beta:g} sigma2={model.sigma2:g} "
             f"prior={model.law} d={q.d}; {what}", f"  {res.evidence}"]
    if at is not None:
        lines.append(f"  distance at L = {at.problem.L} (R = {at.problem.R}): {at.distance:.4f} ± "
                     f"{at.distance_se:.4f} of max|F| (largest at rho = {at.at_rho:g})")
        if at.expansion is not None:
            lines.append(f"  expansion's error there: {at.expansion:.4f} ± {at.expansion_se:.4f} "
                         f"(largest at rho = {at.expansion_at_rho:g})")
        if at.status != "ok":
            lines.append(f"    {at.status}: {at.reason}")
    lines.append(f"  tokens needed for tol = {found.tol:g}: L = {found.L} (R = {found.R}), {found.status}"
                 + (f": {found.reason}" if found.reason else ""))
    key = "distance" if found.eta is None else "expansion"
    lines.append(f"  {'L':>7} {'R':>6} {key:>10} {'se':>8}  below  stage")
    for row in found.ladder:
        lines.append(f"  {row['L']:>7} {row['R']:>6} {row[key]:>10.4f} {row[key + '_se']:>8.4f}  "
                     f"{'yes' if row['below'] else 'no':>5}  {row['stage']}"
                     f"{'' if row['status'] == 'ok' else ' (limited)'}")
    if figure is not None:
        lines.append(f"  wrote {figure} ({drawn['cells']} cells)")
    return "\n".join(lines)
