"""``symrmt latex --weights``: the printed general-M system is the one the solver solves, its trace definitions are the
kernel's, and the document compiles."""
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

from symrmt.cli import main
from symrmt.derive.general_weights import general_weights_system, weights_latex
from symrmt.nonlinearity.scaled import ScaledHermite
from symrmt.general.kernel import MatrixData, pair_traces
from symrmt.general.solver import PathSystem
from tests.cli.runner import assert_refused, run_json


def _chain(system, values, core, swap=False):
    """Evaluate the printed chain F -> (a, F', e) -> tau -> Theta -> Sigma at numbers; ``swap`` plants an error."""
    known = dict(values)
    tau11, u, tau22 = core
    for name, lines in system.steps:
        for lhs, rhs in lines:
            if name == "tau":
                rhs = rhs.replace(lambda e: isinstance(e, sp.core.function.AppliedUndef),
                                  lambda e: {"tau_{11}": tau11, "u": u, "tau_{22}": tau22}[e.func.__name__])
                if swap and str(lhs) in (r"\tau_{12}", r"\tau_{21}"):
                    rhs = rhs.subs({sp.Symbol("F'_{12}", real=True): sp.Symbol("F'_{21}", real=True),
                                    sp.Symbol("F'_{21}", real=True): sp.Symbol("F'_{12}", real=True)}, simultaneous=True)
            known[lhs] = float(sp.sympify(rhs).subs(known))
    Sigma = np.array([[known[sp.Symbol(f"\\Sigma_{{{i}{j}}}", real=True)] for j in (1, 2, 3)] for i in (1, 2, 3)])
    N0 = np.array(system.N0.subs(known), dtype=float)
    R = np.linalg.inv(N0 - Sigma)
    return 0.5 * (R + R.T), known                      # t_bb' = (R_bb' + R_b'b)/(2c), as printed


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_printed_system_is_the_solvers(seed):
    rng = np.random.default_rng(seed)
    s = general_weights_system()
    x = rng.uniform(-0.5, 0.5, 6)
    t = np.zeros((3, 3))
    t[np.triu_indices(3)] = x
    t = t + np.triu(t, 1).T
    alpha, b2, beta, c, gamma, d = 0.8, 0.3, 0.1, 0.7, 0.4, 0.2
    core = rng.uniform(-1, 1, 3)
    M = rng.standard_normal((5, 5))
    herm = ScaledHermite(1.0, 0.5, 0.0, alpha, alpha * alpha + b2, alpha, b2, beta)
    sys_ = PathSystem(MatrixData(M), herm, c, d, None)
    r, fac = sys_.rn(t, gamma, core=lambda args: core)
    sc = s.scalars
    values = {sc["gamma"]: gamma, sc["kappa"]: sys_.kappa, sc["alpha"]: alpha, sc["b2"]: b2, sc["beta"]: beta,
              sc["c"]: c, **{s.t[i, j]: t[i, j] for i in range(3) for j in range(3)}}
    printed, known = _chain(s, values, core)
    assert np.allclose(printed, r, atol=1e-12, rtol=1e-10)
    a, e = sp.symbols("a e", real=True)
    assert np.allclose([known[a], known[e]], fac.args[[0, 2]], atol=1e-13)
    planted, _ = _chain(s, values, core, swap=True)           # tau_12 <-> tau_21's coefficient: caught
    assert not np.allclose(planted, r, atol=1e-6)


def test_the_printed_traces_are_the_kernels():
    # the matrix-expression definitions, evaluated with a concrete M, against the kernel's two symmetric inverses
    s = general_weights_system()
    p = 4
    rng = np.random.default_rng(3)
    M = rng.standard_normal((p, p)) / 2
    a, e = 0.3, -0.2
    free = s.definitions[0][1].free_symbols
    Ms = next(x for x in free if isinstance(x, sp.MatrixSymbol))
    psym = next(x for x in free if x.name == "p")
    A, E = sp.symbols("a e", real=True)
    sub = {Ms: sp.ImmutableMatrix(M), psym: p, A: a, E: e}
    explicit = lambda expr: expr.doit().replace(sp.Trace, lambda X: sp.Trace(X.as_explicit()).doit())
    N = {lhs: sp.ImmutableMatrix(rhs.subs(sub).doit().as_explicit()) for lhs, rhs in s.definitions[:2]}
    values = [float(explicit(rhs.subs(N).subs(sub))) for _, rhs in s.definitions[2:]]
    core, _, _ = pair_traces(MatrixData(M), a, e)
    assert np.allclose(values, core, atol=1e-10)
    # power: the Gram matrix on the wrong side in u (tr N^-1 M M^T) is another number for this non-normal M
    Nv = np.array(N[s.definitions[0][0]], dtype=float)
    assert abs(np.trace(np.linalg.solve(Nv, M @ M.T)) / p - core[1]) > 1e-2


def _engine():
    return next((e for e in ("pdflatex", "lualatex", "xelatex") if shutil.which(e)), None)


@pytest.mark.skipif(_engine() is None, reason="no LaTeX engine (pdflatex, lualatex, xelatex) on PATH")
def test_document_and_body_compile(tmp_path, capsys):
    assert main(["latex", "--weights", "--f", "tanh(x)", "--document", str(tmp_path / "system.tex")]) == 0
    run = subprocess.run([_engine(), "-interaction=nonstopmode", "-halt-on-error", "system.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    log = (tmp_path / "system.log").read_text(errors="replace")
    assert run.returncode == 0, log[-3000:]
    assert "Undefined control sequence" not in log and "multiply defined" not in log
    body = weights_latex(body=True, label_prefix="gw")
    (tmp_path / "body.tex").write_text(body)
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\begin{document}\n"
                                        "\\input{body}\nSee \\eqref{gw:tbb} and \\eqref{gw:N0}.\n\\end{document}\n")
    for _ in range(2):
        run = subprocess.run([_engine(), "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0
    assert "undefined" not in (tmp_path / "paper.log").read_text(errors="replace").lower()


def test_cli_prints_the_fragments_with_m_symbolic(capsys):
    out = run_json(capsys, "latex", "--weights", "--f", "erf(x)")
    text = out["latex"]
    assert out["kind"] == "weights" and text == weights_latex(f=sp.erf(sp.Symbol("x", real=True)))
    assert r"\operatorname{tr}\left(M N^{-1}" in text and r"M^{\top} M" in text and r"\operatorname{erf}" in text


@pytest.mark.parametrize("argv, needle", [
    (["--rank", "2"], "--weights cannot be combined with --rank"),
    (["--numeric"], "--weights cannot be combined with --numeric"),
    (["--kind", "linear"], "--weights cannot be combined with --kind"),
    (["--label-prefix", "9x"], "label"),
])
def test_cli_refusals(capsys, argv, needle):
    assert_refused(capsys, ["latex", "--weights", *argv], needle)
