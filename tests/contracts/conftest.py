"""Fixtures the store tests (``test_store_damage.py``, ``test_fuzz_stores.py``) share."""

from __future__ import annotations

import pytest

from sigrec.numerics import executor
from sigrec.verify.studies import _sweep as sweep

from ..verify.studies.test_sweep import TINY as TINY_SPEC


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An undamaged, finished store of ``TINY_SPEC``, a 2 x 2 grid, built once per module."""
    path = tmp_path_factory.mktemp("tiny") / "t.zarr"
    with executor(workers=1):
        sweep.run_sweep(sweep.make_spec(**TINY_SPEC), path)
    return path
