"""The check record (docs/design.md section 3)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

KINDS = ("condition", "consistency")
#: consistency checks pass or fail; conditions hold, do not hold, or are undecided; either
#: kind is ``inconclusive`` when nothing decisive was measured (a budget too small, an effect
#: below the Monte Carlo error) -- it never counts as a pass, and it does not fail the suite
STATUSES = {
    "consistency": ("pass", "fail", "inconclusive"),
    "condition": ("holds", "fails", "undecided", "inconclusive"),
}


@dataclass(frozen=True)
class CheckRecord:
    """Outcome of one check.

    Attributes
    ----------
    id : str
        Check identifier, e.g. ``"derivation.quadrature"``.
    kind : {"condition", "consistency"}
        ``condition``: a hypothesis or claim of the theorem, which may hold or not;
        ``consistency``: theory vs numerics, which must pass.
    status : str
        ``pass``/``fail`` (consistency) or ``holds``/``fails``/``undecided`` (condition), or
        ``inconclusive`` (either kind) when nothing decisive was measured; the message then
        says what budget would decide it.
    value, threshold : float or None
        The measured figure and what it is compared with.
    certified : bool
        True only when backed by rigorous interval arithmetic or exact symbolic proof.
    message : str
        One line for humans.
    details : dict
        Everything else (JSON-serialisable).
    model : dict or None
        The model the check ran on, if any.
    seconds : float
        Wall time of the check.
    figures : tuple of figure specs
        The figures of the check as data (``verify.checks`` figure specs, drawn by
        ``verify.render.figures.draw``), one per path in ``details["figures"]``; not
        part of :meth:`as_dict` (the report lists the paths).
    """

    id: str
    kind: str
    status: str
    value: float | None
    threshold: float | None
    certified: bool
    message: str
    details: dict = field(default_factory=dict)
    model: dict | None = None
    seconds: float = 0.0
    figures: tuple = field(default=(), compare=False, repr=False)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}, got {self.kind!r}")
        if self.status not in STATUSES[self.kind]:
            raise ValueError(f"`status` of a {self.kind} check must be one of {STATUSES[self.kind]}, "
                             f"got {self.status!r}")

    @property
    def failed(self) -> bool:
        """A consistency check that did not pass (the only thing that fails the suite)."""
        return self.kind == "consistency" and self.status == "fail"

    def as_dict(self) -> dict:
        """The record as JSON-ready data (without the figure specs)."""
        out = asdict(replace(self, figures=()))
        del out["figures"]
        return out
