"""The ``k = 2`` region certificate on the executor: the subtrees of :func:`theory.certify_region_k2`
as units.

As for :func:`numerics.certify_region_tasks`: the driver walks the top ``depth`` levels in-process,
each box left *pending* there is one unit of :meth:`Executor.map`, walked to the end on whichever
worker with what its parent had proved (``inherited``, as the serial walk hands it down), and the
leaves of each unit go back in its place. :meth:`theory.K2RegionCertificate.from_boxes` recomputes
the fractions from the merged leaves, in the serial order, so the certificate is the serial one (all
but ``seconds``), whatever ran where; ``max_boxes`` counts per unit (and for the top levels), not
over the whole walk, so the two may differ when it runs out.

The units are sent in the reverse of the serial order. That order ends in the far corner (largest
``theta`` and ``alpha``), where the field moves fastest and the leaves are narrowest: on the CLI's
default region at depth 6 the last three of 60 units hold half of the 216 CPU-s. Sent first, they
run while the light units fill the other worker; sent last, one of them ran alone at the end (a
schedule of the measured unit times on two workers: 124 s in the serial order, 108 s reversed,
108 s the ideal).
"""

from __future__ import annotations

import time

from ...core.validate import integer
from ...theory import K2RegionCertificate, certify_region_k2
from ._executor import current_executor
from ._region_tasks import splice

#: default depth of the in-process top of the tree (at most 2**DEPTH units: enough that a hard corner of
#: the region is shared by the workers to the end; the top levels are walked in the driver before any
#: unit starts, 4 s of the CLI's default region at depth 8, 0.2 s at 6)
DEPTH = 6


def certify_region_k2_tasks(theta, alpha, beta=1.0, sigma2=1.0, prior="onehot(k=2)", *, depth: int = DEPTH,
                            progress=None, **options) -> K2RegionCertificate:
    """:func:`theory.certify_region_k2` with its subtrees below ``depth`` run as units of the current
    executor (:func:`numerics.current_executor`); the same certificate as the serial call.

    Parameters
    ----------
    theta, alpha, beta, sigma2, prior
        As :func:`theory.certify_region_k2`.
    depth : int
        Splits walked in-process before the rest is sent out (``0``: the whole box is one unit), at
        most 8 (:func:`theory.certify_region_k2` refuses more: a deeper unit could be narrower than the
        span over which the walk hands on where one leaf's proof cut the circle to the next, and then
        it would not be walked as in the serial call).
    progress : callable, optional
        ``progress(done, total)`` as units finish.
    **options
        ``min_width``, ``prec``, ``max_boxes`` of :func:`theory.certify_region_k2` (not ``field``:
        units must be picklable).
    """
    start = time.perf_counter()
    depth = integer("depth", depth, 0)
    for name in ("field", "box", "depth", "inherited"):
        if name in options:
            raise ValueError(f"`{name}` is not an option of certify_region_k2_tasks")
    args = (theta, alpha, beta, sigma2, str(prior))
    top = certify_region_k2(*args, depth=depth, **options)
    units = [(args, options, bounds, inherited) for _, bounds, inherited in top.pending]
    # last first (module doc): the heaviest units are at the end of the serial order
    parts = current_executor().map(_subtree, units[::-1], progress=progress)[::-1] if units else []
    boxes = splice(top.boxes, [p[0] for p in top.pending], parts)
    return K2RegionCertificate.from_boxes(top.region, boxes, time.perf_counter() - start)


def _subtree(unit) -> tuple:
    """The leaves of one pending box (one executor unit; pure)."""
    args, options, bounds, inherited = unit
    return certify_region_k2(*args, box=bounds, inherited=inherited, **options).boxes
