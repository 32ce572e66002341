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

#: Every kind, ranks 1-3 where the rank exists, both forms (with an f where the kind takes one).
SYSTEMS = [dict(kind=kind, rank=rank, form=form, **({"f": "tanh(x)"} if kind != "linear" else {}))
           for form in ("quadrature", "algebraic")
           for kind, ranks in (("attention", (1, 2, 3)), ("kernel_ridge", (1, 2, 3)), ("linear", (None,)),
                               ("gram_density", (None,)), ("kernel_density", (None,)))
           for rank in ranks]
#: And the options that change what is printed: --numeric, --solver-data, a parametric f (closed forms, a tilde,
#: a named centring constant), a_1 = 0 (its own algebraic form).
OPTIONS = [dict(f="tanh(x)", numeric=True), dict(f="tanh(x)", solver_data=True), dict(f="leaky_relu(x, s)", center=True),
           dict(f="erf(d*x)"), dict(f="tanh(a*x)+b*x**2", center=True), dict(f="x**3-3*x", form="algebraic")]
#: About 5 s a compile: the default suite builds the first of each list, CI all.
FITS = [OPTIONS[0], SYSTEMS[0], *(pytest.param(o, marks=pytest.mark.slow) for o in [*OPTIONS[1:], *SYSTEMS[1:]])]
#: Rank 1 statement: the numbered equations inside the claim (docs/paper.md).
RANK_ONE_EQUATIONS = 11


@pytest.mark.parametrize("options", FITS, ids=str)
def test_the_body_fits_the_page(options, tmp_path):
    options = {k: v for k, v in options.items() if v is not None}
    body = latex(body=True, label_prefix="b", **options)
    result = compile_bodies({"b": body}, tmp_path)
    assert not result["overfull"], result["overfull"]
    assert not result["undefined"], result["undefined"]
    numbered = re.findall(r"\\label\{([^}]*)\}", body)
    assert len(numbered) == len(set(numbered))


def test_the_weights_body_fits_the_page(tmp_path):
    from symrmt.derive.general_weights import weights_latex

    result = compile_bodies({"w": weights_latex(body=True, f="tanh(x)")}, tmp_path)
    assert not result["overfull"] and not result["undefined"]


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


def test_a_document_defines_the_environment_it_was_given(tmp_path):
    import subprocess

    (tmp_path / "doc.tex").write_text(latex("tanh(x)", document=True, theorem_env="proposition"))
    run = subprocess.run([engine(), "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert run.returncode == 0, log[-2000:]
    assert r"\begin{proposition}[heuristic]" in (tmp_path / "doc.tex").read_text() and "Overfull" not in log
