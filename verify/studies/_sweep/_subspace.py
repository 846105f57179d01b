"""A sweep over ``theta`` for a k-dimensional signal law (docs/subspace.md section 4): does one
query specialise on one ``xi_j`` or stay at the symmetric mixture, in simulation and in the
certified theory, cell by cell across the transition ``theta_c``.

Each cell (one ``theta``) simulates ``runs`` runs of the exact reduced chain of one query from
uniform starts (``q_0`` uniform on the sphere of ``R^d``) and classifies each run's ``r = U^T q``,
averaged over the last fifth of its steps, by its **specialisation index**

    s(r) = max_j |r_j| / |r| - 1 / sqrt(k)      (0 at the mixture, 1 - 1/sqrt k at one xi_j):

``specialised`` when ``s > SPECIALISED`` (0.1), else ``mixture``. The prediction of the cell is
the certified one of ``subspace.equilibria`` (``theory.certify``: the mixture certified stable,
or certified unstable with a certified stable specialised equilibrium), and, for ``onehot(k)``
with equal probabilities, the certified bracket of ``theta_c`` (``theory.certify_transition``).

**Store.** A folder: ``spec.json`` (the specification) and one ``cell-<i>.json`` per finished
cell, written to a temporary file and renamed; a rerun skips the cells whose file holds the
same specification and cell, recomputes the others, and refuses a folder made by another
specification. Seeds: ``derive_seed(seed, "subspace-sweep", repr(theta))`` per cell.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ....core.validate import integer, real
from ....numerics import Problem, Schedule, simulate
from ....theory import Model, certify_transition, parse_law
from ...checks import derive_seed, subspace_certificate

#: specialisation index above which a run counts as specialised
SPECIALISED = 0.1


@dataclass(frozen=True)
class SubspaceSweepSpec:
    """What a subspace sweep computes: a grid of ``theta`` for one law at ``R, L, d, beta, sigma2``,
    ``runs`` runs of ``steps`` steps with ``eta_k = eta0 / (k + k0)^power`` per cell.

    Parameters
    ----------
    prior : str
        A k-dimensional signal law (``k >= 2``, e.g. ``"onehot(k=2)"``); stored in its canonical spec.
    thetas : tuple of float
        The signal strengths, one cell each, in the order given.
    R, L, d : int
        Informative tokens, tokens (``R <= L``) and dimension (``d >= k + 2``).
    beta, sigma2 : float
        Inverse temperature and noise variance.
    runs, steps : int
        Independent runs per cell and steps of each run.
    eta0, k0, power : float
        The step schedule ``eta_k = eta0 / (k + k0)^power`` (:attr:`schedule`).
    seed : int
        Root seed; cell ``theta`` draws from ``derive_seed(seed, "subspace-sweep", repr(theta))``.
    """

    prior: str
    thetas: tuple
    R: int
    L: int
    d: int
    beta: float = 1.0
    sigma2: float = 1.0
    runs: int = 8
    steps: int = 1500
    eta0: float = 40.0
    k0: float = 80.0
    power: float = 1.0
    seed: int = 0

    def __post_init__(self):
        law = parse_law(self.prior)
        if law.k < 2:
            raise ValueError(f"`prior` must be a k-dimensional law (k >= 2) for a subspace sweep, got {self.prior!r}")
        thetas = tuple(float(real("theta", t, lower=0)) for t in self.thetas)
        if not thetas:
            raise ValueError("`theta` needs at least one value")
        R, L, d = integer("R", self.R, 1), integer("L", self.L, 1), integer("d", self.d, law.k + 2)
        if R > L:
            raise ValueError(f"`R` must satisfy R <= L = {L}, got R = {R}")
        for name in ("runs", "steps"):
            object.__setattr__(self, name, integer(name, getattr(self, name), 1))
        object.__setattr__(self, "prior", law.spec)
        object.__setattr__(self, "thetas", thetas)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "L", L)
        object.__setattr__(self, "d", d)
        for name in ("beta", "sigma2", "eta0", "k0", "power"):
            object.__setattr__(self, name, float(real(name, getattr(self, name))))
        object.__setattr__(self, "seed", integer("seed", self.seed, 0))
        _ = self.schedule  # building the schedule validates eta0, k0, power

    @property
    def alpha(self) -> float:
        return self.R / self.L

    @property
    def schedule(self) -> Schedule:
        return Schedule(eta0=self.eta0, k0=self.k0, power=self.power)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["thetas"] = list(self.thetas)
        return d

    @property
    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()[:16]


def specialisation_index(r) -> np.ndarray:
    """``max_j |r_j| / |r| - 1/sqrt(k)`` along the last axis (0 at the mixture direction)."""
    r = np.asarray(r, float)
    k = r.shape[-1]
    return np.max(np.abs(r), axis=-1) / np.maximum(np.linalg.norm(r, axis=-1), 1e-300) - 1.0 / math.sqrt(k)


def predicted_state(model: Model) -> tuple[str, list]:
    """``("mixture" | "specialised" | "undecided", [stable labels])`` from the certified equilibria."""
    cert = subspace_certificate(model)
    mixture = next((b for b in cert.boxes if b.label == "mixture+"), None)
    stable = [b.label for b in cert.boxes if b.status == "stable"]
    if mixture is None or mixture.status == "undecided":
        return "undecided", stable
    if mixture.status == "stable":
        return "mixture", stable
    if any(lab.startswith("specialised") for lab in stable):
        return "specialised", stable
    return "undecided", stable


def compute_subspace_cell(spec: SubspaceSweepSpec, i: int) -> dict:
    """One cell: the simulated final overlaps and their classification, and the certified prediction."""
    theta = spec.thetas[i]
    t0 = time.perf_counter()
    problem = Problem(theta, spec.R, spec.L, spec.d, beta=spec.beta, sigma2=spec.sigma2, prior=spec.prior)
    model = Model(theta, spec.alpha, spec.beta, spec.sigma2, spec.prior)
    seed = derive_seed(spec.seed, "subspace-sweep", repr(theta))
    sim = simulate(problem, spec.schedule, steps=spec.steps, runs=spec.runs, seed=seed,
                   stride=max(1, spec.steps // 50))
    final = sim.final_overlaps[:, :, 0]
    # the classification reads the average of r over the last fifth of the steps (it damps the
    # fluctuation floor around the attractor, which near theta_c is as wide as the pitchfork)
    tail = sim.record_steps >= 0.8 * spec.steps
    averaged = sim.overlaps[:, tail][..., 0].mean(axis=1)  # (runs, k)
    s = specialisation_index(averaged)
    pred, stable = predicted_state(model)
    return {"index": i, "theta": theta, "seed": seed, "final_overlaps": final.tolist(),
            "averaged_overlaps": averaged.tolist(),
            "specialisation_index": s.tolist(), "fraction_specialised": float(np.mean(s > SPECIALISED)),
            "mean_norm": float(np.mean(np.linalg.norm(final, axis=1))), "t_end": float(sim.times[-1]),
            "predicted": pred, "certified_attractors": stable, "seconds": time.perf_counter() - t0}


@dataclass(frozen=True)
class SubspaceSweep:
    """The cells of a subspace sweep (in ``theta`` order), the certified ``theta_c`` bracket
    (``None`` when the law is not ``onehot(k)`` with equal probabilities), and what was computed.

    Attributes
    ----------
    spec : SubspaceSweepSpec
        What was swept.
    cells : tuple of dict
        One per ``theta`` of ``spec.thetas``, in that order (:func:`compute_subspace_cell`): ``theta``,
        ``seed``, the final and tail-averaged overlaps, their ``specialisation_index`` and
        ``fraction_specialised``, ``mean_norm``, ``t_end``, the certified ``predicted`` state and
        ``certified_attractors``, and ``seconds``.
    theta_c : (float, float) or None
        The bracket ``(lo, hi)`` of :func:`theory.certify_transition` at the spec's ``alpha``
        (``nan`` ends when its curve route did not certify); ``None`` when there is none (see :attr:`notes`).
    computed, skipped : int
        Cells computed by this call, and cells read back from the store.
    seconds : float
        Seconds of wall time of this call.
    store : str
        The folder that holds the cells (``spec.json`` and ``cell-<i>.json``).
    notes : tuple of str
        Why there is no ``theta_c`` bracket; empty otherwise.
    """

    spec: SubspaceSweepSpec
    cells: tuple
    theta_c: tuple | None
    computed: int
    skipped: int
    seconds: float
    store: str
    notes: tuple = field(default=())

    def as_dict(self) -> dict:
        return {"spec": self.spec.as_dict(), "cells": list(self.cells),
                "theta_c": None if self.theta_c is None else list(self.theta_c), "computed": self.computed,
                "skipped": self.skipped, "seconds": self.seconds, "store": self.store, "notes": list(self.notes),
                "specialised_threshold": SPECIALISED}


def _write(path: Path, doc: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, sort_keys=True))
    os.replace(tmp, path)


def _transition(spec: SubspaceSweepSpec):
    law = parse_law(spec.prior)
    if law.family != "onehot" or len(set(law.probs)) != 1:
        return None, "no certified theta_c: the transition bracket exists for onehot(k) with equal probabilities"
    try:
        b = certify_transition(law.k, spec.alpha, spec.beta, spec.sigma2)
    except ValueError as exc:  # no sign change on the default range
        return None, f"no certified theta_c: {exc}"
    lo, hi = getattr(b, "lo", None), getattr(b, "hi", None)
    if lo is None or hi is None:
        return None, "no certified theta_c bracket"
    return (float(lo), float(hi)), ""


def run_subspace_sweep(spec: SubspaceSweepSpec, store, progress=None) -> SubspaceSweep:
    """Compute every cell of ``spec`` not already in the folder ``store`` (module doc); return all."""
    t0 = time.perf_counter()
    root = Path(store)
    root.mkdir(parents=True, exist_ok=True)
    head = root / "spec.json"
    if head.exists():
        try:
            old = json.loads(head.read_text())
        except (OSError, ValueError):
            old = None
        if not isinstance(old, dict) or old.get("digest") != spec.digest:
            raise ValueError(f"`store` {str(root)!r} holds another sweep (its spec.json differs); use a new folder")
    else:
        _write(head, {"digest": spec.digest, "spec": spec.as_dict(), "kind": "subspace-sweep"})
    cells, computed, skipped = [], 0, 0
    for i in range(len(spec.thetas)):
        if progress:
            progress(i, len(spec.thetas))
        path = root / f"cell-{i}.json"
        cell = None
        if path.exists():
            try:
                doc = json.loads(path.read_text())
                if doc.get("digest") == spec.digest and doc.get("cell", {}).get("theta") == spec.thetas[i]:
                    cell, skipped = doc["cell"], skipped + 1
            except (OSError, ValueError, AttributeError):
                cell = None
        if cell is None:
            cell = compute_subspace_cell(spec, i)
            _write(path, {"digest": spec.digest, "cell": cell})
            computed += 1
        cells.append(cell)
    if progress:
        progress(len(spec.thetas), len(spec.thetas))
    theta_c, note = _transition(spec)
    return SubspaceSweep(spec, tuple(cells), theta_c, computed, skipped, time.perf_counter() - t0, str(root),
                         (note,) if note else ())
