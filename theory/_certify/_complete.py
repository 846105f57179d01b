"""Is a certified list of equilibria of the subspace flow complete? (docs/subspace-certificates.md)

:func:`theory.certify` (subspace engine) proves that each of its boxes holds exactly one equilibrium, and
(``certified``) that the boxes are pairwise disjoint, so they hold distinct equilibria; it does not
prove that no equilibrium is missing. For ``k = 2`` :func:`theory.certify_circle` proves that the
circle ``|r| = 1`` holds exactly ``N_c`` equilibria (one simple root of the angular flow per
bracket, a certified sign elsewhere), and :func:`theory.certify_disk` covers the open disk with
boxes each holding exactly one interior equilibrium or none, so the disk holds at most ``N_d``
(a zero on the edge shared by two boxes would be counted twice). Hence, with ``N_s`` sphere boxes
and ``N_i`` interior boxes of a certified certificate::

    N_s <= (number of sphere equilibria) = N_c,     N_i <= (number of interior equilibria) <= N_d,

and ``N_s = N_c``, ``N_i = N_d`` prove that the boxes hold every equilibrium. That counting
argument is all this module adds; the certificates are computed by the functions named.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._model import Model
from ._circle import CircleCertificate, DiskCertificate, certify_circle, certify_disk
from ._seal import check_seal
from ._subspace import SubspaceCertificate


@dataclass(frozen=True)
class SubspaceCompleteness:
    """Outcome of :func:`subspace_completeness`.

    Attributes
    ----------
    complete : bool
        True iff it is proved that the certificate's boxes hold every equilibrium of the flow.
    reason : str
        Why not (``"; "``-separated when several); empty when complete.
    circle : CircleCertificate or None
        The circle certificate used; ``None`` when it was not computed (``k != 2``, ``theta = 0``, or
        a certificate with undecided or overlapping boxes).
    disk : DiskCertificate or None
        The disk certificate used; ``None`` when :attr:`circle` is.
    """

    complete: bool
    reason: str
    circle: CircleCertificate | None = None
    disk: DiskCertificate | None = None

    def as_dict(self) -> dict:
        out = {"complete": self.complete, "reason": self.reason}
        if self.circle is not None:
            out["circle"] = {"equilibria": len(self.circle.equilibria), "complete": self.circle.complete,
                             "boxes": self.circle.boxes}
        if self.disk is not None:
            out["disk"] = {"equilibria": len(self.disk.equilibria), "complete": self.disk.complete,
                           "boxes": self.disk.boxes}
        return out


def subspace_completeness(certificate: SubspaceCertificate, prec: int = 128) -> SubspaceCompleteness:
    """Decide whether ``certificate`` (of :func:`theory.certify` (subspace engine)) lists every equilibrium
    (module doc): for ``k = 2`` by the counts of :func:`theory.certify_circle` and
    :func:`theory.certify_disk`; for other ``k`` completeness is not certified."""
    if not isinstance(certificate, SubspaceCertificate):
        raise ValueError(f"`certificate` must be a SubspaceCertificate, got {type(certificate).__name__}")
    model: Model = certificate.model
    check_seal(certificate, model.as_dict())
    if model.k != 2:
        return SubspaceCompleteness(complete=False, reason=f"completeness is certified for k = 2 only (k = {model.k})")
    if model.theta == 0:
        return SubspaceCompleteness(complete=False, reason="theta = 0: every r is an equilibrium")
    if not certificate.certified:  # no count to compare; and a continuum of equilibria (the isotropic
        # Gaussian law's circle, undecided there) would send the circle certificate bisecting for ever
        return SubspaceCompleteness(complete=False, reason="the certificate has undecided or overlapping boxes")
    circle = certify_circle(model, prec=prec)
    disk = certify_disk(model, prec=prec)
    n_s = sum(1 for b in certificate.boxes if b.kind == "sphere")
    n_i = sum(1 for b in certificate.boxes if b.kind == "interior")
    reasons = []
    if not circle.complete:
        reasons.append(f"the circle certificate left {len(circle.undecided)} angle intervals undecided")
    if not disk.complete:
        reasons.append(f"the disk certificate left {len(disk.undecided)} boxes undecided")
    if circle.complete and n_s != len(circle.equilibria):
        reasons.append(f"{n_s} sphere boxes but the circle holds {len(circle.equilibria)} equilibria")
    if disk.complete and n_i != len(disk.equilibria):
        reasons.append(f"{n_i} interior boxes but the disk certificate counts {len(disk.equilibria)}")
    stable_circle = sum(e.stable for e in circle.equilibria)
    stable_list = sum(b.status == "stable" for b in certificate.boxes if b.kind == "sphere")
    if circle.complete and n_s == len(circle.equilibria) and stable_circle != stable_list:
        reasons.append(f"{stable_circle} stable on the certified circle, {stable_list} in the list")
    return SubspaceCompleteness(complete=not reasons, reason="; ".join(reasons), circle=circle, disk=disk)
