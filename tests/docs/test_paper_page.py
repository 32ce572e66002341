"""docs/paper.md runs: its commands, its Python, its LaTeX (compiled when an engine is installed), its numbers.

``python tests/docs/test_paper_page.py`` redraws docs/figures/paper_example.png, the first page
of the compiled example and the second beside it (it needs ``pdflatex``, ``pdftoppm`` and Pillow).
"""
from __future__ import annotations

import contextlib
import io
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[2]
PAGE = ROOT / "docs" / "paper.md"
FIGURE = ROOT / "docs" / "figures" / "paper_example.png"
#: The figure stays small enough for a repository and a web page.
FIGURE_BYTES = 300_000


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", PAGE.read_text(), flags=re.S | re.M)


def _commands() -> list[str]:
    return [line[2:] for block in _blocks("console") for line in block.splitlines() if line.startswith("$ symrmt")]


def _run_commands(folder: pathlib.Path) -> None:
    from symrmt.cli import main

    for command in _commands():
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(shlex.split(command)[1:]) == 0, command


def _paper() -> str:
    """The page's complete paper: the ``latex`` block with a ``\\documentclass``."""
    return next(block for block in _blocks("latex") if r"\documentclass" in block)


def _compile(folder: pathlib.Path) -> tuple[int, str]:
    (folder / "paper.tex").write_text(_paper())
    for _ in range(2):                                     # the second run resolves \eqref
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=folder,
                             capture_output=True, text=True, timeout=300)
        if run.returncode:
            break
    return run.returncode, (folder / "paper.log").read_text(errors="replace")


def test_the_commands_and_the_python_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_commands(tmp_path)
    assert {"lrelu.tex", "tanh.tex"} <= {p.name for p in tmp_path.iterdir()}
    for number, code in enumerate(_blocks("python"), 1):
        exec(compile(code, f"docs/paper.md, python block {number}", "exec"), {})


def test_the_quoted_numbers_are_printed():
    """a_1 = (s + 1)/2, b^2 = (pi - 2)(s - 1)^2/(4 pi), tanh's a_1 = 0.605706, the entry of M and the labels."""
    from symrmt import latex

    text = PAGE.read_text()
    lrelu = latex("leaky_relu(x, s)", center=True, body=True, label_prefix="lrelu")
    assert r"$a_1 = (s + 1)/2$" in text and r"\frac{s + 1}{2}" in lrelu
    assert r"$b^2 = (\pi - 2)(s - 1)^2/(4\pi)$" in text
    assert r"\frac{\left(\pi - 2\right) \left(s - 1\right)^{2}}{4 \pi}" in lrelu
    assert r"$M_{12} = a_1(\lambda - 1) - b^2 t_{12} + d$" in text and r"a_{1} \left(\lambda - 1\right) - b^{2} t_{12} + d" in lrelu
    assert "$a_1 = 0.605706$" in text and "0.605706" in latex("tanh(x)", body=True)
    for label in re.findall(r"`(lrelu:[A-Za-z0-9]+)`", text):
        assert r"\label{" + label + "}" in lrelu, label
    for label in re.findall(r"\\eqref\{([^}]*)\}", _paper()):
        assert label.split(":")[0] in ("lrelu", "tanh")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex on PATH (Debian: texlive-latex-base)")
def test_the_paper_compiles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_commands(tmp_path)
    status, log = _compile(tmp_path)
    assert status == 0, log[-3000:]
    assert "undefined" not in log.lower() and "multiply defined" not in log


def test_the_figure_is_there_and_small():
    assert FIGURE.exists() and 0 < FIGURE.stat().st_size < FIGURE_BYTES


def redraw(folder: pathlib.Path) -> None:
    """Compile the page's paper in ``folder`` and write its first page to :data:`FIGURE`."""
    import os

    os.chdir(folder)
    _run_commands(folder)
    status, log = _compile(folder)
    if status:
        sys.exit(log[-3000:])
    # pages 1 and 2 side by side: the model, the assumptions and the whole rank-1 statement
    subprocess.run(["pdftoppm", "-png", "-r", "110", "-f", "1", "-l", "2", "paper.pdf", "page"], check=True)
    from PIL import Image

    pages = [Image.open(name) for name in sorted(folder.glob("page-*.png"))]
    joined = Image.new("RGB", (sum(p.width for p in pages), max(p.height for p in pages)), "white")
    for k, page in enumerate(pages):
        joined.paste(page, (sum(p.width for p in pages[:k]), 0))
    joined.convert("L").save(FIGURE, optimize=True)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        redraw(pathlib.Path(folder))
    print(f"{FIGURE}: {FIGURE.stat().st_size} bytes")
