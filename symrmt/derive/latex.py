r"""LaTeX export of a derived :class:`~.fixed_point.FixedPointSystem`: exactly the objects the solver evaluates.

:func:`system_latex` prints, in ``aligned`` blocks that KaTeX and MathJax render,
the definitions (e.g. the Dyson matrix :math:`M(\lambda)` and :math:`R = M^{-1}`),
the fixed-point equations (each residual, solved for its unknown when it is of the
form :math:`t - \text{rhs}`), the spectral averages and their law, the observables
and the glossary of the symbols that appear -- optionally with symbols replaced
(a nonlinearity's Hermite data, a special case), numbers rounded to ``digits``.
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

from . import symbols as S
from .fixed_point import FixedPointSystem, WoodburyForm

__all__ = ["system_latex", "hermite_substitution", "to_latex"]

_LAWS = {"marchenko_pastur": r"\text{the Marchenko--Pastur law of } A = Z^\top Z/p "
                             r"\ (\text{ratio } 1/c,\ \text{atom } (1 - c)_+ \text{ at } 0)"}


def hermite_substitution(a1: sp.Expr, nu: sp.Expr) -> dict:
    r"""``{a_1: a1, b: sqrt(nu - a1^2)}`` with exact arithmetic when the inputs are exact."""
    a1, nu = sp.sympify(a1), sp.sympify(nu)
    return {S.a1: a1, S.b: sp.sqrt(sp.simplify(nu - a1**2))}


class _Printer(LatexPrinter):
    """SymPy's LaTeX printer with 1-based matrix elements and the package's average names."""

    def _print_MatrixElement(self, expr):
        return f"{self._print(expr.parent)}_{{{int(expr.i) + 1}{int(expr.j) + 1}}}"

    def _print_Symbol(self, expr, style="plain"):
        name = expr.name
        if name.startswith("tauA_"):
            return r"\tau^{A}_{" + name[5:] + "}"
        if name.startswith("tau_"):
            return r"\tau_{" + name[4:] + "}"
        return super()._print_Symbol(expr, style)


def to_latex(expr, digits: int | None = None) -> str:
    """One expression (or matrix) in LaTeX, floats rounded to ``digits`` significant digits."""
    if digits is not None and isinstance(expr, (sp.Basic, sp.MatrixBase)):
        expr = _round(expr, digits)
    return _Printer({"mat_delim": "", "mat_str": "pmatrix"}).doprint(expr)


def _round(expr, digits: int):
    floats = {f: sp.Float(f, digits) for f in (expr.atoms(sp.Float) if hasattr(expr, "atoms") else ())}
    return expr.xreplace(floats) if floats else expr


def _block(lines: list[str]) -> str:
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def system_latex(system: FixedPointSystem, substitution: dict | None = None, digits: int | None = 6) -> str:
    r"""The system as LaTeX: one ``aligned`` block per part, separated by blank lines.

    Parameters
    ----------
    system : FixedPointSystem
        From :func:`~.attention.attention_system`, :func:`~.attention.linear_system`, ...
    substitution : dict, optional
        Symbols to replace (e.g. :func:`hermite_substitution` of a given f, or a special case).
    digits : int, optional
        Significant digits of the numbers that the substitution puts in.
    """
    s = system.subs(substitution) if substitution else system
    tex = lambda e: to_latex(e, digits)  # noqa: E731
    blocks = []
    definitions = []
    for symbol, definition in s.definitions.items():
        name = tex(symbol) + (r"(\lambda)" if isinstance(symbol, sp.MatrixSymbol) else "")
        if isinstance(definition, sp.Inverse):
            definitions.append(name + " &= " + tex(definition.arg) + r"(\lambda)^{-1}")
        else:
            definitions.append(name + " &= " + tex(definition))
    if definitions:
        blocks.append(_block(definitions))
    equations = []
    for t in s.unknowns:
        residual = s.residuals[t]
        rhs = sp.expand(t - residual)
        if t not in rhs.free_symbols:
            equations.append(tex(t) + " &= " + tex(t - residual))
        else:
            equations.append("0 &= " + tex(residual))
    if equations:
        blocks.append(_block(equations))
    averages = [tex(a) + r" &= \mathbb{E}_\lambda\left[" + tex(v.integrand) + r"\right]" for a, v in s.averages.items()]
    laws = {v.law.name for v in s.averages.values()}
    if averages:
        averages.append(r"& \lambda \sim " + " ".join(_LAWS.get(law, r"\text{" + law + "}") for law in laws))
        blocks.append(_block(averages))
    observables = []
    for o, value in s.observables.items():
        name = s.display.get(o, tex(o))
        if "(" not in name:
            name += "(" + tex(s.continuation.variable) + ")"
        if isinstance(value, WoodburyForm):
            observables.extend(_woodbury_lines(name, value, tex))
        else:
            observables.append(name + " &= " + tex(value))
    blocks.append(_block(observables))
    glossary = _glossary(s)
    if glossary:
        blocks.append(_block([r"& \text{where } " + glossary[0], *(r"& " + g for g in glossary[1:])]))
    return "\n\n".join(blocks)


def _woodbury_lines(name: str, form: WoodburyForm, tex) -> list[str]:
    """The form with its matrices printed block by block (pencil blocks of the vectors), zero blocks left out."""
    if not form.size:
        return [name + " &= " + tex(form.offset)]
    lines = [name + " &= " + tex(form.offset) + r" - g^\top \mathsf{C}\,(I + \mathsf{G}\mathsf{C})^{-1} g"]
    groups = _groups(form.labels) if form.labels else {"": list(range(form.size))}
    if len(groups) == 1:
        return lines + [r"\mathsf{G} &= " + tex(form.gram), r"\mathsf{C} &= " + tex(form.core), r"g &= " + tex(form.source)]
    blocks = list(groups)
    names = ", ".join(f"u^{{({b})}}" for b in blocks)
    lines.append(r"& \text{vectors } (" + names + r"),\ " + r",\ ".join(
        f"u^{{({b})}} = (" + ", ".join(_vector(form.labels[i]) for i in groups[b]) + r") \text{ in pencil block } " + b
        for b in blocks))
    for symbol, matrix in ((r"\mathsf{G}", form.gram), (r"\mathsf{C}", form.core)):
        layout, parts = [], []
        for a in blocks:
            row = []
            for b in blocks:
                block = matrix.extract(groups[a], groups[b])
                if block.is_zero_matrix:
                    row.append("0")
                else:
                    row.append(f"{symbol}_{{{a}{b}}}")
                    parts.append(f"{symbol}_{{{a}{b}}} &= " + tex(block))
            layout.append(" & ".join(row))
        lines.append(symbol + r" &= \begin{pmatrix}" + r" \\ ".join(layout) + r"\end{pmatrix}")
        lines.extend(parts)
    source = [tex(form.source.extract(groups[b], [0])) if not form.source.extract(groups[b], [0]).is_zero_matrix
              else "0" for b in blocks]
    lines.append(r"g &= \begin{pmatrix}" + r" \\ ".join(source) + r"\end{pmatrix}")
    return lines


def _groups(labels) -> dict[str, list[int]]:
    """Row indices of each pencil block, from labels such as ``"y^(1)"``."""
    out: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        out.setdefault(label.rsplit("^(", 1)[1].rstrip(")") if "^(" in label else "", []).append(i)
    return out


def _vector(label: str) -> str:
    name = label.rsplit("^(", 1)[0]
    return name[0] + (f"_{{{name[1:]}}}" if len(name) > 1 else "")


def _glossary(system: FixedPointSystem) -> list[str]:
    used = set()
    for v in system.residuals.values():
        used |= v.free_symbols
    for v in system.averages.values():
        used |= v.integrand.free_symbols | {v.variable}
    for v in system.definitions.values():
        used |= getattr(v, "free_symbols", set())
    used |= set(system.parameters)
    return [text for symbol, text in system.glossary.items() if symbol in used]


#: kind -> how to build its system (lazily: each is derived once per process).
KINDS = ("attention", "linear", "gram_density", "kernel_density")


def system_for(kind: str = "attention", rank: int = 1):
    """The derived system of ``kind``: one of :data:`KINDS` (``rank`` for attention)."""
    from .attention import attention_system, linear_system
    from .spectral import density_system

    if kind == "attention":
        return attention_system(rank)
    if kind == "linear":
        return linear_system()
    if kind in ("gram_density", "kernel_density"):
        return density_system(kind.split("_")[0])
    raise ValueError(f"kind = {kind!r}: use one of {KINDS}")


def latex(f=None, kind: str = "attention", digits: int = 6, rank: int = 1, center: bool = False,
          parameters=None) -> str:
    r"""The derived system of ``kind`` as LaTeX (``aligned`` blocks), with f's Hermite data put in when given.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or None
        The nonlinearity: its :math:`a_1` and :math:`b = \sqrt{\nu - a_1^2}` are substituted, exactly
        when closed forms exist, else as numbers rounded to ``digits`` significant digits.
        Linear regression does not depend on f (a given f is ignored).
    kind : {"attention", "linear", "gram_density", "kernel_density"}
    digits : int
    rank : int
        Rank of the attention weights.
    center : bool
        Subtract :math:`a_0` from a formula first.
    parameters : sequence of str, optional
        Symbolic parameters of f (``"tanh(s*x)"`` with ``["s"]``): the system is printed in them,
        with :math:`a_1(s)`, :math:`\nu(s)` in closed form where one exists and as named functions
        of the parameters otherwise.

    Examples
    --------
    >>> text = latex("erf(x)")
    >>> r"\operatorname{asin}" in text and r"\begin{aligned}" in text
    True
    """
    system = system_for(kind, rank)
    substitution = None
    if f is not None and kind != "linear":
        from ..nonlinearity import hermite

        h = f if hasattr(f, "exact") else hermite(f, center=center, parameters=parameters)
        symbols = tuple(getattr(h, "parameters", ()) or ())
        if symbols:                          # unknown closed forms stay functions of the parameters
            a1 = h.exact.get("a1") if h.exact.get("a1") is not None else sp.Function("a_1")(*symbols)
            nu = h.exact.get("nu") if h.exact.get("nu") is not None else sp.Function("nu")(*symbols)
        else:
            a1 = h.exact.get("a1") if h.exact.get("a1") is not None else h.a1
            nu = h.exact.get("nu") if h.exact.get("nu") is not None else h.nu
        substitution = hermite_substitution(a1, nu)
    return system_latex(system, substitution, digits)
