"""The one executor: independent units of work on ``dask.distributed`` (docs/design.md section 8).

:mod:`._executor` (``Executor``, the ``executor()`` context), :mod:`._cluster` (process-wide
local clusters), :mod:`._machine` (sizing them to the machine), :mod:`._progress` (progress
from the workers), :mod:`._region_tasks` (the region certificates, scalar and k = 2, as units).
"""
