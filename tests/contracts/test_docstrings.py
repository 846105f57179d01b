"""``help()`` is the API reference a user reads first: every public function and class has a docstring,
and every public result or configuration dataclass says what each of its fields is."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import pytest

PACKAGES = ("sigrec.theory", "sigrec.numerics", "sigrec.verify", "sigrec.verify.studies")
#: a numpydoc entry ``name : type`` (several names may share one: ``a, b : float``)
ENTRY = re.compile(r"^\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*:", re.MULTILINE)


def _public(package: str):
    module = importlib.import_module(package)
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            yield f"{package}.{name}", obj


def documented_fields(doc: str) -> set[str]:
    return {n.strip() for entry in ENTRY.findall(doc) for n in entry.split(",")}


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_object_has_a_docstring(package):
    assert [name for name, obj in _public(package) if not (inspect.getdoc(obj) or "").strip()] == []


@pytest.mark.parametrize("package", PACKAGES)
def test_every_field_of_a_public_dataclass_is_documented(package):
    missing = {}
    for name, obj in _public(package):
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            named = documented_fields(inspect.getdoc(obj) or "")
            gaps = [f.name for f in dataclasses.fields(obj) if not f.name.startswith("_") and f.name not in named]
            if gaps:
                missing[name] = gaps
    assert missing == {}


def test_the_field_rule_reads_numpydoc_entries_only():
    doc = "A result.\n\nAttributes\n----------\nvalue, error : float\n    The estimate.\nruns : int\n"
    assert documented_fields(doc) == {"value", "error", "runs"}
    assert "steps" not in documented_fields("It runs for steps: many of them.")
