"""The one certificate entry: :func:`certify` for any model or box of models, through one table.

One query on one signal direction (``k = 1``, ``H = 1``): the certified sign of ``j'`` on
``[-1, 1]`` and its interior equilibria in certified brackets (:mod:`._scalar`, a
:class:`Certificate`). A k-dimensional signal: every numerical equilibrium of the flow in a
Krawczyk box with its certified stability (:mod:`._subspace`), and whether the list is proved
complete (:mod:`._complete`: for ``k = 2`` by the circle and disk certificates), in one
:class:`SubspaceCertificate`. ``H > 1`` heads: every equilibrium found from random frames in a
Krawczyk box with its feasibility, stability and kind (:mod:`._heads`, a :class:`HeadsCertificate`;
completeness not claimed). A :class:`theory.ModelBox`: the status proved on every leaf of an
adaptive split of the box (:mod:`theory._region`: a :class:`RegionCertificate` for a scalar prior,
a :class:`K2RegionCertificate` for a ``k = 2`` law).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, overload

from .._model import Model, ModelBox, engine_for
from .._region._certify import RegionCertificate, certify_region
from .._region._circle import K2RegionCertificate, certify_region_k2
from ._complete import subspace_completeness
from ._heads import HeadsCertificate, certify_heads
from ._options import RegionOptions
from ._protocol import CertificateLike
from ._scalar import Certificate
from ._scalar import certify as certify_scalar
from ._seal import sealed
from ._subspace import SubspaceCertificate, certify_subspace


def _subspace(model: Model, prec: int, **options) -> SubspaceCertificate:
    cert = certify_subspace(model, prec=prec, **options)
    return sealed(replace(cert, completeness=subspace_completeness(cert, prec=prec)))


def _region(model: ModelBox, prec: int, **options) -> RegionCertificate:
    return certify_region(model, RegionOptions.of(prec=prec, **options))


def _region_k2(model: ModelBox, prec: int, **options) -> K2RegionCertificate:
    return certify_region_k2(model, RegionOptions.of(prec=prec, **options))


#: (point or region, engine) -> the certifier ``(model, prec, **options) -> certificate``
CERTIFIERS: dict[tuple[str, str], Any] = {
    ("point", "scalar"): certify_scalar,
    ("point", "subspace"): _subspace,
    ("point", "heads"): certify_heads,
    ("region", "scalar"): _region,
    ("region", "subspace"): _region_k2,
}


def certifier(model: Model | ModelBox, engine: str = "auto") -> tuple[str, str]:
    """The key of :data:`CERTIFIERS` that certifies ``model`` with ``engine``; ``ValueError`` when
    none does."""
    if isinstance(model, ModelBox):
        if engine != "auto":
            raise ValueError(f"`engine` must be 'auto' for a ModelBox (the walk follows its law), got {engine!r}")
        if model.heads != 1:
            raise ValueError("`heads` > 1 certifies the equilibria of the heads' reduced flow at one model: give point "
                             "values (ranges LO:HI are for one query on one signal direction)")
        return "region", ("scalar" if model.k == 1 else "subspace")
    chosen = engine_for(model, engine, "certify")
    return "point", ("heads" if chosen == "subspace" and model.heads != 1 else chosen)


@overload
def certify(model: Model, *, engine: Literal["scalar"], prec: int = 128, **options) -> Certificate: ...
@overload
def certify(model: Model, *, engine: Literal["subspace"], prec: int = 128,
            **options) -> SubspaceCertificate | HeadsCertificate: ...
@overload
def certify(model: ModelBox, *, engine: str = "auto", prec: int = 128,
            **options) -> RegionCertificate | K2RegionCertificate: ...
@overload
def certify(model: Model, *, engine: str = "auto", prec: int = 128, **options) -> CertificateLike: ...


def certify(model: Model | ModelBox, *, engine: str = "auto", prec: int = 128, **options) -> CertificateLike:
    """Certify the landscape of ``model`` (a :class:`Model`, or a :class:`ModelBox` of them) in ball
    arithmetic at ``prec`` bits, by the certifier of :data:`CERTIFIERS` its engine selects.

    ``options`` go to the certifier: ``bracket_width``, ``min_width`` (scalar engine: see
    :func:`theory._certify._scalar.certify`); ``equilibria``, ``n_random``, ``field_fn``
    (subspace engine: :func:`theory._certify._subspace.certify_subspace`); ``starts``,
    ``equilibria``, ``n_random``, ``seed``, ``field_fn`` (``H > 1`` heads:
    :func:`theory._certify._heads.certify_heads`); the fields of
    :class:`theory._certify._options.RegionOptions` (a box). The subspace certificate carries its
    :class:`SubspaceCompleteness` (``completeness``). Every certificate has the attributes of
    :class:`CertificateLike`.
    """
    return CERTIFIERS[certifier(model, engine)](model, prec=prec, **options)
