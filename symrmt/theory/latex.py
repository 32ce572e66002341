r"""The derived systems as LaTeX, with a nonlinearity's Hermite data put in (the front of :mod:`symrmt.derive.latex`)."""
from __future__ import annotations

from typing import Mapping

from ..models import ATTENTION, names
from ..models import get as get_model
from ..validate import choice, integer, within
from .forms import check_form

__all__ = ["MAX_RANK", "MAX_DIGITS", "latex"]


#: The largest rank :func:`latex` prints: the system grows like r^2 (rank 64: about 1 MB of LaTeX, 3 s to
#: build); beyond it the text is too long to read and to build.
MAX_RANK = 64
#: The most significant digits :func:`latex` prints: a float64 holds 17.
MAX_DIGITS = 17


def latex(f=None, kind: str = ATTENTION.name, digits: int = 6, rank: int = 1, center: bool = False,
          params: Mapping[str, float] | None = None, numeric: bool = False, document: bool = False,
          form: str = "quadrature") -> str:
    r"""The derived system of ``kind`` as LaTeX, with f's Hermite data when given.

    Without ``document``: ``aligned`` blocks separated by blank lines (KaTeX strict mode and
    MathJax render them). With ``document``: a complete LaTeX document, every equation numbered
    and labelled (``attention:t11``, ...), that ``pdflatex`` compiles.

    Parameters
    ----------
    f : str, SymPy expression, HermiteCoefficients or None
        The nonlinearity: :math:`a_1` is put in (exactly when a closed form exists), and
        :math:`b^2 = \nu - a_1^2` stays one symbol, defined with f, :math:`a_1` and :math:`\nu` in
        the "where" block. Linear regression does not depend on f (a given f is ignored).
    kind : str
        A registered model (:func:`symrmt.models.names`: attention, linear, gram_density, kernel_density,
        kernel_ridge, and any a user registers).
    digits : int
        Significant digits of the numbers that f's data put in, 1..:data:`MAX_DIGITS`.
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
        Evaluate the closed forms of f's data to ``digits`` significant digits.
    document : bool
        Return a complete, compilable LaTeX document instead of fragments.
    form : {"quadrature", "algebraic", "auto"}
        The form printed: with its spectral averages :math:`\mathbb E_\lambda[\cdot]` (the default), or in
        closed form (``"algebraic"``, also ``"auto"``: the form ``form="auto"`` solves); for an f with
        :math:`a_1 = 0`, the algebraic form derived with :math:`a_1 = 0`.

    Examples
    --------
    >>> text = latex("erf(x)")
    >>> r"\operatorname{asin}" in text and r"\begin{aligned}" in text
    True
    >>> r"\documentclass" in latex("erf(x)", document=True)
    True
    """
    from ..derive.latex import system_document, system_latex
    from ..derive.registry import printed_hermite
    from ..nonlinearity import HermiteCoefficients, hermite
    from ..nonlinearity.parametric import named_values

    from ..derive import symbols as S

    model = get_model(choice("kind", kind, names()))
    digits = within("digits", integer("digits", digits, 1), 1, MAX_DIGITS, f"(a float64 holds {MAX_DIGITS})")
    rank = within("rank", integer("rank", rank, 1), 1, MAX_RANK, "(the printed system grows like r^2)")
    printed = "quadrature" if check_form(form) == "quadrature" else "algebraic"
    substitution, given, symbols = None, [], ()
    if f is not None and S.a1 in model.system(rank).parameters:     # the model depends on f
        h = f if isinstance(f, HermiteCoefficients) else hermite(f, center=center)
        if params:
            h = h.at(**named_values(params, [s.name for s in h.parameters], h.f))
        h.require_centered()
        substitution, given = printed_hermite(h, digits if numeric else None)
        symbols = tuple(h.parameters or ())
    # An f with a_1 = 0 has its own algebraic form (the general one divides by a_1).
    zero = printed == "algebraic" and substitution is not None and substitution.get(S.a1) == 0
    system = model.system(rank, printed, without_linear_part=zero)
    if document:
        return system_document(system, substitution, digits, given=given, parameters=symbols)
    return system_latex(system, substitution, digits, given=given, parameters=symbols)

