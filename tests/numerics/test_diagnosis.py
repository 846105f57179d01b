"""Every reason to refuse a first-passage number lives in the library's result.

``numerics.complexity``, ``optimize_schedule``, ``scaling_exponents``, ``time_to_alignment`` and
``certified_crossing`` carry ``status`` and ``reason``; ``sigrec complexity`` only prints the reason.
Here: the library refuses exactly what the command refuses (the same sentence; each refusal of
``tests/verify/cli/test_complexity.py`` also compares the library's), an unconverged
quadrature gives a refusal and no number (and no warning), an ok result keeps the numbers of an
independent assembly of the same public pieces, and the one stable-zero search is right where
its zeros are known.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

from sigrec.numerics import (
    Problem,
    Schedule,
    SearchBudget,
    censored_quantile,
    certified_crossing,
    complexity,
    corrected_drift,
    crossing_step,
    diffusion_tables,
    optimize_schedule,
    simulate_diffusion,
    start_law,
    time_to_alignment,
)
from sigrec.numerics._diffusion import stable_zeros
from sigrec.numerics._diffusion._diagnosis import MAX_GUIDE_STEPS, ode_steps
from sigrec.numerics._diffusion._tables import plateau_at
from sigrec.theory import certified_basin, certified_time
from sigrec.verify.cli._main import main


def _cli_reason(argv) -> str:
    """The command's one error line without ``error: `` (it must refuse)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["complexity", *argv, "--json"])
    lines = err.getvalue().splitlines()
    assert code == 2 and out.getvalue() == "" and len(lines) == 1 and lines[0].startswith("error: "), err.getvalue()
    return lines[0][len("error: "):]


# --- the library refuses what the command refuses, in the same words --------------------------


def test_a_median_passage_above_a_constant_steps_plateau_is_refused_by_the_library():
    c = complexity(Problem(theta=0.5, R=100, L=900, d=5), Schedule.constant(0.5), None, 0.999)
    assert c.status == "refused" and c.as_dict()["status"] == "refused"
    # the numbers are still there (a median of about 57 steps), but they are not a prediction
    assert math.isfinite(c.median_steps)
    assert c.reason == _cli_reason(["--theta", "0.5", "--R", "100", "--L", "900", "--d", "5", "--eta0", "0.5",
                                    "--power", "0", "--target", "0.999"])
    assert c.reason.startswith("`target` = 0.999 lies above the plateau 0.851492 ")
    assert c.as_dict()["reason"] == c.reason
    # independent: the plateau in the sentence is the stable zero of the corrected drift at eta 0.5
    drift = corrected_drift(Problem(theta=0.5, R=100, L=900, d=5))
    zero = brentq(lambda r: float(drift(r, 0.5)), 0.5, 0.99, xtol=1e-15)
    assert zero == pytest.approx(0.851492, abs=1e-6)


def test_an_ok_result_has_no_reason_and_keeps_the_numbers_of_the_public_pieces():
    p, s = Problem(theta=0.5, R=100, L=900, d=5), Schedule(eta0=10.0, k0=100.0, power=1.0)
    c = complexity(p, s, 0.1, 0.99, runs=300, horizon=3000, seed=4)
    assert (c.status, c.reason) == ("ok", "") and c.as_dict()["status"] == "ok"
    # independent assembly of the same public pieces: the starts and the paths on one generator,
    # the censored quantiles, and the plain ODE's crossing time on the schedule's time axis
    rng = np.random.default_rng(4)
    r0 = start_law(p.d).starts(rng, 300, 0.1)
    run = simulate_diffusion(diffusion_tables(p), s.eta(np.arange(3000)), r0, level=0.99, seed=rng, stop_fraction=0.9)
    hits = run.first_passage[0]
    assert (c.median_steps, c.q10_steps, c.q90_steps) == tuple(censored_quantile(hits, q) for q in (0.5, 0.1, 0.9))
    t = float(time_to_alignment(p.model, 0.1, 0.99).time)
    assert c.plain_ode_steps == float(np.searchsorted(s.times(3000), t))
    assert c.reached == float((hits >= 0).mean())


def test_a_search_without_a_feasible_candidate_is_refused_by_the_library():
    p, s = Problem(theta=0.5, R=100, L=900, d=5), Schedule(eta0=10.0, k0=100.0, power=1.0)
    r = optimize_schedule(p, 0.1, 0.99, start=s, budget=SearchBudget(final_runs=100, horizon=3), seed=0)
    assert r.status == "refused" and r.feasible == 0 and r.best is r.start and not r.improved
    assert r.as_dict()["reason"] == r.reason == _cli_reason(
        ["--theta", "0.5", "--R", "100", "--L", "900", "--d", "5", "--eta0", "10", "--k0", "100", "--power", "1",
         "--rho0", "0.1", "--runs", "100", "--horizon", "3", "--optimize"])
    # the start's own result says why it has no numbers within 3 steps
    assert r.best.status == "refused" and r.best.reason.startswith("`horizon` = 3 is too short")


@pytest.mark.parametrize("call, parameter", [
    (lambda p: complexity(p, Schedule(), 2.0), "`rho0` must lie in [-1, 1], got 2.0"),
    (lambda p: complexity(Problem(theta=0.5, R=0, L=900, d=5), Schedule()), "`R` must be >= 1"),
    (lambda p: complexity(p, Schedule(), None, 1.5), "`target` must lie in (0, 1)"),
    (lambda p: optimize_schedule(p, -3.0), "`rho0` must lie in [-1, 1], got -3.0"),
    (lambda p: certified_crossing(p.model, Schedule(), 0.1, 1.0), "`target` must lie in (0, 1)"),
    (lambda p: certified_crossing(p, Schedule(), 0.1, 0.9), "`model`"),
], ids=["rho0", "R", "target", "search-rho0", "crossing-target", "crossing-model"])
def test_bad_input_still_raises_at_the_boundary(call, parameter):
    with pytest.raises(ValueError) as exc:
        call(Problem(theta=0.5, R=100, L=900, d=5))
    assert str(exc.value).startswith(parameter)


# --- an unconverged quadrature: a refusal, no number, no warning --------------------------------


def _rough_slope(model, rho):
    """A positive slope ``j'`` that oscillates 1e4 times faster than ``y = atanh(rho)``: ``quad``
    cannot meet its tolerance on ``1 / j'`` (no interior equilibrium, every start flows to +1)."""
    return 1.0 + 0.999 * np.sin(1e4 * np.arctanh(np.clip(rho, -0.999999, 0.999999)))


def test_an_unconverged_crossing_time_is_refused_not_returned(monkeypatch):
    from sigrec.numerics._ode import _field

    model = Problem(theta=0.5, R=100, L=900, d=5).model
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scipy's IntegrationWarning must not leave the library
        honest = time_to_alignment(model, [0.1, 0.995], 0.99)
        monkeypatch.setattr(_field, "_slope", _rough_slope)
        hit = time_to_alignment(model, [0.1, 0.3, 0.995], 0.99, equilibria=())
    assert (honest.status, honest.reason) == ("ok", "") and honest.converged.all()
    assert hit.status == "refused" and list(hit.converged) == [False, False, True]
    # no finite wrong time: nan where the quadrature failed, the exact 0 where none was needed
    assert np.isnan(hit.time[:2]).all() and hit.time[2] == 0.0 and np.isinf(hit.abserr[:2]).all()
    assert hit.reason.startswith("`rho0` = 0.1 (and 1 more of the 3 starts), `level` = 0.99: the limit ODE's "
                                 "crossing time cannot be computed (its quadrature does not converge")


def test_complexity_refuses_an_unconverged_plain_ode_time_as_the_command_does(monkeypatch):
    from sigrec.numerics._ode import _field

    monkeypatch.setattr(_field, "_slope", _rough_slope)  # the diffusion's drift is theory's, not this
    p, s = Problem(theta=0.5, R=100, L=900, d=5), Schedule(eta0=10.0, k0=100.0, power=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = complexity(p, s, 0.1, 0.99, runs=100)
        line = _cli_reason(["--theta", "0.5", "--R", "100", "--L", "900", "--d", "5", "--eta0", "10", "--k0", "100",
                            "--power", "1", "--runs", "100", "--rho0", "0.1"])
    assert c.status == "refused" and math.isnan(c.plain_ode_steps) and c.as_dict()["plain_ode_steps"] is None
    assert c.reason == line and line.startswith("`rho0` = 0.1, `target` = 0.99: the limit ODE's crossing time cannot "
                                                "be computed (its quadrature does not converge: ")


def test_a_start_next_to_an_unstable_equilibrium_is_ok_and_gets_its_log_time():
    # rademacher, rho0 = 1e-20 from the unstable equilibrium 0: the quadrature in log|y - y*|
    # converges (this start once gave an unconverged, several times too small time)
    model = Problem(theta=0.5, R=20, L=300, d=3, prior="rademacher").model
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        near = time_to_alignment(model, [1e-20, -1e-20], 0.5)
        t3, t6 = (float(time_to_alignment(model, r, 0.5).time) for r in (1e-3, 1e-6))
    assert (near.status, near.reason) == ("ok", "") and near.converged.all()
    # independent: near the equilibrium the time grows like log(1 / rho0) / c, c from two far starts
    rate = (t6 - t3) / math.log(1e3)
    assert near.time == pytest.approx([t6 + rate * math.log(1e14)] * 2, rel=1e-4)


# --- the certified plain-ODE crossing step ---------------------------------------------------


def test_the_certified_crossing_step_brackets_the_float_step_of_the_schedule():
    p, s = Problem(theta=0.5, R=100, L=900, d=5), Schedule(eta0=10.0, k0=100.0, power=1.0)
    cc = certified_crossing(p.model, s, 0.1, 0.99)
    assert (cc.status, cc.reason, cc.rho1) == ("ok", "", 0.99)
    # independent: the float time of the limit ODE, looked up on the schedule's own time axis
    k = int(np.searchsorted(s.times(10_000), float(time_to_alignment(p.model, 0.1, 0.99).time)))
    assert cc.step.k_lo <= k <= cc.step.k_hi <= cc.step.k_lo + 1
    # and the pieces it composes, called one by one
    assert cc.step == crossing_step(s, certified_time(p.model, 0.1, 0.99))
    d = cc.as_dict()
    assert d == {**cc.step.as_dict(), "rho1": 0.99, "status": "ok", "reason": ""}


def test_the_certified_crossing_is_refused_with_the_certifiers_words():
    p = Problem(theta=0.5, R=100, L=900, d=5, prior="rademacher")
    uniform = certified_crossing(p.model, Schedule(), None, 0.99)
    assert uniform.status == "refused" and uniform.reason == "uniform starts: the crossing step depends on the start"
    assert uniform.as_dict() == {"status": "refused", "reason": uniform.reason} and uniform.step is None
    at_rest = certified_crossing(p.model, Schedule(), 0.0, 0.99)  # the equilibrium of the symmetric prior
    assert certified_basin(p.model, 0.0).direction == 0  # so the crossing is sought towards +0.99
    with pytest.raises(ValueError) as exc:  # what the certifier says, called directly
        certified_time(p.model, 0.0, 0.99)
    assert (at_rest.status, at_rest.reason) == ("refused", str(exc.value))
    past = certified_crossing(p.model, Schedule(), 0.995, 0.99)  # already past the target: step 0
    assert past.status == "ok" and past.rho1 == 0.995 and (past.step.k_lo, past.step.k_hi) == (0, 0)


# --- the one stable-zero search --------------------------------------------------------------


def test_stable_zeros_and_where_the_drift_carries_each_start():
    # zeros at a = -0.60025 (stable), b = 0.10025 (unstable), c = 0.70025 (stable), inside cells of the
    # grid (width 0.001): the drift -(r - a)(r - b)(r - c), whose linear interpolation is exact to 1e-6
    a, b, c = -0.60025, 0.10025, 0.70025
    grid = np.linspace(-1.0, 1.0, 2001)
    z = stable_zeros(grid, -(grid - a) * (grid - b) * (grid - c))
    assert z.zeros == pytest.approx([a, c], abs=1e-6)
    starts = np.array([-1.0, -0.9, -0.59, 0.0, 0.09, 0.11, 0.5, 0.69, 0.71, 1.0])
    assert z.carried(starts) == pytest.approx([a] * 5 + [c] * 5, abs=1e-6)
    assert z.held(starts, 0.65) == (0.5, pytest.approx(-a, abs=1e-6))  # the five carried to a
    assert z.held(starts, 0.5) == (0.0, 0.0)
    i, j = z.attractor(1.0), z.attractor(-1.0)
    assert grid[i] < c < grid[i + 1] and grid[j] < a < grid[j + 1]
    # the drift pushes every start up: the pole +1, and no attractor of -1
    up = stable_zeros(grid, np.ones_like(grid))
    assert up.cells.size == 0 and (up.carried(starts) == 1.0).all() and up.attractor(-1.0) is None


def test_the_plateau_is_the_stable_zero_of_the_corrected_drift():
    p = Problem(theta=0.5, R=100, L=900, d=5)
    tab, drift = diffusion_tables(p), corrected_drift(p)
    for eta in (0.05, 0.5):
        zero = brentq(lambda r, e=eta: float(drift(r, e)), 0.5, 1 - 1e-12, xtol=1e-15)
        # the grid's linear interpolation (cell width 5e-4) against root finding on the same splines
        assert plateau_at(tab, eta) == pytest.approx(zero, abs=1e-5)
        assert stable_zeros(tab.grid, drift(tab.grid, eta)).held([0.2], 0.999)[1] == plateau_at(tab, eta)


def test_the_guide_step_count_inverts_the_schedules_time_axis():
    for s in (Schedule.constant(0.3), Schedule(2.0, 10.0, 1.0), Schedule(0.5, 10.0, 0.75)):
        t = float(s.times(5000)[-1])
        # independent: the schedule's own cumulative sum reaches t at step 5000; the guide is the
        # integral of the step sizes from 0, which lags the sum by about half a first step (6% at k0 = 10)
        assert ode_steps(s, t) == pytest.approx(5000, rel=0.06)
    assert ode_steps(Schedule(0.01, 10.0, 2.0), 1.0) is None  # the total time 0.01 * 10^-1 is shorter
    assert not ode_steps(Schedule(1.0, 10.0, 1.0), 1e4) < MAX_GUIDE_STEPS  # k0 e^(t / eta0) beyond float range
