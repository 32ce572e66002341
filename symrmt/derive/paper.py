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
from typing import Any, Iterable, Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import SymrmtInputError
from . import symbols as S
from .components import WoodburyForm
from .latex import (Page, woodbury_structure, to_latex, average_lines, definition_lines, equation_label, equation_lines, observable_lines,
                    observable_name, slug, solver_data_lines, where_entries)
from .registry import hermite_values, nonlinear_share
from .simplify import Ledger, simplest

#: Annotations only (fixed_point prints itself through .latex: importing it here would close a circle).
FixedPointSystem = "FixedPointSystem"

__all__ = ["hermite_given", "system_body", "system_document", "page_body", "solver_data_environment",
           "check_label_prefix", "SOLVER_DATA_ENVIRONMENT"]

#: The environment that holds the solver's data; a paper may define it before ``\input`` (e.g. as an appendix).
SOLVER_DATA_ENVIRONMENT = "symrmtsolverdata"
#: A label prefix: letters, digits and ``-_.:`` (what ``\label`` and ``\eqref`` take without escaping).
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]*\Z")


def hermite_given(hermite_data: Any, numeric: bool = False) -> tuple[dict, list[tuple]]:
    r"""f's Hermite data for a printed system: ``(substitution, given)`` for :func:`~.latex.system_latex`.

    :math:`a_1` and :math:`b` stay symbols in the equations and ``given`` holds their values,
    once: ``(name, definition, value)`` rows for f, :math:`a_1`, :math:`\nu` and
    :math:`b^2 = \nu - a_1^2` (in its :func:`simplest` form). Only the values that change the
    system's structure are put in: :math:`a_1 = 0` (an f without a linear part) and :math:`b = 0`
    (a linear f, no fixed point). With ``numeric``, the closed forms are evaluated (to a float64's
    17 digits; the printer rounds), and a printer given ``numeric`` prints :math:`a_1`, :math:`b^2` and
    :math:`\nu` as these numbers where they stand, so that :math:`a_1(\lambda - 1)` keeps its form.
    A datum without a closed form for an f with parameters is a named function,
    :math:`a_1(s)`, :math:`\nu(s)`.
    """
    a1, nu = hermite_values(hermite_data)
    if numeric:
        a1, nu = (v if v.has(AppliedUndef) else sp.N(v, 17) for v in (a1, nu))
    closed = not (a1.has(AppliedUndef) or nu.has(AppliedUndef))
    b2 = simplest(nonlinear_share(a1, nu)) if closed else nonlinear_share(a1, nu)
    given: list[tuple] = []
    if isinstance(hermite_data.f, sp.Basic):
        f = hermite_data.f
        if getattr(hermite_data, "center", False) and getattr(hermite_data, "centered_by", 0.0) is None:
            # the centring constant has no closed form: it is named, and the f printed is the f solved
            a0 = sp.Function("a_0")(*hermite_data.parameters)
            f = f - a0
            given.append(("f(x)", f))
            given.append((a0, r"\mathbb{E}[\phi(\xi)],\ \phi = f + a_0", r"\text{no closed form}"))
        else:
            given.append(("f(x)", f))
    given.append((S.a1, r"\mathbb{E}[\xi f(\xi)]", a1))
    given.append((S.nu, r"\mathbb{E}[f(\xi)^2]", nu))
    substitution: dict = {}                            # numeric: the values are printed where a_1, b^2 stand
    if a1 == 0:
        substitution[S.a1] = sp.Integer(0)
    if b2 == 0:
        substitution[S.b] = sp.Integer(0)
    given.append((S.b**2, r"\nu - a_1^2", b2))
    return substitution, given


# --------------------------------------------------------------------------- the body


def check_label_prefix(prefix: str) -> str:
    """``prefix`` if it can start a ``\\label`` (a letter, then letters, digits, ``-_.:``); else a ValueError."""
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise SymrmtInputError(f"label prefix {prefix!r}: use a letter followed by letters, digits or - _ . : "
                               "(e.g. 'lrelu'), so that \\label and \\eqref take it as it is.")
    return prefix


def model_lines(page, ledger: Ledger | None = None) -> list[tuple[str, str | None]]:
    r"""The model the system is the deterministic equivalent of: ``(line, label or None)`` pairs.

    The observables defined from others (:math:`E = -\gamma^2\,\mathrm d\Phi/\mathrm d\gamma`,
    :math:`\rho_\eta = \operatorname{Im} m/\pi`) are printed here from the system's expressions.
    """
    s, tex = page.system, page.tex
    lines: list[tuple[str, str | None]] = list(s.statement)
    for o, value in s.observables.items():
        if _is_derived(value, s):
            lines.append((observable_name(s, o, tex) + " &= " + tex(value), None))
    return lines


def _is_derived(value, system) -> bool:
    """An observable written in the other observables (E from Phi, rho from m): the model defines it."""
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


#: The parts of a body, in the order printed: the model, its assumptions, the theorem (the statement with its system),
#: the definitions. A paper with several nonlinearities prints the model and the assumptions once.
PARTS = ("model", "assumptions", "theorem", "definitions")
#: The environment of a statement, by its status (:class:`~.statement.Statement`), when the user names none.
STATUS_ENVIRONMENT = {"theorem": "theorem", "heuristic": "claim"}


def check_parts(parts) -> tuple[str, ...]:
    """``parts`` as a tuple in the printed order: each one of :data:`PARTS`, at least one; else an input error."""
    chosen = (parts,) if isinstance(parts, str) else tuple(parts)
    unknown = [p for p in chosen if p not in PARTS]
    if unknown or not chosen:
        raise SymrmtInputError(f"part {unknown[0] if unknown else '(none)'!r}: give one or more of "
                               f"{', '.join(PARTS)} (default: all).")
    return tuple(p for p in PARTS if p in chosen)


def check_environment(name: str) -> str:
    """``name`` if it can name a LaTeX environment (letters, then letters, digits or ``*``); else an input error."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*\*?", name):
        raise SymrmtInputError(f"theorem environment {name!r}: use letters (then letters or digits), e.g. "
                               "'proposition', as \\begin{...} takes it.")
    return name


def _bar(name: str) -> str:
    r"""``E_\mathrm{attn}(\gamma)`` -> ``\bar{E}_\mathrm{attn}(\gamma)``: the deterministic equivalent's name."""
    return re.sub(r"^(\\[A-Za-z]+|[A-Za-z])", lambda m: r"\bar{" + m[1] + "}", name, count=1)


def page_body(page, label_prefix: str | None = None, solver_data: bool = False, title: str | None = None,
              parts=PARTS, theorem_env: str | None = None) -> str:
    r"""The body of a paper for a printed page (:class:`~.latex.Page`): model, theorem, definitions, solver data.

    Called by :func:`system_body`, which documents the arguments.
    """
    s = page.system
    prefix = check_label_prefix(label_prefix) if label_prefix is not None else (slug(s.name) or "system")
    parts = check_parts(parts)
    statement = s.statement
    status = getattr(statement, "status", "heuristic")
    environment = check_environment(theorem_env) if theorem_env is not None else STATUS_ENVIRONMENT[status]
    used: set[str] = set()

    def label(text: str, explicit: str | None = None) -> str:
        return equation_label(prefix, text, used, explicit)

    def align(rows: list[tuple[str, bool | str | None]]) -> str:
        out = []
        for text, numbered in rows:
            if numbered is False:
                out.append(text + r" \nonumber")
            else:
                out.append(text + r" \label{" + label(text, numbered if isinstance(numbered, str) else
                                                      page.hints.get(text)) + "}")
        return "\\begin{align}\n" + " \\\\\n".join(out) + "\n\\end{align}"

    needs = "amsmath and amssymb"
    if "theorem" in parts:
        name = {"theorem": "Theorem", "claim": "Claim"}.get(environment, environment.capitalize())
        needs += rf"; the environment {environment}, e.g. \usepackage{{amsthm}}\newtheorem{{{environment}}}{{{name}}}"
    out = [f"% {title or s.name}: printed by symrmt latex --body; needs {needs}.", r"\begingroup\allowdisplaybreaks"]
    size = max([3, *(m.shape[1] for m in _matrices(s))])
    if size > 10:
        out.append(rf"\ifnum\value{{MaxMatrixCols}}<{size} \setcounter{{MaxMatrixCols}}{{{size}}}\fi")
    if "model" in parts:
        out += [r"\paragraph{Model.}", align([(text, explicit or True) for text, explicit in model_lines(page)])]
    assumptions = getattr(statement, "assumptions", ())
    if "assumptions" in parts and assumptions:
        items = [rf"\item {a}\label{{{prefix}:A{i}}}" for i, a in enumerate(assumptions, 1)]
        out += [r"\paragraph{Assumptions.}", "\\begin{enumerate}", *items, "\\end{enumerate}"]
    if "theorem" in parts:
        out += _theorem(page, statement, status, environment, prefix, align, label,
                        cited=len(assumptions) if "assumptions" in parts else 0)
    if "definitions" in parts:
        definitions = _definitions_text(page)
        if definitions:
            out += [r"\paragraph{Definitions.}", definitions]
    if solver_data:
        out.append(solver_data_environment(solver_data_lines(page), label))
    out.append(r"\endgroup")
    return "\n".join(out) + "\n"


def _theorem(page, statement, status: str, environment: str, prefix: str, align, label, cited: int = 0) -> list[str]:
    """The statement: convergence, the equivalent, the system, the solution. ``cited``: the number of assumptions
    printed in this body (cited by their labels); 0 where they are printed elsewhere in the paper (by another body's
    assumptions part) or there are none."""
    s, tex = page.system, page.tex
    out = []
    bars = {o: _bar(observable_name(s, o, tex)) for o in s.observables}
    limits = r",\quad ".join(observable_name(s, o, tex) + " - " + bars[o] + r" \to 0" for o in s.observables)
    under = (rf"Under Assumptions~\ref{{{prefix}:A1}}--\ref{{{prefix}:A{cited}}}, a" if cited else
             "Under the assumptions of the model, a" if getattr(statement, "assumptions", ()) else "A")
    optional = "" if status == "theorem" else "[heuristic]"
    head = (rf"\begin{{{environment}}}{optional}\label{{{prefix}:main}}" + "\n" + under +
            r"lmost surely, as $n, p \to \infty$ with $p/n \to c$," + "\n\\[\n" + limits + "\n\\]\n")
    equivalent, fixed = statement_lines(page)
    words = _which_solution(page)
    body = [head, "where" if equivalent else "", align(equivalent) if equivalent else "",
            ("and " if equivalent else "where ") + "the unknowns solve", align(fixed), words,
            rf"\end{{{environment}}}"]
    out.append("\n".join(x for x in body if x))
    if statement and status != "theorem" and getattr(statement, "why", ""):
        out.append(r"\noindent The statement is heuristic: " + statement.why)
    return out


def statement_lines(page) -> tuple[list[tuple[str, bool | str | None]], list[tuple[str, bool | str | None]]]:
    r"""The statement's two blocks of ``align`` rows ``(text, numbered)``: the equivalent
    (:math:`\bar E_\mathrm{attn} = \dots`, the observables) and the system its unknowns solve."""
    s, tex = page.system, page.tex
    derived = {o for o, v in s.observables.items() if _is_derived(v, s)}
    bars = {o: _bar(observable_name(s, o, tex)) for o in s.observables}
    rename = {o: sp.Symbol(bars[o]) for o in s.observables}
    names = {sym: name for sym, name in zip(rename.values(), bars.values())}
    equivalent = []
    for o, value in s.observables.items():
        if o in derived:
            printed = sp.sympify(value).xreplace(rename)
            if page.ledger is not None:
                page.ledger.record(value, printed.xreplace({v: k for k, v in rename.items()}))
            equivalent.append((bars[o] + " &= " + page.print_with(printed, names), True))
    for text, numbered in observable_lines(page, skip=derived, names=bars, structured=True):
        equivalent.append((text, numbered))
    fixed = [*definition_lines(page, compact=True), *_joined(equation_lines(page, width=70)),
             *average_lines(page, compact=True)]
    return equivalent, fixed


def statement_display(system: FixedPointSystem) -> str:
    r"""The statement's equations as one display for Jupyter (``$$\begin{aligned}...$$``): the rows that the
    theorem part of :func:`system_body` prints, without its labels, the equivalent first, then the system."""
    equivalent, fixed = statement_lines(Page(system, None, 6, (), (), None, False))
    rows = [text for text, _ in equivalent + fixed]
    return "$$\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}$$"


def _joined(lines: list[tuple[str, bool]], width: int = 60) -> list[tuple[str, bool]]:
    """Short numbered lines of the form ``a &= b`` (the fixed point t_ij = tau_ij/c) put side by side, up to ``width``."""
    out: list[tuple[str, bool]] = []
    for text, numbered in lines:
        short = numbered and _visible(text) < width // 2 and " &= " in text and not text.startswith("0 &")
        if out and short and out[-1][1] and r",\quad " not in out[-1][0][-1:] and \
                out[-1][0].count(" &= ") == 1 and _visible(out[-1][0]) + _visible(text) < width and \
                " &= " in out[-1][0] and not out[-1][0].startswith("0 &"):
            first = out[-1][0]
            out[-1] = (first + r",\quad " + text.replace(" &= ", " = ", 1).replace("&", ""), True)
            continue
        out.append((text, numbered))
    return out


def _visible(text: str) -> int:
    """About how many characters ``text`` shows once typeset (commands one character, markup none)."""
    text = re.sub(r"\\(left|right|begin\{\w+\}|end\{\w+\}|mathrm|mathsf|operatorname|quad|,|nonumber)", "", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: max(m[1], m[2], key=len), text)
    text = re.sub(r"\\[A-Za-z]+", "x", text)
    return len(re.sub(r"[{}^_&\s]", "", text))


def _which_solution(page) -> str:
    """The solution meant, in words: the branch the solver follows (continuation from a large variable, conditions)."""
    s, tex = page.system, page.tex
    if not s.unknowns:
        return ""
    c = s.continuation
    unknowns = ",$ $".join(tex(t) for t in s.unknowns)       # one formula per unknown: the line may break
    v = tex(c.variable)
    limit = ""
    if c.initial and all(value == 0 for value in c.initial.values()):
        limit = rf" and tends to $0$ as ${v} \to \infty$"
    conditions = ", ".join(f"${tex(b)}$" for b in s.branch)
    return (rf"The solution meant is the one, among those of these equations in $({unknowns})$, that is continuous "
            rf"in ${v}$ on $(0, \infty)${limit}" + (f", with {conditions}" if conditions else "") + ".")


def _matrices(system) -> Iterable[sp.MatrixBase]:
    for value in system.definitions.values():
        if isinstance(value, sp.MatrixBase):
            yield value
    for value in system.observables.values():
        if isinstance(value, WoodburyForm) and value.size:
            yield value.gram


def _gram_symbols(system) -> set:
    """The Gram entries of the deterministic vectors (defined by the printed matrix Gamma)."""
    return {x for x in system.parameters if x == S.theta or x.name.startswith(("alpha_", "omega_"))}


def _definitions_text(page) -> str:
    """f's Hermite data in a table (symbol, definition, value), then every other symbol's meaning."""
    tex = page.tex
    rows = []
    for entry in page.given:
        if len(entry) == 2:
            name, value = entry
            rows.append(f"${tex(name)}$ & & $\\displaystyle {tex(value)}$")
        else:
            name, meaning, value = entry
            shown = to_latex(name) if name in (S.a1, S.nu, S.b**2) else tex(name)      # a name, never its value
            rows.append(f"${shown}$ & ${meaning}$ & $\\displaystyle {tex(value)}$")
    table = ""
    renamed = getattr(page, "renamed", {})
    note = ""
    if renamed:                                          # one sentence on why a parameter's letter changed
        note = ("; ".join(rf"The parameter ${to_latex(p)}$ of $f$ is written ${tex(r)}$" for p, r in renamed.items())
                + ", since the unadorned letter names a symbol of the model.\n")
    if rows:
        table = ("The nonlinearity and its Hermite data ($\\xi \\sim \\mathcal{N}(0, 1)$):\n\\begin{center}\n"
                 "\\begin{tabular}{lll}\n" + " \\\\[4pt]\n".join(rows) + "\n\\end{tabular}\n\\end{center}\n" + note)
    structured = any(isinstance(v, WoodburyForm) and woodbury_structure(v) is not None
                     for v in page.system.observables.values())
    entries = [e.replace("the Dyson matrix", "the matrix") for e in
               where_entries(page, paper=True, skip=_gram_symbols(page.system) if structured else set())]
    where = "\\begin{align*}\n" + " \\\\\n".join("& " + e for e in entries) + "\n\\end{align*}" if entries else ""
    return table + where


# --------------------------------------------------------------------------- the system as a body or a document


def system_body(system: FixedPointSystem, substitution: dict | None = None, digits: int | None = 6, *,
                given: Sequence[tuple] = (), parameters: Iterable[sp.Symbol] = (), label_prefix: str | None = None,
                solver_data: bool = False, ledger: Ledger | None = None, title: str | None = None,
                parts=PARTS, theorem_env: str | None = None, numeric: bool = False) -> str:
    r"""The system as the body of a paper: one file to ``\input`` into an ``article`` with ``amsmath`` and ``amssymb``.

    The model, its deterministic equivalent (numbered ``align`` environments, a ``\label`` on
    every equation: ``<prefix>:<left-hand side>``, e.g. ``attention:t11``, ``attention:Mlambda``;
    ``label_prefix`` replaces the system's name so that two systems can share a paper), then the
    definitions (f's Hermite data in a table, every other symbol once). With ``solver_data``,
    the solver's data follow in an environment ``symrmtsolverdata``. Other
    arguments as for :func:`system_latex`.
    """
    page = Page(system, substitution, digits, given, parameters, ledger, numeric)
    return page_body(page, label_prefix, solver_data, title, parts, theorem_env)


def system_document(system: FixedPointSystem, substitution: dict | None = None, digits: int | None = 6, *,
                    given: Sequence[tuple] = (), parameters: Iterable[sp.Symbol] = (), title: str | None = None,
                    label_prefix: str | None = None, solver_data: bool = False, ledger: Ledger | None = None,
                    parts=PARTS, theorem_env: str | None = None, numeric: bool = False) -> str:
    r"""The :func:`system_body` as a complete LaTeX document (``amsmath``, ``amssymb``; ``geometry`` when installed).

    Arguments as for :func:`system_body`; ``title`` heads the document (default: the system's name).
    """
    body = system_body(system, substitution, digits, given=given, parameters=parameters, label_prefix=label_prefix,
                       solver_data=solver_data, ledger=ledger, title=title, parts=parts, theorem_env=theorem_env,
                       numeric=numeric)
    heading = title or f"The {system.name} system"
    preamble = PREAMBLE
    if theorem_env is not None and theorem_env not in STATUS_ENVIRONMENT.values():      # the user's environment
        preamble = preamble.replace("\\begin{document}", rf"\newtheorem{{{theorem_env}}}"
                                    rf"{{{theorem_env.rstrip('*').capitalize()}}}" + "\n\\begin{document}")
    return preamble + r"\section*{" + escape_text(heading) + "}\n" + body + "\n\\end{document}\n"


PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage{amsmath,amssymb,amsthm}
\newtheorem{theorem}{Theorem}
\newtheorem{claim}{Claim}
\IfFileExists{geometry.sty}{\usepackage[margin=2cm]{geometry}}{}
\begin{document}
"""


def escape_text(text: str) -> str:
    return re.sub(r"([#$%&_{}])", r"\\\1", text)
