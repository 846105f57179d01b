"""The result store (verify/suite/_store.py): a second run of the same inputs by the same code reads
every unit back and runs no check; anything different is a miss; a damaged entry is a miss."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
from pathlib import Path

import numpy as np
import pytest

from sigrec.verify.render import figures as figures_module
from sigrec.verify.render import write_report
from sigrec.verify.suite import ResultStore, SuiteConfig, _runner, make_case, run_suite
from sigrec.verify.suite._store import Uncanonical, canonical, default_dir, fingerprint_of, key, stored_key

from ..cli._run import output

#: cheap checks on a model away from beta = sigma2 = 1 (the model-independent ones derive every prior: seconds)
_CHECKS = ("field.monotone", "field.stability", "ode.lyapunov", "stepsize.robbins_monro")


def _config(seed: int = 7, theta: float = 1.7) -> SuiteConfig:
    case = make_case("mine", theta=theta, alpha=0.15, beta=1.3, sigma2=0.8, prior="fixed")
    return dataclasses.replace(SuiteConfig.preset_config("quick"), seed=seed, cases=(case,), checks=_CHECKS)


def _bare(records) -> list[dict]:
    """The records as JSON, without the store's mark and the times (wall and CPU)."""
    out = []
    for r in records:
        d = r.as_dict()
        d["details"] = {k: v for k, v in d["details"].items() if k not in ("cached", "cpu_seconds")}
        d.pop("seconds")
        out.append(d)
    return out


def _no_check_may_run(monkeypatch) -> list:
    calls: list = []
    real = _runner._run_check

    def counting(check, case, ctx):
        calls.append(check.id)
        return real(check, case, ctx)

    monkeypatch.setattr(_runner, "_run_check", counting)
    return calls


def test_a_second_run_reads_every_unit_back_and_runs_no_check(tmp_path, monkeypatch):
    store = ResultStore(tmp_path / "store")
    first = run_suite(_config(), store=store)
    assert first.summary["cache"]["read"] == [] and store.written >= 2
    calls = _no_check_may_run(monkeypatch)
    again = ResultStore(tmp_path / "store")
    second = run_suite(_config(), store=again)
    assert calls == []
    assert _bare(second.records) == _bare(first.records)
    assert all(r.details["cached"] for r in second.records)
    assert not any("cached" in r.details for r in first.records)
    assert second.summary["cache"]["read"] == ["mine"] and second.summary["cache"]["units"] == 1
    assert [c.as_dict() for c in second.claims] == [c.as_dict() for c in first.claims]
    assert second.summary["token_steps"] == first.summary["token_steps"]
    # no store: the checks run
    run_suite(_config())
    assert calls == [c.id for _, c, _ in _runner.plan(_config())]


@pytest.mark.parametrize("change", [{"seed": 8}, {"theta": 1.7000000000000002}])
def test_any_changed_input_is_a_miss(tmp_path, monkeypatch, change):
    store = ResultStore(tmp_path)
    run_suite(_config(), store=store)
    calls = _no_check_may_run(monkeypatch)
    result = run_suite(_config(**change), store=store)
    assert calls == [c.id for _, c, _ in _runner.plan(_config(**change))]
    assert result.summary["cache"]["read"] == []


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path, monkeypatch):
    store = ResultStore(tmp_path)
    first = run_suite(_config(), store=store)
    entries = list(tmp_path.rglob("*.pkl"))
    assert entries
    for e in entries:
        e.write_bytes(e.read_bytes()[: len(e.read_bytes()) // 2])
    calls = _no_check_may_run(monkeypatch)
    second = run_suite(_config(), store=store)
    assert calls and second.summary["cache"]["read"] == []
    assert _bare(second.records) == _bare(first.records)
    for e in tmp_path.rglob("*.pkl"):  # written again whole
        pickle.loads(e.read_bytes())


def test_figures_move_to_the_new_run_and_are_copied_not_drawn(tmp_path, monkeypatch):
    store = ResultStore(tmp_path / "store")
    first = run_suite(_config(), figure_dir=tmp_path / "a" / "figures", store=store)
    write_report(first, tmp_path / "a", store=store)
    drawn = sorted(p.name for p in (tmp_path / "a" / "figures").glob("*.png"))
    assert drawn

    def refuse(spec, path=None):
        raise AssertionError("a stored figure was drawn again")

    monkeypatch.setattr(figures_module, "draw", refuse)
    second = run_suite(_config(), figure_dir=tmp_path / "b" / "figures", store=store)
    assert all(f.startswith(str(tmp_path / "b")) for r in second.records for f in r.details.get("figures", []))
    assert all(s.path.startswith(str(tmp_path / "b")) for r in second.records for s in r.figures)
    write_report(second, tmp_path / "b", store=store)
    for name in drawn:
        a, b = tmp_path / "a" / "figures" / name, tmp_path / "b" / "figures" / name
        assert a.read_bytes() == b.read_bytes()
        assert a.with_suffix(".pdf").read_bytes() == b.with_suffix(".pdf").read_bytes()
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert "Read from the result cache" in (tmp_path / "b" / "report.md").read_text()
    assert report["summary"]["cache"]["read"] == ["mine"]


def test_the_canonical_form_tells_apart_what_differs_and_only_that():
    x = 0.1
    assert key("k", x) != key("k", math.nextafter(x, 1.0))
    assert key("k", 0.0) != key("k", -0.0)
    assert key("k", 1) != key("k", 1.0) and key("k", "1") != key("k", 1)
    assert key("k", {"a": 1, "b": 2}) == key("k", {"b": 2, "a": 1})
    assert key("k", frozenset({"x", "y", "z"})) == key("k", frozenset({"z", "y", "x"}))
    a = np.arange(6.0)
    b = a.copy()
    b[3] = np.nextafter(b[3], 10.0)
    assert key("k", a) == key("k", a.copy()) and key("k", a) != key("k", b)
    assert key("k", a) != key("k", a.reshape(2, 3))
    assert key("a", 1) != key("b", 1)
    assert canonical(_config()) == canonical(_config())
    assert key("k", _config()) != key("k", _config(seed=8))

    class Opaque:
        pass

    with pytest.raises(Uncanonical):
        canonical(Opaque())
    assert stored_key("k", [1, Opaque()]) is None


def test_a_changed_source_byte_changes_the_fingerprint(tmp_path):
    files = []
    for name, text in (("a.py", "x = 1\n"), ("b.py", "y = 2\n")):
        (tmp_path / name).write_text(text)
        files.append(tmp_path / name)
    before = fingerprint_of(files, {"numpy": "2.0"})
    assert fingerprint_of(files, {"numpy": "2.0"}) == before
    assert fingerprint_of(files, {"numpy": "2.1"}) != before
    (tmp_path / "b.py").write_text("y = 3\n")
    assert fingerprint_of(files, {"numpy": "2.0"}) != before


def test_where_the_store_lives_and_when_it_is_refused(monkeypatch, tmp_path):
    monkeypatch.delenv("SIGREC_RESULT_CACHE")
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path / "here"))
    assert default_dir() == tmp_path / "here" / "results"
    assert ResultStore.default().root == tmp_path / "here" / "results"
    for off in ("off", "", "0", "none"):
        monkeypatch.setenv("SIGREC_RESULT_CACHE", off)
        assert default_dir() is None and ResultStore.default() is None
    monkeypatch.delenv("SIGREC_RESULT_CACHE")
    monkeypatch.setenv("SIGREC_CACHE_DIR", "off")  # every cache off
    assert default_dir() is None
    monkeypatch.delenv("SIGREC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_dir() == tmp_path / "xdg" / "sigrec" / "results"
    # a folder others may write to is never read (its pickles could be anyone's)
    shared = tmp_path / "shared"
    store = ResultStore(shared)
    store.put("unit", "k", [1, 2])
    assert store.get("unit", "k") == [1, 2] and store.refused is None
    shared.chmod(0o777)
    again = ResultStore(shared)
    assert again.refused is not None and "writable" in again.refused
    assert again.get("unit", "k") is None
    shared.chmod(0o700)


def test_the_command_reads_the_cache_and_no_cache_computes_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SIGREC_CACHE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("SIGREC_RESULT_CACHE")
    argv = ["verify", "--checks", "field.monotone,field.stability", "--theta", "1.2", "--alpha", "0.2",
            "--beta", "1.4", "--workers", "1"]
    first = output(capsys, [*argv, "--out", str(tmp_path / "a")])
    assert "read from the result cache" not in first
    second = output(capsys, [*argv, "--out", str(tmp_path / "b")])
    assert "read from the result cache" in second and "1 of 1 units" in second
    third = output(capsys, [*argv, "--no-cache", "--out", str(tmp_path / "c")])
    assert "read from the result cache" not in third
    a, b = (json.loads(Path(tmp_path / x / "report.json").read_text()) for x in "ab")
    assert [r["status"] for r in a["checks"]] == [r["status"] for r in b["checks"]]
    assert [r["value"] for r in a["checks"]] == [r["value"] for r in b["checks"]]


def test_a_run_stopped_halfway_keeps_the_units_it_finished(tmp_path, monkeypatch):
    other = make_case("other", theta=0.9, alpha=0.3, beta=0.8, sigma2=1.2)
    config = dataclasses.replace(_config(), cases=(*_config().cases, other))
    real = _runner._run_check

    def stop_at_other(check, case, ctx):
        if case is not None and case.name == "other":
            raise KeyboardInterrupt
        return real(check, case, ctx)

    monkeypatch.setattr(_runner, "_run_check", stop_at_other)
    with pytest.raises(KeyboardInterrupt):
        run_suite(config, store=ResultStore(tmp_path))
    monkeypatch.setattr(_runner, "_run_check", real)
    result = run_suite(config, store=ResultStore(tmp_path))
    assert result.summary["cache"]["read"] == ["mine"]
    assert {r.details["case"] for r in result.records if r.details.get("cached")} == {"mine"}
