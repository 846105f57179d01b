"""The text of ``sigrec certify``: the lines of a :class:`verify.studies.CertifyResult`, whatever it
certified (a scalar point, a k-dimensional law, several heads, a box of models).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table


@dataclass(frozen=True)
class Printout:
    """Lines to print: ``rich`` ones (markup, tables) through a console, else plain text."""

    lines: tuple
    rich: bool


def model_line(model) -> str:
    """One line naming a model's law and parameters."""
    return (f"law {model.law.spec} (k = {model.k}), theta={model.theta:g}, alpha={model.alpha:g}, "
            f"beta={model.beta:g}, sigma2={model.sigma2:g}")


def certify_text(result) -> Printout:
    """The text of ``result`` (a :class:`verify.studies.CertifyResult`)."""
    return _TEXT[result.kind](result)


_WORD = {"monotone": "[green]monotone[/]", "bistable": "[yellow]bistable[/]",
         "undecided": "[magenta]undecided[/]", "degenerate": "[red]degenerate[/]"}


def _point(result) -> Printout:
    cert, poles, out = result.certificate, result.poles, []
    out.append(f"{_WORD[cert.status]} ({'certified' if cert.certified else 'NOT certified'}; {cert.boxes} boxes at "
               f"{cert.prec} bits)")
    out.append(f"  certified sign of: {cert.sign_function}")
    for e in cert.equilibria:
        where = f"rho* = {e.lo:g} (exact)" if e.exact else f"rho* in [{e.lo:.12f}, {e.hi:.12f}]"
        out.append(f"  interior equilibrium {where}: {e.stability}")
    out.extend(f"  undecided on [{lo:.12g}, {hi:.12g}]" for lo, hi in cert.undecided)
    out.append(f"  F'(+1) = {poles['plus']['exponent_text']} ({poles['plus']['stability']}),  "
               f"F'(-1) = {poles['minus']['exponent_text']} ({poles['minus']['stability']})")
    out.extend(f"  note: {n}" for n in cert.notes)
    t = result.time
    if t is not None:
        limit = t["basin"]["limit"]
        toward = f"rho = {limit['lo']:g}" if limit["lo"] == limit["hi"] else f"[{limit['lo']:.12g}, {limit['hi']:.12g}]"
        out.append(f"  time rho0 = {t['rho0']:g} -> rho1 = {t['rho1']:g}: T in [{t['lo']:.12g}, {t['hi']:.12g}] "
                   f"(relative width {t['relative_width']:.2g}, {t['pieces']} pieces; the flow tends to {toward})")
    return Printout(tuple(out), True)


def _region(result) -> Printout:
    cert = result.certificate
    region, out = cert.region, list[object]()
    ranges = ", ".join(f"{k} in [{a:g}, {b:g}]" for k, (a, b) in region["ranges"].items())
    fixed = ", ".join(f"{k} = {v:g}" for k, v in region["fixed"].items())
    measure = ", ".join(f"{k} {s}" for k, s in region["scale"].items())
    out.append(f"region {ranges} ({fixed}, prior {region['prior']}); measure: {measure}")
    table = Table("status", "fraction", "boxes")
    for status in ("monotone", "bistable", "undecided"):
        n = sum(1 for b in cert.boxes if b.status == status)
        table.add_row(status, f"{cert.fractions[status]:.4%}", str(n))
    out.append(table)
    word = "certified" if cert.certified else "NOT certified (a proof failed its audit: a bug)"
    out.append(f"{cert.boxes_count} boxes, {cert.seconds:.2f} s, min width {region['min_width']:.3g}: {word}")
    if region["ranges"].get("theta", [1.0])[0] == 0:
        out.append("  theta = 0: the field vanishes there; each box's claim starting at theta = 0 is for theta > 0")
    if cert.fractions["undecided"]:
        out.append("  undecided: boxes down to the min width where no status holds on the whole box "
                   "(a phase boundary crosses them, or a root sits at a pole)")
    if result.figure is not None:
        out.append(f"  wrote {result.figure}")
    return Printout(tuple(out), True)


def _subspace(result) -> Printout:
    cert, doc = result.certificate, result.as_dict()
    equilibria, comp = doc["equilibria"], cert.completeness
    out = [f"subspace equilibria: {model_line(result.model)}"]
    n_cert = sum(1 for b in cert.boxes if b.certified)
    out.append(f"  {len(equilibria)} equilibria found numerically; {n_cert} certified, each in a box holding exactly "
               f"one with its stability ({cert.prec} bits)" + ("" if cert.certified else "; NOT all certified"))
    for b, eq in zip(cert.boxes, equilibria, strict=True):
        box = f"({', '.join(f'{x:+.12f}' for x in b.start)}) (numerical, no certified box)"
        if eq["r"]:
            mid = ", ".join(f"{(lo + hi) / 2:+.12f}" for lo, hi in eq["r"])
            box = f"({mid}) +- {max((hi - lo) / 2 for lo, hi in eq['r']):.0e}"
        extra = ""
        if "tangent_eigenvalue" in eq:
            lo, hi = eq["tangent_eigenvalue"]
            extra = f"  tangent eigenvalue in [{lo:.6g}, {hi:.6g}]"
        elif "tangent_inertia" in eq:
            extra = f"  tangent inertia (neg, pos) {tuple(eq['tangent_inertia'])}"
        elif "hessian_inertia" in eq:
            extra = f"  inertia of H (neg, pos) {tuple(eq['hessian_inertia'])}"
        if "radial_sign" in eq:
            extra += f", radial {'-' if eq['radial_sign'] < 0 else '+'}"
        out.append(f"  {eq['kind']:<19} {eq['location']:<9} {eq['stability']:<10} r = {box}{extra}")
        if "reason" in eq:
            out.append(f"      undecided: {eq['reason']}")
    if comp.complete:
        out.append("  the list is COMPLETE (certified: the circle and disk certificates count the same equilibria)")
    else:
        out.append(f"  the list is NOT proved complete: {comp.reason}")
    out.extend(f"  note: {n}" for n in doc["notes"] if not n.startswith("completeness not proved"))
    return Printout(tuple(out), False)


def _matrix(values, shape) -> str:
    k, n = shape
    rows = ("[" + ", ".join(f"{values[i * n + h]:+.10f}" for h in range(n)) + "]" for i in range(k))
    return "[" + ", ".join(rows) + "]"


def _heads(result) -> Printout:
    cert, model = result.certificate, result.model
    doc = cert.as_dict()
    out = [f"heads equilibria: {model_line(model)}, H = {model.heads}"]
    n_cert = sum(1 for b in cert.boxes if b.certified)
    out.append(f"  {len(cert.boxes)} equilibria found numerically from random starts; {n_cert} certified, each in a "
               f"box holding exactly one with its feasibility and stability ({cert.prec} bits, {cert.seconds:.1f} s)"
               + ("" if cert.certified else "; NOT all certified"))
    for b, eq in zip(cert.boxes, doc["boxes"], strict=True):
        if eq["box"]:
            mid = [(lo + hi) / 2 for lo, hi in eq["box"]]
            where = f"M = {_matrix(mid, b.shape)} +- {max(float(x.rad()) for x in b.box):.0e}"
        else:
            where = f"M = {_matrix(list(b.start), b.shape)} (numerical, no certified box)"
        out.append(f"  {b.status:<10} {b.kind or '-':<17} {where}")
        if b.eigenvalues:
            re = [e["real"] for e in eq["eigenvalues"]]
            angles = ", ".join(f"{(lo + hi) / 2:.6f}" for lo, hi in eq["angles"])
            out.append(f"      Re(eigenvalues) in [{min(r[0] for r in re):.6g}, {max(r[1] for r in re):.6g}], "
                       f"inertia (neg, pos) {tuple(b.inertia) if b.inertia else None}; {b.feasibility} "
                       f"(unit singular values: {b.unit_singular_values}); principal angles ({angles})")
        if b.reason:
            out.append(f"      undecided: {b.reason}")
    out.append("  the list is NOT proved complete: it holds the equilibria found from the starts")
    out.extend(f"  note: {n}" for n in doc["notes"] if not n.startswith("completeness is not certified"))
    return Printout(tuple(out), False)


_TEXT = {"point": _point, "region": _region, "subspace": _subspace, "heads": _heads}
