"""Test-suite hooks.

``SIGREC_TEST_CPU=PATH``: record the CPU seconds of every test (setup + call + teardown, so a
module fixture counts on the test that first uses it) as JSON lines appended to
``PATH.<worker>`` (one file per xdist worker). CPU seconds, unlike wall time, do not depend on
what else the machine runs: ``time.process_time()`` of this process plus the user + system time
of its waited-for child processes (``RUSAGE_CHILDREN``: the CLI subprocesses and the test dask
cluster, counted when they exit). A last line ``{"session": ...}`` holds the whole process's
CPU seconds, collection and imports included. Off by default. The processes this one never
waits for (the worker processes of a local dask cluster that ``workers=2`` or a command without
``--workers 1`` starts) are counted apart, as ``live``: the growth of the CPU seconds of the
live descendants during the test (``psutil``; a descendant that exits is counted by whichever
process waits for it).

The result cache of ``sigrec verify`` (``verify.suite.ResultStore``) is off for every test
(``SIGREC_RESULT_CACHE=off``, inherited by the commands the tests start): its key cannot see a
function a test patches, so a test that wants it turns it on in a folder of its own.

Local dask clusters (``sigrec.numerics``'s process-wide ``LocalCluster``, kept for the life of
the process) are closed after the last test of a file: idle, a 2-worker cluster still spends
about 8% of a core on heartbeats, which over a whole run cost more than starting one per file.
"""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

_OUT = os.environ.get("SIGREC_TEST_CPU")
os.environ["SIGREC_RESULT_CACHE"] = "off"


def _cpu() -> tuple[float, float]:
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), ch.ru_utime + ch.ru_stime


def _live() -> dict[int, float]:
    """CPU seconds of each live descendant process (its own and its waited-for children's)."""
    import psutil

    seen = {}
    for p in psutil.Process().children(recursive=True):
        try:
            t = p.cpu_times()
            seen[p.pid] = t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return seen


if _OUT:
    _START = _cpu()

    def _write(config, record) -> None:
        worker = getattr(config, "workerinput", {}).get("workerid", "main")
        with open(f"{_OUT}.{worker}", "a") as f:
            f.write(json.dumps(record) + "\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item, nextitem):
        own0, ch0 = _cpu()
        live0 = _live()
        w0 = time.perf_counter()
        yield
        own1, ch1 = _cpu()
        live1 = _live()
        # a descendant that exited was waited for by this process or by a live descendant,
        # whose CPU count now holds its whole lifetime: only its growth counts here
        live = sum(t - live0.get(pid, 0.0) for pid, t in live1.items()) \
            - sum(t for pid, t in live0.items() if pid not in live1)
        _write(item.config, {"test": item.nodeid, "file": item.location[0], "own": round(own1 - own0, 3),
                             "children": round(ch1 - ch0, 3), "live": round(live, 3),
                             "wall": round(time.perf_counter() - w0, 3)})

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(session):
        own1, ch1 = _cpu()
        _write(session.config, {"session": True, "own": round(own1 - _START[0], 3),
                                "children": round(ch1 - _START[1], 3)})


# --- one real dask cluster per test process ------------------------------------------


class _SharedCluster:
    """The :class:`tests._cluster.TestCluster` of this test process, started when a test first
    asks for it and shared by the tests that follow it, across files (starting a scheduler and
    two workers costs several CPU seconds). It is closed after the last of a run of consecutive
    tests that use it: an idle cluster still spends CPU on heartbeats, in proportion to the time
    it lives. A cluster closer than half its lifetime to being retired (``_cluster.LIFETIME_S``),
    or that lost a process, is replaced first."""

    def __init__(self, factory):
        self.factory = factory
        self.current = None
        self.born = 0.0

    def get(self):
        from ._cluster import LIFETIME_S, TestCluster

        c = self.current
        if c is not None and (time.monotonic() - self.born > LIFETIME_S / 2 or c.scheduler.poll() is not None
                              or any(p.poll() is not None for p in c.workers.values())):
            c.close()
            c = self.current = None
        if c is None:
            c = self.current = TestCluster(self.factory.mktemp("dask"), workers=2)
            self.born = time.monotonic()
        return c

    def close(self):
        if self.current is not None:
            self.current.close()
            self.current = None


_HOLDERS: list[_SharedCluster] = []


@pytest.fixture(scope="session")
def _shared_cluster(tmp_path_factory):
    holder = _SharedCluster(tmp_path_factory)
    _HOLDERS.append(holder)
    try:
        yield holder
    finally:
        holder.close()
        _HOLDERS.remove(holder)


def pytest_runtest_teardown(item, nextitem):
    """Close the shared cluster unless the next test of this process uses it too, and the local
    dask clusters after the last test of a file."""
    if nextitem is None or "cluster" not in getattr(nextitem, "fixturenames", ()):
        for holder in _HOLDERS:
            holder.close()
    if nextitem is None or nextitem.path != item.path:
        import sys

        clusters = sys.modules.get("sigrec.numerics._parallel._cluster")
        if clusters is not None and clusters._LOCAL:
            clusters.shutdown_local()


@pytest.fixture
def cluster(_shared_cluster):
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (tests/_cluster.py),
    shared by the tests of this process; a test that kills a worker restores it."""
    c = _shared_cluster.get()
    yield c
    if len(c.workers) < 2:  # a test stopped between killing a worker and restoring it
        c.close()
        _shared_cluster.current = None


# --- the heavy tests: out of the default run, run by CI -------------------------------------
#
# The default run (README's test command) must end within about 5 minutes on 2 cores. These tests
# cost 3 CPU-seconds or more each (measured with SIGREC_TEST_CPU on an idle 2-core machine; a test
# listed by its function runs all its parameters), and they are marked ``heavy``: the default
# run leaves them out and ``.ci/run`` runs them after it (``python -m pytest -m heavy``), so CI
# still checks everything. Whole modules whose shared fixture is the cost are listed in
# ``HEAVY_MODULES`` (marking their first test would move the fixture onto the next). Kept in the
# default run on purpose: one real-cluster test (a worker killed mid-task) and the refusal of an
# address nobody listens on.

HEAVY_MODULES = (
    "tests/verify/render/test_notes.py",  # the appendix's sympy setup, ~50 CPU-s
    "tests/verify/render/test_landscape_figure.py",  # the fixed prior's region certificate, drawn: ~6 CPU-s
    "tests/verify/studies/test_validate.py",  # the validation records, ~45 CPU-s
    "tests/theory/test_region_k2_taylor.py",  # the k = 2 field's programs and their balls, ~6 CPU-s of setup
)

HEAVY = (
    "tests/contracts/test_addresses.py::test_real_scheduler_is_taken_and_a_worker_is_refused",
    "tests/contracts/test_addresses.py::test_tcp_services_that_are_not_schedulers_are_refused",
    "tests/contracts/test_fuzz.py::test_predict_large_beta_stiff",
    "tests/contracts/test_fuzz_addresses.py::test_complexity_edges_quick",
    "tests/contracts/test_fuzz_inputs.py::test_cli_names_quick",
    "tests/contracts/test_fuzz_stores.py::test_store_damage_fuzz_quick",
    "tests/contracts/test_hostile_input.py::test_predict_intermediate_overflow_is_silent",
    "tests/contracts/test_hostile_input.py::test_predict_stiff_equilibrium_at_zero",
    "tests/contracts/test_hostile_input.py::test_rademacher_nuisance_mass_matches_mp",
    "tests/contracts/test_numbers.py::test_optimized_complexity_has_numbers_where_the_reported_schedule_is",
    "tests/contracts/test_store_damage.py::test_a_deleted_data_chunk_is_recomputed",
    "tests/numerics/test_diffusion.py::test_fluctuation_and_hitting_checks_pass_and_fail_on_a_variance_wrong_by_two",
    "tests/numerics/test_diffusion.py::test_splitting_check_is_not_applicable_to_a_monotone_model",
    "tests/numerics/test_effective.py::test_check_fails_on_a_wrong_drag",
    "tests/numerics/test_effective.py::test_plateau_away_from_beta_one_matches_the_exact_chain",
    "tests/numerics/test_effective.py::test_second_order_tilting_matches_quadrature",
    "tests/numerics/test_effective.py::test_step_expansion_is_drift_minus_half_eta_rho_Y",
    "tests/numerics/test_executor.py::test_a_single_cell_sweep_fans_out_and_equals_in_process",
    "tests/numerics/test_executor.py::test_phase_columns_on_two_workers_equal_in_process",
    "tests/numerics/test_executor.py::test_reproduce_configurations_on_the_cluster_equal_in_process",
    "tests/numerics/test_executor.py::test_scheduler_and_inline_agree_bit_for_bit",
    "tests/numerics/test_executor.py::test_sweep_on_the_cluster_equals_in_process",
    "tests/numerics/test_executor.py::test_verify_cases_on_the_cluster_equal_in_process",
    "tests/numerics/test_executor.py::test_verify_progress_is_relayed_from_the_workers",
    "tests/numerics/test_jitcache.py::test_loops_are_cached_in_the_private_folder_and_a_planted_index_does_not_run",
    "tests/numerics/test_jitcache.py::test_the_command_line_says_the_cache_is_off_in_one_warning_line",
    "tests/numerics/test_kernels.py::test_avx2_kernels_give_the_same_draws_and_numbers_within_ulps",
    "tests/numerics/test_measured.py::test_inside_validity_the_measured_law_is_the_expansion",  # derives the drag
    "tests/numerics/test_parallel.py::test_workers_do_not_change_the_result",
    "tests/numerics/test_planner.py::test_an_infeasible_plan_names_the_starts_that_fail_and_what_would_decide_them",
    "tests/numerics/test_planner.py::test_plan_is_decisive_and_the_simulation_agrees",
    "tests/numerics/test_region_tasks.py::test_a_real_scheduler_and_workers_give_the_serial_boxes",
    "tests/numerics/test_search.py::test_a_start_the_grid_cannot_match_is_never_made_worse",
    "tests/numerics/test_search.py::test_the_issue_example_is_improved_on_the_same_paths_and_never_worse",
    "tests/numerics/test_step_features.py::test_the_control_variate_keeps_the_plain_mean",
    "tests/numerics/test_token_steps.py::test_a_cluster_counts_what_in_process_counts",  # a local cluster: ~3.4 CPU-s
    "tests/theory/test_effective_tokens.py::test_without_self_normalisation_the_quadrature_is_the_closed_form",
    "tests/theory/test_heads_certify.py::test_two_heads_on_two_directions_agree_with_every_route",
    "tests/theory/test_priors.py::test_predict_tracks_the_simulated_mean",
    "tests/theory/test_priors.py::test_the_general_derivation_specialises_to_each_family",
    "tests/theory/test_region_discrete.py::test_a_four_atom_law_certifies_the_default_region",
    "tests/theory/test_region_discrete.py::test_a_three_atom_law_certifies_the_default_region",
    "tests/theory/test_region_discrete.py::test_random_points_of_certified_boxes_agree_with_a_40_digit_sign_count",
    "tests/theory/test_region_k2.py::test_leaves_tile_the_box_and_fractions_add_up",
    "tests/theory/test_region_k2.py::test_random_points_of_proved_leaves_agree_with_point_certificates_and_floats",
    "tests/theory/test_region_k2.py::test_statuses_agree_with_the_certified_transition",
    "tests/theory/test_region_k2.py::test_a_wrong_field_is_caught_by_the_point_certificates",
    "tests/theory/test_subspace_certify.py::test_random_models_boxes_hold_the_mpmath_equilibria",
    "tests/theory/test_subspace_discrete.py::test_derivation_agrees_with_the_quadrature",
    "tests/theory/test_subspace_discrete.py::test_the_quadrature_detects_a_wrong_law",
    "tests/verify/checks/test_diffusion_routes.py::test_the_measured_route_decides_band_and_passage_outside_the_validity_and_catches_a_wrong_law",
    "tests/verify/checks/test_diffusion_routes.py::test_the_measured_route_predicts_the_splitting_fraction_outside_the_validity",
    "tests/verify/checks/test_diffusion_routes.py::test_the_measured_route_on_a_prior_and_noise_away_from_the_defaults",
    "tests/verify/checks/test_finite_ladder.py::test_no_false_failure_where_the_old_ladder_failed",
    "tests/verify/checks/test_quick_plan.py::test_the_default_runs_a_decisive_plan_on_the_papers_case",
    "tests/verify/checks/test_sga.py::test_a_run_held_back_is_not_a_disagreement_but_a_wrong_pole_is",
    "tests/verify/checks/test_sga.py::test_convergence_agrees_with_basins_bistable",
    "tests/verify/checks/test_sga.py::test_records_well_formed",
    "tests/numerics/test_heads_chain_vs_certificate.py::test_the_chain_stays_at_certified_stable_states_and_leaves_certified_saddles",
    "tests/theory/test_heads_certify.py::test_heads_away_from_the_defaults_agree_with_every_route",
    "tests/theory/test_region_discrete.py::test_a_three_atom_law_away_from_beta_sigma2_one_agrees_with_the_criterion_and_the_point_certificates",
    "tests/theory/test_region_k2.py::test_leaves_away_from_beta_sigma2_one_agree_with_the_point_certificates",
    "tests/theory/test_region_k2.py::test_random_points_of_proved_leaves_agree_with_a_40_digit_count",
    "tests/theory/test_region_k2.py::test_leaves_touching_theta_zero_are_proved_and_agree_with_the_40_digit_count",
    "tests/theory/test_region_k2.py::test_away_from_beta_sigma2_one_random_points_agree_with_a_40_digit_count",
    "tests/theory/test_region_k2.py::test_the_independent_count_sees_the_phases",
    "tests/theory/test_region_k2.py::test_a_leaf_with_an_interior_zero_is_proved_and_agrees_with_the_40_digit_count",
    "tests/numerics/test_region_k2_tasks.py::test_subtrees_give_the_serial_leaves",
    "tests/numerics/test_region_k2_tasks.py::test_a_cut_walk_leaves_pending_boxes_in_order",  # the sympy setup
    "tests/verify/cli/test_phase_region.py::test_a_k2_law_draws_its_region_certificate_with_region",
    "tests/theory/test_kinds.py::test_certified_kinds_agree_with_the_40_digit_equilibria",
    "tests/theory/test_kinds.py::test_a_mixture_is_claimed_only_under_an_exact_symmetry",
    "tests/verify/checks/test_sga.py::test_tracking_passes_and_fails_with_wrong_field",
    "tests/verify/checks/test_tracking_null.py::test_the_noise_only_null_matches_the_exact_chain_and_the_bound_keeps_its_false_alarm_rate",
    "tests/verify/checks/test_tracking_null.py::test_the_old_bound_failed_on_noise_alone_where_the_new_one_says_it_cannot_test",
    "tests/verify/checks/test_subspace_checks.py::test_convergence_specialised_side_passes",
    "tests/verify/checks/test_subspace_checks.py::test_equilibria_away_from_unit_beta_sigma2",
    "tests/verify/checks/test_subspace_checks.py::test_tracking_passes_on_both_sides",
    "tests/verify/checks/test_subspace_checks.py::test_verify_cli_on_a_subspace_case",
    "tests/verify/cli/test_cases.py::test_budget_flag_lets_the_planned_run_decide",
    "tests/verify/cli/test_cases.py::test_simulated_case_runs_instance_checks",
    "tests/verify/cli/test_certify_heads.py::test_json_is_the_library_certificate_and_holds_the_flows_ends",
    "tests/verify/cli/test_certify_heads.py::test_human_output_lists_the_boxes_and_says_not_complete",
    "tests/verify/cli/test_complexity.py::test_a_rademacher_start_at_the_equilibrium_is_refused_naming_rho0",
    "tests/verify/cli/test_complexity.py::test_a_schedule_whose_time_never_adds_up_is_refused",
    "tests/verify/cli/test_complexity.py::test_a_short_horizon_quotes_the_limit_odes_step_count",
    "tests/verify/cli/test_complexity.py::test_a_start_next_to_an_unstable_equilibrium_gets_its_log_time_not_a_warning",
    "tests/verify/cli/test_complexity.py::test_complexity_optimize_beats_or_matches_the_given_schedule",
    "tests/verify/cli/test_complexity.py::test_complexity_optimize_prints_given_and_optimized_on_the_same_paths",
    "tests/verify/cli/test_complexity.py::test_scaling_refuses_an_instance_beyond_the_horizon",
    "tests/verify/cli/test_complexity.py::test_target_above_the_plateau_is_refused_with_the_plateau",
    "tests/verify/cli/test_field_verify.py::test_module_entry_point_no_traceback",
    "tests/verify/cli/test_field_verify.py::test_verify_terminal_ends_with_the_claim_verdicts",
    "tests/verify/cli/test_field_verify.py::test_verify_writes_report",
    "tests/verify/cli/test_limit_cli.py::test_a_ladder_that_is_not_enough_is_the_librarys_reason",
    "tests/verify/cli/test_limit_cli.py::test_json_and_text_are_the_library_call",
    "tests/verify/cli/test_limit_cli.py::test_the_figure_draws_the_librarys_map",
    "tests/verify/cli/test_phase_heads.py::test_every_reported_stable_kind_is_a_certified_box_at_its_point",
    "tests/verify/cli/test_phase_heads.py::test_human_output_is_the_librarys_diagram_as_a_table",
    "tests/verify/cli/test_phase_heads.py::test_json_is_the_librarys_diagram_and_the_files_are_written",
    "tests/verify/cli/test_phase_heads.py::test_shared_direction_is_stable_at_theta_3_and_not_at_theta_1_5",
    "tests/verify/cli/test_phase_heads.py::test_the_rank_one_starts_find_three_heads_on_one_direction",
    "tests/verify/cli/test_phase_heads.py::test_the_flow_returns_to_the_stable_shared_state_and_misses_it_where_none_is_stable",
    "tests/verify/cli/test_predict.py::test_predict_json_shape",
    "tests/verify/cli/test_predict.py::test_predict_routes_say_which_law_ran_and_agree_with_the_library",
    "tests/verify/cli/test_simulate.py::test_python_m_sigrec_subprocess",
    "tests/verify/cli/test_sizes.py::test_an_instance_command_takes_N_for_L",
    "tests/verify/cli/test_subspace_cli.py::test_certify_onehot2_on_both_sides_of_the_certified_transition",
    "tests/verify/render/test_subspace_notes.py::test_flow_figure_marks_the_certified_equilibria",
    "tests/verify/render/test_subspace_notes.py::test_printed_objective_is_the_derived_one_against_quadrature",
    "tests/verify/studies/test_limit_map.py::test_finite_field_is_the_plain_mean_of_one_step_increments",
    "tests/verify/studies/test_limit_map.py::test_tokens_needed_is_monotone_in_tol_and_its_ladder_supports_the_answer",
    "tests/verify/studies/test_reproduce.py::test_reproduce_is_reproducible_by_seed",
    "tests/verify/studies/test_subspace_sweep.py::test_fraction_specialised_jumps_across_theta_c",
    "tests/verify/studies/test_sweep.py::test_alpha_grid_with_prior_and_beta_dimensions",
    "tests/verify/studies/test_sweep.py::test_cell_digest_covers_position_and_every_value",
    "tests/verify/studies/test_sweep.py::test_local_cluster_gives_the_same_store",
    "tests/verify/studies/test_sweep.py::test_store_layout_resume_and_refusal",
    "tests/verify/suite/test_random_models.py::test_random_models_quick",
    "tests/verify/suite/test_random_models.py::test_splitting_with_a_start_beyond_the_sphere_is_inconclusive",
)


def pytest_collection_modifyitems(config, items):
    heavy = set(HEAVY)
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if item.get_closest_marker("slow") is not None:  # slow stays slow: `-m heavy` never runs it
            continue
        if path in HEAVY_MODULES or item.nodeid.split("[", 1)[0] in heavy:
            item.add_marker(pytest.mark.heavy)
