"""The one derivation entry: :func:`derive` for any signal law, by its dimension ``k``.

``k = 1`` runs the scalar derivation (:mod:`._scalar`: ``f``, ``j``, ``j'``, ``F``, ``F'(±1)`` and
the sparse limit in ``rho``); ``k >= 2``, or ``engine="subspace"`` for any law, the subspace one
(:mod:`._subspace`: ``j(r)``, its gradient, Hessian and flow in the overlaps ``r = U^T q``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, overload

from ...core.validate import choice
from .._laws import Prior, SignalLaw, parse_law
from .._model import ENGINES
from ._scalar import Derivation
from ._scalar import derive as derive_scalar
from ._subspace import SubspaceDerivation, derive_subspace


def _derive_scalar(law: SignalLaw) -> Derivation:
    """The scalar derivation of a ``k = 1`` law, from its :class:`Prior`."""
    assert law.prior is not None, "a k = 1 law holds its scalar prior"
    return derive_scalar(law.prior)


#: the derivation of each engine, from a parsed law
DERIVATIONS: dict[str, Callable[[SignalLaw], Derivation | SubspaceDerivation]] = {
    "scalar": _derive_scalar, "subspace": derive_subspace}


@overload
def derive(law: SignalLaw | Prior | str, *, engine: Literal["scalar"]) -> Derivation: ...
@overload
def derive(law: SignalLaw | Prior | str, *, engine: Literal["subspace"]) -> SubspaceDerivation: ...
@overload
def derive(law: SignalLaw | Prior | str, *, engine: str = "auto") -> Derivation | SubspaceDerivation: ...


def derive(law: SignalLaw | Prior | str, *, engine: str = "auto") -> Derivation | SubspaceDerivation:
    """The symbolic limit of ``law`` (a spec, a :class:`Prior` or a :class:`SignalLaw`; cached).

    ``engine="auto"`` derives in ``rho`` for a scalar law (``k = 1``, a :class:`Derivation`) and
    in the overlaps ``r`` otherwise (a :class:`SubspaceDerivation`); ``"subspace"`` derives any
    law, ``k = 1`` included, in ``r``.
    """
    law = parse_law(law)
    choice("engine", engine, ("auto", *ENGINES))
    chosen = ("scalar" if law.k == 1 else "subspace") if engine == "auto" else engine
    if chosen == "scalar" and law.k != 1:
        raise ValueError(f"`engine` 'scalar' derives one signal direction (k = 1); the law {law.spec} has "
                         f"k = {law.k}")
    return DERIVATIONS[chosen](law)
