r"""LaTeX export of a derived :class:`~.fixed_point.FixedPointSystem`: exactly the objects the solver evaluates.

:func:`system_latex` prints, in ``aligned`` blocks that KaTeX (strict mode) and MathJax render,
the definitions (e.g. the Dyson matrix :math:`M(\lambda)` and :math:`R = M^{-1}`), the
fixed-point equations (each residual, solved for its unknown when it is of the form
:math:`t - \text{rhs}`), the spectral averages and their law (when the system has any), the
observables, the data the solver reads (parameter domains, continuation start, branch
conditions, admissible ranges) and a "where" block that defines every symbol that appears.
:func:`~.paper.system_document` prints the same content as a complete LaTeX document, one numbered
``align`` environment per part and a ``\label`` on every equation.

This module prints the parts of a system line by line (:func:`definition_lines`,
:func:`equation_lines`, ...); each expression is printed by :mod:`.latex_printer` (its
:class:`~.latex_printer.Page` holds the names of one printing, and breaks a long sum into
lines), the low-rank part of an observable by :mod:`.latex_lowrank`.

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
from typing import Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from . import symbols as S
from .components import WoodburyForm
from .latex_lowrank import structured_woodbury_lines, woodbury_glossary, woodbury_lines, woodbury_structure
from .latex_printer import PER_LINE, WIDTH, Line, Page, equation_label, slug, system_symbols, to_latex
from .simplify import Ledger, simplest

#: Annotations only (fixed_point prints itself through this module: importing it here would close a circle).
FixedPointSystem = "FixedPointSystem"

#: to_latex, Page, the labels and woodbury_structure are defined in .latex_printer and .latex_lowrank.
__all__ = ["system_latex", "to_latex", "Page", "equation_label", "slug", "woodbury_structure"]

_LAWS = {"marchenko_pastur": r"\text{the Marchenko--Pastur law of } A = Z^\top Z/p,"}
#: What a law's line leaves for a second line (so that the block stays within a page's width).
_LAW_NOTES = {"marchenko_pastur": r"\quad \text{ratio } 1/c,\ \text{atom } (1 - c)_+ \text{ at } 0"}


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


def equation_lines(page: Page, width: int = WIDTH) -> list[Line]:
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
            lines.extend(pattern if pattern is not None else woodbury_lines(name, value, page))
        else:
            lines.append((name + " &= " + tex(value), True))
    return lines


def solver_data_lines(page: Page) -> list[Line]:
    r"""What the solver consumes besides the equations: domains, start, branch, admissible ranges."""
    s, tex = page.system, page.tex
    c = s.continuation
    v = tex(c.variable)
    domains = [tex(p) + r" \in " + tex(domain) for p, domain in s.parameters.items()]
    lines = [r"& " + r",\ ".join(domains[i:i + PER_LINE]) for i in range(0, len(domains), PER_LINE)]
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
    woodbury = [] if paper else woodbury_glossary(page, paper)
    width = WIDTH // 2 + 10 if paper else WIDTH + 30          # a paper's page is narrower than a notebook's
    return [line for entry in entries + glossary + woodbury for line in _wrapped(entry, width)]


def _wrapped(entry: str, width: int = WIDTH + 30) -> list[str]:
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


def _glossary(system: FixedPointSystem, skip: set = frozenset(), paper: bool = False) -> list[str]:
    """The system's glossary entries for the symbols (and named functions) that appear, but not those in ``skip``.

    In a ``paper``, the entries of :data:`_PAPER_GLOSSARY` replace (or, when None, drop) the system's.
    """
    used: set = system_symbols(system)
    for e in [*system.residuals.values(), *(a.integrand for a in system.averages.values())]:
        used |= {f.func for f in sp.sympify(e).atoms(AppliedUndef)}
    out = []
    for symbol, text in system.glossary.items():
        if symbol in used and symbol not in skip:
            text = _PAPER_GLOSSARY.get(symbol, text) if paper else text
            if text is not None:
                out.append(text)
    return out
