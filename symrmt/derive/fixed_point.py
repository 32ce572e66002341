r"""The contract between the derivation and the numeric layers: :class:`FixedPointSystem`.

A deterministic equivalent in symrmt is a *fixed-point system*: unknowns
:math:`t` defined as the zeros of residuals :math:`F(t, \tau, \theta)`, where the
:math:`\tau` are spectral averages

.. math::

    \tau_k = \mathbb E_\lambda\bigl[g_k(\lambda; t, \theta)\bigr]

over a named spectral law, and observables (rational functions of the averages,
possibly of the low-rank "Woodbury" form, and derivatives of those along the
continuation variable). Everything is a SymPy object. :mod:`symrmt.codegen`
compiles exactly these objects and :mod:`symrmt.solve` solves any such system:
what :mod:`symrmt.derive.latex` prints is what is solved.

The system also carries, as data, what a solver needs to know about its model:
where continuation starts (a value of the continuation variable at which Newton
from the initial guess lands on the physical solution), the conditions that
identify the physical branch, and the admissible range of each observable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Union

import sympy as sp

__all__ = ["FrozenDict", "SpectralLaw", "SpectralAverage", "WoodburyForm", "Continuation", "Admissible",
           "FixedPointSystem", "derivative_of"]


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
    :math:`1/c` (an atom :math:`1 - c` at 0 when :math:`c < 1`).
    """

    name: str
    parameters: Mapping[str, sp.Expr]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", FrozenDict(self.parameters))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted((k, sp.srepr(v)) for k, v in self.parameters.items()))))


@dataclass(frozen=True)
class SpectralAverage:
    r""":math:`\mathbb E_{\lambda \sim \text{law}}[\text{integrand}]`; ``variable`` is :math:`\lambda`."""

    integrand: sp.Expr
    law: SpectralLaw
    variable: sp.Symbol


@dataclass(frozen=True)
class WoodburyForm:
    r"""The low-rank (Woodbury) form :math:`\text{offset} - g^\top \mathsf C\,(I + \mathsf G \mathsf C)^{-1} g`.

    ``offset`` is a scalar expression, ``source`` :math:`g` a column, ``core``
    :math:`\mathsf C` and ``gram`` :math:`\mathsf G` square matrices, all in the
    averages, unknowns and parameters. With no vectors it is just ``offset``.
    ``labels`` name the vectors behind the rows (e.g. ``"y^(1)"``: the vector y placed in
    pencil block 1), for printing and for reading the matrices.
    """

    offset: sp.Expr
    source: sp.Matrix
    core: sp.Matrix
    gram: sp.Matrix
    labels: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return self.source.shape[0]

    def expression(self) -> sp.Expr:
        """The form as one SymPy expression (a symbolic inverse: only for small sizes)."""
        if not self.size:
            return self.offset
        inner = (sp.eye(self.size) + self.gram * self.core).inv(method="LU")
        return self.offset - (self.source.T * self.core * inner * self.source)[0, 0]

    def xreplace(self, mapping) -> "WoodburyForm":
        return WoodburyForm(self.offset.xreplace(mapping), self.source.xreplace(mapping),
                            self.core.xreplace(mapping), self.gram.xreplace(mapping), self.labels)


Observable = Union[sp.Expr, WoodburyForm]


def derivative_of(observable: sp.Symbol, variable: sp.Symbol) -> sp.Derivative:
    r""":math:`\mathrm d X/\mathrm d v` of an observable ``X`` along the continuation variable ``v``.

    Written as the SymPy derivative of the function ``X(v)``, so that it prints as
    such; :mod:`symrmt.codegen` computes it by implicit differentiation of the
    fixed point.
    """
    return sp.Derivative(sp.Function(observable.name)(variable), variable)


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
    """

    variable: sp.Symbol
    start: sp.Expr
    initial: Mapping[sp.Symbol, sp.Expr]
    predictor: str = "reciprocal"

    def __post_init__(self) -> None:
        object.__setattr__(self, "initial", FrozenDict(self.initial))


@dataclass(frozen=True)
class Admissible:
    r"""Admissible values of an observable: :math:`[\text{lower}, \text{upper}]` (expressions in the parameters).

    ``accuracy`` says how the quadrature error of the observable is measured:
    ``"absolute"`` or ``"relative"`` to its value.
    """

    lower: sp.Expr = -sp.oo
    upper: sp.Expr = sp.oo
    accuracy: str = "absolute"


@dataclass(frozen=True, eq=False)   # compared and hashed by identity: compiled once per object
class FixedPointSystem:
    r"""A derived deterministic equivalent, as SymPy objects (see the module docstring).

    Attributes
    ----------
    name : str
        What the system describes (e.g. ``"attention"``).
    parameters : dict
        Parameter symbol -> its domain (a SymPy set), in the order the numeric layer takes them.
    unknowns : tuple of sympy.Symbol
        The fixed-point unknowns :math:`t`.
    residuals : dict
        Unknown -> the expression whose zero defines it, in unknowns, averages and parameters.
    averages : dict
        Average symbol :math:`\tau` -> :class:`SpectralAverage`.
    observables : dict
        Observable symbol -> expression or :class:`WoodburyForm`, in averages, unknowns,
        parameters, earlier observables and their :func:`derivative_of` along the
        continuation variable.
    continuation : Continuation
        The large-variable start and initial guess.
    branch : tuple of sympy relationals
        Conditions on the unknowns (and parameters) that hold on the physical branch.
    admissible : dict
        Observable symbol -> :class:`Admissible` range; the solver refuses values outside it.
    complex_unknowns : bool
        Whether the unknowns are complex (a spectral argument off the real axis).
    definitions : dict
        Auxiliary symbols used by the other expressions, each defined in terms of the
        earlier ones: a scalar expression, a matrix (for a ``sympy.MatrixSymbol``), or
        ``sympy.Inverse`` of an earlier matrix symbol. They are printed as definitions and
        substituted, in order, before code is generated.
    display : dict
        Symbol -> the LaTeX name it is printed with (e.g. ``E`` as :math:`E_\mathrm{attn}`).
    glossary : dict
        Symbol -> its meaning in words and LaTeX, printed with the system.
    """

    name: str
    parameters: Mapping[sp.Symbol, sp.Set]
    unknowns: tuple[sp.Symbol, ...]
    residuals: Mapping[sp.Symbol, sp.Expr]
    averages: Mapping[sp.Symbol, SpectralAverage]
    observables: Mapping[sp.Symbol, Observable]
    continuation: Continuation
    branch: tuple[sp.Basic, ...] = ()
    admissible: Mapping[sp.Symbol, Admissible] = field(default_factory=dict)
    complex_unknowns: bool = False
    glossary: Mapping[sp.Symbol, str] = field(default_factory=dict)
    definitions: Mapping[sp.Basic, sp.Basic] = field(default_factory=dict)
    display: Mapping[sp.Symbol, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("parameters", "residuals", "averages", "observables", "admissible", "glossary", "definitions",
                     "display"):
            object.__setattr__(self, name, FrozenDict(getattr(self, name)))
        object.__setattr__(self, "unknowns", tuple(self.unknowns))
        object.__setattr__(self, "branch", tuple(self.branch))
        if set(self.residuals) != set(self.unknowns):
            raise ValueError(f"{self.name}: residuals must be given for exactly the unknowns {self.unknowns}")

    def subs(self, mapping: Mapping) -> "FixedPointSystem":
        """The same system with symbols replaced in every expression (a special case, or f's Hermite data).

        Replaced parameters leave :attr:`parameters`.
        """
        mapping = {sp.sympify(k): sp.sympify(v) for k, v in mapping.items()}
        def sub(e):            # expressions, matrices and WoodburyForm alike
            return sp.sympify(e).xreplace(mapping) if isinstance(e, (int, float)) else e.xreplace(mapping)
        return FixedPointSystem(
            name=self.name,
            parameters={p: dom for p, dom in self.parameters.items() if p not in mapping},
            unknowns=self.unknowns,
            residuals={t: sub(r) for t, r in self.residuals.items()},
            averages={a: SpectralAverage(sub(v.integrand), SpectralLaw(v.law.name, {k: sub(e) for k, e in
                                                                                v.law.parameters.items()}),
                                         v.variable) for a, v in self.averages.items()},
            observables={o: sub(v) for o, v in self.observables.items()},
            continuation=Continuation(self.continuation.variable, sub(self.continuation.start),
                                      {t: sub(v) for t, v in self.continuation.initial.items()},
                                      self.continuation.predictor),
            branch=tuple(sub(b) for b in self.branch),
            admissible={o: Admissible(sub(a.lower), sub(a.upper), a.accuracy) for o, a in self.admissible.items()},
            complex_unknowns=self.complex_unknowns,
            glossary=self.glossary,
            definitions={k: sub(v) for k, v in self.definitions.items()},
            display=self.display,
        )

    def _repr_latex_(self) -> str:
        """Jupyter: the system as display math, one ``aligned`` block each."""
        from .latex import system_latex

        return "\n".join(f"$${block}$$" for block in system_latex(self).split("\n\n"))

    def __repr__(self) -> str:
        return (f"FixedPointSystem({self.name!r}: {len(self.unknowns)} unknowns, {len(self.averages)} averages, "
                f"observables {[o.name for o in self.observables]}, parameters {[p.name for p in self.parameters]})")
