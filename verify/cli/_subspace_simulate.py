"""``sigrec simulate --prior 'onehot(k=2)' [--heads H]``: the subspace recursion (docs/subspace-simulation.md).

Runs :func:`numerics.simulate_subspace` (the exact reduced chain by default, ``--simulator full``
the d-dimensional one) and reports the final overlaps ``M = U^T Q`` (``final_r``, runs x k, for one
head; ``final_M``, runs x k x H, for several) and, for heads, the principal angles between
``span Q`` and ``span U``. With a scalar prior and ``--heads H`` it is the same recursion at
``k = 1``: ``M`` is ``1 x H`` with ``|M| <= 1``, so at most one head can align with the signal.
"""

from __future__ import annotations

import numpy as np

from ...numerics import SubspaceProblem, simulate_subspace
from ._atomic import atomic_file
from ._guard import quiet_numerics, require_finite
from ._limits import check_simulation
from ._output import emit_json
from ._subspace import check_overlaps, model_doc, model_line, schedule_of


def refuse_flags(args) -> None:
    if args.rho0 is not None:
        raise ValueError("`rho0` is the scalar start; with a k-dimensional law or heads give the start overlaps "
                         "`r0` (k x H numbers, row-major)")
    if args.workers != 1 or args.scheduler is not None:
        raise ValueError("--workers and --scheduler are for scalar priors; the subspace simulation runs in-process")


def run(args, law) -> int:
    refuse_flags(args)
    problem = SubspaceProblem(law, args.theta, args.R, args.L, args.d, beta=args.beta, sigma2=args.sigma2,
                              batch=args.batch)
    schedule = schedule_of(args)
    H, k = args.heads, problem.k
    check_simulation(simulator=args.simulator, runs=args.runs * H, steps=args.steps, stride=args.stride,
                     L=args.L, d=args.d, batch=args.batch)
    M0 = None if args.r0 is None else check_overlaps("r0", args.r0, k, H)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    with quiet_numerics():
        sim = simulate_subspace(problem, schedule, heads=H, steps=args.steps, runs=args.runs,
                                simulator=args.simulator, M0=M0, seed=seed, stride=args.stride)
    require_finite("`eta0`, `k0`, `power` and the model flags", sim.overlaps, sim.times)
    angles = sim.principal_angles()
    saved = None
    if args.save is not None:
        with atomic_file(args.save, "--save") as tmp, open(tmp, "wb") as fh:
            np.savez(fh, record_steps=sim.record_steps, times=sim.times, overlaps=sim.overlaps,
                     out_gram=sim.out_gram, principal_angles=angles, sample_steps=sim.sample_steps,
                     noise_mass=sim.noise_mass, objective=sim.objective)
        saved = str(args.save)
    final = sim.final_overlaps  # runs x k x H
    out = {
        "simulator": sim.simulator, "model": model_doc(problem.model), "problem": problem.as_dict(),
        "heads": H, "schedule": {**schedule.as_dict(), "t_final": float(sim.times[-1])},
        "steps": sim.steps, "runs": sim.runs, "seed": seed,
        "r0": None if M0 is None else M0.tolist(),
    }
    if H == 1:
        out["initial_r"] = sim.overlaps[:, 0, :, 0].tolist()
        out["final_r"] = final[:, :, 0].tolist()
        out["mean_final_norm"] = float(np.mean(np.linalg.norm(final[:, :, 0], axis=1)))
    else:
        out["initial_M"] = sim.overlaps[:, 0].tolist()
        out["final_M"] = final.tolist()
        out["final_principal_angles"] = angles[:, -1].tolist()
        out["mean_final_principal_angles"] = np.mean(angles[:, -1], axis=0).tolist()
    out.update({"wall_s": sim.wall_s, "saved": saved})
    if args.json:
        emit_json(out)
        return 0
    print(f"{sim.simulator} subspace simulator, {H} head{'s' if H > 1 else ''}: {sim.runs} runs x {sim.steps} steps, "
          f"d={problem.d}, R={problem.R}, L={problem.L}, seed={seed}, {sim.wall_s:.3g} s")
    print(f"  {model_line(problem.model)}; schedule {schedule.as_dict()}, t_final = {out['schedule']['t_final']:.6g}")
    if H == 1:
        print(f"  final overlaps r = U^T q (mean |r| = {out['mean_final_norm']:.6f}):")
        for r in out["final_r"]:
            print("    (" + ", ".join(f"{x:+.4f}" for x in r) + ")")
    else:
        mean = ", ".join(f"{a:.4f}" for a in out["mean_final_principal_angles"])
        print(f"  mean final principal angles between span Q and span U (radians): {mean}")
        for M, a in zip(final, angles[:, -1]):
            rows = "; ".join(", ".join(f"{x:+.4f}" for x in row) for row in M)
            print(f"    M = [{rows}]  angles ({', '.join(f'{x:.4f}' for x in a)})")
    if saved:
        print(f"  trajectories written to {saved}")
    return 0
