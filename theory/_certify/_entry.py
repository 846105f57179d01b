"""The one certificate entry: :func:`certify` for any model, by its engine.

One query on one signal direction (``k = 1``, ``H = 1``): the certified sign of ``j'`` on
``[-1, 1]`` and its interior equilibria in certified brackets (:mod:`._scalar`, a
:class:`Certificate`). A k-dimensional signal: every numerical equilibrium of the flow in a
Krawczyk box with its certified stability (:mod:`._subspace`), and whether the list is proved
complete (:mod:`._complete`: for ``k = 2`` by the circle and disk certificates), in one
:class:`SubspaceCertificate`. ``H > 1`` heads: every equilibrium found from random frames in a
Krawczyk box with its feasibility, stability and kind (:mod:`._heads`, a :class:`HeadsCertificate`;
completeness not claimed).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal, overload

from .._model import Model, engine_for
from ._complete import subspace_completeness
from ._heads import HeadsCertificate, certify_heads
from ._scalar import Certificate
from ._scalar import certify as certify_scalar
from ._seal import sealed
from ._subspace import SubspaceCertificate, certify_subspace


@overload
def certify(model: Model, *, engine: Literal["scalar"], prec: int = 128, **options) -> Certificate: ...
@overload
def certify(model: Model, *, engine: Literal["subspace"], prec: int = 128, **options) -> SubspaceCertificate: ...
@overload
def certify(model: Model, *, engine: str = "auto", prec: int = 128,
            **options) -> Certificate | SubspaceCertificate | HeadsCertificate: ...


def certify(model: Model, *, engine: str = "auto", prec: int = 128,
            **options) -> Certificate | SubspaceCertificate | HeadsCertificate:
    """Certify the landscape of ``model`` in ball arithmetic at ``prec`` bits.

    ``options`` go to the engine: ``bracket_width``, ``min_width`` (scalar engine: see
    :func:`theory._certify._scalar.certify`); ``equilibria``, ``n_random``, ``field_fn``
    (subspace engine: :func:`theory._certify._subspace.certify_subspace`); ``starts``,
    ``equilibria``, ``n_random``, ``seed`` (``H > 1`` heads: :func:`theory._certify._heads.certify_heads`).
    The subspace certificate carries its :class:`SubspaceCompleteness` (``completeness``).
    """
    if engine_for(model, engine, "certify") == "scalar":
        return certify_scalar(model, prec=prec, **options)
    if model.heads != 1:
        return certify_heads(model, prec=prec, **options)
    cert = certify_subspace(model, prec=prec, **options)
    return sealed(replace(cert, completeness=subspace_completeness(cert, prec=prec)))
