"""Compile LaTeX bodies in a plain article and read the log: what tests/derive/test_latex_compile.py checks."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

#: A plain article at the default text width, with the environments the bodies name.
ARTICLE = r"""\documentclass{article}
\usepackage{amsmath,amssymb,amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{claim}{Claim}
\newtheorem{proposition}{Proposition}
\begin{document}
%s
\end{document}
"""


def engine() -> str | None:
    return shutil.which("pdflatex")


def compile_bodies(bodies: dict[str, str], folder: Path, text: str | None = None) -> dict:
    """``bodies`` (file stem -> LaTeX) ``\\input`` in one article, compiled twice; the log's problems.

    Returns ``{"overfull": [...], "undefined": [...], "log": str, "pdf": Path}``.
    """
    folder.mkdir(parents=True, exist_ok=True)
    for stem, body in bodies.items():
        (folder / f"{stem}.tex").write_text(body)
    inputs = text if text is not None else "\n".join(rf"\input{{{stem}}}" for stem in bodies)
    (folder / "paper.tex").write_text(ARTICLE % inputs)
    for _ in range(2):                                   # twice: references resolve on the second run
        run = subprocess.run([engine(), "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=folder,
                             capture_output=True, text=True, timeout=120)
    log = (folder / "paper.log").read_text(errors="replace")
    if run.returncode != 0:
        raise AssertionError("pdflatex failed:\n" + log[-3000:])
    overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)[^\n]*\n([^\n]*)", log)
    undefined = re.findall(r"(Reference `[^']*' on page \d+ undefined|There were undefined references)", log)
    return {"overfull": overfull, "undefined": undefined, "log": log, "pdf": folder / "paper.pdf"}
