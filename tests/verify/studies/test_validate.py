"""``sigrec validate``: the random models, the records, their reproducibility, and
that a deliberately wrong theory fails the matching quantity."""

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigrec.numerics import Problem, executor
from sigrec.theory import canonical_prior
from sigrec.verify.cli import main
from sigrec.verify.studies import VALIDATE_PROFILES, draw_models, run_validation
from sigrec.verify.studies._validate import PRIORS, QUANTITIES, RANGES, SIGMAS, TOLERANCES, _quantities, _run, summarize
from sigrec.verify.studies._validate._profile import ROUTE_QUANTITIES

SMALL = VALIDATE_PROFILES["small"]
#: the small profile judging the expansion alone (the doubled-theory tests change only its theory)
EXPANSION = dataclasses.replace(SMALL, routes=("expansion",))
SEED = 7


@pytest.fixture(scope="module")
def small():
    return run_validation(SMALL, seed=SEED)


def _numbers(records):
    """Every comparison's numbers (not the timings; NaN of an n/a record as None, so lists compare)."""
    def num(x):
        return None if x != x else x
    return [(r["index"], c["quantity"], c["route"], c["rho"], num(c["theory"]), num(c["mc"]), num(c["se"]),
             c["status"]) for r in records for c in r["comparisons"]]


def _in_range(problem):
    for name in ("theta", "beta", "sigma2"):
        lo, hi, _ = RANGES[name]
        assert lo <= problem[name] <= hi, name
    assert RANGES["L"][0] <= problem["L"] <= RANGES["L"][1]
    assert RANGES["d"][0] <= problem["d"] <= RANGES["d"][1]
    assert 1 <= problem["R"] <= problem["L"]
    alpha = problem["R"] / problem["L"]
    assert abs(alpha - np.clip(alpha, *RANGES["alpha"][:2])) <= 1 / problem["L"]
    assert problem["prior"] in {canonical_prior(p) for p in PRIORS}
    assert problem["batch"] in (1, 2)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**63 - 1), st.integers(0, 50))
def test_models_lie_in_the_stated_space_and_do_not_depend_on_the_count(seed, index):
    from sigrec.verify.studies._validate import draw_model

    m = draw_model(seed, index)
    _in_range(m.problem.as_dict())
    assert m.eta > 0 and math.isfinite(m.eta)
    assert set(m.region) >= {"inside", "concentration", "step", "beta_high"}
    lo, hi, _ = RANGES["step"]
    assert lo * (1 - 1e-9) <= m.region["step"] <= hi * (1 + 1e-9)
    assert m.stream(0) != m.stream(1) and 0 <= m.stream(0) < 2**63
    assert draw_model(seed, index).as_dict() == m.as_dict()


def test_first_models_are_the_same_for_any_count():
    assert [m.as_dict() for m in draw_models(SEED, 2)] == [m.as_dict() for m in draw_models(SEED, 3)[:2]]


def test_records_are_well_formed(small):
    assert len(small.records) == SMALL.models
    assert [r["index"] for r in small.records] == list(range(SMALL.models))
    for rec in small.records:
        _in_range(rec["problem"])
        for route in SMALL.routes:
            counts = {q: sum(c["quantity"] == q and c["route"] == route for c in rec["comparisons"])
                      for q in QUANTITIES}
            decaying = {"trajectory": 3, "band": 4, "passage": 1} if counts["trajectory"] == 3 else \
                {"trajectory": 1, "band": 1, "passage": 1}  # no prediction: each one n/a record
            one_step = {"mean": len(SMALL.moment_rhos), "variance": len(SMALL.moment_rhos),
                        "second_moment": len(SMALL.drag_rhos)}
            expected = {**one_step, "plateau": 1, **decaying, "splitting": 1}
            assert counts == {q: (n if q in ROUTE_QUANTITIES[route] else 0) for q, n in expected.items()}, route
        for c in rec["comparisons"]:
            assert c["tol"] == TOLERANCES[c["quantity"]][0]
            if c["quantity"] == "passage" and c["status"] != "n/a":  # judged only beyond a handful of steps
                assert c["mc"] >= _quantities.MIN_PASSAGE
            if c["status"] == "n/a":
                assert c["detail"]["reason"]
                continue
            assert all(math.isfinite(c[k]) for k in ("theory", "mc", "se")) and c["se"] >= 0
            ok = abs(c["theory"] - c["mc"]) <= SIGMAS * c["se"] + c["tol"] * abs(c["theory"])
            assert (c["status"] == "pass") == ok
    s = small.summary
    assert s["models"] == SMALL.models
    for q, rate in s["quantities"].items():
        assert rate["judged"] + rate["n/a"] == sum(c["quantity"] == q for r in small.records for c in r["comparisons"])
        assert rate["passed"] == sum(c["quantity"] == q and c["status"] == "pass"
                                     for r in small.records for c in r["comparisons"])
    assert len(s["failures"]) == sum(c["status"] == "fail" for r in small.records for c in r["comparisons"])
    assert set(s["routes"]) == {"expansion", "measured", "auto"}
    for rec in small.records:  # auto: the expansion inside the validity, the measured law outside
        for c in rec["comparisons"]:
            measured = not rec["region"]["inside"] and c["quantity"] in ROUTE_QUANTITIES["measured"]
            assert _run._auto(rec, c) == (c["route"] == ("measured" if measured else "expansion"))
    for route, tally in s["routes"].items():
        rows = [(r, c) for r in small.records for c in r["comparisons"]
                if (_run._auto(r, c) if route == "auto" else c["route"] == route)]
        for q, rate in tally["all"].items():
            assert rate["passed"] == sum(c["quantity"] == q and c["status"] == "pass" for _, c in rows)
            parts = [tally["regions"][name][q]["judged"] for name in tally["regions"] if name in ("inside", "outside")]
            assert sum(parts) == rate["judged"]
    doc = json.loads(json.dumps(small.as_dict(), default=float))
    assert doc["seed"] == SEED and doc["profile"]["name"] == "small"


def test_same_seed_same_numbers(small):
    again = run_validation(dataclasses.replace(SMALL, models=1), seed=SEED)
    assert _numbers(again.records) == _numbers(small.records[:1])
    other = run_validation(dataclasses.replace(SMALL, models=1), seed=SEED + 1)
    assert _numbers(other.records) != _numbers(small.records[:1])


def _resolved(c) -> bool:
    """Monte Carlo resolves a factor 2 at ``c`` (its allowed gap is below half the doubled theory)."""
    return SIGMAS * c.se + c.tol * abs(c.theory) < 0.5 * abs(c.theory)


#: (quantity, the theory function the study calls, the field doubled, the study's function)
WRONG = [("second_moment", "gradient_second_moment", "total", "second_moment"),
         ("variance", "alignment_variance", "variance", "moments"),
         ("passage", "complexity", "median_steps", "decaying"),
         ("splitting", "splitting_probability", "probability", "splitting")]


@pytest.mark.parametrize("quantity, name, attr, study", WRONG)
def test_a_doubled_theory_fails_its_quantity(small, monkeypatch, quantity, name, attr, study):
    """E|P g|^2 or Var X doubled: every comparison where Monte Carlo resolves a factor 2 fails,
    on the same draws as the honest run, and the summary counts the failures."""
    honest = getattr(_quantities, name)

    def doubled(*args, **kwargs):
        value = honest(*args, **kwargs)
        return dataclasses.replace(value, **{attr: 2 * getattr(value, attr)})

    monkeypatch.setattr(_quantities, name, doubled)
    models = draw_models(SEED, SMALL.models)
    comps = []
    for m in models:
        cs = getattr(_quantities, study)(m, EXPANSION)
        comps.append([c for c in (cs if isinstance(cs, list) else [cs]) if c.quantity == quantity])
    wrong = [c for cs in comps for c in cs if c.status != "n/a"]
    assert sum(map(_resolved, wrong)) >= len(wrong) // 2
    assert all(c.status == "fail" for c in wrong if _resolved(c))
    assert wrong, "no comparison of this quantity was judged on the small profile's models"
    before = [c for r in small.records for c in r["comparisons"]
              if c["quantity"] == quantity and c["status"] != "n/a" and c["route"] == "expansion"]
    assert [c.mc for c in wrong] == [c["mc"] for c in before]  # the same draws, only the theory changed
    records = [{**m.as_dict(), "comparisons": [c.as_dict() for c in cs]} for m, cs in zip(models, comps, strict=True)]
    rate = summarize(records)["quantities"][quantity]
    assert rate["judged"] == len(wrong) and rate["passed"] == sum(c.status == "pass" for c in wrong)


def test_cli_writes_the_records_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "v"
    assert main(["validate", "--models", "1", "--seed", str(SEED), "--workers", "1", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seed"] == SEED and len(doc["models"]) == 1
    assert json.loads((out / "validate.json").read_text())["summary"] == doc["summary"]
    md = (out / "validate.md").read_text()
    assert "| quantity |" in md and "## Every model (1)" in md
    row = next(line for line in md.splitlines() if line.startswith("| 0 | "))
    assert doc["models"][0]["problem"]["prior"].replace("|", "/") in row
    assert ("inside" if doc["models"][0]["region"]["inside"] else "outside") in row
    for bad in (["--models", "0"], ["--models", "2.5"], ["--seed", "-1"], ["--profile", "huge"]):
        assert main(["validate", *bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:")


@pytest.mark.slow
def test_long_profile_any_worker_count():
    """The long profile (200 models): well formed, and the same numbers on 2 workers as on 1
    for its first models."""
    long = VALIDATE_PROFILES["long"]
    assert long.models >= 200
    with executor(workers=2):
        result = run_validation(long, seed=SEED)
    assert len(result.records) == long.models
    assert sum(r["judged"] + r["n/a"] for r in result.summary["quantities"].values()) == sum(
        len(r["comparisons"]) for r in result.records)
    with executor(workers=1):
        first = run_validation(dataclasses.replace(long, models=2), seed=SEED)
    assert _numbers(first.records) == _numbers(result.records[:2])


def test_a_law_of_another_model_fails_the_measured_route(small, monkeypatch):
    """The measured route judged on the one-step law of the model with half its signal strength
    theta (the drift halves, the plateau's deficit and the passage times grow): most of its
    comparisons fail, on the same chains as the honest run: the route predicts from its
    law, not from the chain it is judged against."""
    honest = _quantities.decaying_law

    def halved(problem, schedule, steps, seed, drift_se):
        other = Problem.from_dict({**problem.as_dict(), "theta": problem.theta / 2})
        return honest(other, schedule, steps, seed, drift_se)

    monkeypatch.setattr(_quantities, "decaying_law", halved)
    wrong, right = [], []
    for m, rec in zip(draw_models(SEED, SMALL.models), small.records, strict=True):
        for study in (_quantities.plateau, _quantities.decaying):
            for c in study(m, SMALL):
                if c.route == "measured" and c.status != "n/a" and c.quantity in ("plateau", "band", "trajectory"):
                    wrong.append(c)
                    right.append(next(h for h in rec["comparisons"]
                                      if h["route"] == "measured" and h["quantity"] == c.quantity
                                      and h["detail"].get("step") == c.detail.get("step")
                                      and h["detail"].get("quantile") == c.detail.get("quantile")))
    assert [c.mc for c in wrong] == [h["mc"] for h in right]  # the same chains
    assert sum(h["status"] == "pass" for h in right) >= len(right) - 1  # the honest law passes there
    # (seed 7, small profile: the honest law passes 24 of 24, the halved one fails 17)
    assert sum(c.status == "fail" for c in wrong) >= len(wrong) // 2


def test_a_study_that_raises_is_recorded_and_the_others_still_run(monkeypatch):
    """One model's defect does not end the run: its quantities are ``error`` records, listed
    in the summary, and the CLI exits 1."""
    def broken(m, profile):
        raise ValueError("`rho0` must lie in [-1, 1], got 1.12")

    monkeypatch.setattr(_run, "STUDIES", tuple((broken if f is _quantities.splitting else f, q)
                                               for f, q in _run.STUDIES))
    rec = _run._run_unit(_run._Unit(draw_models(SEED, 1)[0], EXPANSION))
    errs = [c for c in rec["comparisons"] if c["status"] == "error"]
    assert [c["quantity"] for c in errs] == ["splitting"] and "rho0" in errs[0]["detail"]["reason"]
    assert {c["quantity"] for c in rec["comparisons"]} == set(QUANTITIES)
    s = summarize([rec])
    assert s["quantities"]["splitting"]["errors"] == 1 and s["quantities"]["splitting"]["judged"] == 0
    assert s["errors"] == [{"model": 0, "quantity": "splitting", "route": "expansion",
                            "error": "ValueError: `rho0` must lie in [-1, 1], got 1.12"}]
