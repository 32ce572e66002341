r"""The expression printer of the LaTeX export: SymPy's printer in the package's notation, and one page's names.

:func:`to_latex` prints one expression (1-based matrix entries, the averages :math:`\tau_{ij}`,
:math:`\tau^A_{ij}`, an upright :math:`\mathrm d`, floats rounded through their decimal text).
:class:`Page` holds what one printing of a system needs: the substituted system, the user's
parameters renamed with a tilde where they would print like a symbol of the system, the
vectors' names (:math:`k_{2}`, or :math:`z_{K,2}` when a parameter takes the letter), and the
breaking of a long sum into lines after whole terms. :func:`equation_label` makes the
``\label`` of a printed line. The parts of a system are printed by :mod:`.latex`, the low-rank
part of an observable by :mod:`.latex_lowrank`.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from .components import WoodburyForm
from .simplify import Ledger, common_factor, simplest

#: Annotations only (fixed_point prints itself through .latex: importing it here would close a circle).
FixedPointSystem = "FixedPointSystem"

__all__ = ["to_latex", "Page", "Line", "slug", "equation_label", "system_symbols", "pencil_blocks", "label_vector",
           "label_block", "WIDTH", "PER_LINE"]

#: The printer's own notation (besides the system's symbols), which a user's parameter must not look like.
_NOTATION = frozenset({"g", "u", "e", "R", "M", "E", "I", "A", "Z", "X", "n", "p", "f", "x", r"\xi", r"\mu", r"\Phi",
                       r"\rho", r"\lambda", r"\nu", "a_{1}", "b", r"\eta"})
#: A projection vector Z^T v renamed z_v when a user's parameter takes its letter (y becomes bold).
_Z_SUBSCRIPTS = {"s": r"\mu", "k": "K", "q": "Q"}
#: Characters of LaTeX per printed line before a long sum or a long definition is broken.
WIDTH = 150
#: Items per line in lists (parameter domains, vectors of a pencil block, vector meanings).
PER_LINE = 4

#: One printed line and whether, in a document, it is an equation that gets a number and a label.
Line = tuple[str, bool]


class _Printer(LatexPrinter):
    """SymPy's LaTeX printer with 1-based matrix elements, the package's average names, an upright d and renames."""

    def __init__(self, names: dict | None = None):
        super().__init__({"mat_delim": "", "mat_str": "pmatrix"})
        self._names = names or {}

    def _print_MatrixElement(self, expr):
        parent = self._print(expr.parent)
        if not isinstance(expr.parent, sp.MatrixSymbol):          # an entry of a product or an inverse
            parent = r"\left(" + parent + r"\right)"
        elif "_" in parent or "^" in parent:                       # g_{1}, tau^{A}: one group, one subscript
            parent = "{" + parent + "}"
        return f"{parent}_{{{int(expr.i) + 1}{int(expr.j) + 1}}}"

    def _as_ordered_terms(self, expr, order=None):
        terms = super()._as_ordered_terms(expr, order=order)
        if isinstance(expr, sp.Add) and expr.is_number:            # pi - 2, not -2 + pi: rationals last
            terms = sorted(terms, key=lambda term: bool(term.is_Rational))
        return terms

    def _print_Pow(self, expr, **options):
        if expr in self._names:                                    # b^2 printed as its value (--numeric)
            return self._names[expr]
        return super()._print_Pow(expr, **options)

    def _print_im(self, expr, exp=None):
        tex = r"\operatorname{Im} " + self.parenthesize(expr.args[0], PRECEDENCE["Func"])
        return tex if exp is None else f"\\left({tex}\\right)^{{{exp}}}"

    def _print_Symbol(self, expr, style="plain"):
        if expr in self._names:
            return self._names[expr]
        name = expr.name
        if name.startswith("tauA_"):
            return r"\tau^{A}_{" + name[5:] + "}"
        if name.startswith("tau_"):
            return r"\tau_{" + name[4:] + "}"
        return super()._print_Symbol(expr, style)

    def _print_Derivative(self, expr):
        order = sum(count for _, count in expr.variable_count)
        denominator = " ".join(r"\mathrm{d}" + self._print(v) + (f"^{{{k}}}" if k > 1 else "")
                               for v, k in expr.variable_count)
        numerator = r"\mathrm{d}" + (f"^{{{order}}}" if order > 1 else "")
        return r"\frac{" + numerator + "}{" + denominator + "} " + self.parenthesize(expr.expr, PRECEDENCE["Mul"])

    def _print_Function(self, expr, exp=None):
        if not isinstance(expr, AppliedUndef):
            return super()._print_Function(expr, exp)
        # a named function of the user's parameters, e.g. a_1(s): its name as a symbol, plain parentheses
        tex = self._print(sp.Symbol(expr.func.__name__)) + "(" + ", ".join(self._print(a) for a in expr.args) + ")"
        return tex if exp is None else f"{tex}^{{{exp}}}"


def to_latex(expr, digits: int | None = None, names: dict | None = None) -> str:
    """One expression (or matrix) in LaTeX, floats rounded to ``digits`` significant digits; ``names`` overrides symbols."""
    if digits is not None and isinstance(expr, (sp.Basic, sp.MatrixBase)):
        expr = _round(expr, digits)
    return _Printer(names).doprint(expr)


def _round(expr, digits: int):
    # through decimal text: Float(f, digits) rounds in binary first (0.6057055096 would print as 0.605705)
    floats = {f: sp.Float(format(float(f), f".{digits}g"), digits) for f in expr.atoms(sp.Float)}
    return expr.xreplace(floats) if floats else expr


class Page:
    """What one printing needs: the (substituted) system, the expression printer and the vectors' names."""

    def __init__(self, system: FixedPointSystem, substitution: dict | None, digits: int | None,
                 given: Sequence[tuple], parameters: Iterable[sp.Symbol], ledger: Ledger | None = None,
                 numeric: bool = False):
        parameters = tuple(parameters)
        taken = {to_latex(x) for x in system_symbols(system)} | _NOTATION
        renamed, names = {}, {}
        for p in parameters:
            if to_latex(p) in taken:        # printed like a symbol of the system: a fresh symbol with a tilde
                renamed[p] = sp.Symbol(f"{p.name} (parameter)", **p.assumptions0)
                names[renamed[p]] = r"\tilde{" + to_latex(p) + "}"
        mapping = {sp.sympify(k): _replaced(v, renamed) for k, v in (substitution or {}).items()}
        self.system = system.subs(mapping) if mapping else system
        self.given = [tuple(_replaced(part, renamed) for part in entry) for entry in given]
        if numeric:                 # f's data printed as their values where they stand: a_1 (lambda - 1) keeps its form
            for entry in self.given:
                if isinstance(entry[0], sp.Basic) and isinstance(entry[-1], sp.Basic) and entry[-1].is_number:
                    names[entry[0]] = to_latex(entry[-1], digits)
        self.numeric = numeric
        self.renamed = {p: r for p, r in renamed.items()}     # the user's parameters printed with a tilde
        unknowns = (*self.system.unknowns, *self.system.averages)

        def tex(expr) -> str:
            if isinstance(expr, str):
                return expr
            if isinstance(expr, sp.MatrixBase):
                common, reduced = common_factor(expr, unknowns)
                if common != 1:                    # (a_1/c) times a matrix of short entries
                    if ledger is not None:
                        ledger.record(expr, reduced.applyfunc(lambda e: common * e))
                    factor = to_latex(common, digits, names)
                    return (r"\left(" + factor + r"\right)" if isinstance(common, sp.Add) else factor) + " " + \
                        to_latex(reduced, digits, names)
            printed = simplest(expr, unknowns)
            if ledger is not None:
                ledger.record(expr, printed)
            return to_latex(printed, digits, names)

        self.tex: Callable = tex
        self._printer = _Printer(names)
        self._names = names
        self.ledger = ledger
        self.hints: dict[str, str] = {}         # the label of a printed line whose left-hand side does not name it
        self._digits = digits
        users = {self.tex(renamed.get(p, p)) for p in parameters}
        self.vectors = {name: _vector_name(name, users) for name in _vector_names(self.system)}

    def tex_lines(self, expr, width: int = WIDTH) -> list[str]:
        """``expr`` as :attr:`tex` prints it, a long sum broken after whole terms into lines of about ``width``."""
        text = self.tex(expr)
        printed = simplest(expr, (*self.system.unknowns, *self.system.averages))
        if len(text) <= width or not isinstance(printed, sp.Add):
            return [text]
        if self._digits is not None:
            printed = _round(printed, self._digits)
        printer, lines = self._printer, [""]
        for i, term in enumerate(printer._as_ordered_terms(printed)):
            sign = "" if i == 0 else " - " if term.could_extract_minus_sign() else " + "
            term = -term if sign == " - " else term
            piece = printer._print(term)
            piece = r"\left(" + piece + r"\right)" if printer._needs_add_brackets(term) else piece
            if lines[-1] and len(lines[-1]) + len(piece) > width:
                lines.append("")
            lines[-1] += (sign.lstrip() if not lines[-1] and sign else sign) + piece
        return lines

    def print_with(self, expr, names: dict) -> str:
        """``expr`` printed with extra symbol ``names`` (e.g. the barred observables), not recorded in the ledger."""
        return to_latex(expr, self._digits, {**self._names, **names})

    def vector(self, name: str) -> str:
        return self.vectors.get(name) or _vector_name(name, set())


def _replaced(value, renamed: dict):
    return value.xreplace(renamed) if renamed and isinstance(value, sp.Basic) else value


def slug(text: str) -> str:
    """``text`` without LaTeX commands of style and spacing, and without other characters than letters and digits."""
    text = re.sub(r"\\(mathrm|mathsf|mathcal|mathbb|operatorname|left|right|text|quad|le|ge|boldsymbol)\b", "", text)
    return re.sub(r"[^A-Za-z0-9]", "", text)


def equation_label(prefix: str, line: str, used: set[str], explicit: str | None = None) -> str:
    """A ``\\label`` new in ``used`` (then added to it): ``prefix:`` and ``explicit``, or the slug of the line's left side."""
    label = f"{prefix}:{explicit if explicit is not None else slug(line.split('&', 1)[0]) or 'eq'}"
    unique, k = label, 2
    while unique in used:
        unique, k = f"{label}-{k}", k + 1
    used.add(unique)
    return unique


# --------------------------------------------------------------------------- the pencil's labels and the vectors' names


def pencil_blocks(labels) -> dict[str, list[int]]:
    """Row indices of each pencil block, from labels such as ``"y^(1)"``."""
    out: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        out.setdefault(label_block(label), []).append(i)
    return out


def label_vector(label: str) -> str:
    """``"q2^(1)"`` -> ``"q2"``."""
    return label.rsplit("^(", 1)[0]


def label_block(label: str) -> str:
    """``"q2^(1)"`` -> ``"1"``; ``""`` for a label outside the pencil's blocks."""
    return label.rsplit("^(", 1)[1].rstrip(")") if "^(" in label else ""


def _vector_names(system: FixedPointSystem) -> list[str]:
    """The vectors of the system's low-rank forms (``s``, ``k1``, ``q2``, ...), each once, in the order met."""
    names: list[str] = []
    for value in system.observables.values():
        if isinstance(value, WoodburyForm):
            names += [label_vector(label) for label in value.labels if label_vector(label) not in names]
    return names


def _vector_name(name: str, taken: set[str]) -> str:
    """``k2`` -> ``k_{2}``; when a user's parameter prints the same, ``z_{K,2}`` (or a bold letter, then primes)."""
    letter, index = name[0], name[1:]
    subscript = f"_{{{index}}}" if index else ""
    plain = letter + subscript
    if plain not in taken:
        return plain
    if letter in _Z_SUBSCRIPTS:
        alternative = "z_{" + _Z_SUBSCRIPTS[letter] + ("," + index if index else "") + "}"
    else:
        alternative = r"\boldsymbol{" + letter + "}" + subscript
    while alternative in taken:
        alternative += "'"
    return alternative


def system_symbols(system: FixedPointSystem) -> set[sp.Symbol]:
    """Every symbol the printed system contains."""
    exprs = [*system.residuals.values(), *system.definitions.values(), system.continuation.start, *system.branch,
             *(a.integrand for a in system.averages.values()), *system.continuation.initial.values()]
    for value in system.observables.values():
        exprs += value.entries() if isinstance(value, WoodburyForm) else [value]
    out = set(system.parameters) | set(system.unknowns) | set(system.averages) | {system.continuation.variable}
    out |= {a.variable for a in system.averages.values()}
    for e in exprs:
        out |= getattr(e, "free_symbols", set())
    return {x for x in out if isinstance(x, (sp.Symbol, sp.MatrixSymbol))}      # matrices of an algebraic form

