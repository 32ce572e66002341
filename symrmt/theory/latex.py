r"""The derived systems as LaTeX, with a nonlinearity's Hermite data put in (the front of :mod:`symrmt.derive.latex`)."""
from __future__ import annotations

import inspect
from typing import Mapping

from ..models import ATTENTION, names
from ..models import get as get_model
from ..errors import SymrmtInputError
from ..validate import boolean, choice, integer, within
from .forms import check_form

__all__ = ["MAX_RANK", "MAX_DIGITS", "latex"]


#: The largest rank :func:`latex` prints: the system grows like r^2 (rank 64: about 1 MB of LaTeX, 3 s to
#: build); beyond it the text is too long to read and to build.
MAX_RANK = 64
#: The most significant digits :func:`latex` prints: a float64 holds 17.
MAX_DIGITS = 17


def latex(f=None, kind: str = ATTENTION.name, digits: int | None = None, rank: int = 1, center: bool = False,
          params: Mapping[str, float] | None = None, numeric: bool = False, document: bool = False,
          form: str = "quadrature", body: bool = False, label_prefix: str | None = None,
          solver_data: bool = False, part=None, theorem_env: str | None = None) -> str:
    r"""The derived system of ``kind`` as LaTeX, with f's Hermite data when given.

    Without ``document`` or ``body``: ``aligned`` blocks separated by blank lines (KaTeX strict
    mode and MathJax render them). With ``body``: the text a paper ``\input``\ s (it needs
    ``amsmath`` and ``amssymb`` only): the model, its deterministic equivalent, every equation
    numbered and labelled (``attention:t11``, ... or ``<label_prefix>:t11``), and the definitions.
    With ``document``: that body in a complete LaTeX document that ``pdflatex`` compiles.
    Every expression is printed in the simplest form SymPy proves equal to the one solved
    (:func:`symrmt.derive.simplify.simplest`).

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or None
        The nonlinearity: :math:`a_1` and :math:`b` stay symbols in the equations, and f,
        :math:`a_1`, :math:`\nu` and :math:`b^2 = \nu - a_1^2` (factored) are given once, exactly
        where a closed form exists (a table in the body, the "where" block otherwise). A new f's
        first call does not wait for SymPy's search (:func:`~symrmt.nonlinearity.hermite`'s default
        ``timeout``): it prints the closed forms that need no integration and numbers for the rest,
        and says on stderr that the search goes on in the background; a later call prints what it
        found (or give ``hermite(f, timeout=60)`` to wait for it). :math:`a_1 = 0` and :math:`b = 0` are put in (they change the system). Linear regression
        does not depend on f (a given f is ignored).
    kind : str
        A registered model (:func:`symrmt.models.names`: attention, linear, gram_density, kernel_density,
        kernel_ridge, and any a user registers). A model without a derived system prints its own statement (its
        ``latex`` hook, :meth:`symrmt.models.Model.statement`, given the options that differ from their defaults)
        or is refused in one line.
    digits : int, optional
        Significant digits of the numbers that f's data put in, 1..:data:`MAX_DIGITS` (default 6). Given where
        no number is printed (no f, or f's data exact and not ``numeric``), it is refused: it would change nothing.
    rank : int
        Rank of the attention weights (attention, kernel ridge), 1..:data:`MAX_RANK`.
    center : bool
        Subtract :math:`a_0` from a formula first.
    params : dict, optional
        One value per symbolic parameter of f (``{"s": 0.5}``): the system is printed with the
        Hermite data at that point. Without it, the system of an f with parameters (the names
        other than x, as in ``"tanh(s*x)"``) is printed in them, with :math:`a_1(s)`, :math:`\nu(s)`
        in closed form where one exists and as named functions of the parameters otherwise. A
        parameter that takes the name of a vector of the system renames the vector
        (:math:`s = Z^\top\mu` becomes :math:`z_\mu`); one that prints like a scalar of the system
        is printed with a tilde.
    numeric : bool
        Print f's data :math:`a_1`, :math:`b^2` and :math:`\nu` as numbers (``digits`` significant digits) where
        their symbols stand, so that the equations keep their form (:math:`0.605706(\lambda - 1)`).
    document : bool
        Return a complete, compilable LaTeX document instead of fragments.
    body : bool
        Return the body of a paper (to ``\input``) instead of fragments.
    label_prefix : str, optional
        The prefix of the labels (default: the system's name, e.g. ``attention``), so that two
        systems can share one paper: a letter, then letters, digits or ``-_.:``.
    solver_data : bool
        Also print the solver's data (parameter domains, continuation start, branch conditions,
        admissible ranges): in the fragments as one more block, in a body or document in an
        environment ``symrmtsolverdata`` of their own, which a paper may define first (e.g.
        ``\newenvironment{symrmtsolverdata}{\section{Solver data}}{}`` in its appendix).
    part : str or sequence of str, optional
        With ``body`` or ``document``: the parts printed, any of ``"model"``, ``"assumptions"`` (a numbered
        list), ``"theorem"`` (the statement with its system) and ``"definitions"`` (f's data); default all. A
        paper with several nonlinearities states the model and its assumptions once and prints
        ``part=["theorem", "definitions"]`` for each further one.
    theorem_env : str, optional
        With ``body`` or ``document``: the environment of the statement (e.g. ``"proposition"``); default
        ``theorem`` where the statement is proven and ``claim`` (titled "heuristic") where it is not.
    form : {"quadrature", "algebraic", "auto"}
        The form printed: with its spectral averages :math:`\mathbb E_\lambda[\cdot]` (the default), or in
        closed form (``"algebraic"``, also ``"auto"``: the form ``form="auto"`` solves); for an f with
        :math:`a_1 = 0`, the algebraic form derived with :math:`a_1 = 0`.

    Returns
    -------
    str
        The LaTeX: ``aligned`` blocks separated by blank lines, or a paper's body, or a complete document.

    Raises
    ------
    ParameterError
        An unknown ``kind``, ``digits`` outside 1..17, ``rank`` outside 1..64, or ``digits`` where no number is
        printed.
    ParseError
        A formula f that cannot be read.
    NonlinearityError
        An f that is not centred (without ``center``).

    See Also
    --------
    symrmt.attention_error : Solves the system this prints.
    symrmt.hermite : The Hermite data put into it.

    Examples
    --------
    >>> text = latex("erf(x)")
    >>> r"\operatorname{asin}" in text and r"\begin{aligned}" in text
    True
    >>> r"\documentclass" in latex("erf(x)", document=True)
    True
    >>> r"\label{lrelu:t11}" in latex("leaky_relu(x, s)", center=True, body=True, label_prefix="lrelu")
    True
    """
    from ..derive.latex import system_latex  # heavy: SymPy
    from ..derive.paper import (  # heavy: SymPy
        PARTS, check_environment, check_label_prefix, check_parts, hermite_given, system_body, system_document)
    from ..nonlinearity import HermiteCoefficients, hermite  # heavy: SymPy
    from ..nonlinearity.parametric import named_values  # heavy: SymPy

    from ..derive import symbols as S  # heavy: SymPy

    model = get_model(choice("kind", kind, names()))
    if not model.derived:                    # no derived system: the model's own statement (its latex hook), or refused
        return model.statement(**_given(dict(
            f=f, digits=digits, rank=rank, center=center, params=params, numeric=numeric, document=document, form=form,
            body=body, label_prefix=label_prefix, solver_data=solver_data, part=part, theorem_env=theorem_env)))
    given_digits = digits is not None
    digits = 6 if digits is None else \
        within("digits", integer("digits", digits, 1), 1, MAX_DIGITS, f"(a float64 holds {MAX_DIGITS})")
    rank = within("rank", integer("rank", rank, 1), 1, MAX_RANK, "(the printed system grows like r^2)")
    center, numeric, document, body, solver_data = (boolean(name, value) for name, value in (
        ("center", center), ("numeric", numeric), ("document", document), ("body", body), ("solver_data", solver_data)))
    if rank != 1 and not model.takes_rank:
        raise SymrmtInputError(f"rank = {rank}: the {model.name} model takes no rank of weights; leave rank out.")
    printed = "quadrature" if check_form(form) == "quadrature" else "algebraic"
    if label_prefix is not None:
        check_label_prefix(label_prefix)
    if body and document:
        raise SymrmtInputError("body and document: choose one (the document is the body in a preamble)")
    if (part is not None or theorem_env is not None) and not (body or document):
        raise SymrmtInputError("part and theorem_env shape a body or a document, which fragments are not: give body "
                               "or document, or leave them out.")
    parts = check_parts(part) if part is not None else PARTS
    if theorem_env is not None:
        check_environment(theorem_env)
    _refuse_without_effect(model.name, f, S.a1 in model.system(rank).parameters,
                           {"center": center, "params": bool(params), "numeric": numeric, "digits": given_digits},
                           label_prefix is not None and not (body or document))
    substitution, given, symbols = None, [], ()
    if f is not None:                                  # the model depends on f (else refused above)
        h = f if isinstance(f, HermiteCoefficients) else hermite(f, center=center)
        if params:
            h = h.at(**named_values(params, [s.name for s in h.parameters], h.f))
        _require_centered(h, params)
        substitution, given = hermite_given(h, numeric)
        symbols = tuple(h.parameters or ())
        if given_digits and not _has_numbers(given, substitution):
            raise SymrmtInputError(f"digits = {digits}: f's data are exact, so no number is printed to round; give "
                                   "numeric as well, or leave digits out.")
    # An f with a_1 = 0 has its own algebraic form (the general one divides by a_1).
    zero = printed == "algebraic" and substitution is not None and substitution.get(S.a1) == 0
    system = model.system(rank, printed, without_linear_part=zero)
    options = dict(given=given, parameters=symbols, solver_data=solver_data, numeric=numeric)
    if document or body:
        write = system_document if document else system_body
        return write(system, substitution, digits, label_prefix=label_prefix, parts=parts, theorem_env=theorem_env,
                     **options)
    return system_latex(system, substitution, digits, **options)


def _given(options: dict) -> dict:
    """The options of :func:`latex` given other than their defaults (what a model's own statement is asked for)."""
    defaults = {name: p.default for name, p in inspect.signature(latex).parameters.items()}
    return {name: value for name, value in options.items()
            if not (value is defaults[name] or (type(value) is type(defaults[name]) and value == defaults[name]))}


def _require_centered(h, params) -> None:
    """Refuse an f that ``theory`` refuses as not centred, with its message.

    An f with parameters and no closed-form :math:`a_0` is checked where ``theory`` would be asked for it: at
    every parameter equal to 1 (an :math:`a_0` that is not identically 0 is seldom 0 there).
    """
    h.require_centered()
    if h.parameters and not params and h.exact.get("a0") is None and not h.center:
        try:
            point = h.at(**{s.name: 1.0 for s in h.parameters})
        except (ValueError, ArithmeticError):           # f undefined at 1: nothing to check there
            return
        point.require_centered()



def _refuse_without_effect(model: str, f, uses_f: bool, f_options: Mapping[str, bool], lone_prefix: bool) -> None:
    """Refuse the arguments that would change nothing: f (and its options) for a model that does not depend
    on f, f's options without f, and a label prefix without the labelled ``body`` or ``document``."""
    given = [name for name, on in f_options.items() if on]
    if f is not None and not uses_f:
        raise SymrmtInputError(f"the {model} model does not depend on f: leave out f"
                               + (f" and {', '.join(given)}" if given else "") + ".")
    if f is None and given:
        raise SymrmtInputError(f"{', '.join(given)} without f changes nothing: give f, or leave "
                               f"{'them' if len(given) > 1 else 'it'} out.")
    if lone_prefix:
        raise SymrmtInputError("label_prefix names the \\label's of body and document, which fragments do not have: "
                               "give body or document, or leave it out.")


def _has_numbers(given, substitution) -> bool:
    """Whether f's data put a floating-point number into the printed system (what ``digits`` rounds)."""
    import sympy as sp  # heavy: SymPy

    values = [row[-1] for row in given] + list((substitution or {}).values())
    return any(isinstance(v, sp.Basic) and v.has(sp.Float) for v in values)
