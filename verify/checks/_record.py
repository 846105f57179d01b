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


#: what the numbers of each record are: ``record id -> (value kind, threshold kind)``, the unit or kind
#: a reader needs to read ``value`` against ``threshold`` (a p-value is compared the other way from a
#: relative error). ``None``: the record carries no such number. A record id missing here is an
#: error of the registry (tests/contracts).
VALUE_KINDS: dict[str, tuple[str | None, str | None]] = {
    "derivation.quadrature": ("max rel. diff., symbolic vs quadrature", "rel. tolerance"),
    "field.endpoints": ("F(+-1) simplified (0: exactly zero)", "exact value 0"),
    "field.monotone": ("count of certified interior equilibria", "0 (monotone)"),
    "field.stability": ("max rel. error of F'(+-1)", "rel. tolerance"),
    "field.phase_boundary": (None, None),
    "ode.lyapunov": ("min relative change of J along the ODE", "least allowed change"),
    "sga.convergence.recovery": ("fraction of runs with |rho| >= 0.99", "least fraction"),
    "sga.convergence": ("fraction of runs in their ODE basin", "least fraction"),
    "sga.filtering": ("nuisance mass, simulated - limit", "largest allowed |difference|"),
    "sga.filtering.vanishes": ("limit nuisance mass at rho = 1", "0 (vanishes)"),
    "stepsize.robbins_monro": ("step decay exponent p", None),
    "sga.tracking": ("median sup tracking error (rho)", "largest allowed error"),
    "finite_size.rate": ("log-log slope of the bias against L", "expected slope (within 2 SE + 0.3)"),
    "simulator.reduced_exact": ("least KS p-value (4 tests)", "Bonferroni level (p must be above)"),
    "sga.effective_drift": ("error ratio, corrected / plain ODE", "largest allowed ratio"),
    "sga.fluctuations": ("largest |z| (standard errors)", "largest allowed |z|"),
    "sga.hitting_time": ("rel. diff. of the median passage step", "rel. tolerance"),
    "sga.splitting": ("fraction of runs reaching +xi first", "predicted fraction (in the 99% CI)"),
    "subspace.quadrature": ("max rel. diff., float vs quadrature", "rel. tolerance"),
    "subspace.equilibria": ("mixture's tangent eigenvalue", "0 (above: the mixture is unstable)"),
    "subspace.tracking": ("max |mean overlap - ODE overlap|", "largest allowed difference (+ 3 SE)"),
    "subspace.convergence": ("fraction of runs at the attractor", "least fraction"),
    "heads.angles": ("largest final principal angle (rad)", "largest allowed angle (rad)"),
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

    @property
    def value_kind(self) -> str | None:
        """What :attr:`value` is (its unit or kind, :data:`VALUE_KINDS`); ``None`` when it is no number."""
        return VALUE_KINDS.get(self.id, (None, None))[0]

    @property
    def threshold_kind(self) -> str | None:
        """What :attr:`threshold` is and how :attr:`value` is read against it (:data:`VALUE_KINDS`)."""
        return VALUE_KINDS.get(self.id, (None, None))[1]

    def as_dict(self) -> dict:
        """The record as JSON-ready data (without the figure specs), with ``value_kind`` and
        ``threshold_kind``."""
        out = asdict(replace(self, figures=()))
        del out["figures"]
        out["value_kind"], out["threshold_kind"] = self.value_kind, self.threshold_kind
        return out
