"""Region certificates on the executor: the subtrees of a region walk (:func:`theory.certify` on a
:class:`theory.ModelBox`, a scalar prior or a ``k = 2`` law) as units.

The tree of boxes of a region is a function of the region alone (a sub-box is split and proved as
inside the whole walk), so the walk is cut at a depth: the driver walks the top levels in-process
(``depth``), each box left *pending* there is one unit of :meth:`Executor.map` (``box``, walked to the
end on whichever worker; for ``k = 2`` with what its parent had proved, ``inherited``, as the serial
walk hands it down), and the leaves of each unit go back in its place. ``from_boxes`` of the
certificate recomputes fractions (and audit) from the merged leaves, in the serial order: the
certificate is the serial one (all but ``seconds``), whatever ran where. One difference, by budget
only: ``max_boxes`` counts per unit (and for the top levels), not over the whole walk, so when it runs
out the two may differ (the default, 200,000, is far from the default regions' leaves).

The ``k = 2`` units are sent in the reverse of the serial order: that order ends in the far corner
(largest ``theta`` and ``alpha``), where the field moves fastest and the leaves are narrowest, so the
heaviest units run first while the light ones fill the other workers (docs/region-certificates.md).
"""

from __future__ import annotations

import time
from dataclasses import replace

from ...core.validate import integer
from ...theory import K2RegionCertificate, ModelBox, RegionCertificate, RegionOptions, certify
from ._executor import current_executor

#: default depth of the in-process top of the tree (at most 2**DEPTH units; for k = 2 at most 8)
DEPTH = 6


def certify_region_tasks(model: ModelBox, options: RegionOptions | None = None, *, depth: int = DEPTH,
                         progress=None) -> RegionCertificate | K2RegionCertificate:
    """:func:`theory.certify` of the box ``model`` with its subtrees below ``depth`` run as units of
    the current executor (:func:`numerics.current_executor`: in-process, a local cluster or a
    scheduler); the same certificate as the serial call.

    Parameters
    ----------
    model : theory.ModelBox
        The box (a scalar prior, or a ``k = 2`` law).
    options : RegionOptions, optional
        ``min_width``, ``prec``, ``log_alpha`` (scalar), ``max_boxes`` of the walk; not ``box``,
        ``depth``, ``inherited`` nor the test hooks (units must be picklable).
    depth : int
        Splits walked in-process before the rest is sent out (``0``: the whole box is one unit); for
        ``k = 2`` at most 8 (a deeper unit could be narrower than the span over which the walk hands on
        where one leaf's proof cut the circle to the next).
    progress : callable, optional
        ``progress(done, total)`` as units finish.
    """
    start = time.perf_counter()
    depth = integer("depth", depth, 0)
    options = RegionOptions.of(options)
    options.refuse(("sign_functions", "field", "box", "depth", "inherited"), "certify_region_tasks")
    top = _walk(model, replace(options, depth=depth))
    units = [(model, replace(options, box=p[1], inherited=p[2] if len(p) > 2 else None)) for p in top.pending]
    # k = 2: last first (module doc), the heaviest units are at the end of the serial order
    order = slice(None, None, -1) if model.k == 2 else slice(None)
    parts = current_executor().map(_subtree, units[order], progress=progress)[order] if units else []
    boxes = splice(top.boxes, [p[0] for p in top.pending], parts)
    return type(top).from_boxes(top.region, boxes, time.perf_counter() - start)


def _walk(model: ModelBox, options: RegionOptions):
    fields = {name: getattr(options, name) for name in options.__dataclass_fields__}
    return certify(model, **fields)


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
    model, options = unit
    return _walk(model, options).boxes
