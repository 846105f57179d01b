"""complexity says what its plateau means for each schedule kind; the schedule search reports progress."""

from __future__ import annotations

import re

import numpy as np

from sigrec.numerics import Problem, Schedule, SearchBudget, complexity, diffusion_tables, optimize_schedule
from sigrec.numerics._diffusion._tables import plateau_at

P = Problem(0.5, 300, 3300, 30)


def test_a_decaying_schedule_whose_plateau_is_below_the_target_says_when_it_reaches_it():
    sched = Schedule(eta0=80.0, k0=200.0, power=1.0)
    c = complexity(P, sched, 0.1, 0.99, runs=400, seed=1)
    assert c.plateau < 0.99 and np.isfinite(c.median_steps)
    assert c.plateau_eta == float(sched.eta(np.array(c.q90_steps)))
    note = c.plateau_note
    assert "decaying step moves it up towards 1" in note and "first passages are fluctuations" in note
    eta_star = float(re.search(r"reaches it at eta = ([0-9.e+-]+)", note).group(1))
    k_star = float(re.search(r"from step k ~ ([0-9,]+)", note).group(1).replace(",", ""))
    tab = diffusion_tables(P)
    # the plateau crosses the target at eta_star (printed to 3 digits), and the schedule has that step at k*
    assert plateau_at(tab, eta_star * 0.99) >= 0.99 > plateau_at(tab, eta_star * 1.01)
    assert abs(float(sched.eta(np.array(k_star))) / eta_star - 1) < 0.01
    assert c.as_dict()["plateau_note"] == note


def test_above_the_target_and_at_a_constant_step_the_note_says_so():
    decaying = complexity(P, Schedule(eta0=20.0, k0=200.0, power=1.0), 0.1, 0.99, runs=400, seed=1)
    assert decaying.plateau >= 0.99 and decaying.plateau_note.endswith("it lies above the target 0.99 there")
    constant = complexity(P, Schedule.constant(0.02), 0.1, 0.95, runs=400, seed=1)
    assert constant.plateau_note.startswith("the stable zero of the drift at the constant step eta = 0.02")
    assert "lies above the target 0.95" in constant.plateau_note


def test_the_schedule_search_reports_each_candidate():
    seen = []
    search = optimize_schedule(P, 0.1, 0.95, start=Schedule(eta0=20.0, k0=200.0, power=1.0),
                               budget=SearchBudget(runs=40, final_runs=40, horizon=3000, refine=1, maxfev=4),
                               progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = [s for s, _, _ in seen]
    assert stages[0] == "start" and "grid" in stages and stages[-1] == "final"
    dones = [d for _, d, _ in seen]
    assert dones == sorted(dones) and len({t for _, _, t in seen}) == 1 and dones[-1] <= seen[-1][2]
    assert search.candidates == sum(s != "final" for s in stages)
