"""The generated appendix: content from the sympy objects, paper-grade typesetting,
--check, and LaTeX that compiles standalone and inside a host paper without overflow."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp

import sigrec.theory as theory
import sigrec.verify.render._region_figure as region_figure
import sigrec.verify.studies as studies
import sigrec.verify.studies._appendix as appendix
from sigrec.theory import compact, derive, display, monotone_analysis, same, symbols, tex, width
from sigrec.theory._latex import LINE_WIDTH
from sigrec.verify.cli._main import main
from sigrec.verify.render._document import PACKAGES, Document, _escape_text
from sigrec.verify.render._notes import compare, write_notes
from sigrec.verify.studies import AppendixData, appendix_data

REPO = Path(__file__).resolve().parents[3]
COMMITTED = REPO / "notes"
HAS_TEX = shutil.which("pdflatex") is not None
#: the one line a host paper adds to its preamble (docs/design.md section 6, README)
HOST_PREAMBLE = rf"\usepackage{{{PACKAGES}}}"
#: internal labels that must not reach the appendix (case names, ids of tracker items)
INTERNAL = ("paper-weak", "paper-bistable", "finite-size", "sparse-bistable", "sparse-monotone", "issue")
#: plain-text math that must not appear in captions and table cells outside math mode
PLAIN_MATH = re.compile(r"\b(alpha|beta|theta|rho|sigma2?|xi|eta)\b|\*|abs\(|\^")

rho, theta, alpha, beta, sigma2, m = (symbols.rho, symbols.theta, symbols.alpha, symbols.beta, symbols.sigma2,
                                      symbols.m)


@pytest.fixture(scope="module")
def data():
    """The appendix's data without a suite run (theory sections only), computed once: its
    sympy derivations are the costly part of this module."""
    return appendix_data()


@pytest.fixture(scope="module")
def notes_dir(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("notes")
    write_notes(out, data)
    return out


def _pdflatex(tex_name, cwd):
    return subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex_name],
                          cwd=cwd, capture_output=True, text=True, timeout=180)


def _overfull(log: str) -> list[str]:
    return re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)


def _pages(log: str) -> int:
    return int(re.search(r"Output written on .*?\((\d+) pages?", log).group(1))


# ------------------------------------------------------------------ the printing layer

def test_printer_names_powers_and_order():
    assert tex(sigma2**2) == r"\sigma^{4}"
    assert tex(sigma2**3) == r"\sigma^{6}"
    assert tex(sp.sqrt(sigma2)) == r"\sigma"
    assert tex(beta**2 * sigma2**2) == r"\beta^{2} \sigma^{4}"
    assert tex(rho - 1) == r"\rho - 1"
    assert tex(1 - alpha) == r"1 - \alpha"
    assert tex(-theta**2 * m * (m - 1)) == r"\theta^{2} m \left(1 - m\right)"
    assert tex(beta * theta * rho, {beta * theta: "b"}) == r"b \rho"


def test_compact_and_same_can_fail():
    ma = monotone_analysis("fixed")
    c = compact(ma.sign_factor)
    assert same(c, ma.sign_factor)
    assert width(tex(c)) < width(tex(sp.expand(ma.sign_factor)))
    assert not same(c + sigma2 / sp.Integer(10)**30, ma.sign_factor)
    assert not same(ma.sign_factor.subs(m, 1 - m), ma.sign_factor)


def test_display_breaks_long_sums_into_split_lines():
    long = sum(sp.Symbol(f"x_{i}") * theta**i * sp.exp(beta * rho * i) for i in range(1, 12))
    d = display("S", long)
    assert len(d.lines) > 1 and d.latex.startswith("\\begin{split}")
    assert all(width(line.replace("&", "")) <= LINE_WIDTH + 12 for line in d.lines)
    short = display("h", monotone_analysis("fixed").sign_factor)
    assert len(short.lines) == 1 and "split" not in short.latex


# ------------------------------------------------------------------ the content

def test_formulas_come_from_the_sympy_objects(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    md = (notes_dir / "appendix.md").read_text()
    names = {beta * theta: "b"}
    h = sigma2 * (1 + beta * theta * rho * (1 - m)) + theta**2 * m * (1 - m)
    assert same(h, monotone_analysis("fixed").sign_factor)
    fixed = derive("fixed")
    for piece in (tex(h, names), tex(compact(fixed.slope_poly)), tex(compact(fixed.sparse.field), names)):
        assert piece in text and piece in md


def test_alpha_c_is_printed_through_m_c(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    line = next(x for x in text.splitlines() if x.startswith("\\alpha_c ="))
    assert "m_c" in line and "\\sqrt" not in line
    assert text.count("\\sqrt{\\Delta}") == 1  # the square root is printed once, in m_c


def test_no_sympy_artefacts(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    for bad in (r"\left(\sigma^{2}\right)^{2}", r"\sigma_{2}", "(-1 +", r"\left(-1 + ", "sigma2", "\\text{fixed:}"):
        assert bad not in text, bad


def test_claims_are_theorem_environments(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    assert text.count("\\begin{proposition}") >= 5  # claims 1-5 (claim 6 needs a reproduction)
    assert text.count("\\begin{lemma}") >= 2
    assert text.count("\\begin{proof}") == text.count("\\end{proof}") >= 6


def _captions_and_cells(text: str) -> list[str]:
    caps = re.findall(r"\\caption\{(.*)\}", text)
    cells = []
    for body in re.findall(r"\\midrule\n(.*?)\\bottomrule", text, flags=re.S):
        cells += [c for row in body.split("\\\\") for c in row.split("&")]
    return caps + cells


def _outside_math(s: str) -> str:
    s = re.sub(r"\$[^$]*\$", "", s)
    return re.sub(r"\\texttt\{[^}]*\}", "", s)


def test_no_plain_text_math_or_internal_labels(notes_dir):
    for folder in (notes_dir, COMMITTED):
        text = (folder / "appendix.tex").read_text()
        for piece in _captions_and_cells(text):
            assert not PLAIN_MATH.search(_outside_math(piece)), (folder, piece)
        body = _outside_math(text.split("\\begingroup", 1)[1])
        for label in INTERNAL:
            assert label not in body, (folder, label)


def test_plain_math_detector_can_fail():
    assert PLAIN_MATH.search(_outside_math("Certified landscape over (theta, alpha)"))
    assert PLAIN_MATH.search(_outside_math("abs(rho K)"))
    assert not PLAIN_MATH.search(_outside_math("over $(\\theta,\\alpha)$"))


def test_a_fresh_generation_prints_no_rounding_residue(notes_dir):
    from .test_rounding_level import residues

    for name in ("appendix.md", "appendix.tex"):
        assert residues((notes_dir / name).read_text()) == [], name


def test_figures_are_vector_pdf_and_png(notes_dir):
    text = (notes_dir / "appendix.tex").read_text()
    stems = re.findall(r"\\includegraphics\[[^]]*\]\{([^}]*)\}", text)
    assert stems and all("." not in s for s in stems)  # pdflatex picks the PDF, Markdown the PNG
    for s in stems:
        pdf = (notes_dir / f"{s}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF") and b"/Subtype /Image" not in pdf
        assert (notes_dir / f"{s}.png").exists()
        assert f"]({s}.png)" in (notes_dir / "appendix.md").read_text()


def test_committed_notes_list_only_existing_figures():
    text = (COMMITTED / "appendix.tex").read_text()
    for s in re.findall(r"\\includegraphics\[[^]]*\]\{([^}]*)\}", text):
        assert (COMMITTED / f"{s}.pdf").exists() and (COMMITTED / f"{s}.png").exists()


def test_header_documents_the_host_usage():
    text = (COMMITTED / "appendix.tex").read_text()
    head = text.split("\\makeatletter")[0]
    assert HOST_PREAMBLE in head and "\\graphicspath{{path/to/notes/}}" in head
    assert "\\input{path/to/notes/appendix}" in head
    readme = (REPO / "README.md").read_text()
    assert HOST_PREAMBLE in readme and "\\graphicspath{{path/to/notes/}}" in readme


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


# ------------------------------------------------------------------ compiling

def _host(paper_dir: Path, notes: Path, extra: str = "") -> Path:
    """A host paper in its own folder that uses exactly the documented lines."""
    rel = Path(*[".."] * len(paper_dir.relative_to(notes.parent).parts)) / notes.name
    (paper_dir / "paper.tex").write_text(
        "\\documentclass{article}\n" + HOST_PREAMBLE + "\n" + extra
        + f"\\graphicspath{{{{{rel.as_posix()}/}}}}\n\\begin{{document}}\nIntro.\n"
        + f"\\input{{{rel.as_posix()}/appendix}}\nEnd.\n\\end{{document}}\n")
    return paper_dir / "paper.tex"


@pytest.mark.skipif(not HAS_TEX, reason="pdflatex not installed")
@pytest.mark.parametrize("which", ["fresh", "committed"])
def test_latex_compiles_without_overflow(which, notes_dir, tmp_path):
    src = notes_dir if which == "fresh" else COMMITTED
    notes = tmp_path / "notes"
    shutil.copytree(src, notes, ignore=shutil.ignore_patterns("*.aux", "*.log", "*.pdf.tmp"))
    p = _pdflatex("appendix.tex", notes)
    log = (notes / "appendix.log").read_text(errors="replace")
    assert p.returncode == 0, p.stdout[-2000:]
    assert _overfull(log) == [], _overfull(log)
    assert _pages(log) >= 3
    paper = tmp_path / "paper" / "sub"
    paper.mkdir(parents=True)
    _host(paper, notes)
    p = _pdflatex("paper.tex", paper)
    assert p.returncode == 0, p.stdout[-2000:]
    assert "File `" not in p.stdout and "not found" not in p.stdout


@pytest.mark.skipif(not HAS_TEX, reason="pdflatex not installed")
def test_host_with_its_own_theorems(notes_dir, tmp_path):
    notes = tmp_path / "notes"
    shutil.copytree(notes_dir, notes)
    paper = tmp_path / "paper"
    paper.mkdir()
    _host(paper, notes, "\\newtheorem{proposition}{Proposition}\\newtheorem{lemma}[proposition]{Lemma}\n")
    p = _pdflatex("paper.tex", paper)
    assert p.returncode == 0, p.stdout[-2000:]


def test_overfull_parser_can_fail():
    log = "Overfull \\hbox (12.5pt too wide) in paragraph at lines 1--2\nOutput written on a.pdf (3 pages, 10 bytes)."
    assert _overfull(log) == ["12.5"] and _pages(log) == 3


def test_notes_command_check_fails_on_missing_folder(tmp_path, capsys):
    assert main(["notes", "--check", "--out", str(tmp_path / "none")]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_document_renders_same_blocks():
    d = Document("T")
    d.section("S")
    d.statement("proposition", "claim", "If $x$ then $y$.")
    d.derivation()
    d.eq("a = b")
    d.end_derivation()
    d.table(["h"], [["1"], ("---",), ["2"]], caption="c")
    d.figure("f", "cap $\\alpha$")
    md, latex = d.markdown(), d.latex()
    assert "```math\na = b\n```" in md and "**Proposition 1** (claim)" in md and "](f.png)" in md
    assert "\\begin{equation*}\na = b\n\\end{equation*}" in latex
    assert "\\begin{proposition}[claim]" in latex and "\\begin{proof}[Derivation]" in latex
    assert "\\includegraphics[width=1.0\\linewidth]{f}" in latex
    assert latex.count("\\midrule") == 2
    with pytest.raises(ValueError, match="kind"):
        d.statement("theorem", "", "x")


# ------------------------------------------------------------------ rendering computes nothing

#: what the appendix's data needs and its rendering must not call
COMPUTING = {sp: ("solve", "simplify", "factor", "Poly", "together", "expand", "preorder_traversal"),
             theory: ("certify", "derive", "derive_effective", "derive_diffusion", "derive_general",
                      "general_criteria", "monotone_analysis", "pole_alpha", "pole_signs", "same",
                      "sparse_threshold_prior", "variance_quadrature", "parse_prior", "evaluate", "compact",
                      "critical_alpha"),
             studies: ("phase_diagram", "run_config", "run_configs", "appendix_data", "region_boundaries"),
             appendix: ("landscape", "certify", "region_boundaries")}


def _broken(name):
    def fail(*a, **k):
        raise AssertionError(f"rendering called {name}")
    return fail


def _files(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_rendering_is_a_pure_function_of_the_data(data, tmp_path, monkeypatch):
    """The appendix is typeset from its computed data: rendering certifies, solves,
    integrates and judges nothing, so it gives the same files with every such tool broken."""
    assert isinstance(data, AppendixData) and not data.suite and data.reproduction is None
    write_notes(tmp_path / "a", data)
    for module, names in COMPUTING.items():
        for name in names:
            monkeypatch.setattr(module, name, _broken(name))
    write_notes(tmp_path / "b", data)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert set(a) >= {"appendix.tex", "appendix.md", "phase.png", "phase.pdf"}
    assert a == b
    # the landscape figure draws the boundaries the data carries: it cannot reach the study that computes them
    assert not hasattr(region_figure, "region_boundaries")
