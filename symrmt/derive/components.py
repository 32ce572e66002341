r"""The parts a :class:`~.fixed_point.FixedPointSystem` is built from (SymPy objects, no NumPy).

* :class:`SpectralLaw` and :class:`SpectralAverage` -- :math:`\tau = \mathbb E_\lambda[g(\lambda)]`;
* :class:`WoodburyForm` -- an observable of the low-rank form
  :math:`\text{offset} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g`;
* :func:`derivative_of` -- an observable's derivative along the continuation variable;
* :class:`Continuation` and :class:`Admissible` -- what the solver needs to know about the model:
  where continuation starts and which values of an observable are physical.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Union

import sympy as sp

__all__ = ["FrozenDict", "SpectralLaw", "SpectralAverage", "WoodburyForm", "Observable", "Continuation",
           "Admissible", "PREDICTORS", "ACCURACIES", "derivative_of"]

#: How the solver extrapolates the unknowns along the continuation variable v: in 1/v or in v.
PREDICTORS = ("reciprocal", "linear")
#: How the quadrature error of an observable is measured.
ACCURACIES = ("absolute", "relative")


class FrozenDict(dict):
    """A dict that cannot be changed after construction (hashable by identity, picklable)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a FixedPointSystem is immutable: build a new one with dataclasses.replace")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __hash__ = object.__hash__

    def __reduce__(self):
        return FrozenDict, (dict(self),)

    def __or__(self, other):
        return FrozenDict({**self, **other})


@dataclass(frozen=True)
class SpectralLaw:
    r"""A named law of :math:`\lambda` with SymPy parameters.

    ``"marchenko_pastur"`` with parameter ``c``: the limiting spectral law of
    :math:`A = Z^\top Z/p` for :math:`Z \in \mathbb R^{p\times n}` with i.i.d.
    standard entries and :math:`p/n \to c`, i.e. Marchenko--Pastur with ratio
    :math:`1/c` (an atom :math:`1 - c` at 0 when :math:`c < 1`). The parameter names are
    the keywords of the law's quadrature rule (:data:`symrmt.solve.RULES`).

    Examples
    --------
    >>> from symrmt.derive import attention_system
    >>> average = attention_system(1).averages[next(iter(attention_system(1).averages))]
    >>> average.law.name, {k: str(v) for k, v in average.law.parameters.items()}
    ('marchenko_pastur', {'c': 'c'})
    """

    name: str
    parameters: Mapping[str, sp.Expr]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", FrozenDict(self.parameters))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted((k, sp.srepr(v)) for k, v in self.parameters.items()))))

    def xreplace(self, mapping) -> "SpectralLaw":
        return SpectralLaw(self.name, {k: v.xreplace(mapping) for k, v in self.parameters.items()})


@dataclass(frozen=True)
class SpectralAverage:
    r""":math:`\mathbb E_{\lambda \sim \text{law}}[\text{integrand}]`; ``variable`` is :math:`\lambda`.

    Examples
    --------
    >>> from symrmt.derive import attention_system
    >>> averages = attention_system(1).averages
    >>> key = next(iter(averages))
    >>> str(key), str(averages[key].variable), str(averages[key].integrand)
    ('tau_11', 'lambda', 'R[0, 0]')
    """

    integrand: sp.Expr
    law: SpectralLaw
    variable: sp.Symbol

    def xreplace(self, mapping) -> "SpectralAverage":
        return SpectralAverage(self.integrand.xreplace(mapping), self.law.xreplace(mapping), self.variable)


@dataclass(frozen=True)
class WoodburyForm:
    r"""The low-rank (Woodbury) form :math:`\text{offset} - g^\top \mathsf C\,(I + \mathsf G \mathsf C)^{-1} g`.

    ``offset`` is a scalar expression, ``source`` :math:`g` a column, ``core``
    :math:`\mathsf C` and ``gram`` :math:`\mathsf G` square matrices, all in the
    averages, unknowns and parameters. With no vectors it is just ``offset``.
    ``labels`` name the vectors behind the rows (e.g. ``"y^(1)"``: the vector y placed in
    pencil block 1), for printing and for reading the matrices. ``meanings`` says what each
    named vector is, as ``(name, LaTeX relation)`` pairs read after the vector's printed name
    (``("s", r"= Z^\top \mu")``), and ``source_label`` which placed vector :math:`g` is taken
    against (:math:`g = \mathcal U^\top R\, e/n` with :math:`e` that vector): both only for printing.

    Examples
    --------
    >>> from symrmt.derive import WoodburyForm, linear_system
    >>> phi = {str(k): v for k, v in linear_system().observables.items()}["Phi"]
    >>> isinstance(phi, WoodburyForm), phi.labels
    (True, ('y^(3)', 's^(3)'))
    """

    offset: sp.Expr
    source: sp.Matrix
    core: sp.Matrix
    gram: sp.Matrix
    labels: tuple[str, ...] = ()
    meanings: tuple[tuple[str, str], ...] = ()
    source_label: str = ""

    @property
    def size(self) -> int:
        return self.source.shape[0]

    def expression(self) -> sp.Expr:
        """The form as one SymPy expression (a symbolic inverse: only for small sizes)."""
        if not self.size:
            return self.offset
        inner = (sp.eye(self.size) + self.gram * self.core).inv(method="LU")
        return self.offset - (self.source.T * self.core * inner * self.source)[0, 0]

    def entries(self) -> list[sp.Expr]:
        """``[offset, *core, *gram, *source]``: the order in which the solver receives the form."""
        return [self.offset, *self.core, *self.gram, *self.source]

    def xreplace(self, mapping) -> "WoodburyForm":
        return WoodburyForm(self.offset.xreplace(mapping), self.source.xreplace(mapping),
                            self.core.xreplace(mapping), self.gram.xreplace(mapping), self.labels,
                            self.meanings, self.source_label)


#: What an observable is: an expression or a Woodbury form.
Observable = Union[sp.Expr, WoodburyForm]


def derivative_of(observable: sp.Symbol, variable: sp.Symbol) -> sp.Derivative:
    r""":math:`\mathrm d X/\mathrm d v` of the observable ``X`` (its symbol) along the continuation variable ``v``.

    An unevaluated :class:`sympy.Derivative` whose ``expr`` is the observable's symbol itself,
    so that it prints as a derivative and :mod:`symrmt.codegen` finds the observable by that
    object; it is computed by implicit differentiation of the fixed point (never by
    ``doit()``, which would give 0 for a bare symbol).

    Parameters
    ----------
    observable : sympy.Symbol
        The symbol of an observable of the system (e.g. :math:`\Phi`), a key of ``FixedPointSystem.observables``.
    variable : sympy.Symbol
        The continuation variable (e.g. :math:`\gamma`).

    Returns
    -------
    sympy.Derivative
        ``Derivative(observable, variable)``, unevaluated.

    Raises
    ------
    TypeError
        ``observable`` or ``variable`` is not a :class:`sympy.Symbol`.

    See Also
    --------
    FixedPointSystem : Whose observables may be such derivatives (e.g. :math:`\mathrm d\Phi/\mathrm d\gamma`).
    symrmt.codegen.compile_system : Computes them by implicit differentiation of the fixed point.

    Examples
    --------
    >>> import sympy as sp
    >>> from symrmt.derive import derivative_of
    >>> derivative_of(sp.Symbol("Phi"), sp.Symbol("gamma"))
    Derivative(Phi, gamma)
    """
    if not isinstance(observable, sp.Symbol) or not isinstance(variable, sp.Symbol):
        raise TypeError(f"derivative_of({observable!r}, {variable!r}): need an observable's symbol and a symbol")
    return sp.Derivative(observable, variable, evaluate=False)


@dataclass(frozen=True)
class Continuation:
    r"""How to reach the physical solution: continue in ``variable`` from ``start`` down to the target.

    At ``variable = start`` (an expression in the parameters), Newton from the
    ``initial`` values of the unknowns converges to the physical solution; the
    solver then follows that solution as ``variable`` decreases geometrically to its
    target (a target of 0 is approached to a small fraction of the start, and a last
    Newton solve is made at the target).

    ``predictor`` is the variable in which the unknowns are extrapolated from one step to
    the next: ``"reciprocal"`` (in :math:`1/v`: unknowns that behave like :math:`1/v`, e.g. a
    resolvent far from its spectrum) or ``"linear"`` (in :math:`v`: unknowns with a finite
    limit as :math:`v \to 0`, e.g. a Stieltjes transform approaching the real axis).

    Examples
    --------
    >>> from symrmt.derive import attention_system
    >>> continuation = attention_system(1).continuation
    >>> str(continuation.variable), continuation.predictor, sorted(map(str, continuation.initial))
    ('gamma', 'reciprocal', ['t_11', 't_12', 't_22'])
    """

    variable: sp.Symbol
    start: sp.Expr
    initial: Mapping[sp.Symbol, sp.Expr]
    predictor: str = "reciprocal"

    def __post_init__(self) -> None:
        object.__setattr__(self, "initial", FrozenDict(self.initial))
        if self.predictor not in PREDICTORS:
            raise ValueError(f"predictor = {self.predictor!r}: use one of {PREDICTORS}")

    def xreplace(self, mapping) -> "Continuation":
        return Continuation(self.variable, sp.sympify(self.start).xreplace(mapping),
                            {t: sp.sympify(v).xreplace(mapping) for t, v in self.initial.items()}, self.predictor)


@dataclass(frozen=True)
class Admissible:
    r"""Admissible values of an observable: :math:`[\text{lower}, \text{upper}]` (expressions in the parameters).

    ``accuracy`` says how the quadrature error of the observable is measured:
    ``"absolute"`` or ``"relative"`` to its value.

    Examples
    --------
    >>> from symrmt.derive import attention_system
    >>> error = {str(k): v for k, v in attention_system(1).admissible.items()}["E"]
    >>> error.lower, error.upper, error.accuracy                 # an error lies in [0, 1]
    (0, 1, 'absolute')
    """

    lower: sp.Expr = -sp.oo
    upper: sp.Expr = sp.oo
    accuracy: str = "absolute"

    def __post_init__(self) -> None:
        object.__setattr__(self, "lower", sp.sympify(self.lower))
        object.__setattr__(self, "upper", sp.sympify(self.upper))
        if self.accuracy not in ACCURACIES:
            raise ValueError(f"accuracy = {self.accuracy!r}: use one of {ACCURACIES}")

    def xreplace(self, mapping) -> "Admissible":
        return Admissible(self.lower.xreplace(mapping), self.upper.xreplace(mapping), self.accuracy)
