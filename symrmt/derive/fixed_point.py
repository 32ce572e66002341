r"""The contract between the derivation and the numeric layers: :class:`FixedPointSystem`.

A deterministic equivalent in symrmt is a *fixed-point system*: unknowns
:math:`t` defined as the zeros of residuals :math:`F(t, \tau, \theta)`, where the
:math:`\tau` are spectral averages

.. math::

    \tau_k = \mathbb E_\lambda\bigl[g_k(\lambda; t, \theta)\bigr]

over a named spectral law, and observables (rational functions of the averages,
possibly of the low-rank "Woodbury" form, and derivatives of those along the
continuation variable). Everything is a SymPy object (the parts are in
:mod:`.components`). :mod:`symrmt.codegen` compiles exactly these objects and
:mod:`symrmt.solve` solves the compiled system: what :mod:`symrmt.derive.latex` prints
is what is solved.

The system also carries, as data, what a solver needs to know about its model:
where continuation starts (a value of the continuation variable at which Newton
from the initial guess lands on the physical solution), the conditions that
identify the physical branch, and the admissible range of each observable.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import sympy as sp

from .components import Admissible, Continuation, FrozenDict, Observable, SpectralAverage, WoodburyForm

__all__ = ["FixedPointSystem"]

_RELATIONS = (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)


@dataclass(frozen=True, eq=False)   # compared and hashed by identity: compiled once per object
class FixedPointSystem:
    r"""A derived deterministic equivalent, as SymPy objects (see the module docstring).

    Attributes
    ----------
    name : str
        What the system describes (e.g. ``"attention"``).
    parameters : dict
        Parameter symbol -> its domain (a SymPy interval of the reals); the numeric layer
        takes one array per parameter symbol.
    unknowns : tuple of sympy.Symbol
        The fixed-point unknowns :math:`t`.
    residuals : dict
        Unknown -> the expression whose zero defines it, in unknowns, averages and parameters.
    averages : dict
        Average symbol :math:`\tau` -> :class:`~.components.SpectralAverage`.
    observables : dict
        Observable symbol -> expression or :class:`~.components.WoodburyForm`, in averages,
        unknowns, parameters, earlier observables and their
        :func:`~.components.derivative_of` along the continuation variable.
    continuation : Continuation
        The large-variable start and initial guess.
    branch : tuple of sympy relationals
        Conditions (``<``, ``<=``, ``>``, ``>=``) on the unknowns and parameters that hold on
        the physical branch.
    admissible : dict
        Observable symbol -> :class:`~.components.Admissible` range; the solver refuses values
        outside it.
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
    statement : tuple
        The model the system is the deterministic equivalent of, as ``(LaTeX line, label)`` pairs
        (:mod:`.statement`): the opening of a printed paper body.

    Examples
    --------
    >>> from symrmt.derive import attention_system
    >>> system = attention_system(1)
    >>> system.name, [str(u) for u in system.unknowns], [str(k) for k in system.observables]
    ('attention', ['t_11', 't_12', 't_22'], ['Phi', 'E'])
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
    statement: tuple = ()

    def __post_init__(self) -> None:
        for name in ("parameters", "residuals", "averages", "observables", "admissible", "glossary", "definitions",
                     "display"):
            object.__setattr__(self, name, FrozenDict(getattr(self, name)))
        object.__setattr__(self, "unknowns", tuple(self.unknowns))
        object.__setattr__(self, "branch", tuple(self.branch))
        self._check()

    def _check(self) -> None:
        """Refuse a malformed system here, where it is built, rather than in the generated code."""
        if set(self.residuals) != set(self.unknowns):
            raise ValueError(f"{self.name}: residuals must be given for exactly the unknowns {self.unknowns}")
        if not isinstance(self.continuation, Continuation):
            raise TypeError(f"{self.name}: continuation must be a Continuation, not {type(self.continuation).__name__}")
        if self.continuation.variable not in self.parameters:
            raise ValueError(f"{self.name}: the continuation variable {self.continuation.variable} is not a parameter")
        for symbol, average in self.averages.items():
            if not isinstance(average, SpectralAverage):
                raise TypeError(f"{self.name}: average {symbol} must be a SpectralAverage")
        for symbol, value in self.observables.items():
            if not isinstance(value, (sp.Basic, WoodburyForm)):
                raise TypeError(f"{self.name}: observable {symbol} must be a SymPy expression or a WoodburyForm")
        for symbol, bounds in self.admissible.items():
            if symbol not in self.observables or not isinstance(bounds, Admissible):
                raise TypeError(f"{self.name}: admissible[{symbol}] must be an Admissible range of an observable")
        for condition in self.branch:
            if not isinstance(condition, _RELATIONS):
                raise TypeError(f"{self.name}: branch condition {condition} must be <, <=, > or >=")

    def subs(self, mapping: Mapping) -> "FixedPointSystem":
        """The same system with symbols replaced in every expression (a special case, or f's Hermite data).

        Replaced parameters leave :attr:`parameters`.
        """
        mapping = {sp.sympify(k): sp.sympify(v) for k, v in mapping.items()}
        return FixedPointSystem(
            name=self.name,
            parameters={p: dom for p, dom in self.parameters.items() if p not in mapping},
            unknowns=self.unknowns,
            residuals={t: sp.sympify(r).xreplace(mapping) for t, r in self.residuals.items()},
            averages={a: v.xreplace(mapping) for a, v in self.averages.items()},
            observables={o: v.xreplace(mapping) for o, v in self.observables.items()},
            continuation=self.continuation.xreplace(mapping),
            branch=tuple(b.xreplace(mapping) for b in self.branch),
            admissible={o: a.xreplace(mapping) for o, a in self.admissible.items()},
            complex_unknowns=self.complex_unknowns,
            glossary=self.glossary,
            definitions={k: v.xreplace(mapping) for k, v in self.definitions.items()},
            display=self.display,
            statement=self.statement,
        )

    def _repr_latex_(self) -> str:
        r"""Jupyter: the statement's equations, as the theorem part of ``symrmt.latex(..., body=True)`` prints them
        (:func:`~.paper.statement_display`)."""
        from .paper import statement_display  # heavy: SymPy

        return statement_display(self)

    def __repr__(self) -> str:
        return (f"FixedPointSystem({self.name!r}: {len(self.unknowns)} unknowns, {len(self.averages)} averages, "
                f"observables {[o.name for o in self.observables]}, parameters {[p.name for p in self.parameters]})")
