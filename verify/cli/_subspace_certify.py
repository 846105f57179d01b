"""``sigrec certify --prior 'onehot(k=2)'``: certified equilibria of the subspace flow.

Every equilibrium found numerically is certified in a box by the Krawczyk test with its
stability (:func:`theory.certify_subspace`); for ``k = 2`` the list is proved complete or not
by the circle and disk certificates (:func:`theory.subspace_completeness`). Point parameters
only (docs/subspace-certificates.md).
"""

from __future__ import annotations

from ...theory import certify_subspace, subspace_completeness
from ._output import emit_json
from ._subspace import model_doc, model_line, model_of


def refuse_flags(args, ranges) -> None:
    """One line for each flag the subspace route does not take."""
    if ranges:
        raise ValueError(f"ranges LO:HI (in --{ranges[0].replace('_', '-')}) are for scalar priors; with a "
                         f"k-dimensional law give point values")
    for flag in ("min_width", "figure", "scheduler", "time_to", "rho0"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is for scalar priors; with a k-dimensional law "
                             "`sigrec certify` certifies the equilibria of one model")
    if args.workers != 1:
        raise ValueError("--workers is for ranges of a scalar prior; a k-dimensional law is certified in-process")


def run(args, law) -> int:
    model = model_of(args, law)
    cert = certify_subspace(model, prec=args.prec)
    comp = subspace_completeness(cert, prec=args.prec)
    equilibria = []
    for b in cert.boxes:
        eq = {"r": [list(x) for x in b.bounds()], "start": list(b.start), "kind": b.label, "location": b.kind, "stability": b.status,
              "certified": b.certified}
        if b.kind == "sphere" and b.certified:
            eq["radial_sign"] = b.radial_sign
            eq["tangent_inertia"] = list(b.tangent_inertia)
            if b.tangent_eigenvalue is not None:
                eq["tangent_eigenvalue"] = list(b.as_dict()["tangent_eigenvalue"])
        elif b.certified:
            eq["hessian_inertia"] = list(b.tangent_inertia)
        if b.reason:
            eq["reason"] = b.reason
        equilibria.append(eq)
    doc = {"model": model_doc(model), "equilibria": equilibria, "certified": cert.certified,
           "complete": comp.complete, "completeness": comp.as_dict(), "prec": cert.prec,
           "notes": [n for n in cert.notes if not n.startswith("completeness is not certified")] + (
               [] if comp.complete else [f"completeness not proved: {comp.reason}"])}
    if args.json:
        emit_json(doc)
        return 0
    print(f"subspace equilibria: {model_line(model)}")
    n_cert = sum(1 for b in cert.boxes if b.certified)
    print(f"  {len(equilibria)} equilibria found numerically; {n_cert} certified, each in a box holding exactly "
          f"one with its stability ({cert.prec} bits)" + ("" if cert.certified else "; NOT all certified"))
    for b, eq in zip(cert.boxes, equilibria):
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
        print(f"  {eq['kind']:<16} {eq['location']:<9} {eq['stability']:<10} r = {box}{extra}")
        if "reason" in eq:
            print(f"      undecided: {eq['reason']}")
    if comp.complete:
        print("  the list is COMPLETE (certified: the circle and disk certificates count the same equilibria)")
    else:
        print(f"  the list is NOT proved complete: {comp.reason}")
    for n in doc["notes"]:
        if not n.startswith("completeness not proved"):
            print(f"  note: {n}")
    return 0
