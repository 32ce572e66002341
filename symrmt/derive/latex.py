r"""LaTeX export of a derived :class:`~.fixed_point.FixedPointSystem`: exactly the objects the solver evaluates.

:func:`system_latex` prints, in ``aligned`` blocks that KaTeX and MathJax render,
the definitions (e.g. the Dyson matrix :math:`M(\lambda)` and :math:`R = M^{-1}`),
the fixed-point equations (each residual, solved for its unknown when it is of the
form :math:`t - \text{rhs}`), the spectral averages and their law, the observables,
the data the solver reads (parameter domains, continuation start, branch conditions,
admissible ranges) and the glossary of the symbols that appear -- optionally with symbols replaced
(a nonlinearity's Hermite data, a special case), numbers rounded to ``digits``.
"""
from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

from .components import WoodburyForm
from .fixed_point import FixedPointSystem

__all__ = ["system_latex", "to_latex"]

_LAWS = {"marchenko_pastur": r"\text{the Marchenko--Pastur law of } A = Z^\top Z/p "
                             r"\ (\text{ratio } 1/c,\ \text{atom } (1 - c)_+ \text{ at } 0)"}


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
    floats = {f: sp.Float(f, digits) for f in expr.atoms(sp.Float)}
    return expr.xreplace(floats) if floats else expr


#: Parameter domains printed per line.
_PER_LINE = 4


def _block(lines: list[str]) -> str:
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def system_latex(system: FixedPointSystem, substitution: dict | None = None, digits: int | None = 6) -> str:
    r"""The system as LaTeX: one ``aligned`` block per part, separated by blank lines.

    The blocks: definitions, fixed-point equations, spectral averages and their law,
    observables, the solver's data (parameter domains, continuation start and initial
    values, branch conditions, admissible ranges), and the glossary.

    Parameters
    ----------
    system : FixedPointSystem
        From :func:`~.attention.attention_system`, :func:`~.attention.linear_system`, ...
    substitution : dict, optional
        Symbols to replace (e.g. :func:`~.registry.hermite_substitution` of a given f, or a special case).
    digits : int, optional
        Significant digits of the numbers that the substitution puts in.
    """
    s = system.subs(substitution) if substitution else system
    tex = lambda e: to_latex(e, digits)  # noqa: E731
    parts = [_definitions(s, tex), _equations(s, tex), _averages(s, tex), _observables(s, tex), _solver_data(s, tex)]
    glossary = _glossary(s)
    if glossary:
        parts.append([r"& \text{where } " + glossary[0], *(r"& " + g for g in glossary[1:])])
    return "\n\n".join(_block(lines) for lines in parts if lines)


def _definitions(s, tex) -> list[str]:
    lines = []
    for symbol, definition in s.definitions.items():
        name = tex(symbol) + (r"(\lambda)" if isinstance(symbol, sp.MatrixSymbol) else "")
        if isinstance(definition, sp.Inverse):
            lines.append(name + " &= " + tex(definition.arg) + r"(\lambda)^{-1}")
        else:
            lines.append(name + " &= " + tex(definition))
    return lines


def _equations(s, tex) -> list[str]:
    """Each residual, solved for its unknown when it has the form t - rhs."""
    lines = []
    for t in s.unknowns:
        residual = s.residuals[t]
        if t not in sp.expand(t - residual).free_symbols:
            lines.append(tex(t) + " &= " + tex(t - residual))
        else:
            lines.append("0 &= " + tex(residual))
    return lines


def _averages(s, tex) -> list[str]:
    lines = [tex(a) + r" &= \mathbb{E}_\lambda\left[" + tex(v.integrand) + r"\right]" for a, v in s.averages.items()]
    if lines:
        laws = {v.law.name for v in s.averages.values()}
        lines.append(r"& \lambda \sim " + " ".join(_LAWS.get(law, r"\text{" + law + "}") for law in laws))
    return lines


def _observable_name(s, o, tex) -> str:
    name = s.display.get(o, tex(o))
    return name if "(" in name else name + "(" + tex(s.continuation.variable) + ")"


def _observables(s, tex) -> list[str]:
    lines = []
    for o, value in s.observables.items():
        if isinstance(value, WoodburyForm):
            lines.extend(_woodbury_lines(_observable_name(s, o, tex), value, tex))
        else:
            lines.append(_observable_name(s, o, tex) + " &= " + tex(value))
    return lines


def _solver_data(s, tex) -> list[str]:
    r"""What the solver consumes besides the equations: domains, start, branch, admissible ranges."""
    c = s.continuation
    v = tex(c.variable)
    domains = [tex(p) + r" \in " + tex(domain) for p, domain in s.parameters.items()]
    lines = [r"& " + r",\ ".join(domains[i:i + _PER_LINE]) for i in range(0, len(domains), _PER_LINE)]
    if lines:
        lines[-1] += r" \quad \text{(parameters)}"
    predictor = v if c.predictor == "linear" else r"1/" + v
    initial = r",\ ".join(tex(t) + " = " + tex(value) for t, value in c.initial.items())
    lines.append(v + r"_{0} &= " + tex(c.start) + r" \quad \text{(continuation start"
                 + (r"; there } " + initial + r"\text{" if initial else "")
                 + r"; predictor in } " + predictor + r"\text{)}")
    if s.branch:
        lines.append(r"& " + r",\ ".join(tex(b) for b in s.branch) + r" \quad \text{(physical branch)}")
    for o, bounds in s.admissible.items():
        name = _observable_name(s, o, tex)
        if bounds.upper == sp.oo:
            range_ = name + r" &\ge " + tex(bounds.lower)
        elif bounds.lower == -sp.oo:
            range_ = name + r" &\le " + tex(bounds.upper)
        else:
            range_ = tex(bounds.lower) + r" \le " + name + r" &\le " + tex(bounds.upper)
        lines.append(range_ + r" \quad \text{(admissible; quadrature accuracy " + bounds.accuracy + ")}")
    return lines


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
