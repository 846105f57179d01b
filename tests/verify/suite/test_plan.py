"""The run's plan (verify/suite/_plan.py, ``sigrec verify --dry-run``): what each step computes and
shares, and token-steps that agree with what the run then draws (counted by numerics.count_token_steps,
an independent route: the driver's own count of the tokens its kernels drew)."""

import json
from dataclasses import replace

from sigrec.numerics import count_token_steps
from sigrec.verify.checks import REGISTRY, Case
from sigrec.verify.suite import SuiteConfig, run_plan
from sigrec.verify.suite._runner import context

from ..cli._run import error_line, output

#: a small bistable instance away from beta = sigma2 = 1, where convergence, filtering and the
#: diffusion checks all apply
CASE = Case.from_counts("small", 1.5, 100, 1900, 3, beta=1.2, sigma2=0.9)
#: a cheaper bistable instance (outside the expansion's validity, which convergence does not need)
CHEAP = Case.from_counts("cheap", 1.5, 50, 150, 3, beta=1.2, sigma2=0.9)


def _config(*checks, sequential=False, case=CASE):
    return SuiteConfig(cases=(case,), checks=checks, sequential=sequential)


def test_checks_that_share_a_simulation_name_it_once_and_say_from_whom():
    cfg = _config("sga.convergence", "sga.filtering", "stepsize.robbins_monro")
    p = run_plan(cfg)
    by = {s.check: s for s in p.steps}
    sims = [w for w in by["sga.convergence"].own if w.kind == "simulation"]
    assert [w.key[0] for w in sims] == ["convergence runs", "noise band"] and sims[0].token_steps > 0
    assert by["sga.filtering"].token_steps == 0
    assert any(w.kind == "simulation" and src.startswith("sga.convergence") for w, src, _ in by["sga.filtering"].shared)
    assert any(w.kind == "design" for w, _, _ in by["stepsize.robbins_monro"].shared)
    assert p.token_steps == sum(w.token_steps for w in sims)
    text = p.describe()
    assert "shares simulation with sga.convergence: small" in text and "total:" in text


def test_the_planned_token_steps_are_what_the_run_draws():
    """The convergence runs and the noise band's one-step draws: the plan's token-steps equal the tokens
    the check draws (the design's pilot is drawn by the plan, which the check then reuses)."""
    cfg = _config("sga.convergence", case=CHEAP)
    ctx = context(cfg)
    p = run_plan(cfg, ctx)  # designs the schedule (its pilot draws) once; the check reuses it
    planned = p.token_steps
    with count_token_steps() as drawn:
        REGISTRY["sga.convergence"].run(CHEAP, ctx)
    assert drawn.token_steps == planned


def test_the_diffusion_checks_plan_one_set_of_runs_for_both():
    cfg = replace(_config("sga.fluctuations", "sga.hitting_time"), method="expansion")
    p = run_plan(cfg)
    fl, hit = p.steps
    assert fl.check == "sga.fluctuations" and fl.token_steps > 0 and hit.token_steps == 0
    assert {w.kind for w, _, _ in hit.shared} >= {"simulation", "prediction", "diffusion tables"}


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "report"
    args = ["verify", "--theta", "1.5", "--R", "100", "--L", "2000", "--d", "3", "--beta", "1.2", "--sigma2", "0.9",
            "--checks", "sga.convergence,sga.filtering",
            "--dry-run", "--workers", "1", "--out", str(out)]
    text = output(capsys, args)
    assert "sga.convergence: mine:" in text and "token-steps" in text and not out.exists()
    data = json.loads(output(capsys, [*args, "--json"]))
    assert data["token_steps"] > 0 and [s["check"] for s in data["steps"]] == ["sga.convergence", "sga.filtering"]
    assert "nope" in error_line(capsys, ["verify", "--dry-run", "--checks", "nope"])
