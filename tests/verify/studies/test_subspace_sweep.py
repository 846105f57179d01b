"""The subspace sweep over theta (verify/studies/_sweep/_subspace.py, ``sigrec sweep --prior
'onehot(k=2)'``): the fraction of runs that specialise jumps across the certified theta_c."""

import json
import math

import numpy as np
import pytest

from sigrec.theory import critical_thetas
from sigrec.verify.cli import main
from sigrec.verify.studies import SubspaceSweepSpec, run_subspace_sweep
from sigrec.verify.studies._sweep import specialisation_index

#: alpha = 500 / 10,000 = 0.05: theta_c = 0.85566 (docs/subspace-certificates.md); at L = 2000 the
#: fluctuation floor around the mixture reaches the specialisation threshold, at L = 10,000 it does not
TINY = {"R": 500, "L": 10_000, "d": 10, "runs": 4, "steps": 1500}


def test_specialisation_index():
    assert specialisation_index([0.7071, 0.7071]) == pytest.approx(0.0, abs=1e-4)
    assert specialisation_index([0.0, -0.5]) == pytest.approx(1 - 1 / math.sqrt(2))
    assert specialisation_index(np.array([[1.0, 0, 0], [0.5, 0.5, 0.5]])) == pytest.approx([1 - 1 / math.sqrt(3), 0])


def test_spec_refusals():
    with pytest.raises(ValueError, match="k-dimensional"):
        SubspaceSweepSpec("fixed", (1.0,), R=10, L=100, d=5)
    with pytest.raises(ValueError, match="`R`"):
        SubspaceSweepSpec("onehot(k=2)", (1.0,), R=200, L=100, d=5)
    with pytest.raises(ValueError, match="`d`"):
        SubspaceSweepSpec("onehot(k=2)", (1.0,), R=10, L=100, d=3)


def test_fraction_specialised_jumps_across_theta_c(tmp_path):
    spec = SubspaceSweepSpec("onehot(k=2)", (0.5, 1.3), seed=5, **TINY)
    res = run_subspace_sweep(spec, tmp_path / "s")
    lo, hi = res.theta_c
    (tc,) = critical_thetas(2, 0.05)  # the float root, by bisection of the closed form (independent route)
    assert lo <= tc <= hi and hi - lo < 1e-9
    below, above = res.cells
    assert below["predicted"] == "mixture" and above["predicted"] == "specialised"
    assert below["fraction_specialised"] <= 0.25 and above["fraction_specialised"] >= 0.75
    assert res.computed == 2 and res.skipped == 0
    again = run_subspace_sweep(spec, tmp_path / "s")  # resumes: nothing recomputed, the same cells
    assert again.computed == 0 and again.skipped == 2 and again.cells == res.cells
    with pytest.raises(ValueError, match="another sweep"):
        run_subspace_sweep(SubspaceSweepSpec("onehot(k=2)", (0.5,), seed=6, **TINY), tmp_path / "s")


def test_a_damaged_cell_is_recomputed(tmp_path):
    spec = SubspaceSweepSpec("onehot(k=2)", (1.3,), R=100, L=2000, d=10, runs=2, steps=50, seed=1)
    first = run_subspace_sweep(spec, tmp_path / "s")
    (tmp_path / "s" / "cell-0.json").write_text("{not json")
    again = run_subspace_sweep(spec, tmp_path / "s")
    same = [{k: v for k, v in c.items() if k != "seconds"} for c in (first.cells[0], again.cells[0])]
    assert again.computed == 1 and same[0] == same[1]  # the same seed gives the same cell


def test_cli_route(tmp_path, capsys):
    rc = main(["sweep", "--prior", "onehot(k=2)", "--theta", "1.3", "--R", "100", "--L", "2000", "--d", "10",
               "--runs", "2", "--steps", "50", "--store", str(tmp_path / "s"), "--json"])
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    doc = json.loads(cap.out)
    assert doc["spec"]["prior"] == "onehot(k=2)" and len(doc["cells"]) == 1 and doc["cells"][0]["predicted"] == \
        "specialised"
    rc = main(["sweep", "--prior", "onehot(k=2)", "--theta", "1.3", "--R", "100", "--L", "2000", "--d", "3", "10",
               "--store", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error:") and "`d`" in err
