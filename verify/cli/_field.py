"""``sigrec field``: the limit objective, slope, field and nuisance mass at given alignments.

One call of :func:`theory.evaluate`: ``--rho`` gives alignments to the scalar engine (one query on
one signal direction); ``--r`` gives overlap vectors (``--r 0.6,0.3 0.1,0.2``) to the subspace engine,
the objective ``j(r)``, its gradient ``g`` and the flow ``g - <r, g> r`` for any law (with a scalar
prior ``--r x`` is that engine at ``k = 1``, ``r = rho``). With ``--heads H`` the ``H`` vectors of
``--r`` are the columns of one frame ``M = U^T Q`` (``k x H``): the summed objective, the reduced
flow ``dM/dt = Gamma - M sym(M^T Gamma)`` (:func:`theory.heads_flow`) and the principal angles.
"""

from __future__ import annotations

import numpy as np
from rich.console import Console
from rich.table import Table

from ...theory import evaluate, heads_flow, heads_objective, principal_angles
from ._args import add_json_flag, add_model_arguments, finite_float, model_from_args
from ._output import emit_json
from ._subspace import add_heads_argument, check_overlaps, model_line, overlap_vector


def register(sub) -> None:
    p = sub.add_parser(
        "field",
        help="evaluate j(rho), j'(rho), F(rho) and the nuisance mass",
        description="Evaluate the limit objective j, its slope j', the alignment field "
        "F = (1 - rho^2) j' and the limit nuisance attention mass at the given alignments (--rho). "
        "With a k-dimensional law (--prior 'onehot(k=2)') give overlap vectors r = U^T q instead "
        "(--r 0.6,0.3 0.1,0.2): the objective j(r), its gradient g and the flow g - <r, g> r. With --heads H "
        "the H vectors of --r are the columns m_h of one frame M = U^T Q: the summed objective, the reduced "
        "flow dM/dt and the principal angles between span Q and the signal span.",
    )
    add_model_arguments(p)
    p.add_argument("--rho", type=finite_float, nargs="+", default=None, help="alignments in [-1, 1] (scalar prior)")
    p.add_argument("--r", type=overlap_vector, nargs="+", default=None, metavar="R1,..,Rk",
                   help="overlap vectors r = U^T q, comma-separated, one per point, |r| <= 1 (k entries for a "
                   "k-dimensional law; with a scalar prior one entry: the subspace route at k = 1)")
    add_heads_argument(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    if (args.rho is None) == (args.r is None):
        raise ValueError("give the points as `rho` (alignments, scalar prior) or `r` (overlap vectors), "
                         "one of the two")
    model = model_from_args(args)
    if model.heads > 1:
        return _print_heads(args, model)
    if args.r is not None:
        rs = [check_overlaps("r", r, model.k)[:, 0] for r in args.r]
        return _print_overlaps(args, model, evaluate(model, rs, engine="subspace"))
    if model.k > 1:
        raise ValueError(f"`rho` is the scalar alignment; with the {model.k}-dimensional law {model.law} give "
                         "overlap vectors `r` (--r 0.6,0.3 ...)")
    bad = [r for r in args.rho if not -1.0 <= r <= 1.0]
    if bad:
        raise ValueError(f"`rho` must lie in [-1, 1], got {bad[0]!r}")
    vals = evaluate(model, args.rho, engine="scalar")
    points = [
        {
            "rho": float(vals.rho[i]),
            "objective": float(vals.objective[i]),
            "slope": float(vals.slope[i]),
            "field": float(vals.field[i]),
            "noise_mass": float(vals.noise_mass[i]),
        }
        for i in range(len(args.rho))
    ]
    if args.json:
        emit_json({"model": model.as_dict(), "points": points})
        return 0
    t = Table(title=f"limit field, {model.prior} prior, theta={model.theta:g}, alpha={model.alpha:g}"
              + (" (sparse regime: rescaled by 1/alpha)" if model.sparse else "")
              + f", beta={model.beta:g}, sigma2={model.sigma2:g}")
    for col in ("rho", "objective j", "slope j'", "field F", "nuisance mass"):
        t.add_column(col, justify="right")
    for pt in points:
        t.add_row(*(f"{pt[k]:.8g}" for k in ("rho", "objective", "slope", "field", "noise_mass")))
    Console().print(t)
    return 0


def _print_overlaps(args, model, v) -> int:
    """The subspace engine's values at the overlap vectors."""
    points = [{"r": r.tolist(), "objective": float(j), "gradient": g.tolist(), "field": f.tolist()}
              for r, j, g, f in zip(v.r, v.objective, v.gradient, v.flow, strict=True)]
    if args.json:
        emit_json({"model": model.as_dict(), "points": points})
        return 0
    print(f"subspace limit field: {model_line(model)}")
    print("  r = U^T q; j(r); g = grad_r j; flow dr/dt = g - <r, g> r")
    for pt in points:
        print(f"  r = {_vec(pt['r'])}  |r| = {sum(x * x for x in pt['r']) ** 0.5:.6f}  j = {pt['objective']:.10g}")
        print(f"      g = {_vec(pt['gradient'])}  dr/dt = {_vec(pt['field'])}")
    return 0


def _vec(x) -> str:
    return "(" + ", ".join(f"{v:.8g}" for v in x) + ")"


def _print_heads(args, model) -> int:
    """The reduced flow of ``H`` heads at the frame whose columns are the vectors of ``--r``."""
    if args.r is None or len(args.r) != model.heads:
        raise ValueError(f"with --heads {model.heads} give the frame M = U^T Q as its {model.heads} columns m_h "
                         f"in `r` (--r, {model.heads} vectors of k = {model.k} entries)")
    M = np.column_stack([check_overlaps("r", r, model.k)[:, 0] for r in args.r])
    flow = heads_flow(model, M)
    doc = {"model": model.as_dict(), "M": M.tolist(), "objective": heads_objective(model, M), "flow": flow.tolist(),
           "principal_angles": principal_angles(M).tolist()}
    if args.json:
        emit_json(doc)
        return 0
    print(f"heads' reduced flow: {model_line(model)}, H = {model.heads}")
    print("  M = U^T Q (columns m_h); J = sum_h j(m_h); dM/dt = Gamma - M sym(M^T Gamma)")
    for h in range(model.heads):
        print(f"  m_{h + 1} = {_vec(M[:, h])}  dm_{h + 1}/dt = {_vec(flow[:, h])}")
    print(f"  J = {doc['objective']:.10g}; principal angles {_vec(doc['principal_angles'])}")
    return 0
