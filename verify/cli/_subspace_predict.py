"""``sigrec predict --prior 'onehot(k=2)' [--heads H]``: the limit ODE of the subspace model.

The reduced flow of the overlaps ``M = U^T Q`` (one head: ``dr/dt = g - <r, g> r``) from the start
``--r0`` on the recursion's time axis ``t_k = sum_{j<k} eta_j`` (:func:`numerics.subspace_path`),
then on to where it settles: one head, the equilibrium there certified with its stability
(:func:`theory.certify_equilibrium`); several heads, classified numerically
(:func:`theory.heads_equilibrium`; no interval certificate for heads yet). The finite-step
(diffusion) corrections of the scalar ``predict`` are derived only for ``k = 1``, one head.
"""

from __future__ import annotations

import numpy as np

from ...numerics import subspace_path
from ...theory import certify_equilibrium, heads_equilibrium, principal_angles
from ._guard import quiet_numerics, require_finite
from ._limits import check_prediction
from ._output import emit_json
from ._subspace import check_overlaps, model_doc, model_line, model_of, schedule_of

#: what the prediction leaves out, said in every output
NOTE = ("limit ODE only: the finite-step (diffusion) corrections and the band are derived only for k = 1 with "
        "one head (`sigrec predict` with a scalar prior)")


def run(args, law) -> int:
    if args.rho0 is not None:
        raise ValueError("`rho0` is the scalar start; with a k-dimensional law or heads give the start overlaps "
                         "`r0` (k x H numbers, row-major)")
    for flag in ("band_runs", "seed"):
        if getattr(args, flag) is not None:
            raise ValueError(f"--{flag.replace('_', '-')} is for the diffusion band of a scalar prior; "
                             "the subspace prediction is the limit ODE only")
    if args.r0 is None:
        raise ValueError("`r0` is required: the start overlaps U^T Q_0 (k x H numbers, row-major)")
    check_prediction(steps=args.steps, stride=args.stride)
    model = model_of(args, law, alpha=args.R / args.L)
    H = args.heads
    if args.d < model.k + H:
        raise ValueError(f"`d` must be >= k + H = {model.k + H} (H orthonormal heads and the signal), got {args.d}")
    M0 = check_overlaps("r0", args.r0, model.k, H)
    schedule = schedule_of(args)
    steps = np.unique(np.append(np.arange(0, args.steps, args.stride), args.steps))
    times = schedule.times(args.steps)[steps]
    with quiet_numerics():
        path = subspace_path(model, M0, times)
    require_finite("`eta0`, `k0`, `power` and the model flags", path.M, path.M_limit)
    settled = path.speed <= 1e-9
    limit = {"t_max": path.t_limit, "speed": path.speed, "settled": settled}
    if H == 1:
        r = path.M_limit[:, 0]
        limit["r"] = r.tolist()
        try:
            box = certify_equilibrium(model, r, prec=128) if settled else None
        except ValueError as exc:  # theta = 0 (every r an equilibrium), or the end is no equilibrium
            box, limit["not_certified"] = None, str(exc)
        if box is not None:
            limit["equilibrium"] = {"r": [list(x) for x in box.bounds()], "kind": box.label, "location": box.kind,
                                    "stability": box.status, "certified": box.certified,
                                    "distance": _distance(box, r)}
            if box.reason:
                limit["equilibrium"]["reason"] = box.reason
    else:
        limit["M"] = path.M_limit.tolist()
        limit["principal_angles"] = principal_angles(path.M_limit).tolist()
        if settled:
            eq = heads_equilibrium(model, path.M_limit)
            limit["equilibrium"] = {"M": eq.M.tolist(), "stability": "stable" if eq.stable else (
                "neutral" if eq.neutral else "unstable"), "certified": False,
                "largest_eigenvalue": float(eq.eigenvalues[0].real), "principal_angles": eq.angles.tolist(),
                "objective": eq.objective, "evidence": "numerical (Jacobian eigenvalues; no interval certificate "
                "for heads)"}
    out = {"model": model_doc(model), "problem": {"R": args.R, "L": args.L, "d": args.d}, "heads": H,
           "schedule": schedule.as_dict(), "r0": M0.tolist(), "step": steps.tolist(), "time": times.tolist(),
           ("r" if H == 1 else "M"): (path.M[:, :, 0] if H == 1 else path.M).tolist(),
           "limit": limit, "note": NOTE}
    if H > 1:
        out["principal_angles"] = [principal_angles(M).tolist() for M in path.M]
    if args.json:
        emit_json(out)
        return 0
    print(f"limit ODE of the overlaps, {H} head{'s' if H > 1 else ''}: {model_line(model)}; schedule "
          f"{schedule.as_dict()}")
    name = "r = U^T q" if H == 1 else "M = U^T Q (rows: directions xi_j; columns: heads)"
    print(f"{'step':>8} {'t_k':>10}  {name}")
    for k, t, M in zip(steps, times, path.M):
        text = _vec(M[:, 0]) if H == 1 else "[" + "; ".join(_vec(row) for row in M) + "]"
        if H > 1:
            text += "  angles " + _vec(principal_angles(M))
        print(f"{int(k):>8} {t:>10.4f}  {text}")
    end = _vec(path.M_limit[:, 0]) if H == 1 else "[" + "; ".join(_vec(row) for row in path.M_limit) + "]"
    print(f"long-time limit (t <= {path.t_limit:g}): {end}, |dM/dt| = {path.speed:.2g}"
          + ("" if settled else " -- NOT settled"))
    eq = limit.get("equilibrium")
    if "not_certified" in limit:
        print(f"  no certified equilibrium: {limit['not_certified']}")
    if eq is not None and H == 1:
        word = "certified" if eq["certified"] else "NOT certified"
        print(f"  equilibrium: {eq['kind']} ({eq['location']}), {eq['stability']} ({word}: a box of radius "
              f"<= {max((hi - lo) / 2 for lo, hi in eq['r']) if eq['r'] else float('nan'):.0e} holding exactly one, "
              f"at distance {eq['distance']:.1e} from the end of the flow)")
    elif eq is not None:
        print(f"  equilibrium: {eq['stability']} (numerical: largest eigenvalue {eq['largest_eigenvalue']:.4g}), "
              f"principal angles {_vec(eq['principal_angles'])}, objective {eq['objective']:.6g}")
    print(f"note: {NOTE}")
    return 0


def _distance(box, r) -> float:
    if not box.box:
        return float("nan")
    mid = np.array([(lo + hi) / 2 for lo, hi in box.bounds()])
    return float(np.linalg.norm(mid - r))


def _vec(x) -> str:
    return "(" + ", ".join(f"{float(v):+.6f}" for v in x) + ")"
