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
    """Evaluate the printed chain F -> (a, F', e) -> Sigma at numbers; ``swap`` plants an error (F'_12 <-> F'_21 in
    Sigma, where the block traces tau_12 = -F'_12 u, tau_21 = -F'_21 u were substituted)."""
    known = dict(values)
    tau11, u, tau22 = core
    traces = {"tau_{11}": tau11, "u": u, "tau_{22}": tau22}
    F12, F21 = sp.Symbol("F'_{12}", real=True), sp.Symbol("F'_{21}", real=True)
    for name, lines in system.steps:
        for lhs, rhs in lines:
            rhs = sp.sympify(rhs).replace(lambda e: isinstance(e, sp.core.function.AppliedUndef),
                                          lambda e: traces[e.func.__name__])
            if swap and name == "Sigma":
                rhs = rhs.subs({F12: F21, F21: F12}, simultaneous=True)
            known[lhs] = float(rhs.subs(known))
    Sigma = np.array([[known.get(sp.Symbol(f"\\Sigma_{{{i}{j}}}", real=True), 0.0) for j in (1, 2, 3)]
                      for i in (1, 2, 3)])
    N0 = np.array(system.N0.subs(known), dtype=float)
    R = np.linalg.inv(N0 - Sigma)
    return 0.5 * (R + R.T), known                      # t_bb' = (R_bb' + R_b'b)/(2c), as printed


def test_no_printed_line_only_renames():
    # Theta_11 = tau_11, tau_11 = tau_11(a, e), F_13 = t_13: substituted, not printed (F is one matrix)
    s = general_weights_system()
    body = weights_latex(body=True)
    for _, lines in s.steps[1:]:
        assert not any(isinstance(rhs, (sp.Symbol, sp.core.function.AppliedUndef)) for _, rhs in lines)
    assert r"\Theta" not in body and "F_{13} &=" not in body and "tau_{11}(" not in body
    assert "Woodbury" not in body and "numerical" not in body and "Dyson" not in body
    # the labels: <prefix>:<left-hand side>, unique, the statement's labels those of the other bodies
    import re

    labels = re.findall(r"\\label\{([^}]*)\}", weights_latex(body=True, label_prefix="gw"))
    assert len(labels) == len(set(labels)) and all(re.fullmatch(r"gw:[A-Za-z0-9]+", x) for x in labels)
    assert {"gw:main", "gw:A1", "gw:barPhigamma", "gw:barEattngamma", "gw:t", "gw:Z", "gw:Nprime"} <= set(labels)


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
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
                                        "\\newtheorem{claim}{Claim}\n\\begin{document}\n\\input{body}\n"
                                        "See Claim~\\ref{gw:main}, \\eqref{gw:t}, \\eqref{gw:Z} and \\eqref{gw:barPhigamma}."
                                        "\n\\end{document}\n")
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


def _numbers(expr, sub) -> np.ndarray:
    """A printed matrix expression at numbers, by walking its SymPy tree with NumPy (SymPy's own explicit products
    of 12 x 12 float matrices take minutes): ``sub`` maps its MatrixSymbols and scalars to numbers."""
    import scipy.linalg

    scalars = {k: v for k, v in sub.items() if not isinstance(k, sp.MatrixSymbol)}
    if isinstance(expr, sp.MatrixSymbol):
        return np.array(sub[expr], dtype=float)
    if isinstance(expr, sp.Identity):
        return np.eye(int(expr.rows.subs(scalars)))
    if isinstance(expr, sp.MatMul):
        out = np.eye(1)
        for arg in expr.args:
            value = _numbers(arg, sub) if arg.is_Matrix else float(arg.subs(scalars))
            out = value * out if np.ndim(value) == 0 else (out @ value if out.shape != (1, 1) else out[0, 0] * value)
        return out
    if isinstance(expr, sp.MatAdd):
        return sum(_numbers(arg, sub) for arg in expr.args)
    if isinstance(expr, sp.KroneckerProduct):
        return np.kron(*(_numbers(arg, sub) for arg in expr.args))
    if isinstance(expr, sp.BlockDiagMatrix):
        return scipy.linalg.block_diag(*(_numbers(arg, sub) for arg in expr.args))
    if isinstance(expr, sp.Inverse):
        return np.linalg.inv(_numbers(expr.arg, sub))
    if isinstance(expr, sp.Transpose):
        return _numbers(expr.arg, sub).T
    if isinstance(expr, sp.MatrixBase):
        return np.array(expr.subs(scalars), dtype=float)
    raise TypeError(f"no rule for {type(expr).__name__}")


def _printed_forms(s, t, alpha, c, M, mu, swap_vectors=False):
    """The printed 3 x 3 forms Z = (v_i^T Pi_ij v_j) at numbers: Y, then Pi, then Z, each from its SymPy object."""
    sig = s.signal
    sc, ss = s.scalars, sig.scalars
    p = M.shape[0]
    values = {sc["alpha"]: alpha, sc["c"]: c, **{s.t[i, j]: t[i, j] for i in range(3) for j in range(3)}}
    F = np.array(s.Fmatrix.subs(values), dtype=float)
    base = {ss["p"]: p, ss["M"]: sp.ImmutableMatrix(M), ss["mu"]: sp.ImmutableMatrix(mu.reshape(-1, 1)),
            ss["F"]: sp.ImmutableMatrix(F), **{k: sp.ImmutableMatrix(np.array(v.subs(values), dtype=float))
                                               for k, v in sig.matrices.items()}}
    (Ys, Y), (Pis, Pi), (_, Z) = sig.forms
    Yv = _numbers(Y, base)
    Piv = _numbers(Pi, {**base, Ys: sp.ImmutableMatrix(Yv)})
    if swap_vectors:                                   # planted: M mu and M^T mu exchanged
        base[ss["M"]] = sp.ImmutableMatrix(M.T)
    return _numbers(Z, {**base, Pis: sp.ImmutableMatrix(Piv)}), F


def _printed_phi(s, t, alpha, c, Z, theta_m, norm2) -> float:
    sig = s.signal
    sc, ss = s.scalars, sig.scalars
    values = {sc["alpha"]: alpha, sc["c"]: c, ss["theta_m"]: theta_m, ss["norm2"]: norm2,
              **{s.t[i, j]: t[i, j] for i in range(3) for j in range(3)},
              **{sig.Z[i, j]: Z[i, j] for i in range(3) for j in range(3)}}
    head, quadratic = sig.phi
    blocks = {k: sp.ImmutableMatrix(np.array(v.subs(values), dtype=float)) for k, v in sig.blocks.items()}
    return float(head.subs(values)) - float(_numbers(quadratic, blocks)[0, 0])


@pytest.mark.parametrize("seed", [0, 1])
def test_the_printed_signal_forms_are_the_kernels(seed):
    # Z from the printed matrix expressions (Y, Pi, V^T Pi V) with a concrete non-normal M, against the kernel's
    # block elimination (signal_forms) at a random symmetric t
    from symrmt.general.kernel import Factored, signal_forms

    rng = np.random.default_rng(10 + seed)
    p, alpha, c = 4, 0.7, 0.6
    s = general_weights_system()
    t = rng.uniform(-0.4, 0.4, (3, 3))
    t = (t + t.T) / 2
    M = np.eye(p) + 0.5 * rng.standard_normal((p, p))
    mu = rng.standard_normal(p)
    Z, F = _printed_forms(s, t, alpha, c, M, mu)
    kernel = signal_forms(t, Factored(F, MatrixData(M)), c, [M.T @ mu, M @ mu, mu])
    assert np.allclose(Z, kernel, atol=1e-10, rtol=1e-9)
    planted, _ = _printed_forms(s, t, alpha, c, M, mu, swap_vectors=True)
    assert not np.allclose(planted, kernel, atol=1e-3)


def test_the_printed_error_with_a_signal_is_the_solvers():
    # at the solver's solutions (p = 6, a non-normal M, a signal), the printed Phi-bar is the solver's Phi and
    # -gamma^2 dPhi-bar/dgamma (a central difference of the printed Phi-bar between converged solutions at
    # gamma(1 +- h)) its E; h = 1e-3: truncation ~h^2 = 1e-6 relative, the solver's own difference ~1e-9
    from symrmt.general import solve_general

    rng = np.random.default_rng(7)
    p, c, gamma, h = 6, 0.8, 0.5, 1e-3
    M = np.eye(p) + 0.6 * rng.standard_normal((p, p)) / np.sqrt(p)
    mu = rng.standard_normal(p)
    mu /= np.linalg.norm(mu)
    gammas = gamma * np.array([1 - h, 1.0, 1 + h])
    sol = solve_general("tanh(x)", c, gammas, M, mu=mu)
    s = general_weights_system()
    alpha = sol.hermite.alpha
    theta_m, norm2 = float(mu @ M @ mu), float(mu @ mu)

    def phi(k, planted=False):
        Z, _ = _printed_forms(s, sol.t[k], alpha, c, M, mu)
        return _printed_phi(s, sol.t[k], alpha, c, Z, *((norm2, theta_m) if planted else (theta_m, norm2)))

    printed = [phi(k) for k in range(3)]
    assert np.allclose(printed, sol.phi, atol=1e-9, rtol=1e-8)
    error = -gamma ** 2 * (printed[2] - printed[0]) / (2 * gamma * h)
    assert abs(error - sol.error[1]) < 1e-5 * abs(sol.error[1])
    assert abs(theta_m - norm2) > 0.1                 # the planted error below is visible
    assert abs(phi(1, planted=True) - sol.phi[1]) > 1e-4     # planted: theta_M and ||mu||^2 exchanged in C_0


def test_the_weights_body_takes_parts_and_an_environment():
    """--part and --theorem-env shape the --weights body as they do the others: the assumptions printed once per
    paper (a theorem part without them cites no label it does not print), the user's environment around the claim."""
    from symrmt.derive.general_weights import weights_latex

    whole = weights_latex(body=True, f="tanh(x)")
    assert r"\paragraph{Assumptions.}" in whole and r"\begin{claim}[heuristic]" in whole
    part = weights_latex(body=True, f="tanh(x)", parts=("model", "theorem"), theorem_env="proposition")
    assert r"\paragraph{Assumptions.}" not in part and r"\paragraph{Definitions.}" not in part
    assert r"\begin{proposition}[heuristic]" in part and r"\end{proposition}" in part
    assert "Under the assumptions of the model" in part and r"\ref{weights:A1}" not in part
    only = weights_latex(body=True, parts=("assumptions",))
    assert r"\paragraph{Assumptions.}" in only and r"\paragraph{Model.}" not in only and "proposition" not in only
