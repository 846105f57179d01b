"""A tiny document model rendered to LaTeX and to GitHub Markdown.

Blocks: headings, paragraphs (text with ``$...$`` inline math), display equations
(LaTeX strings or :class:`theory.Display` objects from the printing layer), theorem
statements (``proposition``, ``lemma``) with their derivations (amsthm ``proof``),
tables (rows may be grouped) and figures. The same blocks give ``appendix.tex`` and
``appendix.md``, so the two cannot drift apart.

The LaTeX needs exactly ``\\usepackage{amsmath,amssymb,amsthm,graphicx,booktabs}``
(:data:`PACKAGES`); figures are included by stem (``\\includegraphics{phase}``), so
that pdflatex picks the vector PDF and a host paper finds it through
``\\graphicspath``. Markdown links the PNG.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TEX_SPECIAL = {"<": r"\textless{}", ">": r"\textgreater{}", "≤": r"$\leq$", "≥": r"$\geq$", "→": r"$\to$",
                "±": r"$\pm$", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _escape_text(s: str) -> str:
    """Escape LaTeX specials outside ``$...$`` math; ``**bold**`` and ``*it*`` and
    `` `code` `` are converted."""
    parts = re.split(r"(\$[^$]+\$)", s)
    out = []
    for p in parts:
        if p.startswith("$") and p.endswith("$") and len(p) > 1:
            out.append(p)
            continue
        code = re.split(r"(`[^`]+`)", p)
        seg = []
        for c in code:
            if c.startswith("`") and c.endswith("`") and len(c) > 1:
                seg.append(r"\texttt{" + "".join(_TEX_SPECIAL.get(ch, ch) for ch in c[1:-1]) + "}")
            else:
                c = c.replace("<=", "≤").replace(">=", "≥").replace("->", "→").replace("+-", "±")
                t = "".join(_TEX_SPECIAL.get(ch, ch) for ch in c)
                t = re.sub(r"\*\*([^*]+)\*\*", r"\\textbf{\1}", t)
                t = re.sub(r"\*([^*]+)\*", r"\\emph{\1}", t)
                t = t.replace("—", "---").replace("–", "--")
                seg.append(t)
        out.append("".join(seg))
    return "".join(out)


#: the packages the appendix needs, and all a host paper must load for it
PACKAGES = "amsmath,amssymb,amsthm,graphicx,booktabs"
#: theorem-like environments the appendix uses (defined unless the host already has them)
THEOREMS = (("proposition", "Proposition"), ("lemma", "Lemma"))
#: a table row that separates two groups of rows
GROUP_RULE = ("---",)


#: the column separation of the tables (``\tabcolsep``, set in each table), in points
TABCOLSEP_PT = 3


def _fixed_columns(widths) -> str:
    r"""``p{...}`` columns in the proportions of ``widths`` (cm at the standalone text width) that
    fill ``\linewidth`` less the column separations, so a table fits any host paper's text width
    (fixed cm widths overflowed a 10pt article by up to 15pt)."""
    total = sum(float(w) for w in widths)
    sep = 2 * TABCOLSEP_PT * len(widths)
    return "".join(rf"p{{\dimexpr(\linewidth-{sep}pt)*{round(1000 * float(w))}/{round(1000 * total)}\relax}}"
                   for w in widths)


def _math_alt(s: str) -> str:
    """Caption text without ``$`` and backslash commands, for a Markdown image's alt text."""
    s = re.sub(r"\\[A-Za-z]+", "", s.replace("$", ""))
    return re.sub(r"[{}^_]", "", s)


@dataclass
class Document:
    title: str
    blocks: list = field(default_factory=list)

    def section(self, title):
        self.blocks.append(("section", title))

    def subsection(self, title):
        self.blocks.append(("subsection", title))

    def para(self, text):
        self.blocks.append(("para", text))

    def items(self, items):
        self.blocks.append(("items", list(items)))

    def eq(self, latex):
        """A display: a LaTeX string or a :class:`theory.Display` (``split`` lines)."""
        self.blocks.append(("eq", latex if isinstance(latex, str) else latex.latex))

    def statement(self, kind, title, text):
        """A ``proposition`` or ``lemma`` with an optional title and its text (inline math)."""
        if kind not in dict(THEOREMS):
            raise ValueError(f"`kind` must be one of {[k for k, _ in THEOREMS]}, got {kind!r}")
        self.blocks.append(("statement", (kind, title, text)))

    def derivation(self, title="Derivation"):
        """Open a derivation (amsthm ``proof``); close it with :meth:`end_derivation`."""
        self.blocks.append(("proof", title))

    def end_derivation(self):
        self.blocks.append(("endproof", None))

    def table(self, header, rows, caption="", widths=None, align=None):
        """``widths``: column widths in cm for wrapped columns (None: ``align`` or ``l``).

        A row equal to :data:`GROUP_RULE` separates two groups (``\\midrule``).
        """
        self.blocks.append(("table", (header, rows, caption, widths, align)))

    def figure(self, stem, caption, width="1.0"):
        """A figure ``stem.pdf`` (LaTeX) / ``stem.png`` (Markdown); ``width`` in ``\\linewidth``."""
        self.blocks.append(("figure", (stem, caption, width)))

    # ---------------------------------------------------------------- renderers
    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        counters: dict = {}
        for kind, v in self.blocks:
            if kind == "section":
                out += [f"## {v}", ""]
            elif kind == "subsection":
                out += [f"### {v}", ""]
            elif kind == "para":
                out += [v, ""]
            elif kind == "items":
                out += [f"* {it}" for it in v] + [""]
            elif kind == "eq":
                out += ["```math", v, "```", ""]
            elif kind == "statement":
                k, title, text = v
                counters[k] = counters.get(k, 0) + 1
                name = dict(THEOREMS)[k]
                out += [f"**{name} {counters[k]}**" + (f" ({title})" if title else "") + f". *{text}*", ""]
            elif kind == "proof":
                out += [f"*{v}.*", ""]
            elif kind == "endproof":
                out += ["∎", ""]
            elif kind == "table":
                header, rows, caption, _, _ = v
                out += ["| " + " | ".join(h.replace("|", "\\|") for h in header) + " |", "|" + "---|" * len(header)]
                out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |"
                        for r in rows if tuple(r) != GROUP_RULE]
                out += ["", f"*{caption}*" if caption else "", ""]
            elif kind == "figure":
                stem, caption, _ = v
                out += [f"![{_math_alt(caption)}]({stem}.png)", "", f"*{caption}*", ""]
        return "\n".join(out).rstrip() + "\n"

    def latex_body(self) -> str:
        out = []
        for kind, v in self.blocks:
            if kind == "section":
                out += [rf"\subsection{{{_escape_text(v)}}}", ""]
            elif kind == "subsection":
                out += [rf"\subsubsection{{{_escape_text(v)}}}", ""]
            elif kind == "para":
                out += [_escape_text(v), ""]
            elif kind == "items":
                out += [r"\begin{itemize}"] + [rf"  \item {_escape_text(it)}" for it in v] + [r"\end{itemize}", ""]
            elif kind == "eq":
                out += [r"\begin{equation*}", v, r"\end{equation*}", ""]
            elif kind == "statement":
                k, title, text = v
                out += [rf"\begin{{{k}}}" + (f"[{_escape_text(title)}]" if title else ""), _escape_text(text),
                        rf"\end{{{k}}}", ""]
            elif kind == "proof":
                out += [rf"\begin{{proof}}[{_escape_text(v)}]", ""]
            elif kind == "endproof":
                out += [r"\end{proof}", ""]
            elif kind == "table":
                header, rows, caption, widths, align = v
                cols = _fixed_columns(widths) if widths else (align or "l" * len(header))
                # fixed-width columns are set ragged right (justified narrow columns stretch into underfull
                # lines and hyphenate words), rows then end with \tabularnewline (\\ is \raggedright's)
                rag, end = (r"\raggedright ", r" \tabularnewline") if widths else ("", r" \\")
                out += [r"\begin{table}[!htbp]", r"\centering", r"\footnotesize",
                        rf"\setlength{{\tabcolsep}}{{{TABCOLSEP_PT}pt}}", rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
                        " & ".join(rag + _escape_text(h) for h in header) + end, r"\midrule"]
                out += [r"\midrule" if tuple(r) == GROUP_RULE else
                        " & ".join(rag + _escape_text(str(c)) for c in r) + end for r in rows]
                out += [r"\bottomrule", r"\end{tabular}"]
                if caption:
                    out.append(rf"\caption{{{_escape_text(caption)}}}")
                out += [r"\end{table}", ""]
            elif kind == "figure":
                stem, caption, width = v
                out += [r"\begin{figure}[!htbp]", r"\centering",
                        rf"\includegraphics[width={width}\linewidth]{{{stem}}}",
                        rf"\caption{{{_escape_text(caption)}}}", r"\end{figure}", ""]
        return "\n".join(out)

    def latex(self) -> str:
        """A section that also compiles alone as an article.

        ``\\input{appendix}`` inside a paper gives just the section: the preamble is
        emitted only when the file is compiled on its own (detected by whether
        ``\\begin{document}`` has already run, which disables preamble commands).
        """
        theorems = [rf"\@ifundefined{{{k}}}{{\newtheorem{{{k}}}{{{name}}}}}{{}}" for k, name in THEOREMS]
        return "\n".join([
            r"% Generated by `sigrec notes` from the sympy objects of theory/: do not edit by hand.",
            r"%",
            r"% Standalone: `pdflatex appendix.tex` in this folder.",
            r"% In a paper, from any folder, the preamble needs exactly",
            rf"%   \usepackage{{{PACKAGES}}}",
            r"%   \graphicspath{{path/to/notes/}}",
            r"% and the body",
            r"%   \input{path/to/notes/appendix}",
            r"% (proposition and lemma are defined here unless the paper defines them).",
            r"\makeatletter",
            r"\ifx\@onlypreamble\@notprerr\gdef\sigrecalone{0}\else\gdef\sigrecalone{1}\fi",
            r"\makeatother",
            r"\if1\sigrecalone",
            r"\documentclass[11pt]{article}",
            rf"\usepackage{{{PACKAGES}}}",
            r"\begin{document}",
            r"\fi",
            r"\makeatletter",
            *theorems,
            r"\makeatother",
            rf"\section{{{_escape_text(self.title)}}}",
            # local to the appendix: lets a paragraph with long code names stretch instead of overflowing
            r"\begingroup\setlength{\emergencystretch}{3em}",
            "",
            self.latex_body(),
            r"\endgroup",
            r"\if1\sigrecalone\end{document}\fi",
            "",
        ])
