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
            records = tuple(_record(r) for r in rep["checks"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"`evidence`: {str(path)!r} is not a sigrec report ({e})") from None
        date = env.get("date") or _dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.UTC).isoformat(
            timespec="seconds")
        figure = None
        for r in records:
            if r.id == _FIGURE_CHECK and r.details.get("figures"):
                figure = _figure(folder / "figures" / Path(r.details["figures"][0]).name)
        return cls(config["preset"], int(config["seed"]), date, env.get("git_commit"),
                   dict(env.get("packages", {})), records, tuple(config.get("cases", [])),
                   float(rep.get("summary", {}).get("seconds", 0.0)), figure)

    @classmethod
    def load(cls, path) -> Evidence:
        """An evidence file written by :meth:`as_dict` (``figure``: a PNG beside it, if named)."""
        path = Path(path)
        d = json.loads(path.read_text())
        figure = _figure(path.parent / d["figure"]) if d.get("figure") else None
        return cls(d["preset"], int(d["seed"]), d["date"], d.get("git_commit"), dict(d.get("packages", {})),
                   tuple(_record(r) for r in d["records"]), tuple(d.get("cases", [])), float(d["seconds"]), figure)

    def as_dict(self, figure_name: str | None = None) -> dict:
        """JSON-ready data; ``figure_name``: the PNG's file name beside the evidence file."""
        return {"preset": self.preset, "seed": self.seed, "date": self.date, "git_commit": self.git_commit,
                "packages": self.packages, "seconds": self.seconds, "figure": figure_name,
                "cases": list(self.cases), "records": [r.as_dict() for r in self.records]}


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
