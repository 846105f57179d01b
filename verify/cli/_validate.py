"""``sigrec validate``: every derived finite-size and finite-step quantity against the exact
chain on random models (docs/validation.md)."""

from __future__ import annotations

import dataclasses
import sys

from rich.console import Console

from ...numerics import describe
from ..render import validate_markdown, validate_pass_table
from ..studies import VALIDATE_PROFILES, run_validation
from ..suite import environment
from ._args import add_executor_arguments, add_json_flag, add_out_argument, executor_from_args
from ._atomic import atomic_folder
from ._limits import count
from ._output import emit_json, stderr_progress, to_json


def register(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="compare every derived finite-size quantity with the exact chain on random models",
        description="Draw random models (theta, L, R/L, d, beta, sigma2, prior, batch) from a seeded generator and "
        "compare the one-step mean and variance of the alignment increment, E|P g|^2, the constant-step "
        "plateau, the mean trajectory, its 10-90% band, the median first passage and the splitting probability "
        "with Monte Carlo of the exact reduced chain, as predicted by each route (the O(eta) expansion and "
        "the exact chain's measured one-step law); write validate.json and validate.md to --out and "
        "print the pass table (per route, inside/outside the stated validity, beta below/above 1.5).",
    )
    p.add_argument("--profile", choices=tuple(VALIDATE_PROFILES), default="small",
                   help="budgets: small (3 models, tiny samples, seconds per model), long (200 models) or routes "
                        "(200 models at a quarter of long's chain budget)")
    p.add_argument("--routes", choices=("both", "expansion"), default="both",
                   help="judge both routes (default) or the expansion alone (no measured law: faster)")
    p.add_argument("--models", type=count("models"), default=None, help="number of models (default: the profile's)")
    p.add_argument("--seed", type=count("seed"), default=0, help="root seed of the models' SeedSequences, default 0")
    add_out_argument(p, "sigrec-validate", "output folder")
    add_executor_arguments(p)
    add_json_flag(p)
    p.set_defaults(run=run)


def run(args) -> int:
    profile = VALIDATE_PROFILES[args.profile]
    if args.routes == "expansion":
        profile = dataclasses.replace(profile, routes=("expansion",))
    n = profile.models if args.models is None else args.models
    with executor_from_args(args) as ex, stderr_progress() as bar:
        where = describe(ex)
        task = bar.add_task("models", total=n)
        result = run_validation(profile, models=n, seed=args.seed,
                                progress=lambda done, _: bar.update(task, completed=done))
    doc = {"command": f"sigrec validate --profile {profile.name} --models {n} --seed {args.seed} "
                      f"--routes {args.routes}",
           **result.as_dict(), "environment": environment(where)}
    with atomic_folder(args.out) as tmp:
        (tmp / "validate.json").write_text(to_json(doc) + "\n")
        (tmp / "validate.md").write_text(validate_markdown(doc))
    if args.json:
        emit_json(doc)
    else:
        out = Console(soft_wrap=True)
        out.print(validate_pass_table(doc), markup=False, highlight=False)
        out.print(f"{doc['summary']['models']} models, seed {args.seed}, profile {profile.name}; "
                  f"wrote {args.out / 'validate.md'} and validate.json")
    errors = doc["summary"]["errors"]
    if errors:  # a study that raised is a defect of the toolkit, not a finding: say so and fail
        for e in errors[:5]:
            print(f"error: model {e['model']}, {e['quantity']}: {e['error']}", file=sys.stderr)
        print(f"error: {len(errors)} comparisons raised (listed in validate.md)", file=sys.stderr)
        return 1
    return 0
