"""The one executor: independent units of work on ``dask.distributed`` (docs/design.md section 8).

:mod:`._executor` (``Executor``, the ``executor()`` context), :mod:`._cluster` (process-wide
local clusters), :mod:`._machine` (sizing them to the machine), :mod:`._progress` (progress
from the workers), :mod:`._region_tasks` (region certificates as units), :mod:`._region_k2_tasks`
(the k = 2 region certificate as units).
"""
