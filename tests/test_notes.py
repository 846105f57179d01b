"""The generated appendix: content from the sympy objects, --check, LaTeX compiles."""

import shutil
import subprocess

import pytest

from sigrec.theory import derive, monotone_analysis
from sigrec.theory._latex import tex
from sigrec.verify.cli._main import main
from sigrec.verify.render._document import Document, _escape_text
from sigrec.verify.render._notes import compare, write_notes


@pytest.fixture(scope="module")
def notes_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("notes")
    write_notes(out)  # without a suite run: theory sections only (fast)
    return out


def test_formulas_come_from_the_sympy_objects(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    md = (notes_dir / "appendix.md").read_text()
    ma = monotone_analysis("fixed")
    for expr in (ma.critical_m, ma.sign_factor, derive("fixed").slope_poly, derive("rademacher").sparse.field):
        assert tex(expr) in text and tex(expr) in md


def test_check_detects_a_change(notes_dir, tmp_path):
    assert compare(notes_dir, notes_dir) == []
    copy = tmp_path / "copy"
    shutil.copytree(notes_dir, copy)
    path = copy / "appendix.md"
    path.write_text(path.read_text().replace("alpha_c", "alpha_k", 1) + "\nedited\n")
    diffs = compare(copy, notes_dir)
    assert len(diffs) == 1 and "edited" in diffs[0]


def test_escaping_keeps_math_and_escapes_text():
    s = _escape_text("a_b 50% & $x_1 \\le y$ `code_x` <= ->")
    assert r"a\_b 50\% \&" in s and "$x_1 \\le y$" in s and r"\texttt{code\_x}" in s
    assert r"$\leq$" in s and r"$\to$" in s


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_compiles_standalone_and_as_input(notes_dir, tmp_path):
    run = lambda f, cwd: subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f],
                                        cwd=cwd, capture_output=True, text=True, timeout=120)
    p = run("appendix.tex", notes_dir)
    assert p.returncode == 0, p.stdout[-2000:]
    (notes_dir / "paper.tex").write_text(
        "\\documentclass{article}\\usepackage{amsmath,amssymb,graphicx,booktabs}\n"
        "\\begin{document}\nIntro.\n\\input{appendix}\nEnd.\n\\end{document}\n")
    p = run("paper.tex", notes_dir)
    assert p.returncode == 0, p.stdout[-2000:]


def test_notes_command_check_fails_on_missing_folder(tmp_path, capsys):
    assert main(["notes", "--check", "--out", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_document_renders_same_blocks():
    d = Document("T")
    d.section("S")
    d.para("x $a$")
    d.eq("a = b")
    d.table(["h"], [["1"]], caption="c")
    assert "```math\na = b\n```" in d.markdown()
    assert "\\begin{equation*}\na = b\n\\end{equation*}" in d.latex()
