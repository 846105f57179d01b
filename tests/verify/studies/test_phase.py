import json

import numpy as np
from hypothesis import given, settings

from sigrec.numerics import simulate
from sigrec.theory import certify, evaluate
from sigrec.verify.cli._main import main
from sigrec.verify.strategies import models, simulation_configs
from sigrec.verify.studies._phase import phase_diagram


def test_small_phase_diagram_agrees_with_closed_form():
    pd = phase_diagram(n_theta=8, n_alpha=6, theta_max=3.0)
    assert pd.certified.all()
    assert pd.disagreements == 0
    assert {"monotone", "bistable"} <= set(pd.status.ravel())
    # beta*theta <= 1: monotone at every alpha, and no closed-form boundary there
    weak = pd.thetas <= 1.0
    assert (pd.status[:, weak] == "monotone").all() and np.isnan(pd.boundary[weak]).all()


def test_phase_command_writes_csv_and_figure(tmp_path, capsys):
    rc = main(["phase", "--n-theta", "4", "--n-alpha", "3", "--out", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0 and doc["disagreements_with_closed_form"] == 0
    rows = (tmp_path / "phase.csv").read_text().splitlines()
    assert rows[0].startswith("theta,alpha,status") and len(rows) == 1 + 4 * 4
    assert (tmp_path / "phase.png").stat().st_size > 1000


def test_phase_bad_input(capsys):
    assert main(["phase", "--alpha-min", "2", "--out", "/tmp/x-sigrec-phase"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


@settings(max_examples=30, deadline=None)
@given(models(theta=(0.0, 0.9), beta=(0.05, 1.0), prior="fixed"))  # beta*theta < 1 strictly
def test_user_style_property_weak_signal_is_monotone(model):
    assert certify(model).status in ("monotone", "degenerate")


@settings(max_examples=10, deadline=None)
@given(simulation_configs(steps=(1, 5), runs=(1, 3), L=(2, 50), d=(2, 6)))
def test_simulation_configs_are_valid_and_run(cfg):
    sim = simulate(cfg["problem"], cfg["schedule"], steps=cfg["steps"], runs=cfg["runs"],
                   rho0=cfg["rho0"], seed=cfg["seed"])
    assert sim.rho.shape[0] == cfg["runs"] and np.all(np.abs(sim.rho) <= 1 + 1e-12)
    evaluate(cfg["problem"].model, sim.rho[:, -1].clip(-1, 1))
