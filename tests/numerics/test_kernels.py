"""What "bit-identical" promises across CPUs whose numpy kernels differ (docs/design.md 8).

The same seed gives the same bits for any worker count on one machine (tests in
``test_parallel.py`` and ``test_executor.py``). Across CPUs, numpy's SIMD kernels of
``exp``, ``tanh``, ``arctanh`` may round differently in the last place, so the promise is:
the random draws and the starts are bit-identical, exact-by-construction values (a zero
horizon, a fixed point) are exact, and every simulated or integrated number agrees to a
few ulps amplified by the dynamics (here within 1e-12). This test runs the same unit in a
subprocess with the AVX-512 kernels disabled and compares.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from .._kernels import avx512_targets

UNIT = r"""
import json, numpy as np
from sigrec.numerics import Problem, Schedule, flow_map, simulate
from sigrec.theory import Model
p = Problem(theta=0.9, R=40, L=400, d=12, beta=1.4, sigma2=0.7, prior="rademacher")
sim = simulate(p, Schedule(eta0=0.5, k0=10, power=0.8), steps=60, runs=6, seed=3)
m = Model(theta=0.9, alpha=0.1, beta=1.4, sigma2=0.7)
starts = np.linspace(-0.95, 0.95, 39)
fm = flow_map(m, starts, np.r_[0.0, np.full(38, 0.3)])
normals = np.random.default_rng(5).standard_normal(1000)
print(json.dumps({"initial": sim.initial_rho.tolist(), "final": sim.final_rho.tolist(),
                  "noise": sim.noise_mass[:, -1].tolist(), "flow": fm.rho.tolist(),
                  "normals": normals.tolist()}))
"""


def _run(disable: str | None) -> dict:
    env = dict(os.environ)
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    if disable:
        env["NPY_DISABLE_CPU_FEATURES"] = disable
    out = subprocess.run([sys.executable, "-c", UNIT], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout)


@pytest.mark.skipif(not avx512_targets(), reason="this CPU runs no AVX-512 kernels: nothing to compare")
def test_avx2_kernels_give_the_same_draws_and_numbers_within_ulps():
    here, other = _run(None), _run(" ".join(avx512_targets()))
    # exact by construction: random draws, uniform starts, Phi_0(rho) = rho
    assert here["normals"] == other["normals"]
    assert here["initial"] == other["initial"]
    assert here["flow"][0] == other["flow"][0] == -0.95
    # transcendental kernels may differ by ulps; the dynamics must not amplify that
    for key in ("final", "noise", "flow"):
        np.testing.assert_allclose(here[key], other[key], rtol=0, atol=1e-12, err_msg=key)
