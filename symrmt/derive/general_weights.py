r"""The general-M system (docs/theory.md, section 18) as SymPy objects, with M kept symbolic: ``symrmt latex --weights``.

The solver (:mod:`symrmt.general`) evaluates the p-side numerically (two symmetric :math:`p \times p` inverses per
evaluation); everything else is a handful of scalar equations. This module writes those scalar equations in SymPy,
with the p-side entering through three named functions of two scalars, defined as normalized traces of words in
:math:`M`, :math:`M^\top` and resolvents of :math:`p \times p` matrices (SymPy matrix expressions in a
``MatrixSymbol`` M):

.. math::

    \tau_{11}(a, e) = \tfrac1p\operatorname{tr}\big(M N^{-1}(I + aM^\top)\big), \quad
    u(a, e) = \tfrac1p\operatorname{tr}\big(N^{-1}M^\top M\big), \quad
    \tau_{22}(a, e) = \tfrac1p\operatorname{tr}\big(M^\top N'^{-1}(I + aM)\big),

:math:`N = I + a(M + M^\top) + (a^2 - e)M^\top M`, :math:`N' = I + a(M + M^\top) + (a^2 - e)MM^\top`. The printed
text is made from these objects (:func:`weights_latex`), and tests/general/test_general_latex.py checks that the
solver's n-side algebra (:meth:`symrmt.general.solver.PathSystem.rn`) is this system at random points and that the
trace definitions are the kernel's (:func:`symrmt.general.kernel.pair_traces`).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["GeneralWeightsSystem", "general_weights_system", "weights_latex"]


@dataclass(frozen=True)
class GeneralWeightsSystem:
    r"""The general-M system as a chain of SymPy assignments, each in the symbols of the one before.

    ``steps`` is a list of ``(name, [(lhs, rhs), ...])``: the coefficients F in t; :math:`a`, :math:`F'_{12}`,
    :math:`F'_{21}`, :math:`e` in F; the :math:`2 \times 2` block traces :math:`\tau` in the named trace functions;
    :math:`\Theta` in :math:`\tau` and F; :math:`\Sigma_n` in :math:`\Theta` and t; then
    :math:`t = \mathrm{sym}\,(N_0 - \Sigma_n)^{-1}/c`. ``definitions``: the named traces as matrix expressions in M.
    """

    steps: list
    definitions: tuple
    N0: sp.Matrix
    t: sp.Matrix
    scalars: dict


def _matrix_symbols(name: str, rows: int, cols: int, symmetric: bool = False) -> sp.Matrix:
    def entry(i, j):
        if symmetric:
            i, j = min(i, j), max(i, j)
        return sp.Symbol(f"{name}_{{{i + 1}{j + 1}}}", real=True)
    return sp.Matrix(rows, cols, entry)


def general_weights_system() -> GeneralWeightsSystem:
    r"""The system of docs/theory.md, sections 18.5-18.6, in SymPy (module docstring)."""
    gamma, c = sp.symbols("gamma c", positive=True)
    kappa, alpha, beta = sp.symbols("kappa alpha beta", real=True)
    b2 = sp.Symbol("b^2", nonnegative=True)
    a, e = sp.symbols("a e", real=True)
    t = _matrix_symbols("t", 3, 3, symmetric=True)
    Fs = _matrix_symbols("F", 3, 3)
    tau_s = _matrix_symbols(r"\tau", 2, 2)
    Th = _matrix_symbols(r"\Theta", 3, 3)
    F12, F21 = sp.symbols("F'_{12} F'_{21}", real=True)
    w = [1, 1, c]
    F = sp.Matrix(3, 3, lambda b, k: [alpha * w[b] * t[b, 1], alpha * w[b] * t[b, 0], w[b] * t[b, 2]][k])
    d33 = 1 + Fs[2, 2]
    coefficients = [(a, Fs[0, 0] - Fs[0, 2] * Fs[2, 0] / d33), (F12, Fs[0, 1] - Fs[0, 2] * Fs[2, 1] / d33),
                    (F21, Fs[1, 0] - Fs[1, 2] * Fs[2, 0] / d33), (e, F12 * F21)]
    tau11, u, tau22 = (sp.Function(n) for n in ("tau_{11}", "u", "tau_{22}"))
    tau = sp.Matrix([[tau11(a, e), -F12 * u(a, e)], [-F21 * u(a, e), tau22(a, e)]])
    Theta = sp.zeros(3, 3)
    Theta[:2, :2] = tau_s
    Theta[:2, 2] = -tau_s * Fs[:2, 2] / d33
    Theta[2, :2] = -(Fs[2, :2] * tau_s) / d33
    Theta[2, 2] = 1 / d33 + (Fs[2, :2] * tau_s * Fs[:2, 2])[0, 0] / d33 ** 2
    T = -sp.diag(alpha, alpha, 1) * sp.Matrix([[0, 1, 0], [1, 0, 0], [0, 0, 1]]) * Th
    Sigma = T * sp.diag(*w) + sp.Matrix([[b2 * t[1, 1], beta * t[0, 1], 0], [beta * t[0, 1], b2 * t[0, 0], 0],
                                         [0, 0, 0]])
    N0 = sp.Matrix([[gamma, kappa, 0], [kappa, 0, 1], [0, 1, 0]])
    entries = lambda lhs, rhs: [(lhs[i, j], rhs[i, j]) for i in range(lhs.rows) for j in range(lhs.cols)]
    sigma_s = _matrix_symbols(r"\Sigma", 3, 3)
    steps = [("F", entries(Fs, F)), ("coefficients", coefficients), ("tau", entries(tau_s, tau)),
             ("Theta", [(Th[i, j], sp.factor(Theta[i, j])) for i in range(3) for j in range(3)]),
             ("Sigma", [(sigma_s[i, j], Sigma[i, j]) for i in range(3) for j in range(3)])]
    return GeneralWeightsSystem(steps, _trace_definitions(tau11, u, tau22, a, e), N0, t,
                                dict(gamma=gamma, kappa=kappa, alpha=alpha, b2=b2, beta=beta, c=c))


def _trace_definitions(tau11, u, tau22, a, e) -> tuple:
    """The three traces as SymPy matrix expressions in a ``MatrixSymbol`` M (p x p)."""
    p = sp.Symbol("p", positive=True, integer=True)
    M = sp.MatrixSymbol("M", p, p)
    Id = sp.Identity(p)
    g = a ** 2 - e
    N = sp.MatrixSymbol("N", p, p)
    Np = sp.MatrixSymbol("N'", p, p)
    return (
        (N, Id + a * (M + M.T) + g * M.T * M),
        (Np, Id + a * (M + M.T) + g * M * M.T),
        (tau11(a, e), sp.Trace(M * N.I * (Id + a * M.T)) / p),
        (u(a, e), sp.Trace(N.I * M.T * M) / p),
        (tau22(a, e), sp.Trace(M.T * Np.I * (Id + a * M)) / p),
    )


def _tex(expr) -> str:
    text = sp.latex(expr, mat_delim="(", mul_symbol=None)
    # SymPy prints the function tau_{11} as an operator name and M^T with T; the house notation is tau and M^top
    return text.replace(r"\operatorname{tau}", r"\tau").replace("^{T}", r"^{\top}").replace(r"\mathbb{I}", "I")


def weights_latex(body: bool = False, document: bool = False, f: "str | sp.Expr | None" = None,
                  label_prefix: str | None = None) -> str:
    r"""The general-M system as LaTeX: fragments (``aligned`` blocks), a paper body or a complete document.

    Made from :func:`general_weights_system`: the fixed point :math:`t = (N_0 - \Sigma_n(t))^{-1}/c`, the entries of
    :math:`\Sigma_n` with the p-side traces as the named functions :math:`\tau_{11}, u, \tau_{22}` of
    :math:`(a, e)`, their definitions as normalized traces of words in :math:`M, M^\top` and the resolvents
    :math:`N^{-1}, N'^{-1}`, the error and the scalars (the Hermite data at the score scale of M). ``f`` is
    named in the definitions; ``label_prefix`` prefixes the labels of a body or document (default ``weights``).
    """
    s = general_weights_system()
    sc = s.scalars
    prefix = label_prefix or "weights"
    steps = {name: [(_tex(l), _tex(r)) for l, r in lines if r != 0] for name, lines in s.steps}
    # the solver takes the symmetric part of R (t is symmetric; R is so on the solution, not along the way)
    fixed = [(r"t_{bb'}", r"\frac{1}{2c}\,\big(R_{bb'} + R_{b'b}\big), \qquad R = \big(N_0 - \Sigma_n\big)^{-1}"),
             (r"N_0", _tex(s.N0))]
    defs = [(_tex(lhs), _tex(rhs)) for lhs, rhs in s.definitions]
    if isinstance(f, str):
        from ..nonlinearity import parse_nonlinearity
        f = parse_nonlinearity(f)
    fn = f"f(x) = {sp.latex(f)}" if f is not None else "f"
    scalars = [
        (r"\sigma^2", r"\frac{\|M\|_F^2}{p}, \qquad \rho = \frac{\operatorname{tr}(M^2)}{\|M\|_F^2}"),
        (r"\alpha", r"\mathbb{E}\, f'(\sigma\xi), \qquad b^2 = \mathbb{E}\, f(\sigma\xi)^2 - \alpha^2\sigma^2"),
        (r"\beta", r"\mathbb{E}\, f(\sigma\xi) f(\sigma\xi') - \alpha^2\sigma^2\rho, \qquad "
                   r"\operatorname{corr}(\xi, \xi') = \rho"),
        (_tex(sc["kappa"]), r"d - \alpha\,\frac{\operatorname{tr} M}{p}"),
    ]
    if f is not None:
        scalars.insert(0, ("f(x)", sp.latex(f)))
    error = [(r"E_\mathrm{attn}(\gamma)", r"-\gamma^2 c\,\frac{\mathrm{d} t_{11}}{\mathrm{d}\gamma}")]
    blocks = [("fixed", fixed), *steps.items(), ("traces", defs), ("scalars", scalars), ("error", error)]
    if not (body or document):
        return "\n\n".join(r"\begin{aligned}" + " \\\\\n".join(f"{l} &= {r}" for l, r in lines) + r"\end{aligned}"
                           for _, lines in blocks)
    out = []

    from .latex import equation_label
    used: set[str] = set()

    def align(name, lines, numbered=True):
        rows = []
        for l, r in lines:                   # <prefix>:<left-hand side>, the scheme of the other bodies
            tag = rf" \label{{{equation_label(prefix, l + ' &', used)}}}" if numbered else r" \notag"
            rows.append(f"{l} &= {r}{tag}")
        return "\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}\n"

    out.append(r"\paragraph{The model.} Scores $S = X^\top M X/\sqrt p$ for a given $p \times p$ matrix $M$ "
               r"(token $i$ the key), $K_{ij} = f(S_{ij})/\sqrt p$ ($i \ne j$), $K_{ii} = d$, $X = Z + \mu y^\top$, "
               r"$Q = (K^\top X^\top X K/n + \gamma)^{-1}$, $E_\mathrm{attn} = \frac{\gamma^2}{n} y^\top Q^2 y$; "
               r"$c = p/n$. Noise only ($\mu = 0$); the signal enters by a Woodbury step with the quadratic forms "
               r"of $(M^\top\mu, M\mu, \mu)$ in the same resolvents." + "\n")
    out.append(r"\paragraph{Its deterministic equivalent.} The six unknowns $t_{bb'} = t_{b'b}$ solve" + "\n")
    out.append(align("t", fixed))
    out.append(r"with the self-energy $\Sigma_n$, the $3 \times 3$ matrix of entries $\Sigma_{bb'}$ "
               r"($\Sigma_{31}$, $\Sigma_{32}$ are not $\Sigma_{13}$, $\Sigma_{23}$)" + "\n")
    out.append(align("Sigma", steps["Sigma"]))
    out.append(r"in the p-side traces" + "\n" + align("Theta", steps["Theta"]))
    out.append(r"with the $2 \times 2$ block traces" + "\n" + align("tau", steps["tau"]))
    out.append(r"at the two scalars $a = F'_{11} = F'_{22}$ and $e = F'_{12}F'_{21}$ of" + "\n")
    out.append(align("a", steps["coefficients"]) + r"and the coefficients" + "\n" + align("F", steps["F"]))
    out.append(r"The three traces are normalized traces of words in $M$, $M^\top$ and the resolvents of the symmetric "
               r"$p \times p$ matrices $N$, $N'$:" + "\n")
    out.append(align("trace", defs))
    out.append(r"The error is" + "\n" + align("E", error))
    out.append(r"\paragraph{Definitions.} The nonlinearity $" + fn + r"$ enters through its Hermite data at the "
               r"score scale of $M$ ($\xi, \xi' \sim \mathcal{N}(0, 1)$):" + "\n")
    out.append(align("scalar", scalars, numbered=False))
    text = "".join(out)
    if not document:
        return text
    from .paper import PREAMBLE
    return PREAMBLE + r"\section*{Attention with any weight matrix $M$}" + "\n" + text + "\\end{document}\n"
