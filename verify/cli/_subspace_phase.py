"""``sigrec phase --prior 'onehot(k=2)'``: the certified mixture/specialisation transition.

For each ``alpha`` of a log grid, :func:`theory.certify_transition` brackets ``theta_c(alpha)``: for
every ``theta`` below the bracket (down to half the float value) the mixture
``(xi_1 + ... + xi_k)/sqrt k`` is certified stable, above it (up to twice) it has a certified
positive tangent eigenvalue. Writes the brackets (JSON) and the figure.
"""

from __future__ import annotations

import json

import numpy as np

from ...theory import certify_transition
from ..render import plot_subspace_phase
from ._atomic import atomic_folder
from ._output import emit_json, stderr_progress

#: default number of alphas (each bracket takes about 1 to 5 s of one core)
N_ALPHA = 8


def run(args, law) -> int:
    if law.family != "onehot" or law.spec != f"onehot(k={law.k})":
        raise ValueError(f"`prior` {law.spec}: the certified transition is derived for onehot(k) with equal "
                         "probabilities (k >= 2)")
    if args.grid or args.n_theta is not None:
        raise ValueError("--grid and --n-theta are for scalar priors; with onehot(k) the transition is certified "
                         "per alpha (--n-alpha)")
    if args.workers != 1 or args.scheduler is not None:
        raise ValueError("--workers and --scheduler are for scalar priors; the transition is certified in-process")
    if not args.alpha_min < 1:
        raise ValueError(f"`alpha-min` must be < 1 for the grid alpha in [alpha-min, 1], got {args.alpha_min!r}")
    n = N_ALPHA if args.n_alpha is None else args.n_alpha
    alphas = np.logspace(np.log10(args.alpha_min), 0.0, n)
    brackets = []
    with stderr_progress() as bar:
        task = bar.add_task("certifying theta_c(alpha)", total=n)
        for a in alphas:
            try:
                t = certify_transition(law.k, float(a), args.beta, args.sigma2)
                brackets.append({"alpha": float(a), "lo": t.lo, "hi": t.hi, "point_lo": t.point_lo,
                                 "point_hi": t.point_hi, "certified": t.certified, "float_thetas": list(t.float_thetas),
                                 "theta_range": [t.theta_min, t.theta_max]})
            except ValueError as exc:  # e.g. no critical theta in the search range
                brackets.append({"alpha": float(a), "lo": None, "hi": None, "certified": False, "reason": str(exc)})
            bar.update(task, advance=1)
    his = [b["hi"] for b in brackets if b["certified"]]
    theta_max = args.theta_max if args.theta_max is not None else (1.6 * max(his) if his else 2.0)
    doc = {"mode": "subspace", "law": law.spec, "k": law.k, "beta": args.beta, "sigma2": args.sigma2,
           "theta_max": theta_max, "brackets": brackets,
           "all_certified": all(b["certified"] for b in brackets)}
    json_path, png_path = args.out / "phase-subspace.json", args.out / "phase.png"
    with atomic_folder(args.out) as tmp:
        (tmp / json_path.name).write_text(json.dumps(doc) + "\n")
        plot_subspace_phase(doc, tmp / png_path.name)
    doc.update({"brackets_file": str(json_path), "figure": str(png_path)})
    if args.json:
        emit_json(doc)
        return 0
    print(f"certified transition of one query, {law.spec}, beta={args.beta:g}, sigma2={args.sigma2:g}: the mixture "
          "is certified stable for every theta in [theta_min, lo], unstable in [hi, theta_max]")
    print(f"{'alpha':>12} {'theta_c in [lo, hi]':>38}  {'[theta_min, theta_max]':>22}  certified")
    for b in brackets:
        if b["certified"]:
            lo, hi = b["theta_range"]
            print(f"{b['alpha']:>12.6g}   [{b['lo']:.13f}, {b['hi']:.13f}]  [{lo:.4f}, {hi:.4f}]  yes")
        else:
            print(f"{b['alpha']:>12.6g}   {'-':>38}  NO {b.get('reason', '')}")
    print(f"Wrote {json_path} and {png_path}.")
    return 0
