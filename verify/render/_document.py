"""A tiny document model rendered to LaTeX and to GitHub Markdown.

Blocks: headings, paragraphs (text with ``$...$`` inline math), display equations
(LaTeX strings produced by :func:`theory._latex.tex`), tables and figures. The same
blocks give ``appendix.tex`` and ``appendix.md``, so the two cannot drift apart.
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

    def eq(self, latex, label=None):
        self.blocks.append(("eq", latex))

    def table(self, header, rows, caption="", widths=None):
        """``widths``: LaTeX column widths in cm for wrapped columns (None: ``l``)."""
        self.blocks.append(("table", (header, rows, caption, widths)))

    def figure(self, path, caption):
        self.blocks.append(("figure", (path, caption)))

    # ---------------------------------------------------------------- renderers
    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
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
            elif kind == "table":
                header, rows, caption, _ = v
                out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                out += ["| " + " | ".join(str(c).replace("|", "/") for c in r) + " |" for r in rows]
                out += ["", f"*{caption}*" if caption else "", ""]
            elif kind == "figure":
                path, caption = v
                out += [f"![{caption}]({path})", "", f"*{caption}*", ""]
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
            elif kind == "table":
                header, rows, caption, widths = v
                cols = "".join(f"p{{{w}cm}}" for w in widths) if widths else "l" * len(header)
                out += [r"\begin{table}[ht]", r"\centering", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}",
                        rf"\begin{{tabular}}{{{cols}}}", r"\toprule",
                        " & ".join(_escape_text(h) for h in header) + r" \\", r"\midrule"]
                out += [" & ".join(_escape_text(str(c)) for c in r) + r" \\" for r in rows]
                out += [r"\bottomrule", r"\end{tabular}"]
                if caption:
                    out.append(rf"\caption{{{_escape_text(caption)}}}")
                out += [r"\end{table}", ""]
            elif kind == "figure":
                path, caption = v
                out += [r"\begin{figure}[ht]", r"\centering",
                        rf"\includegraphics[width=0.8\linewidth]{{{path}}}",
                        rf"\caption{{{_escape_text(caption)}}}", r"\end{figure}", ""]
        return "\n".join(out)

    def latex(self) -> str:
        """A section that also compiles alone as an article.

        ``\\input{appendix}`` inside a paper gives just the section: the preamble is
        emitted only when the file is compiled on its own (detected by whether
        ``\\begin{document}`` has already run, which disables preamble commands).
        """
        return "\n".join([
            r"% Generated by `sigrec notes` from the sympy objects of theory/: do not edit by hand.",
            r"\makeatletter",
            r"\ifx\@onlypreamble\@notprerr\gdef\sigrecalone{0}\else\gdef\sigrecalone{1}\fi",
            r"\makeatother",
            r"\if1\sigrecalone",
            r"\documentclass[11pt]{article}",
            r"\usepackage{amsmath,amssymb,graphicx,booktabs}",
            r"\begin{document}",
            r"\fi",
            rf"\section{{{_escape_text(self.title)}}}",
            "",
            self.latex_body(),
            r"\if1\sigrecalone\end{document}\fi",
            "",
        ])
