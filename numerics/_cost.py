"""What the samplers draw inside a block of code: token-steps (``numerics.count_token_steps``).

A *token-step* is one token drawn in one step of one run: a simulation of :func:`numerics.simulate`
draws ``runs x steps x L x batch`` of them, except that a run stopped by ``stop_outside`` in the
reduced simulator draws nothing after its exit, so it counts the steps it took (the full simulator
steps a stopped run to the end of the loop and discards the result: those draws count). The
samplers of token collections that count here, each where it is called (the process and thread of
the caller, from what its units of work return, so the same whether the units ran in-process or on
a cluster):

* :func:`numerics.simulate` (every engine and simulator), from the run-steps each block of runs
  reports having drawn;
* :func:`numerics.measured_law` (and :func:`numerics.route_tables`, which calls it): one exact step
  per draw at each grid point, ``L x batch`` token-steps each;
* :func:`numerics.gradient_features`: one collection per generator, ``L x batch`` token-steps each.

What draws no token does not count: the diffusion approximation's own normals
(:func:`numerics.simulate_diffusion`, :func:`numerics.predict_paths`), the uniform starts, and
``sigrec bench``'s random-number floors.

Blocks of runs that ran on other workers also report their CPU seconds (their thread's clock), which
the caller's own clock does not see: :attr:`TokenCount.cpu_elsewhere`.
"""

from __future__ import annotations

import contextvars
import threading
from contextlib import contextmanager

#: the counters open in this context (thread), innermost last
_OPEN: contextvars.ContextVar[tuple] = contextvars.ContextVar("sigrec_token_counts", default=())


class TokenCount:
    """What the samplers drew inside one :func:`count_token_steps` block (and the blocks it encloses).

    Attributes
    ----------
    token_steps : float
        Tokens drawn, summed over steps and runs (module docstring).
    simulations : int
        Calls of :func:`numerics.simulate`.
    by_sampler : dict
        Token-steps by sampler: ``"simulate"``, ``"measured_law"``, ``"gradient_features"``.
    cpu_elsewhere : float
        CPU seconds of units of work that ran outside the calling thread (blocks of runs on a
        cluster's workers): add them to the caller's own clock for the whole cost.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._steps = 0  # an exact integer; reported as a float
        self.simulations = 0
        self.by_sampler: dict[str, int] = {}
        self.cpu_elsewhere = 0.0

    @property
    def token_steps(self) -> float:
        return float(self._steps)

    def _add(self, sampler: str, token_steps: int, simulations: int, cpu_elsewhere: float) -> None:
        with self._lock:
            self._steps += token_steps
            self.simulations += simulations
            self.by_sampler[sampler] = self.by_sampler.get(sampler, 0) + token_steps
            self.cpu_elsewhere += cpu_elsewhere

    def as_dict(self) -> dict:
        """``{"token_steps", "simulations", "by_sampler", "cpu_elsewhere"}``."""
        with self._lock:
            return {"token_steps": float(self._steps), "simulations": self.simulations,
                    "by_sampler": {k: float(v) for k, v in self.by_sampler.items()},
                    "cpu_elsewhere": self.cpu_elsewhere}

    def __repr__(self) -> str:
        return f"TokenCount(token_steps={self.token_steps:.6g}, simulations={self.simulations})"


@contextmanager
def count_token_steps():
    """Count the token-steps the samplers draw inside the block (module docstring).

    Yields a :class:`TokenCount`, updated as the samplers return. Blocks nest: a draw counts in
    every open block of the same context. A block counts the draws of its own thread (and of the
    units of work that thread sends to an executor), not those of other threads, so concurrent
    units in one worker process count apart.

    Examples
    --------
    >>> with count_token_steps() as cost:  # doctest: +SKIP
    ...     simulate(problem, schedule, steps=100, runs=8, seed=0)
    >>> cost.token_steps == 8 * 100 * problem.L * problem.batch  # doctest: +SKIP
    True
    """
    counter = TokenCount()
    token = _OPEN.set((*_OPEN.get(), counter))
    try:
        yield counter
    finally:
        _OPEN.reset(token)


def add_token_steps(sampler: str, token_steps: int, *, simulations: int = 0, cpu_elsewhere: float = 0.0) -> None:
    """Count ``token_steps`` drawn by ``sampler`` in every open :func:`count_token_steps` block
    (nothing when none is open); ``cpu_elsewhere``: CPU seconds of its units that ran outside this
    thread."""
    for counter in _OPEN.get():
        counter._add(sampler, int(token_steps), simulations, float(cpu_elsewhere))
