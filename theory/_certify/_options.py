"""The options of a region walk (:func:`theory.certify` on a :class:`theory.ModelBox`), one record
for the scalar walk (:mod:`theory._region._certify`) and the ``k = 2`` walk (:mod:`theory._region._circle`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class RegionOptions:
    """How a region is walked; every field has the default of the walk it belongs to.

    Attributes
    ----------
    min_width : float or None
        A box whose every side is narrower than ``min_width`` times its range (in the parameter's
        scale) is not split further; undecided if nothing was proved. Default ``2^-10`` (scalar),
        ``2^-8`` (``k = 2``).
    prec : int
        Working precision in bits (53..4096).
    max_boxes : int
        Budget of parameter boxes examined (by this call); boxes left when it runs out are undecided.
    log_alpha : bool or None
        Scalar walk: split and measure ``alpha`` in log scale; default when ``hi / lo >= 10``.
    box : tuple, optional
        Walk only this sub-box (bounds as the leaves' ``bounds``) of the region, exactly as the whole
        walk would (widths, splits and fractions relative to the whole ranges).
    depth : int, optional
        Leave the boxes ``depth`` splits below the start unexamined (the certificate's ``pending``);
        ``k = 2``: at most 8.
    inherited : tuple, optional
        ``k = 2``, with ``box``: what its parent had proved (from the certificate's ``pending``).
    sign_functions : callable, optional
        Scalar test hook: ``BallModel -> (g, dg, description, root_at_zero)`` instead of the point
        certificate's own; every status is proved from it.
    field : K2Field, optional
        ``k = 2`` test hook: replaces the derived ball functions (:func:`theory._region._circle.k2_field`).
    """

    min_width: float | None = None
    prec: int = 128
    max_boxes: int = 200_000
    log_alpha: bool | None = None
    box: Any = None
    depth: int | None = None
    inherited: Any = None
    sign_functions: Any = None
    field: Any = None

    def refuse(self, names: tuple[str, ...], what: str) -> None:
        """``ValueError`` naming the first of ``names`` that is set (not ``None``): not an option of ``what``."""
        for name in names:
            if getattr(self, name) is not None:
                raise ValueError(f"`{name}` is not an option of {what}")

    @classmethod
    def of(cls, options: RegionOptions | None = None, **overrides) -> RegionOptions:
        """``options`` (default: all defaults) with ``overrides``; ``ValueError`` naming an unknown one."""
        known = {f.name for f in fields(cls)}
        for name in overrides:
            if name not in known:
                raise ValueError(f"`{name}` is not an option of a region certificate (RegionOptions)")
        base = options or cls()
        return cls(**{**{f.name: getattr(base, f.name) for f in fields(cls)}, **overrides})
