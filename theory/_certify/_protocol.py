"""What every certificate answers, whatever it proves (:func:`theory.certify` returns one).

:class:`theory.Certificate` (the scalar point), :class:`theory.SubspaceCertificate` (a k-dimensional
signal), :class:`theory.HeadsCertificate` (several heads), :class:`theory.RegionCertificate` and
:class:`theory.K2RegionCertificate` (a box of models) each have these; the rest of what they carry
is their own.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ._seal import digest


@runtime_checkable
class CertificateLike(Protocol):
    """The attributes every certificate has.

    Attributes
    ----------
    status : str
        One word for what is proved: the scalar field's ``monotone``, ``bistable``, ``undecided`` or
        ``degenerate``; ``certified`` or ``undecided`` for a list of equilibria; for a box the one
        status of all its leaves, or ``mixed``.
    certified : bool
        True iff every claim of the certificate passed its proof (an undecided part claims nothing).
    reason : str
        Why something is left undecided; empty when nothing is.
    equilibria : tuple
        What was proved about the equilibria: brackets (scalar), boxes (subspace, heads), or per leaf
        of a box the tuple of its equilibria.
    checksum : str
        SHA-256 of the rest of :meth:`as_dict` in canonical JSON (:func:`theory._certify._seal.digest`).
    """

    @property
    def status(self) -> str: ...

    @property
    def certified(self) -> bool: ...

    @property
    def reason(self) -> str: ...

    @property
    def equilibria(self) -> tuple: ...

    @property
    def checksum(self) -> str: ...

    def as_dict(self) -> dict: ...


class LeavesAnswer:
    """What :class:`CertificateLike` reads of a certificate of a box (any class with leaf ``boxes``, each
    with a ``status`` and ``equilibria``, area ``fractions`` and ``as_dict``)."""

    boxes: tuple
    fractions: dict

    def as_dict(self) -> dict:
        raise NotImplementedError

    @property
    def status(self) -> str:
        """The one status of every leaf, or ``"mixed"`` (``"undecided"`` without leaves)."""
        found = {b.status for b in self.boxes}
        return found.pop() if len(found) == 1 else ("mixed" if found else "undecided")

    @property
    def reason(self) -> str:
        """Why a part is undecided (empty when no leaf is)."""
        part = self.fractions.get("undecided", 0.0)
        return "" if not part else (f"a fraction {part:.4g} of the box is undecided: leaves down to the min width "
                                    "where no status holds on the whole leaf (a phase boundary crosses them)")

    @property
    def equilibria(self) -> tuple:
        """Per leaf, the tuple of its proved equilibria."""
        return tuple(b.equilibria for b in self.boxes)

    @property
    def checksum(self) -> str:
        """SHA-256 of :meth:`as_dict` in canonical JSON (:func:`theory._certify._seal.digest`)."""
        return digest(self.as_dict())

