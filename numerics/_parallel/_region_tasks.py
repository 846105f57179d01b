"""Region certificates on the executor: the subtrees of :func:`theory.certify_region` as units.

The tree of boxes of a region is a function of the region alone (a sub-box is split and
proved as inside the whole walk), so the walk is cut at a depth: the driver walks the
top levels in-process (``depth=``), each box left *pending* there is one unit of
:meth:`Executor.map` (``box=``, walked to the end on whichever worker), and the leaves of
each unit go back in its place. :meth:`theory.RegionCertificate.from_boxes` recomputes
fractions and audit from the merged leaves, in the serial order: the certificate is the
serial one (all but ``seconds``), whatever ran where. One difference, by budget only:
``max_boxes`` counts per unit (and for the top levels), not over the whole walk, so when
it runs out the two may differ (the default, 200,000, is far from the default region's
~8,000 leaves).
"""

from __future__ import annotations

import time

from ...core.validate import integer
from ...theory import RegionCertificate, certify_region
from ._executor import current_executor

#: default depth of the in-process top of the tree (at most 2**DEPTH units)
DEPTH = 6


def certify_region_tasks(theta, alpha, beta=1.0, sigma2=1.0, prior="fixed", *, depth: int = DEPTH,
                         progress=None, **options) -> RegionCertificate:
    """:func:`theory.certify_region` with its subtrees below ``depth`` run as units of the
    current executor (:func:`numerics.current_executor`: in-process, a local cluster or a
    scheduler); the same certificate as the serial call.

    Parameters
    ----------
    theta, alpha, beta, sigma2, prior
        As :func:`theory.certify_region`.
    depth : int
        Splits walked in-process before the rest is sent out (``0``: the whole box is one unit).
    progress : callable, optional
        ``progress(done, total)`` as units finish.
    **options
        ``min_width``, ``prec``, ``log_alpha``, ``max_boxes`` of :func:`theory.certify_region`
        (not ``sign_functions``: units must be picklable).
    """
    start = time.perf_counter()
    depth = integer("depth", depth, 0)
    for name in ("sign_functions", "box", "depth"):
        if name in options:
            raise ValueError(f"`{name}` is not an option of certify_region_tasks")
    args = (theta, alpha, beta, sigma2, str(prior))
    top = certify_region(*args, depth=depth, **options)
    units = [(args, options, bounds) for _, bounds in top.pending]
    parts = current_executor().map(_subtree, units, progress=progress) if units else []
    boxes = splice(top.boxes, [p[0] for p in top.pending], parts)
    return RegionCertificate.from_boxes(top.region, boxes, time.perf_counter() - start)


def splice(walked, indices, parts) -> list:
    """The leaves in the serial walk's order: the boxes ``walked`` in-process, with the leaves of the
    subtree of each pending box (``parts``) inserted at its index in ``walked`` (``indices``)."""
    boxes: list = []
    last = 0
    for index, leaves in zip(indices, parts, strict=True):
        boxes.extend(walked[last:index])
        boxes.extend(leaves)
        last = index
    boxes.extend(walked[last:])
    return boxes


def _subtree(unit) -> tuple:
    """The leaves of one pending box (one executor unit; pure)."""
    args, options, bounds = unit
    return certify_region(*args, box=bounds, **options).boxes
