"""The suite run the appendix cites: a dated, seeded record set, committed beside the notes.

The appendix's claims and evidence table come from one ``sigrec verify`` run. A run of
the paper preset takes many minutes, so ``sigrec notes`` does not repeat it: it reads an
:class:`Evidence` (``evidence.json`` in the notes folder), made once from a report folder
(``sigrec notes --evidence REPORT_DIR``), with its preset, seed, date, git commit and
package versions. The figure the appendix takes from the run (the effective-dynamics
figure) is copied with it. Without an evidence file ``sigrec notes`` runs the quick
preset, and the appendix says so.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..checks import CheckRecord, EffectiveDriftFigure

#: the evidence file's name inside a notes folder
EVIDENCE_FILE = "evidence.json"
#: the record whose first figure the appendix shows
_FIGURE_CHECK = "sga.effective_drift"


@dataclass(frozen=True)
class Evidence:
    """The records of one suite run, with what identifies the run.

    Attributes
    ----------
    preset : str
        The suite preset (``paper`` or ``quick``).
    seed : int
        The preset's seed, as run.
    date : str
        When the run's report was written (UTC, ISO 8601).
    git_commit : str or None
        The commit the run came from.
    packages : dict
        Package versions of the run.
    records : tuple of CheckRecord
        The run's records (without figure specs).
    cases : tuple of dict
        The run's cases (``SuiteConfig.as_dict()["cases"]``).
    seconds : float
        The run's wall time.
    figure : object
        The effective-dynamics figure: its spec (from a fresh run, or loaded from the
        ``.npz`` of its data) or, without data, the path of its PNG (a PDF beside it), or
        ``None``.
    """

    preset: str
    seed: int
    date: str
    git_commit: str | None
    packages: dict
    records: tuple
    cases: tuple
    seconds: float
    figure: object = field(default=None, compare=False)

    @classmethod
    def from_result(cls, result) -> Evidence:
        """The evidence of a fresh :class:`verify.suite.SuiteResult` (the figure as a spec)."""
        config = result.config.as_dict()
        recs = [r for r in result.records if r.id == _FIGURE_CHECK and r.figures]
        return cls(config["preset"], int(config["seed"]), _now(), None, {}, tuple(result.records),
                   tuple(config.get("cases", [])), float(result.seconds), recs[0].figures[0] if recs else None)

    @classmethod
    def from_report(cls, folder) -> Evidence:
        """The evidence of a ``sigrec verify`` output folder (its ``report.json`` and figures)."""
        folder = Path(folder)
        path = folder / "report.json"
        if not path.is_file():
            raise ValueError(f"`evidence`: no report.json in {str(folder)!r} (a `sigrec verify --out` folder)")
        try:
            rep = json.loads(path.read_text())
            env, config = rep["environment"], rep["config"]
            if not isinstance(env, dict) or not isinstance(config, dict):
                raise TypeError("`environment` and `config` must be objects")
            records = tuple(_record(r) for r in rep["checks"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"`evidence`: {str(path)!r} is not a sigrec report ({e})") from None
        date = env.get("date") or _dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.UTC).isoformat(
            timespec="seconds")
        figure = None
        for r in records:
            if r.id == _FIGURE_CHECK and isinstance(r.details, dict) and r.details.get("figures"):
                figure = _figure(folder / "figures" / Path(str(r.details["figures"][0])).name)
        summary = rep.get("summary") if isinstance(rep.get("summary"), dict) else {}
        raw = {"preset": config.get("preset"), "seed": config.get("seed"), "date": date,
               "git_commit": env.get("git_commit"), "packages": env.get("packages", {}),
               "cases": config.get("cases", []), "seconds": summary.get("seconds", 0.0)}
        return cls(**_checked(path, "report", raw), records=records, figure=figure)

    @classmethod
    def load(cls, path) -> Evidence:
        """An evidence file written by :meth:`as_dict` (``figure``: a PNG beside it, if named)."""
        path = Path(path)
        try:
            d = json.loads(path.read_text())
            if not isinstance(d, dict):
                raise TypeError("not a JSON object")
            records = tuple(_record(r) for r in d["records"])
        except OSError as e:
            raise ValueError(f"`evidence`: cannot read {str(path)!r}: {e.strerror or e}") from None
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"`evidence`: {str(path)!r} is not a sigrec evidence file "
                             f"({type(e).__name__}: {e})") from None
        name = d.get("figure")
        figure = _figure(path.parent / Path(name).name) if isinstance(name, str) and name else None
        raw = {k: d.get(k) for k in ("preset", "seed", "date", "git_commit", "seconds")}
        raw.update(packages=d.get("packages", {}), cases=d.get("cases", []))
        return cls(**_checked(path, "evidence file", raw), records=records, figure=figure)

    def as_dict(self, figure_name: str | None = None) -> dict:
        """JSON-ready data; ``figure_name``: the PNG's file name beside the evidence file."""
        return {"preset": self.preset, "seed": self.seed, "date": self.date, "git_commit": self.git_commit,
                "packages": self.packages, "seconds": self.seconds, "figure": figure_name,
                "cases": list(self.cases), "records": [r.as_dict() for r in self.records]}


def _checked(path: Path, kind: str, raw: dict[str, Any]) -> dict[str, Any]:
    """The identifying fields ``raw`` of an evidence file or report (:class:`Evidence`'s keywords:
    ``preset``, ``seed``, ``date``, ``git_commit``, ``packages``, ``cases``, ``seconds``), each of
    its type, or one ``ValueError`` naming the file and the field."""
    preset, seed, date, commit = raw["preset"], raw["seed"], raw["date"], raw["git_commit"]
    packages, cases, seconds = raw["packages"], raw["cases"], raw["seconds"]
    def bad(field: str, want: str, got) -> ValueError:
        return ValueError(f"`evidence`: {str(path)!r} is not a sigrec {kind}: `{field}` must be {want}, "
                          f"got {got!r:.60}")
    if not isinstance(preset, str):
        raise bad("preset", "a preset name", preset)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise bad("seed", "an integer >= 0", seed)
    if not isinstance(date, str):
        raise bad("date", "an ISO 8601 date", date)
    if commit is not None and not isinstance(commit, str):
        raise bad("git_commit", "a commit id or null", commit)
    if not isinstance(packages, dict):
        raise bad("packages", "an object of versions", packages)
    if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
        raise bad("cases", "a list of case objects", cases)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < float("inf"):
        raise bad("seconds", "a finite number of seconds >= 0", seconds)
    return {"preset": preset, "seed": seed, "date": date, "git_commit": commit, "packages": dict(packages),
            "cases": tuple(cases), "seconds": float(seconds)}


def _figure(path: Path):
    """The figure at ``path`` (a PNG, or the ``.npz`` of its data): its spec when the data
    is there (the appendix redraws it), else the PNG when it exists, else ``None``."""
    data = path.with_suffix(".npz")
    if data.is_file():
        return EffectiveDriftFigure.load_data(data, path.with_suffix(".png"))
    png = path.with_suffix(".png")
    return png if png.is_file() else None


def _record(d: dict) -> CheckRecord:
    keys = ("id", "kind", "status", "value", "threshold", "certified", "message", "details", "model", "seconds")
    return CheckRecord(**{k: d[k] for k in keys if k in d})


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
