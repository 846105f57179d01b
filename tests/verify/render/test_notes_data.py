"""The appendix is typeset from its computed data: rendering certifies, solves,
integrates and judges nothing, so it gives the same files with every such tool broken."""

import sympy as sp

import sigrec.theory as theory
import sigrec.verify.studies as studies
from sigrec.verify.render import write_notes
from sigrec.verify.studies import AppendixData, appendix_data

#: what the appendix's data needs and its rendering must not call
COMPUTING = {sp: ("solve", "simplify", "factor", "Poly", "together", "expand", "preorder_traversal"),
             theory: ("certify", "derive", "derive_effective", "derive_diffusion", "derive_general",
                      "general_criteria", "monotone_analysis", "pole_alpha", "pole_signs", "same",
                      "sparse_threshold_prior", "variance_quadrature", "parse_prior", "evaluate", "compact"),
             studies: ("phase_diagram", "run_config", "run_configs", "appendix_data")}


def _broken(name):
    def fail(*a, **k):
        raise AssertionError(f"rendering called {name}")
    return fail


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_rendering_is_a_pure_function_of_the_data(tmp_path, monkeypatch):
    data = appendix_data()
    assert isinstance(data, AppendixData) and not data.suite and data.reproduction is None
    write_notes(tmp_path / "a", data)
    for module, names in COMPUTING.items():
        for name in names:
            monkeypatch.setattr(module, name, _broken(name))
    write_notes(tmp_path / "b", data)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert set(a) >= {"appendix.tex", "appendix.md", "phase.png", "phase.pdf"}
    assert a == b
