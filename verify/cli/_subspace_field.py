"""``sigrec field --r ...``: the subspace limit at overlap vectors (docs/subspace.md section 1).

At each ``r = U^T q`` (``|r| <= 1``): the objective ``j(r)``, its Euclidean gradient ``g`` in ``r``
and the projected flow ``dr/dt = g - <r, g> r`` (:func:`theory.evaluate_subspace`). With a scalar
prior (``k = 1``) ``r`` is the alignment ``rho``, ``g = j'`` and the flow is ``(1 - rho^2) j'``.
"""

from __future__ import annotations

from ...theory import evaluate_subspace
from ._output import emit_json
from ._subspace import check_overlaps, model_doc, model_line, model_of


def run(args, law) -> int:
    model = model_of(args, law)
    rs = [check_overlaps("r", r, model.k)[:, 0] for r in args.r]
    points = []
    for r in rs:
        v = evaluate_subspace(model, r)
        points.append({"r": v.r.tolist(), "objective": v.objective, "gradient": v.gradient.tolist(),
                       "field": v.flow.tolist()})
    if args.json:
        emit_json({"model": model_doc(model), "points": points})
        return 0
    print(f"subspace limit field: {model_line(model)}")
    print("  r = U^T q; j(r); g = grad_r j; flow dr/dt = g - <r, g> r")
    for pt in points:
        print(f"  r = {_vec(pt['r'])}  |r| = {sum(x * x for x in pt['r']) ** 0.5:.6f}  j = {pt['objective']:.10g}")
        print(f"      g = {_vec(pt['gradient'])}  dr/dt = {_vec(pt['field'])}")
    return 0


def _vec(x) -> str:
    return "(" + ", ".join(f"{v:.8g}" for v in x) + ")"
