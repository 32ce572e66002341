r"""LaTeX export of a derived :class:`~.fixed_point.FixedPointSystem`: exactly the objects the solver evaluates.

:func:`system_latex` prints, in ``aligned`` blocks that KaTeX (strict mode) and MathJax render,
the definitions (e.g. the Dyson matrix :math:`M(\lambda)` and :math:`R = M^{-1}`), the
fixed-point equations (each residual, solved for its unknown when it is of the form
:math:`t - \text{rhs}`), the spectral averages and their law (when the system has any), the
observables, the data the solver reads (parameter domains, continuation start, branch
conditions, admissible ranges) and a "where" block that defines every symbol that appears.
:func:`system_document` prints the same content as a complete LaTeX document, one numbered
``align`` environment per part and a ``\label`` on every equation.

Printing choices, so that the output can be pasted into a paper:

* values put in by a substitution are printed where they stand; values that are only
  *named* (``given``: e.g. :math:`\nu` and :math:`b^2` of a nonlinearity) are defined in the
  "where" block, so that :math:`b^2` stays one symbol;
* derivatives use an upright :math:`\mathrm d`, which the diagonal :math:`d` cannot be mistaken for;
* a user's parameter that would print like a symbol of the system is printed with a tilde,
  and the printer's own vectors (:math:`y, s, k, q`) are renamed when a parameter takes their
  name (:math:`s = Z^\top\mu` becomes :math:`z_\mu` for :math:`f = \tanh(sx)`);
* long lists of vectors are split across lines.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from . import symbols as S
from .components import WoodburyForm
from .simplify import Ledger, common_factor, simplest

#: Annotations only (fixed_point prints itself through this module: importing it here would close a circle).
FixedPointSystem = "FixedPointSystem"

__all__ = ["system_latex", "to_latex", "Page"]

_LAWS = {"marchenko_pastur": r"\text{the Marchenko--Pastur law of } A = Z^\top Z/p,"}
#: What a law's line leaves for a second line (so that the block stays within a page's width).
_LAW_NOTES = {"marchenko_pastur": r"\quad \text{ratio } 1/c,\ \text{atom } (1 - c)_+ \text{ at } 0"}

#: The printer's own notation (besides the system's symbols), which a user's parameter must not look like.
_NOTATION = frozenset({"g", "u", "e", "R", "M", "E", "I", "A", "Z", "X", "n", "p", "f", "x", r"\xi", r"\mu", r"\Phi",
                       r"\rho", r"\lambda", r"\nu", "a_{1}", "b", r"\eta"})
#: A projection vector Z^T v renamed z_v when a user's parameter takes its letter (y becomes bold).
_Z_SUBSCRIPTS = {"s": r"\mu", "k": "K", "q": "Q"}
#: Characters of LaTeX per printed line before a long sum or a long definition is broken.
_WIDTH = 150
#: Items per line in lists (parameter domains, vectors of a pencil block, vector meanings).
_PER_LINE = 4
_VECTORS_PER_LINE = 8

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
        taken = {to_latex(x) for x in _symbols(system)} | _NOTATION
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

    def tex_lines(self, expr, width: int = _WIDTH) -> list[str]:
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


def system_latex(system: FixedPointSystem, substitution: dict | None = None, digits: int | None = 6, *,
                 given: Sequence[tuple] = (), parameters: Iterable[sp.Symbol] = (), solver_data: bool = True,
                 ledger: Ledger | None = None, numeric: bool = False) -> str:
    r"""The system as LaTeX: one ``aligned`` block per part, separated by blank lines.

    The blocks: definitions, fixed-point equations, spectral averages and their law,
    observables, the solver's data (parameter domains, continuation start and initial
    values, branch conditions, admissible ranges; only with ``solver_data``), and the
    "where" block. Every expression is printed in its :func:`~.simplify.simplest` form.

    Parameters
    ----------
    system : FixedPointSystem
        From :func:`~.attention.attention_system`, :func:`~.attention.linear_system`, ...
        (with spectral averages or without: every part that the system has is printed).
    substitution : dict, optional
        Symbols to replace (e.g. a nonlinearity's :math:`a_1`, or a special case).
    digits : int, optional
        Significant digits of the numbers that the substitution puts in.
    given : sequence of tuples, optional
        Definitions printed first in the "where" block, ``name = ... = value`` (e.g.
        ``(S.b**2, r"\nu - a_1^2", 6)``: :math:`b^2` stays one symbol); each part a SymPy
        expression or a LaTeX string. The glossary entries of the names' symbols are left out.
    parameters : iterable of sympy.Symbol, optional
        The user's parameters (of f): renamed with a tilde when they would print like a symbol
        of the system; the vectors are renamed when a parameter takes their name.
    solver_data : bool
        Print the block of the solver's data.
    ledger : Ledger, optional
        Receives every printed expression next to the system's (:class:`~.simplify.Ledger`).
    numeric : bool
        Print the numeric values of ``given`` (:math:`a_1`, :math:`b^2`, :math:`\nu`) where their symbols stand.
    """
    page = Page(system, substitution, digits, given, parameters, ledger, numeric)
    return "\n\n".join(_block([text for text, _ in lines]) for heading, lines in _parts(page)
                       if lines and (solver_data or heading != "Solver data"))


def slug(text: str) -> str:
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


def _block(lines: list[str]) -> str:
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"


def _parts(page: Page) -> list[tuple[str, list[Line]]]:
    return [("Definitions", definition_lines(page)), ("Fixed point", equation_lines(page)),
            ("Spectral averages", average_lines(page)), ("Observables", observable_lines(page)),
            ("Solver data", solver_data_lines(page)), ("Where", _where(page))]


def definition_lines(page: Page, compact: bool = False) -> list[Line]:
    """One line per definition; ``compact``: a wide symmetric matrix by its entries (:func:`_entry_lines`)."""
    s, tex = page.system, page.tex
    variables = {a.variable for a in s.averages.values()}
    of_variable = set()                                 # matrices printed as functions of lambda
    lines = []
    for symbol, definition in s.definitions.items():
        argument = definition.arg if isinstance(definition, sp.Inverse) else sp.ImmutableMatrix(definition) \
            if isinstance(definition, sp.MatrixBase) else definition
        if isinstance(symbol, sp.MatrixSymbol) and (argument in of_variable or variables & argument.free_symbols):
            of_variable.add(symbol)
        name = tex(symbol) + (r"(\lambda)" if symbol in of_variable else "")
        if isinstance(definition, sp.Inverse) and argument in of_variable:
            lines.append((name + " &= " + tex(definition.arg) + r"(\lambda)^{-1}", True))
        elif compact and isinstance(definition, sp.MatrixBase) and (named := _inverses_named(definition, s.definitions,
                                                                                           page)) is not None:
            lines.extend(_entry_lines(name, symbol, named[0], page, symmetric=False, printed=named[1]))
        elif compact and isinstance(definition, sp.MatrixBase) and definition.is_square and definition.shape[0] > 2 \
                and definition == definition.T and _long(definition, tex):
            lines.extend(_entry_lines(name, symbol, definition, page))
        else:
            lines.append((name + " &= " + tex(definition), True))
    return lines


def _long(matrix: sp.MatrixBase, tex) -> bool:
    """Whether a matrix printed whole would be wider than a page's line (a rough count of what it shows)."""
    width = sum(max(_shown(tex(e)) for e in matrix.col(j)) + 2 for j in range(matrix.shape[1]))
    return width > 30


def _shown(tex: str) -> int:
    """About how many characters ``tex`` shows: a command one, braces, scripts' marks and \\left/\\right none."""
    return len(re.sub(r"[{}^_ ]", "", re.sub(r"\\(left|right)", "", re.sub(r"\\([A-Za-z]+)", "x", tex))))


def _inverses_named(matrix: sp.MatrixBase, definitions, page: Page) -> tuple[sp.MatrixBase, dict] | None:
    r"""A matrix whose entries hold the cofactor expansion of :math:`(X^{-1})_{kl}` for a defined matrix :math:`X`:
    each entry with :math:`(X^{-1})_{kl}` named, printed and recorded in the ledger against the system's entry.

    Returns ``(matrix, printed)`` (``printed``: entry -> LaTeX), or None when no entry holds one.
    """
    names: dict = {}
    for x in definitions:
        if isinstance(x, sp.MatrixSymbol) and x.shape[0] == x.shape[1] and matrix.has(x) and x.shape[0] <= 4:
            for k in range(x.shape[0]):
                for l in range(x.shape[1]):
                    names[x.I[k, l]] = sp.Symbol(f"inverse {x.name} {k}{l}")
                    page._names[names[x.I[k, l]]] = (r"\left(" + page.tex(x) + r"^{-1}\right)_{" + f"{k + 1}{l + 1}"
                                                      + "}")
    if not names:
        return None
    reduced = matrix.xreplace(names)
    if not any(reduced[k, l] != matrix[k, l] for k in range(matrix.shape[0]) for l in range(matrix.shape[1])):
        return None
    back = {v: k for k, v in names.items()}
    printed = {}
    for k in range(matrix.shape[0]):
        for l in range(matrix.shape[1]):
            entry = simplest(reduced[k, l])
            if page.ledger is not None:
                page.ledger.record(matrix[k, l], entry.xreplace(back))
            printed[k, l] = page.print_with(entry, {})
    return matrix, printed


def _entry_lines(name: str, symbol, matrix: sp.MatrixBase, page: Page, symmetric: bool = True,
                 printed: dict | None = None) -> list[Line]:
    """A matrix by its nonzero entries (on and above the diagonal when ``symmetric``), a few per line; ``printed``:
    the entries' LaTeX when the caller printed (and recorded) them."""
    tex = page.tex
    k = matrix.shape[0]
    entries = [f"{tex(symbol)}_{{{i + 1}{j + 1}}} = " + (printed[i, j] if printed else tex(matrix[i, j]))
               for i in range(k) for j in range(i if symmetric else 0, k) if matrix[i, j] != 0]
    kind = r" \text{ symmetric, with}" if symmetric else r", \text{ with}"
    lines: list[Line] = [(name + r" &= \left(" + tex(symbol) + r"_{ij}\right)_{i, j = 1}^{" + str(k) + r"}" + kind,
                          True)]
    row = ""
    for entry in entries:
        if row and _shown(row + entry) > 48:
            lines.append((r"&\quad " + row + ",", False))
            row = ""
        row += (r",\ " if row else "") + entry
    listed = len(entries) if not symmetric else 2 * len(entries) - sum(1 for i in range(k) if matrix[i, i] != 0)
    lines.append((r"&\quad " + row + (r",\ \text{other entries } 0" if listed < k * k else ""), False))
    return lines


def equation_lines(page: Page, width: int = _WIDTH) -> list[Line]:
    """Each residual, solved for its unknown when it has the form t - rhs; a long one broken into lines of ``width``."""
    s, tex = page.system, page.tex
    lines = []
    for t in s.unknowns:
        residual = s.residuals[t]
        solved = t not in sp.expand(t - residual).free_symbols
        rows = page.tex_lines(t - residual if solved else residual, width)
        text = (tex(t) if solved else "0") + " &= " + rows[0]
        page.hints[text] = slug(tex(t))            # "0 = ..." is labelled by its unknown, e.g. zeta0
        lines.append((text, True))
        lines += [(r"&\quad " + row, False) for row in rows[1:]]
    return lines


def average_lines(page: Page, compact: bool = False) -> list[Line]:
    """One line per average; ``compact``: one line for all when they are the pattern tau_ij = E[R_ij], E[lambda R_ij]."""
    s, tex = page.system, page.tex
    pattern = _average_pattern(s) if compact else None
    if pattern is not None:
        for v in s.averages.values():                # printed as the pattern: the pattern is what is solved
            if page.ledger is not None:
                page.ledger.record(v.integrand, v.integrand)
        plain, weighted = pattern
        text = (r"\tau_{ij} &= \mathbb{E}_\lambda\left[R_{ij}\right]" if plain else
                r"\tau^{A}_{ij} &= \mathbb{E}_\lambda\left[\lambda R_{ij}\right]")
        if plain and weighted:
            text += ("" if plain == weighted else r" \ (ij = " + ", ".join(plain) + ")") + \
                r",\quad \tau^{A}_{ij} = \mathbb{E}_\lambda\left[\lambda R_{ij}\right]"
        lines = [(text + r" \quad (ij = " + ", ".join(weighted or plain) + ")", True)]
    else:
        lines = [(tex(a) + r" &= \mathbb{E}_\lambda\left[" + tex(v.integrand) + r"\right]", True)
                 for a, v in s.averages.items()]
    if lines:
        laws = sorted({v.law.name for v in s.averages.values()})
        lines.append((r"& \lambda \sim " + " ".join(_LAWS.get(law, r"\text{" + law + "}") for law in laws), False))
        lines += [(r"& " + _LAW_NOTES[law], False) for law in laws if law in _LAW_NOTES]
    return lines


def _average_pattern(system: FixedPointSystem) -> tuple[list[str], list[str]] | None:
    r"""The indices ``ij`` of :math:`\tau_{ij} = \mathbb E[R_{ij}]` and of :math:`\tau^A_{ij} = \mathbb E[\lambda R_{ij}]`.

    None when an average is neither (or when there is no Dyson inverse R).
    """
    resolvent = next((k for k, v in system.definitions.items() if isinstance(v, sp.Inverse)), None)
    if resolvent is None:
        return None
    plain, weighted = [], []
    for symbol, average in system.averages.items():
        match = re.fullmatch(r"tau(A?)_(\d)(\d)", symbol.name)
        if not match:
            return None
        i, j = int(match[2]), int(match[3])
        expected = resolvent[i - 1, j - 1] * (S.lam if match[1] else 1)
        if average.integrand != expected:
            return None
        (weighted if match[1] else plain).append(f"{i}{j}")
    return sorted(plain), sorted(weighted)


def observable_name(s: FixedPointSystem, o, tex) -> str:
    name = s.display.get(o, tex(o))
    return name if "(" in name else name + "(" + tex(s.continuation.variable) + ")"


def observable_lines(page: Page, skip: set = frozenset(), names: dict | None = None,
                     structured: bool = False) -> list[Line]:
    """One line per observable (its low-rank form over several lines); ``names`` replaces the observables' names,
    ``structured`` prints a low-rank form by its pattern where it has one (:func:`structured_woodbury_lines`)."""
    s, tex = page.system, page.tex
    lines: list[Line] = []
    for o, value in s.observables.items():
        if o in skip:
            continue
        name = (names or {}).get(o) or observable_name(s, o, tex)
        if isinstance(value, WoodburyForm):
            pattern = structured_woodbury_lines(name, value, page) if structured else None
            lines.extend(pattern if pattern is not None else _woodbury_lines(name, value, page))
        else:
            lines.append((name + " &= " + tex(value), True))
    return lines


def solver_data_lines(page: Page) -> list[Line]:
    r"""What the solver consumes besides the equations: domains, start, branch, admissible ranges."""
    s, tex = page.system, page.tex
    c = s.continuation
    v = tex(c.variable)
    domains = [tex(p) + r" \in " + tex(domain) for p, domain in s.parameters.items()]
    lines = [r"& " + r",\ ".join(domains[i:i + _PER_LINE]) for i in range(0, len(domains), _PER_LINE)]
    if lines:
        lines[-1] += r" \quad \text{(parameters)}"
    out: list[Line] = [(line, False) for line in lines]
    predictor = v if c.predictor == "linear" else r"1/" + v
    initial = r",\ ".join(tex(t) + " = " + tex(value) for t, value in c.initial.items())
    out.append((v + r"_{0} &= " + tex(c.start), True))
    out.append((r"& \quad \text{(continuation start; predictor in } " + predictor + r"\text{)}", False))
    if initial:
        out.append((r"& \quad \text{there } " + initial, False))
    if s.branch:
        out.append((r"& " + r",\ ".join(tex(b) for b in s.branch) + r" \quad \text{(physical branch)}", False))
    for o, bounds in s.admissible.items():
        name = observable_name(s, o, tex)
        if bounds.upper == sp.oo:
            range_ = name + r" &\ge " + tex(bounds.lower)
        elif bounds.lower == -sp.oo:
            range_ = name + r" &\le " + tex(bounds.upper)
        else:
            range_ = tex(bounds.lower) + r" \le " + name + r" &\le " + tex(bounds.upper)
        out.append((range_ + r" \quad \text{(admissible; quadrature accuracy " + bounds.accuracy + ")}", False))
    return out


def _woodbury_lines(name: str, form: WoodburyForm, page: Page) -> list[Line]:
    """The form with its matrices printed block by block (pencil blocks of the vectors), zero blocks left out."""
    tex = page.tex
    if not form.size:
        return [(name + " &= " + tex(form.offset), True)]
    lines: list[Line] = [(name + " &= " + tex(form.offset) + r" - g^\top \mathsf{C}\,(I + \mathsf{G}\mathsf{C})^{-1} g",
                          True)]
    groups = _groups(form.labels) if form.labels else {"": list(range(form.size))}
    if len(groups) == 1:
        return lines + [(r"\mathsf{G} &= " + tex(form.gram), True), (r"\mathsf{C} &= " + tex(form.core), True),
                        (r"g &= " + tex(form.source), True)]
    blocks = list(groups)
    lines.append((r"& \text{vectors } (" + ", ".join(f"u^{{({b})}}" for b in blocks) + r") \text{ in the pencil blocks } "
                  + ", ".join(blocks) + ":", False))
    for b in blocks:
        names = [page.vector(_base(form.labels[i])) for i in groups[b]]
        chunks = [", ".join(names[i:i + _VECTORS_PER_LINE]) for i in range(0, len(names), _VECTORS_PER_LINE)]
        for k, chunk in enumerate(chunks):
            head = f"& u^{{({b})}} = (" if k == 0 else r"& \qquad "
            tail = ")" if k == len(chunks) - 1 else ","
            lines.append((head + chunk + tail, False))
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
                    parts.append((f"{symbol}_{{{a}{b}}} &= " + tex(block), True))
            layout.append(" & ".join(row))
        lines.append((symbol + r" &= \begin{pmatrix}" + r" \\ ".join(layout) + r"\end{pmatrix}", True))
        lines.extend(parts)
    source = [", ".join(tex(e) for e in form.source.extract(groups[b], [0])) for b in blocks]
    lines.append((r"g &= \left(" + r" \,\middle|\, ".join(source) + r"\right)^\top", True))
    return lines


def _groups(labels) -> dict[str, list[int]]:
    """Row indices of each pencil block, from labels such as ``"y^(1)"``."""
    out: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        out.setdefault(_block_of(label), []).append(i)
    return out


def _base(label: str) -> str:
    """``"q2^(1)"`` -> ``"q2"``."""
    return label.rsplit("^(", 1)[0]


def _block_of(label: str) -> str:
    return label.rsplit("^(", 1)[1].rstrip(")") if "^(" in label else ""


def _vector_names(system: FixedPointSystem) -> list[str]:
    names: list[str] = []
    for value in system.observables.values():
        if isinstance(value, WoodburyForm):
            names += [_base(label) for label in value.labels if _base(label) not in names]
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


def _where(page: Page) -> list[Line]:
    """Every symbol that appears, defined: the given values first, then the system's glossary and the vectors."""
    entries = where_entries(page)
    if not entries:
        return []
    return [(r"& \text{where } " + entries[0], False), *((r"& " + e, False) for e in entries[1:])]


#: A paper's definitions of the symbols whose glossary entry repeats what its model states (X, y, W, gamma, d, z).
_PAPER_GLOSSARY = {
    S.lam: None,                            # the law's line defines lambda
    S.theta: r"\theta = \|\mu\|^2",
    S.gamma: None, S.d: None, S.x: None, S.c: None,       # the model and the assumptions define them
    S.tau_symbol(1, 1): None,               # the averages are printed as definitions
    S.trace_symbol(1, 1): None,             # the unknowns are what the statement solves for
}


def where_entries(page: Page, paper: bool = False, skip: set = frozenset()) -> list[str]:
    """The "where" entries; in a ``paper``, without f's data (a table), what the model and the statement already
    define (the matrices of the low-rank part are stated by their entries there) and the symbols in ``skip``."""
    tex = page.tex
    entries = [] if paper else [" = ".join(tex(part) for part in entry) for entry in page.given]
    defined = set().union(*(entry[0].free_symbols for entry in page.given if isinstance(entry[0], sp.Basic)))
    glossary = _glossary(page.system, skip=defined | set(skip), paper=paper)
    woodbury = [] if paper else _woodbury_glossary(page, paper)
    width = _WIDTH // 2 + 10 if paper else _WIDTH + 30          # a paper's page is narrower than a notebook's
    return [line for entry in entries + glossary + woodbury for line in _wrapped(entry, width)]


def _wrapped(entry: str, width: int = _WIDTH + 30) -> list[str]:
    r"""A long definition broken at its top-level ``,\ `` separators, continuation lines indented."""
    if len(entry) <= width:
        return [entry]
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(entry):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and entry.startswith(r",\ ", i):
            pieces.append((entry[start:i + 1], r"\ "))
            start = i + 3
        elif depth == 0 and entry.startswith(r" \text{", i) and i > start:      # before a phrase in words
            pieces.append((entry[start:i], " "))
            start = i + 1
    pieces.append((entry[start:], ""))
    lines = [pieces[0][0]]
    for (piece, _), (_, joint) in zip(pieces[1:], pieces[:-1]):
        if len(lines[-1]) + len(piece) > width:
            lines.append(r"\quad " + piece)
        else:
            lines[-1] += joint + piece
    return lines


def _woodbury_glossary(page: Page, paper: bool = False) -> list[str]:
    forms = [v for v in page.system.observables.values() if isinstance(v, WoodburyForm) and v.size]
    if not forms:
        return []
    form = forms[0]
    meanings = [page.vector(name) + " " + relation for name, relation in form.meanings
                if not (paper and name == "y")]                            # the model states y
    lines = [r",\ ".join(meanings[i:i + _PER_LINE]) for i in range(0, len(meanings), _PER_LINE)]
    blocks = list(_groups(form.labels)) if form.labels else [""]
    vectors = r"\mathcal{U} = (" + ", ".join(f"u^{{({b})}}" for b in blocks) + ")" if blocks != [""] else r"\mathcal{U}"
    source = ""
    if form.source_label:
        source = r",\ e = " + page.vector(_base(form.source_label)) + (
            r" \text{ in pencil block } " + _block_of(form.source_label) if _block_of(form.source_label) else "")
    lines.append(r"\mathsf{G} = \mathcal{U}^\top H_N^{-1}\,\mathcal{U}/n,\ g = \mathcal{U}^\top H_N^{-1} e/n,\ "
                 r"\mathsf{C} = n\,\mathcal{C}")
    lines.append(r"\quad \text{for the low-rank part } \mathcal{U}\mathcal{C}\mathcal{U}^\top \text{ of } H \text{ with } "
                 + vectors + source)
    lines.append(r"\quad \text{(the quadratic forms of } H_N^{-1} \text{ reduce to } \tau_{ij}, \tau^A_{ij})")
    return lines


def _symbols(system: FixedPointSystem) -> set[sp.Symbol]:
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


def _glossary(system: FixedPointSystem, skip: set = frozenset(), paper: bool = False) -> list[str]:
    """The system's glossary entries for the symbols (and named functions) that appear, but not those in ``skip``.

    In a ``paper``, the entries of :data:`_PAPER_GLOSSARY` replace (or, when None, drop) the system's.
    """
    used: set = _symbols(system)
    for e in [*system.residuals.values(), *(a.integrand for a in system.averages.values())]:
        used |= {f.func for f in sp.sympify(e).atoms(AppliedUndef)}
    out = []
    for symbol, text in system.glossary.items():
        if symbol in used and symbol not in skip:
            text = _PAPER_GLOSSARY.get(symbol, text) if paper else text
            if text is not None:
                out.append(text)
    return out


# --------------------------------------------------------------------------- the low-rank part by its structure


def _vector_of(name: str) -> str | None:
    """The deterministic vector of a projection ``Z^T v`` (:func:`~.symbols.projection_name` inverted), else None."""
    if name == "s":
        return "mu"
    if name[:1] in ("k", "q") and (name[1:] == "" or name[1:].isdigit()):
        return ("wK" if name[0] == "k" else "wQ") + name[1:]
    return None


def woodbury_structure(form: WoodburyForm) -> dict | None:
    r"""The pattern of a low-rank form, when it has it; None otherwise (then it is printed block by block).

    The pattern: the rows come in blocks :math:`a`, each the labels :math:`y` and projections :math:`Z^\top v`
    for the vectors :math:`V_a` of the block; :math:`\mathsf G_{ab}` is :math:`\tau_{ab}` on the :math:`y` entry
    and :math:`\tau^A_{ab} V_a^\top V_b` on the projections (entries of the Gram matrix :math:`\Gamma` of the
    vectors), 0 in between; :math:`g` is a column of :math:`\mathsf G`. Every entry is checked here (``expand``
    of the difference is 0), so that what is printed from the pattern is the matrix the solver receives.
    Returns ``{"blocks": {a: [vector, ...]}, "gram": G as built, "source": column index}``.
    """
    if not form.size or not form.labels:
        return None
    groups = _groups(form.labels)
    blocks: dict[str, list[str]] = {}
    for block, rows in groups.items():
        names = [_base(form.labels[i]) for i in rows]
        vectors = [_vector_of(n) for n in names[1:]]
        if not block.isdigit() or names[0] != "y" or None in vectors:
            return None
        blocks[block] = vectors
    built = sp.zeros(form.size, form.size)
    plain, weighted = {}, {}
    for a, rows in groups.items():
        for b, columns in groups.items():
            plain[a, b] = built[rows[0], columns[0]] = form.gram[rows[0], columns[0]]
            first = form.gram[rows[1], columns[1]] if len(rows) > 1 and len(columns) > 1 else None
            if first is not None:
                weighted[a, b] = sp.cancel(first / S.gram_symbol(blocks[a][0], blocks[b][0]))
            for r, u in zip(rows[1:], blocks[a]):
                for k, v in zip(columns[1:], blocks[b]):
                    built[r, k] = weighted[a, b] * S.gram_symbol(u, v)
    if any(sp.expand(e - f) != 0 for e, f in zip(form.gram, built)):
        return None
    source = next((k for k in range(form.size) if form.gram[:, k] == form.source), None)
    if source is None:
        return None
    return {"blocks": blocks, "gram": built, "source": source, "plain": plain, "weighted": weighted}


def _matrix_tex(rows: list[list[str]]) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(row) for row in rows) + r"\end{pmatrix}"


def structured_woodbury_lines(name: str, form: WoodburyForm, page: Page) -> list[Line] | None:
    r"""The low-rank form by its pattern (:func:`woodbury_structure`): :math:`\Gamma` once, :math:`\mathsf G` in one line,
    the nonzero blocks of :math:`\mathsf C` (a transposed block named as such), :math:`g` a column of :math:`\mathsf G`."""
    structure = woodbury_structure(form)
    if structure is None:
        return None
    tex, ledger = page.tex, page.ledger
    printed = lambda e: to_latex(e).replace(r"{\tau^{A}}", r"\tau^{A}")
    index = lambda a, b: "".join(sorted((a, b)))
    if any(printed(e) != rf"\tau_{{{index(a, b)}}}" for (a, b), e in structure["plain"].items()) or \
            any(printed(e) != rf"\tau^{{A}}_{{{index(a, b)}}}" for (a, b), e in structure["weighted"].items()):
        return None                                     # entries that are not the averages tau_ab: block by block
    symmetric = True
    if ledger is not None:
        ledger.record(form.gram, structure["gram"])
        ledger.record(form.source, form.gram[:, structure["source"]])
    blocks = structure["blocks"]
    rank = sum(1 for vectors in blocks.values() for v in vectors if v.startswith("wK"))
    vectors = S.geometry_vectors(max(rank, 1)) if rank else ("mu",)
    gram = S.gram_matrix(rank) if rank else sp.Matrix([[S.theta]])
    listed = "(" + ", ".join(S.vector_latex(v) for v in vectors) + ")"
    size = form.size
    lines: list[Line] = [(name + " &= " + tex(form.offset) + r" - g^\top \mathsf{C}\,\left(I_{" + str(size)
                          + r"} + \mathsf{G}\mathsf{C}\right)^{-1} g", True)]
    if rank <= 1:
        lines.append((r"\Gamma &= " + listed + r"^\top " + listed + " = " + tex(gram), True))
    else:                                      # (1 + 2r)^2 entries: their names by pattern, checked against the symbols
        named = {S.theta: r"\theta", S.gram_symbol("mu", "wK1"): r"\alpha_{K 1}",
                 S.gram_symbol("wK1", "wQ2"): r"\omega_{KQ 12}", S.gram_symbol("wK1", "wK2"): r"\omega_{KK 12}"}
        if any(to_latex(symbol) != text for symbol, text in named.items()):
            return None
        lines.append((r"\Gamma &= V^\top V,\quad V = (\mu, w_K^{(1)}, \dots, w_K^{(" + str(rank) + r")}, w_Q^{(1)}, "
                      r"\dots, w_Q^{(" + str(rank) + r")}),", True))
        lines.append((r"& \theta = \|\mu\|^2,\ \alpha_{K h} = \mu^\top w_K^{(h)},\ \alpha_{Q h} = \mu^\top w_Q^{(h)},",
                      False))
        lines.append((r"& \omega_{KK hl} = w_K^{(h)\top} w_K^{(l)},\ \omega_{QQ hl} = w_Q^{(h)\top} w_Q^{(l)},\ "
                      r"\omega_{KQ hl} = w_K^{(h)\top} w_Q^{(l)}", False))
    names = list(blocks)
    last = names[-1]
    lines.append((r"\mathsf{G} &= \left(\mathsf{G}_{ab}\right)_{a, b = 1}^{" + last + r"}, \quad \mathsf{G}_{ab} = "
                  r"\begin{pmatrix} \tau_{ab} & 0 \\ 0 & \tau^{A}_{ab} V_a^\top V_b \end{pmatrix}", True))
    groups = ",\\ ".join(f"V_{{{a}}} = " + ("(" if len(v) > 1 else "") + ", ".join(S.vector_latex(x) for x in v)
                         + (")" if len(v) > 1 else "") for a, v in blocks.items())
    lines.append((r"& \text{with } " + groups + ",", False))
    if symmetric:
        lines.append((r"& \tau_{ba} = \tau_{ab},\ \tau^{A}_{ba} = \tau^{A}_{ab},", False))
    groups_of = _groups(form.labels)
    layout, parts = [], []
    for a in names:
        row = []
        for b in names:
            block = form.core.extract(groups_of[a], groups_of[b])
            mirror = form.core.extract(groups_of[b], groups_of[a])
            if block.is_zero_matrix:
                row.append("0")
            elif names.index(b) < names.index(a) and mirror.T == block:
                row.append(r"\mathsf{C}_{" + b + a + r"}^\top")
                if ledger is not None:
                    ledger.record(block, mirror.T)
            else:
                row.append(r"\mathsf{C}_{" + a + b + "}")
                parts.append((r"\mathsf{C}_{" + a + b + "} &= " + tex(block), True))
        layout.append(row)
    lines.append((r"\mathsf{C} &= " + _matrix_tex(layout), True))
    lines.extend(parts)
    source = structure["source"]
    lines.append((rf"& g = \mathsf{{G}} e_{{{source + 1}}} \ (\text{{column {source + 1} of }} \mathsf{{G}})", False))
    return lines
