"""The printed LaTeX renders: ``--document`` compiles with a LaTeX engine, every fragment passes KaTeX's strict mode.

Both need tools outside Python and are skipped when they are missing:

* a LaTeX engine (``pdflatex``, ``lualatex`` or ``xelatex`` on PATH), e.g. on Debian
  ``apt-get install texlive-latex-base texlive-latex-recommended``;
* Node.js with the ``katex`` package where ``require`` finds it, e.g.
  ``npm install --prefix /tmp/katex katex`` and then ``NODE_PATH=/tmp/katex/node_modules``
  (or ``SYMRMT_KATEX=/tmp/katex/node_modules/katex``).

The README says how to run them.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from symrmt import latex
from symrmt.cli import main

#: Outputs that cover every printer path: each kind, a parametric f (renamed vector, named functions),
#: a parameter with a system's name (tilde), exact and numeric closed forms, b = 0, rank 3 (split lists).
CASES = [
    dict(kind="attention"),
    dict(kind="attention", f="tanh(s*x)"),
    dict(kind="attention", f="erf(d*x)", rank=2),
    dict(kind="attention", f="x*exp(-x**2/2)", numeric=True, digits=4),
    dict(kind="attention", f="x"),
    dict(kind="attention", rank=3),
    dict(kind="linear"),
    dict(kind="gram_density", f="tanh(x)"),
    dict(kind="kernel_density", f="sin(x)"),
    dict(kind="attention", form="algebraic"),                  # the algebraic forms' matrices and routes
    dict(kind="attention", form="algebraic", f="x**3 - 3*x"),
    dict(kind="linear", form="algebraic"),
    dict(kind="gram_density", form="algebraic", f="tanh(x)"),
    dict(kind="kernel_density", form="algebraic"),
    dict(kind="kernel_ridge", f="tanh(x)", rank=2),
    dict(kind="kernel_ridge", form="algebraic", f="tanh(x)"),
]

_ENGINES = ("pdflatex", "lualatex", "xelatex")

_KATEX_SCRIPT = r"""
const katex = require(process.env.SYMRMT_KATEX || "katex");
const fragments = JSON.parse(require("fs").readFileSync(0, "utf8"));
const errors = [];
for (const [i, tex] of fragments.entries()) {
  try { katex.renderToString(tex, {displayMode: true, strict: "error", throwOnError: true}); }
  catch (e) { errors.push(i + ": " + e.message); }
}
console.log(JSON.stringify(errors));
"""


def _engine() -> str | None:
    return next((e for e in _ENGINES if shutil.which(e)), None)


def _katex_available() -> bool:
    if not shutil.which("node"):
        return False
    probe = subprocess.run(["node", "-e", 'require(process.env.SYMRMT_KATEX || "katex")'], capture_output=True,
                           timeout=60)
    return probe.returncode == 0


#: One compile takes 2-5 s: the default suite compiles the first case, CI all of them.
DOCUMENTS = [CASES[0], *(pytest.param(case, marks=pytest.mark.slow) for case in CASES[1:])]


@pytest.mark.skipif(_engine() is None, reason="no LaTeX engine (pdflatex, lualatex, xelatex) on PATH")
@pytest.mark.parametrize("case", DOCUMENTS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_document_compiles(case, tmp_path, capsys):
    argv = ["latex", "--kind", case["kind"], "--document", str(tmp_path / "system.tex")]
    if "f" in case and case["kind"] != "linear":
        argv += ["--f", case["f"]]
    # only the flags the case sets: a flag that would change nothing (--digits without --f) is refused
    argv += [flag for key in ("rank", "digits") if key in case for flag in (f"--{key}", str(case[key]))]
    argv += ["--numeric"] if case.get("numeric") else []
    assert main(argv) == 0, capsys.readouterr().err
    status, log = _compile(tmp_path)
    assert status == 0, log[-3000:]
    assert (tmp_path / "system.pdf").stat().st_size > 0
    assert "multiply defined" not in log and "Undefined control sequence" not in log


def _compile(folder) -> tuple[int, str]:
    """``(exit status, log)`` of the LaTeX engine on ``folder/system.tex``."""
    run = subprocess.run([_engine(), "-interaction=nonstopmode", "-halt-on-error", "system.tex"], cwd=folder,
                         capture_output=True, text=True, timeout=300)
    return run.returncode, (folder / "system.log").read_text(errors="replace")


#: Every kind, ranks 1-3 where the rank exists, both forms, and an f with a parameter (leaky ReLU of slope s).
BODIES = [dict(kind=kind, rank=rank, form=form, **extra) for form in ("quadrature", "algebraic")
          for kind, ranks, extra in (("attention", (1, 2, 3), {}), ("kernel_ridge", (1, 2, 3), {}), ("linear", (1,), {}),
                                     ("gram_density", (1,), {}), ("kernel_density", (1,), {}),
                                     ("attention", (1,), dict(f="leaky_relu(x, s)", center=True)))
          for rank in ranks] + [dict(kind="attention", f="tanh(x)", numeric=True, solver_data=True)]

_ARTICLE = r"""\documentclass{article}
\usepackage{amsmath,amssymb,amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{claim}{Claim}
\begin{document}
%s
\end{document}
"""


@pytest.mark.slow
@pytest.mark.skipif(_engine() is None, reason="no LaTeX engine (pdflatex, lualatex, xelatex) on PATH")
def test_bodies_compile_in_a_plain_article(tmp_path):
    """Every body, each with its own label prefix, \\input into one article that loads only amsmath, amssymb and
    amsthm (with the theorem and claim environments each body's first line asks for).

    The references to each body's equations resolve, and no label is defined twice.
    """
    lines = []
    for i, case in enumerate(BODIES):
        options = dict(case)
        text = latex(options.pop("f", None), body=True, label_prefix=f"s{i}", **options)
        (tmp_path / f"body{i}.tex").write_text(text)
        statement = text.split(rf"\label{{s{i}:main}}")[1]          # the first equation of the statement
        first = re.search(r"\\label\{([^}]*)\}", statement)[1]
        lines += [rf"\section{{{i}}}", rf"\input{{body{i}}}", rf"See \eqref{{{first}}} and \eqref{{s{i}:X}}."]
    (tmp_path / "system.tex").write_text(_ARTICLE % "\n".join(lines))
    for _ in range(2):                                                # the second run resolves the references
        status, log = _compile(tmp_path)
        assert status == 0, log[-3000:]
    assert "multiply defined" not in log and "undefined" not in log.lower() and "Undefined control" not in log


@pytest.mark.skipif(_engine() is None, reason="no LaTeX engine (pdflatex, lualatex, xelatex) on PATH")
def test_the_compile_check_has_power(tmp_path):
    """A document with one unknown command (planted in a printed equation) does not compile."""
    text = latex(document=True).replace(r"R(\lambda) &=", r"R(\lambda) &\unknowncommand =", 1)
    (tmp_path / "system.tex").write_text(text)
    status, log = _compile(tmp_path)
    assert status != 0 and "Undefined control sequence" in log


@pytest.mark.skipif(not _katex_available(), reason="Node.js with the katex package is not available")
def test_every_fragment_renders_in_katex_strict_mode():
    fragments = []
    for case in CASES:
        options = {k: v for k, v in case.items() if k != "kind"}
        fragments += latex(options.pop("f", None), kind=case["kind"], **options).split("\n\n")
    assert all(f.startswith(r"\begin{aligned}") for f in fragments)
    run = subprocess.run(["node", "-e", _KATEX_SCRIPT], input=json.dumps(fragments), capture_output=True, text=True,
                         timeout=300, env={**os.environ})
    assert run.returncode == 0, run.stderr
    errors = json.loads(run.stdout)
    assert not errors, "\n".join(f"{e}\n  in: {fragments[int(e.split(':')[0])][:200]}" for e in errors)


def test_the_katex_check_has_power():
    """A construct KaTeX refuses in strict mode (a bare & outside an alignment) is caught: the check can fail."""
    if not _katex_available():
        pytest.skip("Node.js with the katex package is not available")
    run = subprocess.run(["node", "-e", _KATEX_SCRIPT], input=json.dumps([r"a & b \unknowncommand"]),
                         capture_output=True, text=True, timeout=60)
    assert re.search(r"0: ", run.stdout)
