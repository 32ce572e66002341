r"""The general-M model (docs/theory.md, section 18) as SymPy objects, with M kept symbolic: ``symrmt latex --weights``.

Everything the solver (:mod:`symrmt.general`) solves is here, in three layers:

- the n-side fixed point, scalar equations in six unknowns :math:`t_{bb'} = t_{b'b}`, in which :math:`M` enters
  through three named functions of two scalars, normalized traces of words in :math:`M`, :math:`M^\top` and the
  resolvents of symmetric :math:`p \times p` matrices (SymPy matrix expressions in a ``MatrixSymbol`` M):

  .. math::

      \tau_{11}(a, e) = \tfrac1p\operatorname{tr}\big(M N^{-1}(I + aM^\top)\big), \quad
      u(a, e) = \tfrac1p\operatorname{tr}\big(N^{-1}M^\top M\big), \quad
      \tau_{22}(a, e) = \tfrac1p\operatorname{tr}\big(M^\top N'^{-1}(I + aM)\big),

  :math:`N = I + a(M + M^\top) + (a^2 - e)M^\top M`, :math:`N' = I + a(M + M^\top) + (a^2 - e)MM^\top`;
- the signal (section 18.7): a :math:`6 \times 6` correction

  .. math::

      \bar\Phi = c\,t_{11} - g^\top \mathsf C (I_6 + \mathsf G \mathsf C)^{-1} g, \qquad
      \mathsf G = \begin{pmatrix} c\,t & 0 \\ 0 & c\,\mathsf Z \end{pmatrix}, \qquad
      \mathsf C = \begin{pmatrix} \mathsf C_0 & \mathsf J \\ \mathsf J & 0 \end{pmatrix},

  with :math:`g = c\,(t_{11}, t_{12}, t_{13}, 0, 0, 0)^\top`, :math:`\mathsf C_0, \mathsf J` of
  :math:`\alpha/c`, :math:`\theta_M = \mu^\top M\mu` and :math:`\|\mu\|^2`, and :math:`\mathsf Z` the
  :math:`3 \times 3` quadratic forms :math:`v_i^\top \Pi_{ij} v_j` of :math:`v = (M^\top\mu, M\mu, \mu)` in the
  blocks of :math:`\Pi = (W^{-1} \otimes I_p)\big(\mathcal Y (B \otimes I_p) + e_3e_3^\top \otimes I_p\big)`,
  :math:`\mathcal Y = \big(I_{3p} + (F \otimes I_p)\operatorname{diag}(M, M^\top, I_p)\big)^{-1}`;
- the error :math:`\bar E_\mathrm{attn} = -\gamma^2\,\mathrm d\bar\Phi/\mathrm d\gamma`.

The printed text is made from these objects (:func:`weights_latex`), and tests/general/test_general_latex.py checks
at random points that the n-side chain is :meth:`symrmt.general.solver.PathSystem.rn`, that the trace definitions
and the quadratic forms :math:`\mathsf Z` are the kernel's (:func:`symrmt.general.kernel.pair_traces`,
:func:`symrmt.general.kernel.signal_forms`), and that :math:`\bar\Phi` and :math:`\bar E_\mathrm{attn}` on solved
points are the solver's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from ..nonlinearity import parse_nonlinearity
from .paper import PREAMBLE

__all__ = ["GeneralWeightsSystem", "SignalCorrection", "general_weights_system", "weights_latex"]


@dataclass(frozen=True)
class SignalCorrection:
    r"""The signal's :math:`6 \times 6` correction of :math:`\bar\Phi` (module docstring), in SymPy.

    ``G``, ``C``, ``g``: explicit matrices in the unknowns :math:`t`, the forms :math:`\mathsf Z` (symbols
    ``Z``), :math:`\alpha`, :math:`c`, :math:`\theta_M` and :math:`\|\mu\|^2` (``scalars``); ``phi`` the
    matrix expression :math:`c\,t_{11} - g^\top\mathsf C(I_6 + \mathsf G\mathsf C)^{-1}g` in the named blocks
    ``blocks`` (a dict name -> explicit matrix); ``forms``: ``(Y, Pi, Z)``, the matrix expressions in the
    ``MatrixSymbol`` s M (p x p), mu (p x 1) and F (3 x 3) of the p-side resolvent, its projection and the
    :math:`3 \times 3` quadratic forms; ``matrices``: the explicit :math:`3 \times 3` matrices W, B, E33 they use.
    """

    G: sp.Matrix
    C: sp.Matrix
    g: sp.Matrix
    Z: sp.Matrix
    phi: sp.Expr
    blocks: dict
    forms: tuple
    matrices: dict
    scalars: dict


@dataclass(frozen=True)
class GeneralWeightsSystem:
    r"""The general-M system as a chain of SymPy assignments, each in the symbols of the one before.

    ``steps`` is a list of ``(name, [(lhs, rhs), ...])``: the coefficients F in t; :math:`a`, :math:`F'_{12}`,
    :math:`F'_{21}`, :math:`e` in F; :math:`\Sigma_n` in F, t and the named trace functions (the block traces
    :math:`\tau_{12} = -F'_{12}u`, :math:`\tau_{21} = -F'_{21}u` and the p-side traces :math:`\Theta` of
    docs/theory.md, section 18.6, substituted: they would print as lines that only rename); then
    :math:`t = \mathrm{sym}\,(N_0 - \Sigma_n)^{-1}/c`. ``definitions``: the named traces as matrix expressions in M;
    ``Fmatrix``: F as one matrix in t; ``signal``: the :class:`SignalCorrection`.
    """

    steps: list
    definitions: tuple
    N0: sp.Matrix
    t: sp.Matrix
    scalars: dict
    Fmatrix: sp.Matrix
    signal: SignalCorrection


def _matrix_symbols(name: str, rows: int, cols: int, symmetric: bool = False) -> sp.Matrix:
    def entry(i, j):
        if symmetric:
            i, j = min(i, j), max(i, j)
        return sp.Symbol(f"{name}_{{{i + 1}{j + 1}}}", real=True)
    return sp.Matrix(rows, cols, entry)


def _substituted(steps: list) -> list:
    """The last step's assignments with every earlier step of ``steps`` substituted into them."""
    known: dict = {}
    for _, lines in steps[:-1]:
        for lhs, rhs in lines:
            known[lhs] = sp.sympify(rhs).xreplace(known)
    return [(lhs, sp.sympify(rhs).xreplace(known)) for lhs, rhs in steps[-1][1]]


def general_weights_system() -> GeneralWeightsSystem:
    r"""The system of docs/theory.md, sections 18.5-18.7, in SymPy (module docstring)."""
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
    # tau and Theta are intermediate: substituted into Sigma, so that no printed line only renames or re-signs
    steps = [steps[0], steps[1], ("Sigma", _substituted(steps[2:]))]
    scalars = dict(gamma=gamma, kappa=kappa, alpha=alpha, b2=b2, beta=beta, c=c)
    return GeneralWeightsSystem(steps, _trace_definitions(tau11, u, tau22, a, e), N0, t, scalars, F,
                                _signal(t, alpha, c))


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


def _signal(t: sp.Matrix, alpha: sp.Symbol, c: sp.Symbol) -> SignalCorrection:
    r"""The signal's correction (docs/theory.md, section 18.7) with the blocks ordered (labels, projections).

    The solver orders its six vectors :math:`(y^{(1)}, s_K^{(1)}, y^{(2)}, s_Q^{(2)}, y^{(3)}, s^{(3)})`; a
    permutation of them changes neither :math:`g^\top\mathsf C(I + \mathsf G\mathsf C)^{-1}g` nor the system, and
    ordering the three label vectors first makes :math:`\mathsf G` block diagonal.
    """
    theta_m = sp.Symbol(r"\theta_M", real=True)
    norm2 = sp.Symbol(r"\|\mu\|^2", nonnegative=True)
    Z = _matrix_symbols(r"\mathsf{Z}", 3, 3)
    zero = sp.zeros(3, 3)
    k = alpha / c
    C0 = sp.Matrix([[0, k * theta_m, 0], [k * theta_m, 0, 0], [0, 0, norm2]])
    J = sp.Matrix([[0, k, 0], [k, 0, 0], [0, 0, 1]])
    G = sp.BlockMatrix([[c * t, zero], [zero, c * Z]]).as_explicit()
    C = sp.BlockMatrix([[C0, J], [J, zero]]).as_explicit()
    g = sp.Matrix([c * t[0, 0], c * t[0, 1], c * t[0, 2], 0, 0, 0])
    Gs, Cs = sp.MatrixSymbol(r"\mathsf{G}", 6, 6), sp.MatrixSymbol(r"\mathsf{C}", 6, 6)
    gs = sp.MatrixSymbol("g", 6, 1)
    quadratic = gs.T * Cs * (sp.Identity(6) + Gs * Cs).I * gs
    blocks = {Gs: G, Cs: C, gs: g, sp.MatrixSymbol(r"\mathsf{C}_0", 3, 3): C0, sp.MatrixSymbol(r"\mathsf{J}", 3, 3): J}
    # the p-side: the resolvent Y, the projection Pi (its blocks Pi_ij ~ G R_{x_i x_j} G^T) and the forms Z
    p = sp.Symbol("p", positive=True, integer=True)
    M, mu = sp.MatrixSymbol("M", p, p), sp.MatrixSymbol(r"\mu", p, 1)
    Fm = sp.MatrixSymbol("F", 3, 3)
    Ip = sp.Identity(p)
    Y = (sp.Identity(3 * p) + sp.KroneckerProduct(Fm, Ip) * sp.BlockDiagMatrix(M, M.T, Ip)).I
    Ys = sp.MatrixSymbol(r"\mathcal{Y}", 3 * p, 3 * p)
    W, B, E33 = (sp.MatrixSymbol(n, 3, 3) for n in ("W", "B", "E_{33}"))
    w = [1, 1, c]
    matrices = {W: sp.diag(*w), B: sp.Matrix(3, 3, lambda b, j: [w[b] * t[b, 0], w[b] * t[b, 1], -(b == 2)][j]),
                E33: sp.diag(0, 0, 1)}
    Pi = sp.KroneckerProduct(W.I, Ip) * (Ys * sp.KroneckerProduct(B, Ip) + sp.KroneckerProduct(E33, Ip))
    Pis = sp.MatrixSymbol(r"\Pi", 3 * p, 3 * p)
    V = sp.BlockDiagMatrix(M.T * mu, M * mu, mu)
    forms = ((Ys, Y), (Pis, Pi), (Z, V.T * Pis * V))
    return SignalCorrection(G, C, g, Z, (c * t[0, 0], quadratic), blocks, forms, matrices,
                            dict(theta_m=theta_m, norm2=norm2, mu=mu, M=M, p=p, F=Fm))


def _tex(expr) -> str:
    text = sp.latex(expr, mat_delim="(", mul_symbol=None)
    # SymPy prints the function tau_{11} as an operator name and M^T with T; the house notation is tau and M^top
    return text.replace(r"\operatorname{tau}", r"\tau").replace("^{T}", r"^{\top}").replace(r"\mathbb{I}", "I")


def _pmatrix(m: sp.Matrix) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(_tex(x) for x in m.row(i)) for i in range(m.rows)) + \
        r"\end{pmatrix}"


def _named(expr):
    """The trace functions printed by their names (their argument (a, e) is stated where they are defined)."""
    return sp.sympify(expr).replace(lambda x: isinstance(x, sp.core.function.AppliedUndef),
                                    lambda x: sp.Symbol(x.func.__name__.replace("tau", r"\tau"), real=True))


def _expression_tex(expr) -> str:
    """A matrix expression of the p-side with the sizes of its identities shown."""
    text = _tex(expr)
    return re.sub(r"(?<![A-Za-z])I(?![_A-Za-z])", "I_{p}", text).replace(r"I_{p} + \left(F", r"I_{3p} + \left(F")


def weights_latex(body: bool = False, document: bool = False, f: "str | sp.Expr | None" = None,
                  label_prefix: str | None = None, parts=None, theorem_env: str | None = None) -> str:
    r"""The general-M model as LaTeX: fragments (``aligned`` blocks), a paper body or a complete document.

    Made from :func:`general_weights_system`: the model, its assumptions, and a claim (heuristic, as
    docs/theory.md's status table says) that :math:`E_\mathrm{attn} - \bar E_\mathrm{attn} \to 0` with
    :math:`\bar E_\mathrm{attn} = -\gamma^2\,\mathrm d\bar\Phi/\mathrm d\gamma`, the signal's :math:`6 \times 6`
    correction of :math:`\bar\Phi` (:class:`SignalCorrection`), the fixed point
    :math:`t = (N_0 - \Sigma_n(t))^{-1}/c` with the p-side traces :math:`\tau_{11}, u, \tau_{22}` of
    :math:`(a, e)` defined as normalized traces of words in :math:`M, M^\top` and the resolvents
    :math:`N^{-1}, N'^{-1}`, and the scalars (the Hermite data at the score scale of M). ``f`` is named in the
    definitions; ``label_prefix`` prefixes the labels of a body or document (default ``weights``); ``parts`` (any of
    model, assumptions, theorem, definitions; default all) and ``theorem_env`` (default ``claim``) as for the other
    bodies (:func:`symrmt.derive.paper.system_body`).

    Examples
    --------
    >>> from symrmt.derive.general_weights import weights_latex
    >>> body = weights_latex(body=True, f="tanh(x)")
    >>> r"\begin{claim}[heuristic]\label{weights:main}" in body, r"\mathsf{Z}" in body
    (True, True)
    """
    s = general_weights_system()
    sc, sig = s.scalars, s.signal
    prefix = label_prefix or "weights"
    if isinstance(f, str):
        f = parse_nonlinearity(f)
    steps = {name: [(_tex(l), _tex(_named(r))) for l, r in lines if r != 0] for name, lines in s.steps}
    # the symmetric part of R: t is symmetric, R is so on the solution but not along the way
    fixed = [(r"t", r"\tfrac{1}{2c}\big(R + R^\top\big), \quad R = \big(N_0 - \Sigma\big)^{-1}, \quad N_0 = "
              + _tex(s.N0))]
    Fline = [("F", _tex(s.Fmatrix))]
    traces = [(_tex(_named(lhs)), _tex(rhs)) for lhs, rhs in s.definitions[2:]]
    resolvents = [(_tex(lhs), _tex(rhs)) for lhs, rhs in s.definitions[:2]]
    C0, J = (sp.MatrixSymbol(n, 3, 3) for n in (r"\mathsf{C}_0", r"\mathsf{J}"))
    head, quadratic = sig.phi
    (_, Y), (_, Pi), _ = sig.forms
    signal = [
        (r"\bar{\Phi}(\gamma)", _tex(head) + " - " + _tex(quadratic).replace(r"I +", r"I_{6} +")),
        (r"\mathsf{G}", r"\begin{pmatrix} c\, t & 0 \\ 0 & c\, \mathsf{Z} \end{pmatrix}, \quad g = "
         + _tex(sp.Matrix(sig.g).T) + r"^\top"),
        (r"\mathsf{C}", r"\begin{pmatrix} \mathsf{C}_0 & \mathsf{J} \\ \mathsf{J} & 0 \end{pmatrix}, \quad "
         r"\mathsf{C}_0 = " + _tex(sig.blocks[C0]) + r", \quad \mathsf{J} = " + _tex(sig.blocks[J])),
        (r"\mathsf{Z}", r"\big(v_i^\top \Pi_{ij} v_j\big)_{i, j = 1}^{3}, \quad (v_1, v_2, v_3) = "
                        r"(M^\top \mu, M \mu, \mu)"),
        (r"\Pi", _expression_tex(Pi).replace(r"\left(W^{-1} \otimes I_{p}\right)",
                                             r"\left(\operatorname{diag}(1, 1, c)^{-1} \otimes I_{p}\right)")),
        (r"\mathcal{Y}", _expression_tex(Y)),
        ("B", _tex(sig.matrices[next(k for k in sig.matrices if k.name == "B")])),
    ]
    error = [(r"\bar{E}_\mathrm{attn}(\gamma)", r"- \gamma^{2} \frac{\mathrm{d}}{\mathrm{d}\gamma} \bar{\Phi}(\gamma)")]
    scalars = [
        (r"\sigma^2", r"\frac{\|M\|_F^2}{p}, \qquad \rho = \frac{\operatorname{tr}(M^2)}{\|M\|_F^2}"),
        (r"\alpha", r"\mathbb{E}\, f'(\sigma\xi), \qquad b^2 = \mathbb{E}\, f(\sigma\xi)^2 - \alpha^2\sigma^2"),
        (r"\beta", r"\mathbb{E}\, f(\sigma\xi) f(\sigma\xi') - \alpha^2\sigma^2\rho, \qquad "
                   r"\operatorname{corr}(\xi, \xi') = \rho"),
        (_tex(sc["kappa"]), r"d - \alpha\,\frac{\operatorname{tr} M}{p}, \qquad "
                            r"\theta_M = \mu^\top M \mu"),
    ]
    if f is not None:
        scalars.insert(0, ("f(x)", sp.latex(f)))
    if not (body or document):
        blocks = [error, signal, fixed, steps["Sigma"], steps["coefficients"], Fline, traces, resolvents, scalars]
        return "\n\n".join(r"\begin{aligned}" + " \\\\\n".join(f"{l} &= {r}" for l, r in lines) + r"\end{aligned}"
                           for lines in blocks)

    from .latex import equation_label  # heavy: SymPy
    from .paper import PARTS, check_environment, check_parts  # heavy: SymPy

    chosen = check_parts(PARTS if parts is None else parts)
    environment = "claim" if theorem_env is None else check_environment(theorem_env)
    used: set[str] = set()

    def align(lines, numbered=True):
        rows = []
        for l, r in lines:                   # <prefix>:<left-hand side>, the scheme of the other bodies; N' -> Nprime
            tag = (rf" \label{{{equation_label(prefix, l.replace(chr(39), 'prime') + ' &', used)}}}" if numbered
                   else r" \nonumber")
            rows.append(f"{l} &= {r}{tag}")
        return "\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}\n"

    fn = f"$f(x) = {sp.latex(f)}$" if f is not None else "$f$"
    model = [(r"X", r"Z + \mu y^\top \in \mathbb{R}^{p \times n}, \quad Z_{ij} \overset{\text{i.i.d.}}{\sim} "
                    r"\mathcal{N}(0, 1),\ y \in \{\pm 1\}^n"),
             (r"S", r"\frac{X^\top M X}{\sqrt{p}}, \quad M \in \mathbb{R}^{p \times p}"),
             (r"K_{ij}", r"\frac{f(S_{ij})}{\sqrt{p}} \ (i \ne j), \quad K_{ii} = d"),
             (r"Q(\gamma)", r"\left(\frac{K^\top X^\top X K}{n} + \gamma I_n\right)^{-1}, \quad \gamma > 0"),
             (r"\Phi(\gamma)", r"\frac{y^\top Q(\gamma)\, y}{n}"),
             (r"E_\mathrm{attn}(\gamma)", r"- \gamma^{2} \frac{\mathrm{d}}{\mathrm{d}\gamma} \Phi")]
    assumptions = [
        r"$n, p \to \infty$ with $p/n \to c \in (0, \infty)$. The ridge parameter $\gamma > 0$ is fixed.",
        r"The entries of $Z$ are i.i.d.\ $\mathcal{N}(0, 1)$; the labels $y_i$ are i.i.d.\ uniform on $\{\pm 1\}$ "
        r"and independent of $Z$.",
        r"The weight matrix $M$ and the signal $\mu \in \mathbb{R}^p$ are deterministic, $\|M\|_\mathrm{op}$ and "
        r"$\|\mu\|$ bounded; the stable rank $\|M\|_F^2/\|M\|_\mathrm{op}^2$ tends to infinity; the normalized "
        r"traces and the quadratic forms in $\mu$ below converge.",
        r"$f(\sigma\,\cdot)$ is centred, $\mathbb{E}f(\sigma\xi) = 0$ for $\xi \sim \mathcal{N}(0, 1)$, square "
        r"integrable and of polynomial growth, with a weak derivative of polynomial growth; the diagonal $d$ is "
        r"fixed.",
    ]
    out = ["% weights: printed by symrmt latex --weights --body; needs amsmath and amssymb; the environment "
           rf"{environment}, e.g. \usepackage{{amsthm}}\newtheorem{{{environment}}}"
           rf"{{{environment.rstrip('*').capitalize()}}}.", r"\begingroup\allowdisplaybreaks"]
    if "model" in chosen:
        out += [r"\paragraph{Model.}", align(model).rstrip()]
    if "assumptions" in chosen:
        out += [r"\paragraph{Assumptions.}", "\\begin{enumerate}",
                *[rf"\item {a}\label{{{prefix}:A{i}}}" for i, a in enumerate(assumptions, 1)], "\\end{enumerate}"]
    under = (rf"Under Assumptions~\ref{{{prefix}:A1}}--\ref{{{prefix}:A{len(assumptions)}}}" if "assumptions" in chosen
             else "Under the assumptions of the model")
    claim = [rf"\begin{{{environment}}}[heuristic]\label{{{prefix}:main}}",
            rf"{under}, almost surely, as "
            r"$n, p \to \infty$ with $p/n \to c$,",
            r"\[", r"\Phi(\gamma) - \bar{\Phi}(\gamma) \to 0,\quad E_\mathrm{attn}(\gamma) - "
            r"\bar{E}_\mathrm{attn}(\gamma) \to 0", r"\]", "where", align(error + signal).rstrip(),
            r"with $\mathcal{Y}_{ib}$ and $\Pi_{ij}$ the $p \times p$ blocks of the $3p \times 3p$ matrices "
            r"$\mathcal{Y}$ and $\Pi$, $E_{33} = \operatorname{diag}(0, 0, 1)$, and the symmetric "
            r"$3 \times 3$ matrix $t$ of unknowns solving",
            align(fixed).rstrip(),
            r"where $\Sigma$ is the $3 \times 3$ matrix of entries",
            align(steps["Sigma"]).rstrip(),
            r"in the entries $F_{ij}$ of", align(Fline).rstrip(),
            r"and the three scalars", align(steps["coefficients"]).rstrip(),
            r"at which $\tau_{11}$, $u$ and $\tau_{22}$ are the normalized traces",
            align(traces + resolvents).rstrip(),
            r"of words in $M$, $M^\top$ and the inverses of the symmetric $p \times p$ matrices $N$ and $N'$. "
            r"The solution meant is the one that is continuous in $\gamma$ on $(0, \infty)$ and tends to $0$ as "
            r"$\gamma \to \infty$, with $c\gamma t_{11} \to 1$.",
            rf"\end{{{environment}}}",
            r"\noindent The statement is heuristic: replacing $K$ by its Gaussian equivalent inside $Q(\gamma)$, the "
            r"deterministic equivalent of the resolvent and the quadratic forms in $\mu$ are derived, not proven; "
            r"the statement is checked against simulation."]
    if "theorem" in chosen:
        out += claim
    if "definitions" in chosen:
        out += [r"\paragraph{Definitions.} The nonlinearity " + fn + r" enters through its Hermite data at the "
                r"score scale $\sigma$ of $M$ ($\xi, \xi' \sim \mathcal{N}(0, 1)$):",
                align(scalars, numbered=False).rstrip()]
    out.append(r"\endgroup")
    text = "\n".join(out) + "\n"
    if not document:
        return text
    preamble = PREAMBLE
    if environment not in ("theorem", "claim"):               # the user's environment, defined like the others
        preamble = preamble.replace("\\begin{document}", rf"\newtheorem{{{environment}}}"
                                    rf"{{{environment.rstrip('*').capitalize()}}}" + "\n\\begin{document}")
    return preamble + r"\section*{Attention with any weight matrix $M$}" + "\n" + text + "\\end{document}\n"
