"""Fixtures the store tests (``test_store_damage.py``, ``test_fuzz_stores.py``) share."""

from __future__ import annotations

import pytest

from ..verify.studies.test_sweep import build_tiny_store


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An undamaged, finished store of the tiny 2 x 2 sweep, built once per module."""
    return build_tiny_store(tmp_path_factory)
