r"""A derived system as the LaTeX of a paper: :func:`system_body`, one file to ``\input``.

The body states the model first (:math:`X`, :math:`S`, :math:`K = f(S)/\sqrt p` with its
diagonal, the ridge probe :math:`Q`, :math:`\Phi` and :math:`E`, or the Stieltjes transform
for a density), then its deterministic equivalent (the Dyson matrix, the fixed point, the
spectral averages, the low-rank part) in numbered ``align`` environments with a ``\label``
on every equation, and closes with the definitions: a table of f's Hermite data and the
meaning of every other symbol, each defined once. Only ``amsmath`` is needed (``amssymb``
for :math:`\mathbb R`, :math:`\mathbb E`). The solver's data (continuation start, branch
conditions, admissible ranges) are printed only on request, in an environment of their own,
``symrmtsolverdata``, that a paper may define itself (e.g. as an appendix section) before
the ``\input``.

Every printed expression is :func:`simplest`: the shortest of the forms that SymPy proves equal
(factored, collected in the unknowns with factored coefficients). A :class:`Ledger` records
each printed expression next to the expression of the system that the solver compiles, so that
a test proves them equal.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from . import symbols as S

__all__ = ["simplest", "Ledger", "hermite_given", "system_body", "solver_data_environment", "check_label_prefix",
           "SOLVER_DATA_ENVIRONMENT"]

#: The environment that holds the solver's data; a paper may define it before ``\input`` (e.g. as an appendix).
SOLVER_DATA_ENVIRONMENT = "symrmtsolverdata"
#: Expressions larger than this (operations) are only factored: collecting every symbol would take seconds.
_LARGE = 300
#: Expressions in more symbols than this are not factored or collected symbol by symbol (seconds each at rank 8+).
_FEW = 8
#: Matrices with more nonzero entries than this (rank 16 and above) are printed without a common factor pulled out.
_ENTRIES = 300
#: A label prefix: letters, digits and ``-_.:`` (what ``\label`` and ``\eqref`` take without escaping).
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*\Z")


# --------------------------------------------------------------------------- simplification


def _leaves(expr: sp.Basic) -> int:
    """Symbols and numbers a reader reads (a sign is not counted)."""
    return sum(1 for a in sp.preorder_traversal(expr) if a.is_Atom and a is not sp.S.NegativeOne)


def _cost(expr: sp.Basic) -> tuple[int, int]:
    return _leaves(expr), len(sp.srepr(expr))


def _symbols_of(expr: sp.Expr) -> list[sp.Symbol]:
    return sorted((s for s in expr.free_symbols if isinstance(s, sp.Symbol)), key=str)


def _factored(expr: sp.Expr) -> sp.Expr:
    if len(expr.free_symbols) > _FEW:          # multivariate factoring grows fast: rank-r sums stay as they are
        return expr
    try:
        return sp.factor(expr)
    except (sp.PolynomialError, TypeError, ValueError):         # MatrixElement, Float powers: keep as is
        return expr


def _tidy(expr: sp.Expr, depth: int = 0) -> sp.Expr:
    """The shortest of ``expr``, its factored form and its collections in one symbol (coefficients tidied)."""
    if expr.is_Atom or not isinstance(expr, sp.Expr):
        return expr
    candidates = [expr, _factored(expr)]
    expanded = sp.expand(expr)
    if depth < 1 and isinstance(expanded, sp.Add) and sp.count_ops(expanded) <= _LARGE and \
            len(expanded.free_symbols) <= _FEW:
        for symbol in _symbols_of(expanded):
            try:
                parts = sp.collect(expanded, symbol, evaluate=False)
            except (TypeError, ValueError):
                continue
            if len(parts) > 1:
                candidates.append(sp.Add(*(_tidy(v, depth + 1) * k for k, v in parts.items())))
    return min(candidates, key=_cost)


@lru_cache(maxsize=4096)
def _simplest(expr: sp.Expr, unknowns: tuple) -> sp.Expr:
    expanded = sp.expand(expr)
    present = [u for u in unknowns if u in expanded.free_symbols]
    if not present or not isinstance(expanded, sp.Add):
        candidates = [expr, _tidy(expr)]
    else:                                   # in the unknowns: collected in them, or factored, never in a parameter
        candidates = [expr, _factored(expr)]
        if sp.count_ops(expanded) <= 4 * _LARGE:
            try:
                parts = sp.collect(expanded, present, evaluate=False)
                candidates.append(sp.Add(*(_tidy(v) * k for k, v in parts.items())))
            except (TypeError, ValueError):
                pass
    proven = [c for c in candidates if c is expr or sp.expand(c - expr) == 0]
    return min(proven, key=_cost)


def simplest(expr: Any, unknowns: Sequence[sp.Symbol] = ()) -> Any:
    r"""The shortest form of ``expr`` that SymPy proves equal: factored, or collected in ``unknowns``.

    Candidates are ``expr`` itself, :func:`sympy.factor`, and collections: in the ``unknowns``
    (the fixed point's :math:`t_{ij}`, :math:`\zeta_k`, ...) with each coefficient in its own
    shortest form, and in each symbol. The shortest is the one with the fewest symbols and
    numbers (signs not counted), e.g. :math:`a_1\lambda - a_1 + d` becomes
    :math:`a_1(\lambda - 1) + d`. Only a candidate whose difference from ``expr`` expands to 0
    is taken. Matrices are simplified entry by entry; anything else is returned as is.

    Examples
    --------
    >>> from symrmt.derive import symbols as S
    >>> simplest(S.a1 * S.lam - S.a1 + S.d)
    a_1*(lambda - 1) + d
    """
    if isinstance(expr, sp.MatrixBase):
        return sp.ImmutableMatrix(expr).applyfunc(lambda e: simplest(e, unknowns))
    if not isinstance(expr, sp.Expr) or _is_monomial(expr) or isinstance(expr, sp.MatrixExpr):
        return expr
    floats = {f: sp.Dummy() for f in expr.atoms(sp.Float)}     # factor() would round them through rationals
    if floats:
        return _simplest(expr.xreplace(floats), tuple(unknowns)).xreplace({v: k for k, v in floats.items()})
    return _simplest(expr, tuple(unknowns))


def _is_monomial(expr: sp.Expr) -> bool:
    """A symbol, a number, or a product of their powers: nothing to simplify (most entries of a rank-r system)."""
    factors = sp.Mul.make_args(expr)
    return all(f.is_Atom or (f.is_Pow and f.base.is_Atom and f.exp.is_Atom) for f in factors)


@dataclass
class Ledger:
    """Each expression a printer printed: ``(source, printed)``, the system's expression and its printed form.

    Matrices are recorded entry by entry. A test proves ``printed - source == 0`` for every pair.
    """

    pairs: list[tuple[sp.Expr, sp.Expr]] = field(default_factory=list)

    def record(self, source: Any, printed: Any) -> None:
        if isinstance(source, sp.MatrixBase):
            self.pairs.extend(zip(source, printed))
        elif isinstance(source, sp.Expr) and not isinstance(source, sp.MatrixExpr):
            self.pairs.append((source, printed))

    def sources(self) -> set:
        return {source for source, _ in self.pairs}


# --------------------------------------------------------------------------- Hermite data


def hermite_given(hermite_data: Any, numeric: bool = False) -> tuple[dict, list[tuple]]:
    r"""f's Hermite data for a printed system: ``(substitution, given)`` for :func:`~.latex.system_latex`.

    :math:`a_1` and :math:`b` stay symbols in the equations and ``given`` holds their values,
    once: ``(name, definition, value)`` rows for f, :math:`a_1`, :math:`\nu` and
    :math:`b^2 = \nu - a_1^2` (in its :func:`simplest` form). Only the values that change the
    system's structure are put in: :math:`a_1 = 0` (an f without a linear part) and :math:`b = 0`
    (a linear f, no fixed point). With ``numeric``, the closed forms are evaluated (to a float64's
    17 digits; the printer rounds) and :math:`a_1` is put into the equations as a number.
    A datum without a closed form for an f with parameters is a named function,
    :math:`a_1(s)`, :math:`\nu(s)`.
    """
    from .registry import hermite_values, nonlinear_share

    a1, nu = hermite_values(hermite_data)
    if numeric:
        a1, nu = (v if v.has(AppliedUndef) else sp.N(v, 17) for v in (a1, nu))
    closed = not (a1.has(AppliedUndef) or nu.has(AppliedUndef))
    b2 = simplest(nonlinear_share(a1, nu)) if closed else nonlinear_share(a1, nu)
    given: list[tuple] = []
    if isinstance(hermite_data.f, sp.Basic):
        given.append(("f(x)", hermite_data.f))
    given.append((S.a1, r"\mathbb{E}[\xi f(\xi)]", a1))
    given.append((S.nu, r"\mathbb{E}[f(\xi)^2]", nu))
    substitution: dict = {S.a1: a1} if numeric else {}
    if a1 == 0:
        substitution[S.a1] = sp.Integer(0)
    if b2 == 0:
        substitution[S.b] = sp.Integer(0)
    given.append((S.b**2, r"\nu - a_1^2", b2))
    return substitution, given


# --------------------------------------------------------------------------- the body


def check_label_prefix(prefix: str) -> str:
    """``prefix`` if it can start a ``\\label`` (a letter, then letters, digits, ``-_.:``); else a ValueError."""
    from ..errors import SymrmtInputError

    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise SymrmtInputError(f"label prefix {prefix!r}: use a letter followed by letters, digits or - _ . : "
                               "(e.g. 'lrelu'), so that \\label and \\eqref take it as it is.")
    return prefix


def model_lines(page, ledger: Ledger | None = None) -> list[tuple[str, str | None]]:
    r"""The model the system is the deterministic equivalent of: ``(line, label or None)`` pairs.

    The observables defined from others (:math:`E = -\gamma^2\,\mathrm d\Phi/\mathrm d\gamma`,
    :math:`\rho_\eta = \operatorname{Im} m/\pi`) are printed here from the system's expressions.
    """
    from .latex import _observable_name

    s, tex = page.system, page.tex
    lines: list[tuple[str, str | None]] = list(s.statement)
    for o, value in s.observables.items():
        if _is_derived(value, s):
            lines.append((_observable_name(s, o, tex) + " &= " + tex(value), None))
    return lines


def _is_derived(value, system) -> bool:
    """An observable written in the other observables (E from Phi, rho from m): the model defines it."""
    from .components import WoodburyForm

    return not isinstance(value, WoodburyForm) and bool(sp.sympify(value).free_symbols & set(system.observables))


def solver_data_environment(lines: list[tuple[str, bool]], label) -> str:
    r"""The solver's data in an environment ``symrmtsolverdata`` of their own, defined only if the paper has not."""
    name = SOLVER_DATA_ENVIRONMENT
    rows = [text + (r" \label{" + label(text) + "}" if numbered else r" \nonumber") for text, numbered in lines]
    return ("\\ifcsname " + name + "\\endcsname\\else\n\\newenvironment{" + name + "}"
            "{\\par\\medskip\\noindent\\textbf{Solver data.}\\ }{\\par}\n\\fi\n"
            "\\begin{" + name + "}\nPrinted by \\texttt{symrmt latex} from the SymPy system that its solver "
            "compiles: the continuation start, the conditions that select the physical branch and the "
            "admissible ranges of the observables.\n\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}\n"
            "\\end{" + name + "}")


def system_body(page, label_prefix: str | None = None, solver_data: bool = False, title: str | None = None) -> str:
    r"""The body of a paper for a printed page (:class:`~.latex._Page`): model, equivalent, definitions, solver data.

    Called by :func:`~.latex.system_body`, which documents the arguments.
    """
    from .latex import _averages, _definitions, _equations, _label, _observables, _slug, _solver_data

    s = page.system
    prefix = check_label_prefix(label_prefix) if label_prefix is not None else (_slug(s.name) or "system")
    used: set[str] = set()

    def label(text: str, explicit: str | None = None) -> str:
        if explicit is None:
            return _label(prefix, text, used)
        unique, k = f"{prefix}:{explicit}", 2
        while unique in used:
            unique, k = f"{prefix}:{explicit}-{k}", k + 1
        used.add(unique)
        return unique

    def align(rows: list[str]) -> str:
        return "\\begin{align}\n" + " \\\\\n".join(rows) + "\n\\end{align}"

    model = [text + r" \label{" + label(text, explicit) + "}" for text, explicit in model_lines(page)]
    derived = {o for o, v in s.observables.items() if _is_derived(v, s)}
    observables = [(text.replace(" &= ", r" &\simeq ", 1) if i == 0 else text, numbered)
                   for i, (text, numbered) in enumerate(_observables(page, skip=derived))]
    equivalent = [*_definitions(page), *_equations(page), *_averages(page, compact=True), *observables]
    rows = [text + (r" \label{" + label(text, page.hints.get(text)) + "}" if numbered else r" \nonumber")
            for text, numbered in equivalent]
    size = max([3, *(m.shape[1] for m in _matrices(s))])
    parts = [f"% {title or s.name}: printed by symrmt latex --body; needs amsmath and amssymb.",
             r"\begingroup\allowdisplaybreaks",
             *([rf"\ifnum\value{{MaxMatrixCols}}<{size} \setcounter{{MaxMatrixCols}}{{{size}}}\fi"] if size > 10 else []),
             r"\paragraph{The model.}", align(model),
             r"\paragraph{Its deterministic equivalent.} As $n, p \to \infty$ with $c = p/n$ fixed:", align(rows),
             r"\paragraph{Definitions.}", _definitions_text(page)]
    if solver_data:
        parts.append(solver_data_environment(_solver_data(page), label))
    parts.append(r"\endgroup")
    return "\n".join(parts) + "\n"


def _matrices(system) -> Iterable[sp.MatrixBase]:
    for value in system.definitions.values():
        if isinstance(value, sp.MatrixBase):
            yield value
    from .components import WoodburyForm

    for value in system.observables.values():
        if isinstance(value, WoodburyForm) and value.size:
            yield value.gram


def _definitions_text(page) -> str:
    """f's Hermite data in a table (symbol, definition, value), then every other symbol's meaning."""
    from .latex import _where_entries

    tex = page.tex
    rows = []
    for entry in page.given:
        if len(entry) == 2:
            name, value = entry
            rows.append(f"${tex(name)}$ & & $\\displaystyle {tex(value)}$")
        else:
            name, meaning, value = entry
            rows.append(f"${tex(name)}$ & ${meaning}$ & $\\displaystyle {tex(value)}$")
    table = ""
    if rows:
        table = ("The nonlinearity and its Hermite data ($\\xi \\sim \\mathcal{N}(0, 1)$):\n\\begin{center}\n"
                 "\\begin{tabular}{lll}\n" + " \\\\[4pt]\n".join(rows) + "\n\\end{tabular}\n\\end{center}\n")
    entries = _where_entries(page, paper=True)
    where = "\\begin{align*}\n" + " \\\\\n".join("& " + e for e in entries) + "\n\\end{align*}" if entries else ""
    return table + where


def common_factor(matrix: sp.MatrixBase, unknowns: Sequence[sp.Symbol] = ()) -> tuple[sp.Expr, sp.ImmutableMatrix]:
    r"""``(k, B)`` with ``matrix = k * B``: k the factor common to every nonzero entry, B in :func:`simplest` form.

    ``k = 1`` when the entries share nothing (or fewer than two are nonzero, or more than :data:`_ENTRIES`).
    """
    matrix = sp.ImmutableMatrix(matrix)
    nonzero = [e for e in matrix if e != 0]
    if not 2 <= len(nonzero) <= _ENTRIES or any(not isinstance(e, sp.Expr) or e.has(sp.MatrixExpr) for e in nonzero):
        return sp.Integer(1), matrix
    marks = sp.symbols(f"_mark0:{len(nonzero)}", cls=sp.Dummy)
    pulled = sp.factor_terms(sp.Add(*(e * m for e, m in zip(nonzero, marks))))
    common = sp.Mul(*(part for part in sp.Mul.make_args(pulled) if not part.has(*marks)))
    if common == 1 or common.is_Number:
        return sp.Integer(1), matrix
    reduced = matrix.applyfunc(lambda e: simplest(sp.cancel(e / common), unknowns) if e != 0 else e)
    if any(sp.expand(common * r - e) != 0 for r, e in zip(reduced, matrix)):
        return sp.Integer(1), matrix
    return common, sp.ImmutableMatrix(reduced)
