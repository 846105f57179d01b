"""The checks of subspace cases (verify/checks/_subspace.py, _subspace_runs.py): a k-dimensional law and/or H heads.

Independent routes: the certified transition bracket of ``theory.certify_transition`` and the
closed-form mixture eigenvalue (``theory.mixture_eigenvalues``) for ``subspace.equilibria``; a
deliberately wrong field (monkeypatched evaluator or ODE) for the consistency checks."""

import json
from dataclasses import replace

import numpy as np
import pytest

from sigrec.theory import Model, critical_thetas, mixture_eigenvalues
from sigrec.verify.checks import REGISTRY, Case, CheckContext, _subspace, _subspace_runs
from sigrec.verify.cli import main
from sigrec.verify.suite import SuiteConfig, cases_from_toml, plan

#: the certified bracket of theta_c for onehot(k=2) at alpha = 0.05, beta = sigma2 = 1
#: (docs/subspace-certificates.md section 2, certify_transition)
THETA_C = (0.8556559364730, 0.8556559365449)
#: alpha = R / L = 500 / 10,000 = 0.05 exactly
SIZES = {"R": 500, "L": 10_000, "d": 10}


def _case(theta, heads=1, prior="onehot(k=2)", **kw):
    sizes = {**SIZES, **kw.pop("sizes", {})}
    return Case(f"t{theta}", theta, prior=prior, heads=heads, **sizes, **kw)


def _run(check, case, **ctx):
    recs = REGISTRY[check].run(case, CheckContext(seed=3, **ctx))
    assert [r.id for r in recs] == [check]
    return recs[0]


# ---------------------------------------------------------------- cases and selection

def test_subspace_case_and_model():
    c = _case(1.3)
    assert c.subspace and c.alpha == 0.05 and c.prior == "onehot(k=2)"
    assert isinstance(c.model, Model) and c.model.engine == "subspace" and c.problem.k == 2
    heads = Case("h", 1.0, alpha=0.3, heads=2)  # a scalar law with two heads is a subspace case too
    assert heads.subspace and heads.model.k == 1
    assert not Case("s", 1.0, alpha=0.3).subspace
    with pytest.raises(ValueError, match="`d` must be >= k \\+ 2 heads = 6"):
        _case(1.3, heads=2, sizes={"d": 5})
    with pytest.raises(ValueError, match="`heads`"):
        _case(1.3, heads=0)


def test_scalar_checks_do_not_run_on_subspace_cases_and_vice_versa():
    sub, scalar = _case(1.3), Case.from_counts("s", 1.0, 50, 450, 5)
    ctx = CheckContext()
    ran_sub = {c.id for c in REGISTRY.values() if c.applies(sub, ctx)}
    assert ran_sub == {"subspace.quadrature", "subspace.equilibria", "subspace.tracking", "subspace.convergence",
                       "heads.angles"}
    assert not any(c.id.startswith(("subspace.", "heads.")) for c in REGISTRY.values() if c.applies(scalar, ctx))
    # a run whose cases are all subspace cases runs no scalar model-independent check
    steps = plan(SuiteConfig(cases=(sub,)))
    assert {label.split(":")[0] for label, _, _ in steps} == ran_sub
    mixed = plan(SuiteConfig(cases=(sub, Case("x", 1.0, alpha=0.3)), checks=("field.*", "subspace.quadrature")))
    assert [(c.id, None if k is None else k.name) for _, c, k in mixed][:2] == [("field.endpoints", None),
                                                                                ("subspace.quadrature", "t1.3")]


def test_toml_case_with_prior_and_heads(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[[case]]\nname = "sub"\ntheta = 1.3\nR = 500\nL = 10000\nd = 10\nprior = "onehot(k=2)"\n'
                 'heads = 2\n')
    (c,) = cases_from_toml(f)
    assert c.subspace and c.heads == 2 and c.model.k == 2


# ---------------------------------------------------------------- subspace.quadrature

@pytest.mark.parametrize("theta", [0.5, 1.3])
def test_quadrature_passes_on_both_sides(theta):
    r = _run("subspace.quadrature", _case(theta), quadrature_points=1)
    assert r.status == "pass" and r.value <= 1e-9
    assert r.details["max_rel_derived_mp"] < 1e-20


def test_quadrature_away_from_unit_beta_sigma2():
    r = _run("subspace.quadrature", _case(1.1, prior="onehot(k=2, probs=[3/5, 2/5])", beta=1.7, sigma2=0.6),
             quadrature_points=1)
    assert r.status == "pass"


def test_quadrature_fails_on_a_wrong_field(monkeypatch):
    real = _subspace.evaluate

    def perturbed(model, r, **kw):
        v = real(model, r, **kw)
        return replace(v, gradient=np.asarray(v.gradient) * (1 + 1e-6))

    monkeypatch.setattr(_subspace, "evaluate", perturbed)
    r = _run("subspace.quadrature", _case(1.3), quadrature_points=1)
    assert r.status == "fail" and 1e-7 < r.value < 1e-5


# ---------------------------------------------------------------- subspace.equilibria

@pytest.mark.parametrize("theta", [0.5, 1.3])
def test_equilibria_match_the_certified_transition(theta):
    r = _run("subspace.equilibria", _case(theta))
    below = theta < THETA_C[0]
    assert r.kind == "condition" and r.certified
    assert r.status == ("fails" if below else "holds")
    assert r.details["complete"] is True
    assert r.details["attractors"] == (["mixture+"] if below else ["specialised"])
    # the mixture's certified tangent eigenvalue against the closed form (independent route)
    tangent = float(mixture_eigenvalues(2, theta, 0.05)[0])
    assert r.value == pytest.approx(tangent, rel=1e-9, abs=1e-12)


def test_equilibria_away_from_unit_beta_sigma2():
    beta, sigma2, alpha = 1.6, 0.7, 0.05
    (tc,) = critical_thetas(2, alpha, beta, sigma2)
    for theta, want in ((0.8 * tc, "fails"), (1.25 * tc, "holds")):
        c = Case("b", theta, alpha=alpha, beta=beta, sigma2=sigma2, prior="onehot(k=2)")
        assert _run("subspace.equilibria", c).status == want


# ---------------------------------------------------------------- subspace.tracking

@pytest.mark.parametrize("theta", [0.5, 1.3])
def test_tracking_passes_on_both_sides(theta):
    # below theta_c the flow is slow (D = 0.3 by t = 8): the quick budget is marginal there
    r = _run("subspace.tracking", _case(theta), budget=1e8)
    assert r.status == "pass", r.message
    d = r.details
    assert d["token_steps"] <= d["budget"] and d["runs"] == CheckContext().preset.tracking_runs
    assert max(d["error"]) <= r.threshold + 3 * max(d["se"])


def test_tracking_fails_against_a_wrong_ode(monkeypatch):
    real = _subspace_runs.integrate_subspace_flow

    def wrong(model, r0, t_max=200.0, rtol=1e-10):  # the limit of a 40% stronger signal
        m = Model(1.4 * model.theta, model.alpha, beta=model.beta, sigma2=model.sigma2, prior=model.law)
        return real(m, r0, t_max=t_max, rtol=rtol)

    monkeypatch.setattr(_subspace_runs, "integrate_subspace_flow", wrong)
    r = _run("subspace.tracking", _case(1.3))
    assert r.status == "fail", r.message


def test_tracking_away_from_unit_beta_sigma2():
    r = _run("subspace.tracking", _case(1.0, beta=1.5, sigma2=0.7))
    assert r.status == "pass", r.message


# ---------------------------------------------------------------- subspace.convergence

def test_convergence_specialised_side_passes():
    r = _run("subspace.convergence", _case(1.3), budget=1.2e8)
    assert r.status == "pass", r.message
    labels = set(r.details["predicted_labels"])
    assert labels <= {"specialised(1)", "specialised(2)"}
    assert r.details["judged"] == len(r.details["runs"]) and r.value >= 0.85


def test_convergence_mixture_side_names_the_budget():
    # below theta_c the tangent contraction at the mixture is slow (-0.024): the quick budget does
    # not reach it, and the record says what would
    r = _run("subspace.convergence", _case(0.5))
    assert r.status == "inconclusive"
    assert set(r.details["predicted_labels"]) == {"mixture+"}
    assert "--budget" in r.message and r.details["token_steps"] > r.details["budget"]


def test_distance_uses_the_law_symmetries():
    from sigrec.theory import parse_law

    law = parse_law("onehot(k=2)")
    assert _subspace.distance(law, [0.98, 0.17], [0.17, 0.98]) < 1e-12
    assert _subspace.distance(parse_law("onehot(k=2, probs=[3/5, 2/5])"), [0.98, 0.17],
                              [0.17, 0.98]) > 1
    assert _subspace.distance(parse_law("gaussian(k=2, tau=1)"), [0.6, 0.8], [1.0, 0.0]) < 1e-12


# ---------------------------------------------------------------- heads.angles

def test_heads_recover_the_subspace_at_strong_signal():
    # docs/subspace-simulation.md section 5: theta = 3, alpha = 1/2, two heads recover span U
    r = _run("heads.angles", _case(3.0, heads=2, sizes={"L": 1000, "d": 10}), budget=4e7)
    assert r.kind == "condition" and r.status in ("holds", "fails"), r.message
    d = r.details
    if r.status == "holds":
        assert max(map(max, d["final_angles"])) < 0.2
    else:  # some run ended in another state, e.g. both heads on one direction
        assert d["counts"].get("shared direction", 0) + d["counts"].get("other", 0) > 0
    assert d["median_angles_over_time"][-1][-1] < d["median_angles_over_time"][0][-1]


@pytest.mark.slow
@pytest.mark.parametrize("theta", [0.5, 1.3])
def test_heads_on_both_sides_of_theta_c(theta):
    # below theta_c (0.5) the flow is slow: its ODE time of 192 needs 1.8e9 token-steps
    r = _run("heads.angles", _case(theta, heads=2), budget=2e9)
    assert r.status == "holds", r.message


def test_state_names():
    assert _subspace_runs._state(np.array([0.05, 0.1])) == "recovered"
    assert _subspace_runs._state(np.array([0.02, 1.55])) == "shared direction"
    assert _subspace_runs._state(np.array([0.6, 0.9])) == "other"


# ---------------------------------------------------------------- the command line

def test_verify_cli_on_a_subspace_case(tmp_path, capsys):
    out = tmp_path / "r"
    rc = main(["verify", "--prior", "onehot(k=2)", "--theta", "1.3", "--R", "500", "--L", "10000", "--d", "10",
               "--heads", "2", "--checks", "subspace.equilibria,subspace.quadrature,field.*", "--out", str(out),
               "--json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    doc = json.loads(cap.out)
    assert [r["id"] for r in doc["checks"]] == ["subspace.quadrature", "subspace.equilibria"]
    assert doc["config"]["cases"][0]["heads"] == 2
    (applied,) = doc["summary"]["applied"]
    assert applied["run"] == ["subspace.quadrature", "subspace.equilibria"]
    assert "field.monotone" in applied["other_model"]
    md = (out / "report.md").read_text()
    assert "subspace.equilibria" in md and "the checks of the other model" in md


def test_verify_cli_refuses_bad_heads(tmp_path, capsys):
    rc = main(["verify", "--theta", "1", "--alpha", "0.3", "--heads", "0", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error:") and "--heads" in err and len(err.strip().splitlines()) == 1


def test_one_head_of_two_directions():
    # H < k: the one query ends in span U (one principal angle)
    r = _run("heads.angles", _case(3.0, heads=1, sizes={"L": 1000, "d": 10}), budget=4e7)
    assert "q in span(U)" in r.message and r.status == "holds", r.message
    assert all(len(a) == 1 for a in r.details["final_angles"])
    assert len(r.details["predicted_states"]) == _subspace_runs.STARTS


@pytest.mark.slow
def test_three_heads_on_two_directions():
    # H > k: from some uniform starts the limit flow of the heads ends with one direction of span U
    # outside span Q (angles (0, pi/2), a stable state, the Jacobian's eigenvalues -1.9 to -49);
    # the runs must then end there too, and the condition fails
    r = _run("heads.angles", _case(3.0, heads=3, sizes={"L": 1000, "d": 10}), budget=6e7)
    d = r.details
    assert "span U inside span Q" in r.message
    predicted_shared = d["predicted_states"].count("shared direction")
    assert predicted_shared >= 1
    assert r.status == "fails" and d["counts"].get("shared direction", 0) >= d["runs_per_start"], r.message
