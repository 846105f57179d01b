"""The subspace model in the CLI: field, certify, simulate, predict, phase (docs/guide/subspace.md).

Every number the CLI prints is compared with an independent route: the scalar evaluator
(k = 1), the quadrature of theory.subspace_quadrature (k = 2), the numerical equilibria of
find_subspace_equilibria, the full simulator, the certified transition."""

import json

import numpy as np
import pytest

from sigrec.theory import Model, evaluate, heads_flow, subspace_quadrature
from sigrec.verify.cli._main import main

from ._run import error_line


def _json(capsys, argv):
    rc = main([*argv, "--json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert out.err == ""
    return json.loads(out.out)


_error = error_line


# ------------------------------------------------------------------------------------------
# field


@pytest.mark.parametrize("prior,params", [("fixed", (1.5, 0.05, 1.0, 1.0)), ("rademacher", (0.8, 0.3, 1.3, 0.7)),
                                          ("gaussian(mu=0.5, tau=0.7)", (1.2, 0.2, 0.8, 1.6))])
def test_field_k1_subspace_route_equals_the_scalar_field(capsys, prior, params):
    theta, alpha, beta, sigma2 = params
    flags = ["field", "--theta", str(theta), "--alpha", str(alpha), "--beta", str(beta), "--sigma2", str(sigma2),
             "--prior", prior]
    rhos = ["-0.9", "-0.2", "0.35", "0.8"]
    sub = _json(capsys, [*flags, "--r", *rhos])
    scalar = _json(capsys, [*flags, "--rho", *rhos])
    assert sub["model"]["k"] == 1
    for a, b in zip(sub["points"], scalar["points"], strict=True):
        assert a["r"] == [b["rho"]]
        assert a["objective"] == pytest.approx(b["objective"], rel=1e-12)
        assert a["gradient"][0] == pytest.approx(b["slope"], rel=1e-10, abs=1e-14)
        assert a["field"][0] == pytest.approx(b["field"], rel=1e-10, abs=1e-14)


def test_field_onehot2_against_the_evaluator_and_the_quadrature(capsys):
    theta, alpha, beta, sigma2 = 1.3, 0.2, 1.4, 0.6
    pts = [(0.6, 0.3), (0.1, -0.2), (-0.5, 0.45)]
    doc = _json(capsys, ["field", "--prior", "onehot(k=2)", "--theta", str(theta), "--alpha", str(alpha),
                         "--beta", str(beta), "--sigma2", str(sigma2), "--r", *(f"{a},{b}" for a, b in pts)])
    model = Model(theta, alpha, beta=beta, sigma2=sigma2, prior="onehot(k=2)")
    assert doc["model"] == model.as_dict() and doc["model"]["k"] == 2 and doc["model"]["prior"] == "onehot(k=2)"
    for r, pt in zip(pts, doc["points"], strict=True):
        assert set(pt) == {"r", "objective", "gradient", "field"} and pt["r"] == list(r)
        v = evaluate(model, r, engine="subspace")
        assert pt["objective"] == v.objective and pt["gradient"] == v.gradient.tolist()
        q = subspace_quadrature(model, r, dps=20)  # independent: tanh-sinh moments, not the MGF route
        g = np.array(q.gradient[1])
        rr = np.array(r)
        assert pt["objective"] == pytest.approx(q.objective[1], rel=1e-12)
        assert np.allclose(pt["gradient"], g, rtol=1e-11, atol=1e-13)
        assert np.allclose(pt["field"], g - (rr @ g) * rr, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("argv,word", [
    (["--prior", "onehot(k=2)", "--r", "0.9,0.9"], "`r` must satisfy |r| <= 1"),
    (["--prior", "onehot(k=2)", "--r", "0.5"], "`r` must have 2 entries"),
    (["--prior", "onehot(k=3)", "--r", "0.5,0.1"], "`r` must have 3 entries"),
    (["--prior", "onehot(k=2)", "--rho", "0.5"], "overlap vectors `r`"),
    (["--prior", "onehot(k=2)", "--r", "0.5,x"], "--r"),
    (["--r", "1.5"], "`r` must satisfy"),
    (["--rho", "0.5", "--r", "0.5"], "one of the two"),
    ([], "one of the two"),
    (["--r", "0.5", "--heads", "2"], "2 columns m_h"),
    (["--prior", "onehot(k=2)", "--r", "0.9,0", "0.9,0", "--heads", "2"], "singular values <= 1"),
])
def test_field_refusals_name_the_flag(capsys, argv, word):
    line = _error(capsys, ["field", "--theta", "1", "--alpha", "0.3", *argv])
    assert word in line


def test_field_of_heads_is_the_library_flow_at_the_frame(capsys):
    """``field --heads 2``: the columns of --r are the frame M; the flow is theory.heads_flow's and
    vanishes (to the 4 digits given) at the certified shared-direction state of theta 3, alpha 0.3."""
    argv = ["field", "--prior", "onehot(k=2)", "--theta", "3", "--alpha", "0.3", "--heads", "2", "--json", "--r"]
    assert main([*argv, "0.7048,-0.0569", "0.7048,-0.0569"]) == 0
    doc = json.loads(capsys.readouterr().out)
    model = Model(3.0, 0.3, prior="onehot(k=2)", heads=2)
    M = np.array([[0.7048, 0.7048], [-0.0569, -0.0569]])
    assert np.allclose(doc["flow"], heads_flow(model, M), rtol=1e-12, atol=1e-15)
    assert np.abs(doc["flow"]).max() < 2e-3 and doc["principal_angles"][1] == pytest.approx(np.pi / 2)
    assert main([*argv, "0.6,0.2", "-0.1,0.5"]) == 0
    assert np.abs(json.loads(capsys.readouterr().out)["flow"]).max() > 0.1


# ------------------------------------------------------------------------------------------
# certify

#: the certified transition of onehot(k=2) at alpha = 0.05 (docs/subspace-certificates.md section 2)
THETA_C = (0.8556559364730, 0.8556559365449)


def _certify(capsys, theta, alpha, beta=1.0, sigma2=1.0, law="onehot(k=2)"):
    return _json(capsys, ["certify", "--prior", law, "--theta", str(theta), "--alpha", str(alpha),
                          "--beta", str(beta), "--sigma2", str(sigma2)])


def _matches_numerical(doc, theta, alpha, beta=1.0, sigma2=1.0, law="onehot(k=2)"):
    """Every numerical equilibrium (find_subspace_equilibria, another seed and start count) lies in
    exactly one certified box of its location, with the same stability; the counts agree."""
    from sigrec.theory import find_subspace_equilibria

    eqs = find_subspace_equilibria(Model(theta, alpha, beta=beta, sigma2=sigma2, prior=law), n_random=12, seed=7)
    assert len(eqs) == len(doc["equilibria"])
    for e in eqs:
        hits = [b for b in doc["equilibria"] if b["location"] == e.kind
                and all(lo - 1e-12 <= x <= hi + 1e-12 for x, (lo, hi) in zip(e.r, b["r"], strict=True))]
        assert len(hits) == 1, e
        assert hits[0]["certified"] and hits[0]["stability"] == ("stable" if e.stable else "unstable")


@pytest.mark.parametrize("theta", [0.8, 0.9])
def test_certify_onehot2_on_both_sides_of_the_certified_transition(capsys, theta):
    doc = _certify(capsys, theta, 0.05)
    assert doc["complete"] is True and doc["certified"] is True
    for eq in doc["equilibria"]:
        assert set(eq) >= {"r", "kind", "stability", "certified"} and len(eq["r"]) == 2
        assert all(lo <= hi for lo, hi in eq["r"])
    mixture = [e for e in doc["equilibria"] if e["kind"] == "mixture+"]
    assert len(mixture) == 1 and all(lo <= 2 ** -0.5 <= hi for lo, hi in mixture[0]["r"])
    stable = sorted(e["kind"] for e in doc["equilibria"] if e["stability"] == "stable")
    if theta < THETA_C[0]:  # below: the mixture is the one stable state (certified bracket, another route)
        assert stable == ["mixture+"] and len(doc["equilibria"]) == 2
    else:  # above: it has turned unstable, two specialised states are stable
        assert stable == ["specialised(1)", "specialised(2)"] and mixture[0]["stability"] == "unstable"
    _matches_numerical(doc, theta, 0.05)


def test_certify_onehot2_away_from_beta_sigma2_one(capsys):
    doc = _certify(capsys, 1.4, 0.2, beta=1.3, sigma2=0.6)
    assert doc["complete"] is True and doc["model"]["beta"] == 1.3 and doc["model"]["sigma2"] == 0.6
    _matches_numerical(doc, 1.4, 0.2, 1.3, 0.6)


@pytest.mark.slow
def test_certify_human_output_says_complete_or_not(capsys):
    assert main(["certify", "--prior", "onehot(k=2)", "--theta", "3", "--alpha", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "7 equilibria" in out and "COMPLETE" in out and "NOT" not in out
    assert out.count(" stable ") == 3  # two specialised and the anti-mixture (docs/subspace-certificates.md)


@pytest.mark.parametrize("argv,word", [
    (["--theta", "0.8:1"], "ranges LO:HI (in --theta) are for scalar priors"),
    (["--theta", "1", "--alpha", "0.1:0.2"], "ranges LO:HI (in --alpha)"),
    (["--theta", "1", "--figure", "x.png"], "--figure needs a range"),
    (["--theta", "1", "--time-to", "0.5", "--rho0", "0.1"], "--time-to and --rho0 certify the flow time of one query"),
    (["--theta", "1:2", "--heads", "2"], "ranges LO:HI (in --theta)"),
])
def test_certify_subspace_refusals(capsys, argv, word):
    argv = ["certify", "--prior", "onehot(k=2)", *argv]
    if "--alpha" not in argv:
        argv += ["--alpha", "0.05"]
    assert word in _error(capsys, argv)


# ------------------------------------------------------------------------------------------
# simulate

SIM = ["simulate", "--prior", "onehot(k=2)", "--theta", "1.5", "--R", "10", "--L", "40", "--d", "30",
       "--beta", "1.5", "--sigma2", "0.8", "--eta0", "0.8", "--k0", "2", "--power", "0.6"]


@pytest.mark.parametrize("simulator", ["reduced", "full"])
def test_simulate_same_seed_same_numbers(capsys, simulator):
    argv = [*SIM, "--steps", "30", "--runs", "3", "--seed", "5", "--simulator", simulator]
    a, b = _json(capsys, argv), _json(capsys, argv)
    c = _json(capsys, [*argv[:-4], "--seed", "6", "--simulator", simulator])
    assert a["final_r"] == b["final_r"] and a["initial_r"] == b["initial_r"]
    assert np.array(a["final_r"]).shape == (3, 2) and a["final_r"] != c["final_r"]
    h = _json(capsys, [*argv, "--heads", "2"])
    assert h["final_M"] == _json(capsys, [*argv, "--heads", "2"])["final_M"]
    assert np.array(h["final_M"]).shape == (3, 2, 2) and np.array(h["final_principal_angles"]).shape == (3, 2)
    # the angles are those of the reported M (arccos of its singular values)
    for M, ang in zip(h["final_M"], h["final_principal_angles"], strict=True):
        assert np.allclose(np.sort(np.arccos(np.clip(np.linalg.svd(M, compute_uv=False), -1, 1))), ang, atol=1e-6)


def test_simulate_reduced_and_full_agree_in_law(capsys):
    from scipy import stats

    argv = [*SIM, "--steps", "5", "--runs", "500", "--heads", "2", "--r0", "0.5,0.1,-0.2,0.4"]
    red = _json(capsys, [*argv, "--seed", "11"])
    full = _json(capsys, [*argv, "--seed", "12", "--simulator", "full"])
    assert red["simulator"] == "reduced" and full["simulator"] == "full"
    assert red["initial_M"][0] == [[0.5, 0.1], [-0.2, 0.4]]
    A, B = np.array(red["final_M"]), np.array(full["final_M"])
    samples = [(A[:, i, j], B[:, i, j]) for i in range(2) for j in range(2)]
    samples += [(np.array(red["final_principal_angles"])[:, i], np.array(full["final_principal_angles"])[:, i])
                for i in range(2)]
    for a, b in samples:
        assert stats.ks_2samp(a, b).pvalue > 1e-3
        assert abs(a.mean() - b.mean()) < 4.5 * np.sqrt(a.var() / a.size + b.var() / b.size)
    # the comparison can fail: five steps move the overlaps away from the start
    start = np.full(A.shape[0], 0.5) + 1e-3 * np.arange(A.shape[0]) / A.shape[0]
    assert stats.ks_2samp(A[:, 0, 0], start).pvalue < 1e-3


def test_simulate_save_writes_the_trajectories(capsys, tmp_path):
    doc = _json(capsys, [*SIM, "--steps", "10", "--runs", "2", "--seed", "1", "--heads", "2", "--stride", "5",
                         "--save", str(tmp_path / "traj")])
    with np.load(tmp_path / "traj.npz") as z:
        assert z["overlaps"].shape == (2, 3, 2, 2) and list(z["record_steps"]) == [0, 5, 10]
        assert np.allclose(z["overlaps"][:, -1], doc["final_M"])


def test_simulate_heads_with_a_scalar_prior_is_k1(capsys):
    doc = _json(capsys, ["simulate", "--theta", "1.5", "--R", "10", "--L", "40", "--d", "30", "--steps", "20",
                         "--runs", "2", "--seed", "2", "--heads", "3"])
    M = np.array(doc["final_M"])
    assert doc["model"]["k"] == 1 and M.shape == (2, 1, 3)
    assert np.all(np.linalg.norm(M, axis=2) <= 1 + 1e-12)  # one signal direction: |M| <= 1 over the heads


@pytest.mark.parametrize("argv,word", [
    (["--r0", "0.3"], "`r0` must have 2 entries"),
    (["--r0", "0.9,0.9"], "`r0` must satisfy |r| <= 1"),
    (["--heads", "2", "--r0", "0.9,0,0,0.9,0.1"], "k x H = 4 entries"),
    (["--heads", "2", "--r0", "1,1,0,0"], "operator norm"),
    (["--rho0", "0.3"], "`rho0` is the start of one query on one signal direction"),
    (["--heads", "20"], "`d` must be"),
    (["--heads", "0"], "--heads"),
])
def test_simulate_subspace_refusals(capsys, argv, word):
    assert word in _error(capsys, [*SIM, "--steps", "5", "--runs", "2", *argv])


def test_simulate_subspace_on_workers_is_bit_identical_to_in_process(capsys):
    """One driver for every engine: the subspace runs split into blocks on a local cluster give
    the bits of the in-process run (each run draws only from its own SeedSequence child)."""
    argv = [*SIM, "--heads", "2", "--steps", "5", "--runs", "4", "--seed", "3"]
    inline = _json(capsys, argv)
    spread = _json(capsys, [*argv, "--workers", "2"])
    assert spread["final_M"] == inline["final_M"]
    assert spread["final_principal_angles"] == inline["final_principal_angles"]


def test_simulate_scalar_refuses_r0(capsys):
    line = _error(capsys, ["simulate", "--theta", "1", "--R", "2", "--L", "10", "--d", "5", "--steps", "2",
                           "--r0", "0.3"])
    assert "`r0`" in line


# ------------------------------------------------------------------------------------------
# predict

PRED = ["predict", "--prior", "onehot(k=2)", "--R", "5", "--L", "100", "--d", "50", "--steps", "400",
        "--stride", "100", "--eta0", "0.7", "--power", "0.6"]


def test_predict_one_head_path_and_certified_limit(capsys):
    from sigrec.theory import integrate_subspace_flow

    doc = _json(capsys, [*PRED, "--theta", "1.5", "--beta", "1.2", "--sigma2", "0.8", "--r0", "0.3,0.1"])
    model = Model(1.5, 0.05, beta=1.2, sigma2=0.8, prior="onehot(k=2)")
    assert doc["step"] == [0, 100, 200, 300, 400] and doc["r"][0] == [0.3, 0.1]
    eta = 0.7 / (np.arange(400) + 10.0) ** 0.6  # the schedule, written out here
    assert np.allclose(doc["time"], np.concatenate([[0], np.cumsum(eta)])[doc["step"]], rtol=1e-12)
    for t, r in zip(doc["time"][1:], doc["r"][1:], strict=True):  # the one-query flow, integrated in one piece
        assert np.allclose(r, integrate_subspace_flow(model, [0.3, 0.1], t_max=t).r, atol=1e-7)
    eq = doc["limit"]["equilibrium"]
    assert doc["limit"]["settled"] and eq["certified"] and eq["stability"] == "stable"
    assert eq["kind"] == "specialised(1)" and eq["location"] == "sphere" and eq["distance"] < 1e-8
    assert all(lo - 1e-8 <= x <= hi + 1e-8 for x, (lo, hi) in zip(doc["limit"]["r"], eq["r"], strict=True))
    assert "k = 1" in doc["note"]


def test_predict_below_the_transition_ends_at_the_mixture(capsys):
    doc = _json(capsys, [*PRED, "--theta", "0.8", "--r0", "-0.3,0.1"])
    eq = doc["limit"]["equilibrium"]
    assert eq["kind"] == "mixture+" and eq["stability"] == "stable" and eq["certified"]
    assert all(lo <= 2 ** -0.5 <= hi for lo, hi in eq["r"])


def test_predict_two_heads_recover_the_span(capsys):
    doc = _json(capsys, [*PRED, "--theta", "1.5", "--heads", "2", "--r0", "0.3,0.1,-0.2,0.4"])
    assert np.array(doc["M"]).shape == (5, 2, 2) and len(doc["principal_angles"]) == 5
    lim = doc["limit"]
    assert lim["settled"] and max(lim["principal_angles"]) < 1e-6  # docs/subspace-certificates.md section 3
    assert lim["equilibrium"]["stability"] == "stable" and lim["equilibrium"]["certified"] is False
    M = np.array(lim["M"])
    assert np.allclose(M.T @ M, np.eye(2), atol=1e-8)


@pytest.mark.parametrize("argv,word", [
    (["--r0", "0.3,0.1", "--rho0", "0.2"], "`rho0` is the scalar start"),
    ([], "`r0` is required"),
    (["--r0", "0.3,0.1", "--band-runs", "100"], "--band-runs"),
    (["--r0", "0.3,0.1", "--seed", "1"], "--seed"),
    (["--r0", "0.3,0.1,0.2"], "`r0` must have 2 entries"),
])
def test_predict_subspace_refusals(capsys, argv, word):
    assert word in _error(capsys, [*PRED, "--theta", "1.5", *argv])


def test_predict_scalar_needs_rho0(capsys):
    assert "`rho0` is required" in _error(capsys, ["predict", "--theta", "1", "--R", "2", "--L", "10", "--d", "5",
                                                  "--steps", "2"])


# ------------------------------------------------------------------------------------------
# phase


def test_phase_onehot2_brackets_the_closed_form_and_the_float_root(capsys, tmp_path):
    from sigrec.theory import critical_thetas

    beta, sigma2 = 1.3, 0.7
    doc = _json(capsys, ["phase", "--prior", "onehot(k=2)", "--n-alpha", "2", "--alpha-min", "1e-6", "--beta",
                         str(beta), "--sigma2", str(sigma2), "--out", str(tmp_path / "ph")])
    assert doc["all_certified"] and [b["alpha"] for b in doc["brackets"]] == pytest.approx([1e-6, 1.0])
    small, one = doc["brackets"]
    # alpha -> 0: beta theta_c = sqrt(k) (sqrt 5 - 1)/2, independent of sigma2 (docs/subspace.md section 4)
    assert beta * small["lo"] == pytest.approx(np.sqrt(2) * (np.sqrt(5) - 1) / 2, rel=1e-5)
    # alpha = 1: the float bisection of the closed-form eigenvalue (another route) lies in the bracket
    tc = float(critical_thetas(2, 1.0, beta, sigma2)[0])
    assert one["lo"] <= tc <= one["hi"] and one["hi"] - one["lo"] < 1e-9
    assert (tmp_path / "ph" / "phase.png").stat().st_size > 1000
    saved = json.loads((tmp_path / "ph" / "phase-subspace.json").read_text())
    assert saved["brackets"] == doc["brackets"]


@pytest.mark.parametrize("argv,word", [
    (["--prior", "gaussian(k=2, tau=1)"], "onehot(k) with equal probabilities"),
    (["--prior", "onehot(k=2, probs=[0.6, 0.4])"], "onehot(k) with equal probabilities"),
    (["--prior", "onehot(k=2)", "--grid"], "--grid"),
    (["--prior", "fixed", "--heads", "2"], "k-dimensional"),
])
def test_phase_subspace_refusals(capsys, tmp_path, argv, word):
    assert word in _error(capsys, ["phase", "--out", str(tmp_path / "x"), *argv])


# ------------------------------------------------------------------------------------------
# scalar-only commands


def _thresholds_refusal():
    from sigrec.theory import thresholds

    thresholds(1.0, prior="onehot(k=2)")


def _scalar_prior_refusal():
    Model(1.0, 0.5, prior="onehot(k=2)").prior  # noqa: B018 - what the scalar engines read


@pytest.mark.parametrize(("argv", "library_call"), [
    (["critical", "--theta", "1"], _thresholds_refusal),
    (["complexity", "--theta", "1", "--R", "5", "--L", "100", "--d", "50"], _scalar_prior_refusal),
])
def test_scalar_only_commands_refuse_a_k_dimensional_law(capsys, argv, library_call):
    """The command's line is the library's own refusal (``theory.thresholds``, which names the commands
    that answer a k-dimensional law; ``Model.prior``: the scalar engines take one query on one signal
    direction), not a check of the command line's."""
    line = _error(capsys, [*argv, "--prior", "onehot(k=2)"])
    with pytest.raises(ValueError) as library:
        library_call()
    assert line == f"error: {library.value}"


def test_predict_at_theta_zero_says_why_nothing_is_certified(capsys):
    doc = _json(capsys, [*PRED, "--theta", "0", "--r0", "0.1,0.2"])
    assert doc["limit"]["r"] == [0.1, 0.2] and "equilibrium" not in doc["limit"]
    assert "every r is an equilibrium" in doc["limit"]["not_certified"]
