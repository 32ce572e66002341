"""The bodies fit a page: compiled in a plain article (default width), no overfull box, no undefined reference.

Needs ``pdflatex`` (texlive-latex-base and -recommended); skipped without it. The rank-1 statement's numbered
equations are counted (docs/paper.md quotes the count).
"""
from __future__ import annotations

import re

import pytest

from symrmt import latex

from .latex_compile import compile_bodies, engine

pytestmark = pytest.mark.skipif(engine() is None, reason="pdflatex is not installed")

#: Bodies that fit today (every kind at rank 1 in the quadrature form, --numeric, --solver-data, a parametric f).
FITS = [dict(f="tanh(x)"), dict(f="tanh(x)", numeric=True), dict(f="leaky_relu(x, s)", center=True),
        dict(f="tanh(s*x)"), dict(kind="linear"), dict(kind="gram_density", f="tanh(x)"),
        dict(kind="kernel_density", f="sin(x)")]
#: Rank 1 statement: the numbered equations inside the claim (docs/paper.md).
RANK_ONE_EQUATIONS = 11


@pytest.mark.parametrize("options", FITS, ids=str)
def test_the_body_fits_the_page(options, tmp_path):
    body = latex(body=True, label_prefix="b", **options)
    result = compile_bodies({"b": body}, tmp_path)
    assert not result["overfull"], result["overfull"]
    assert not result["undefined"], result["undefined"]
    numbered = re.findall(r"\\label\{([^}]*)\}", body)
    assert len(numbered) == len(set(numbered))


def test_the_compile_check_catches_an_overfull_box(tmp_path):
    """Planted: a line wider than the page is reported."""
    wide = latex("tanh(x)", body=True) + "\n\\[" + " + ".join(["x_{%d}" % i for i in range(80)]) + "\\]\n"
    assert compile_bodies({"b": wide}, tmp_path)["overfull"]


def test_the_compile_check_catches_an_undefined_reference(tmp_path):
    body = latex("tanh(x)", body=True) + "\nSee \\eqref{attention:missing}.\n"
    assert compile_bodies({"b": body}, tmp_path)["undefined"]


def test_the_rank_one_statement_has_few_numbered_equations():
    body = latex("tanh(x)", body=True)
    statement = body.split(r"\begin{claim}")[1].split(r"\end{claim}")[0]
    aligns = re.findall(r"\\begin\{align\}(.*?)\\end\{align\}", statement, re.S)
    assert sum(block.count(r"\label{") for block in aligns) == RANK_ONE_EQUATIONS
