"""Hypothesis strategies for users' own property tests (needs the ``test`` extra).

Example::

    from hypothesis import given
    from sigrec.verify.strategies import models
    from sigrec.theory import certify

    # theta <= 0.9 and beta <= 1 keep beta*theta <= 0.9, strictly below the sparse
    # threshold beta*theta = 1 (exactly at it the alpha = 0 field has a double root and
    # certifies as "undecided"). Fixed prior only: under the rademacher prior rho = 0
    # is always an equilibrium, so the status there is "bistable".
    @given(models(theta=(0.0, 0.9), beta=(0.05, 1.0), prior="fixed"))
    def test_weak_signals_have_a_monotone_field(model):
        assert certify(model).status in ("monotone", "degenerate")  # degenerate: theta = 0

Ranges are ``(low, high)`` tuples or a single value; every strategy draws only
valid objects (they pass the constructors' validation).
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..numerics import Problem, Schedule
from ..theory import FAMILIES, Model, canonical_prior

__all__ = ["models", "problems", "schedules", "simulation_configs"]


def _floats(spec, *, log=False):
    if isinstance(spec, st.SearchStrategy):
        return spec
    if isinstance(spec, (int, float)):
        return st.just(float(spec))
    lo, hi = (float(v) for v in spec)
    if lo > hi:
        raise ValueError(f"range must satisfy low <= high, got {spec!r}")
    if log and lo > 0:
        import math

        return st.floats(math.log(lo), math.log(hi)).map(math.exp).map(lambda x: min(max(x, lo), hi))
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


@st.composite
def priors(draw, families=FAMILIES):
    """Canonical prior specs (see :mod:`theory._laws`) from ``families``, with parameters:
    ``rademacher(p)`` with ``p`` in ``[1/2, 1]``, ``bernoulli(p)``, ``gaussian(mu, tau)`` with
    ``mu, tau`` in ``[0, 3]``, ``discrete`` with 2 to 4 integer atoms in ``[-3, 3]`` (mean
    ``>= 0``, as every prior must have). Exact rationals, so a spec names one law."""
    family = draw(st.sampled_from(tuple(families)))
    if family == "fixed":
        return "fixed"
    if family == "rademacher":
        return canonical_prior(f"rademacher(p={draw(st.integers(50, 100))}/100)")
    if family == "bernoulli":
        return canonical_prior(f"bernoulli(p={draw(st.integers(1, 100))}/100)")
    if family == "gaussian":
        mu, tau = draw(st.integers(0, 30)), draw(st.integers(0, 30))
        if mu == tau == 0:
            mu = 10
        return canonical_prior(f"gaussian(mu={mu}/10, tau={tau}/10)")
    values = draw(st.lists(st.integers(-3, 3), min_size=2, max_size=4, unique=True))
    weights = draw(st.lists(st.integers(1, 9), min_size=len(values), max_size=len(values)))
    total = sum(weights)
    if sum(v * w for v, w in zip(values, weights, strict=True)) < 0:  # (distinct atoms: never all 0)
        values = [-v for v in values]
    probs = ", ".join(f"{w}/{total}" for w in weights)
    return canonical_prior(f"discrete(values=[{', '.join(map(str, values))}], probs=[{probs}])")


def _priors(prior):
    if prior is None:
        return st.sampled_from(("fixed", "rademacher"))
    if prior == "any":
        return priors()
    if isinstance(prior, str):
        return st.just(prior)
    return st.sampled_from(list(prior))


@st.composite
def models(draw, theta=(0.0, 20.0), alpha=(1e-6, 1.0), beta=(0.05, 10.0), sigma2=(0.05, 10.0),
           prior=None, sparse=0.1):
    """Valid :class:`theory.Model` objects.

    ``alpha`` is drawn log-uniformly in its range; with probability ``sparse`` the
    sparse regime ``alpha = 0`` is drawn instead (set ``sparse=0`` to exclude it).
    ``prior``: ``None`` draws ``fixed`` or ``rademacher``, ``"any"`` any family with
    parameters (:func:`priors`), a spec or a list of specs draws from those.
    """
    a = 0.0 if sparse and draw(st.floats(0, 1)) < sparse else draw(_floats(alpha, log=True))
    return Model(theta=draw(_floats(theta)), alpha=a, beta=draw(_floats(beta, log=True)),
                 sigma2=draw(_floats(sigma2, log=True)), prior=draw(_priors(prior)))


@st.composite
def schedules(draw, eta0=(1e-3, 1.0), k0=(1.0, 100.0), power=(0.0, 1.2), constant=0.1):
    """Valid :class:`numerics.Schedule` objects (a constant one with probability ``constant``)."""
    if constant and draw(st.floats(0, 1)) < constant:
        return Schedule.constant(draw(_floats(eta0, log=True)))
    return Schedule(eta0=draw(_floats(eta0, log=True)), k0=draw(_floats(k0)), power=draw(_floats(power)))


@st.composite
def problems(draw, theta=(0.0, 5.0), L=(2, 2000), d=(2, 50), beta=(0.1, 5.0), sigma2=(0.1, 5.0),
             prior=None, batch=(1, 4)):
    """Valid finite-size :class:`numerics.Problem` objects (``0 <= R <= L``)."""
    Lv = draw(st.integers(*L))
    return Problem(theta=draw(_floats(theta)), R=draw(st.integers(0, Lv)), L=Lv, d=draw(st.integers(*d)),
                   beta=draw(_floats(beta, log=True)), sigma2=draw(_floats(sigma2, log=True)),
                   prior=draw(_priors(prior)), batch=draw(st.integers(*batch)))


@st.composite
def simulation_configs(draw, steps=(1, 200), runs=(1, 8), **problem_ranges):
    """A dict ``problem, schedule, steps, runs, rho0, seed`` ready for :func:`numerics.simulate`."""
    return {
        "problem": draw(problems(**problem_ranges)),
        "schedule": draw(schedules()),
        "steps": draw(st.integers(*steps)),
        "runs": draw(st.integers(*runs)),
        "rho0": draw(st.one_of(st.none(), st.floats(-1, 1))),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }
