"""What every check receives besides its case: budget, seeds, figures, shared caches."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ...core.validate import choice, real
from ...numerics import ROUTE_METHODS
from ...theory import Certificate, Model, Validity, certify, validity
from ._preset import QUICK, Preset


def _key(part) -> int:
    """A stable integer for one part of a random-stream identity (strings by CRC-32)."""
    if isinstance(part, (int, np.integer)) and part >= 0:
        return int(part)
    return zlib.crc32(str(part).encode())


def derive_seed(root: int, *identity) -> int:
    """A 63-bit seed for the unit named by ``identity`` (strings and non-negative ints).

    ``SeedSequence(root, spawn_key=identity)``: streams of different units are
    independent, and a unit's stream depends only on its identity, never on the order
    in which units run.
    """
    ss = np.random.SeedSequence(int(root), spawn_key=tuple(_key(p) for p in identity))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


@lru_cache(maxsize=256)
def _validity(model: Model, d: int, L: int, eta_max: float) -> Validity:
    """``theory.validity`` (``batch = 1``, as the checks simulate), once per argument tuple."""
    return validity(model, d, L, eta_max)


def validity_walk(expansion, case, ctx: CheckContext) -> tuple[Validity, tuple[int, int, float]]:
    """``(validity, (d, L, eta_max))``: :func:`theory.validity` at the first instance and largest
    step that ``expansion(case, ctx, steps)`` gives which lies outside, else at the last one.

    The step-independent part (``A2/L`` at each instance, ``steps=False``) is decided first, so
    that a case outside it costs no schedule design.
    """
    for steps in (False, True):
        for d, L, eta in expansion(case, ctx, steps=steps):
            where = (int(d), int(L), float(eta) if steps else 0.0)
            v = _validity(case.model, *where)
            if not v.inside:
                return v, where
    return v, where


@lru_cache(maxsize=64)
def certificate(model: Model, prec: int = 128) -> Certificate:
    """``theory.certify`` of ``model`` on the scalar engine, computed once per model and precision."""
    return certify(model, engine="scalar", prec=prec)


def equilibria(model: Model) -> tuple[float, ...]:
    """Midpoints of the certified brackets of the interior equilibria of ``model``."""
    return certificate(model).midpoints


@dataclass(frozen=True)
class CheckContext:
    """The run-wide settings a check reads.

    Attributes
    ----------
    seed : int
        Root seed; a check draws from :meth:`seed_for` of its own identity.
    preset : Preset
        The budgets, run counts and grids of ``--preset`` (default quick).
    figure_dir : Path or None
        Where figures go (``None``: no figures).
    quadrature_points, quadrature_dps : int
        Random parameter points per prior and digits of ``derivation.quadrature``.
    budget : float or None
        Token-steps a planned, decisive simulation may cost (``None``: the preset's).
    method : {"auto", "expansion", "measured"}
        Which law feeds the diffusion checks' predictions (:func:`numerics.route_tables`):
        ``"auto"`` (default) the ``O(eta)`` expansion inside its stated validity and the exact
        chain's measured one-step law outside, so that those checks run on every case.
    drift_se : float or None
        The measured law's requested drift error (``None``: its default).
    sequential : bool
        Whether the checks that count or average runs stop as soon as their verdict is decided
        (:mod:`verify.checks._sequential`, default) or run their preset's full counts (the fixed
        designs, kept to measure what stopping saves: ``sigrec bench --preset-cost``).
    """

    seed: int = 0
    preset: Preset = QUICK
    figure_dir: Path | None = None
    quadrature_points: int = 2
    quadrature_dps: int = 50
    budget: float | None = None
    method: str = "auto"
    drift_se: float | None = None
    sequential: bool = True

    def __post_init__(self):
        choice("method", self.method, ROUTE_METHODS)
        if self.drift_se is not None:
            real("drift_se", self.drift_se, lower=0.0, strict=True)

    def seed_for(self, *identity) -> int:
        """The seed of one unit of work (see :func:`derive_seed`)."""
        return derive_seed(self.seed, *identity)

    def figure(self, name: str, case) -> Path | None:
        """``figure_dir / f"{name}-{case.name}.png"``, or ``None`` without figures.

        Nothing is created: a check returns a figure spec with this path, and the
        renderer (on the machine that writes the report) makes the folder and draws it.
        """
        if self.figure_dir is None:
            return None
        return Path(self.figure_dir) / f"{name}-{case.name}.png"

    def drawn(self, name: str, case, make) -> tuple[list[str], tuple]:
        """The figure ``name`` of ``case`` as ``(paths, specs)``: ``([str(path)], (make(path),))`` with
        the path of :meth:`figure`, or ``([], ())`` without figures."""
        path = self.figure(name, case)
        return ([], ()) if path is None else ([str(path)], (make(path),))
