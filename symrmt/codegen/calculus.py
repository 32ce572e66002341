r"""Every function the solver evaluates of a :class:`~symrmt.derive.FixedPointSystem`, as SymPy expressions.

:func:`system_calculus` takes exactly the objects of a system -- its residuals, the
integrands of its spectral averages, its observables, its continuation start, branch
conditions and admissible ranges -- and writes each function the solver needs as a
:class:`SymbolicFunction` (expressions and the ordered arguments they are functions of),
with the derivatives taken here symbolically:

* the Jacobian of the residuals through the averages,
  :math:`J = \partial F/\partial t + \partial F/\partial\tau\;\mathbb E[\partial g/\partial t]`,
  and their derivative along the continuation variable :math:`v`;
* total derivatives along :math:`v` of the integrands and of the observables written with
  :func:`~symrmt.derive.derivative_of`, given :math:`\dot t = \mathrm dt/\mathrm dv` (chain rule through
  the definitions, :class:`~.definitions.Definitions`).

The symbols this module introduces (the rates :math:`\dot t`, :math:`\dot\tau` and the values and
rates of earlier observables) are :class:`sympy.Dummy`, so no name of the system can collide
with them. Nothing here knows which model a system describes, nor which back end evaluates
it (:mod:`.numpy_backend` does, for NumPy).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import sympy as sp

from ..derive.components import WoodburyForm, derivative_of
from ..derive.fixed_point import FixedPointSystem
from .definitions import Definitions

__all__ = ["SymbolicFunction", "ObservableCalculus", "SystemCalculus", "system_calculus", "RELATIONS", "parameter_domains"]

#: The branch conditions the solver evaluates, as the comparison it makes.
RELATIONS = {sp.StrictGreaterThan: ">", sp.GreaterThan: ">=", sp.StrictLessThan: "<", sp.LessThan: "<="}


@dataclass(frozen=True)
class SymbolicFunction:
    """``outputs`` as a function of ``arguments``: a list of outputs, or one output if ``single``."""

    name: str
    outputs: tuple[sp.Basic, ...]
    arguments: tuple[sp.Symbol, ...]
    single: bool = False


@dataclass(frozen=True)
class ObservableCalculus:
    r"""One observable's value and (if the system needs them) its rate along the continuation variable.

    ``kind`` is ``"woodbury"`` (outputs: the form's entries, see
    :meth:`~symrmt.derive.WoodburyForm.entries`; ``size`` vectors) or ``"expression"`` (one output).
    Values are functions of ``(taus, t, earlier, params)``, rates of
    ``(taus, dtaus, t, dt, earlier, params)``, where ``earlier`` are the value and rate of
    each earlier observable. ``real``: whether the values are real.
    """

    symbol: sp.Symbol
    kind: str
    size: int
    real: bool
    value: SymbolicFunction
    rate: SymbolicFunction | None


@dataclass(frozen=True)
class SystemCalculus:
    """Every function of a system the solver evaluates, with the data that say how (see the module docstring)."""

    name: str
    parameters: tuple[sp.Symbol, ...]
    domains: Mapping[sp.Symbol, tuple[float, float, bool, bool]]
    unknowns: tuple[sp.Symbol, ...]
    complex: bool
    variable: sp.Symbol
    predictor: str
    law: str | None
    law_parameters: SymbolicFunction | None
    law_keywords: tuple[str, ...]
    averages_count: int
    fixed_point_averages_count: int
    fixed_point: SymbolicFunction | None
    residual: SymbolicFunction | None
    averages: SymbolicFunction | None
    observables: tuple[ObservableCalculus, ...]
    start: SymbolicFunction
    initial: SymbolicFunction | None
    branch: tuple[str, ...]
    branch_sides: SymbolicFunction | None
    admissible: Mapping[sp.Symbol, tuple[SymbolicFunction, str]]


def parameter_domains(system: FixedPointSystem) -> dict[sp.Symbol, tuple[float, float, bool, bool]]:
    """Each parameter's domain as ``(lower, upper, lower_open, upper_open)``: what the solver checks it against.

    Parameters
    ----------
    system : FixedPointSystem
        A derived system (:mod:`symrmt.derive`); each domain in ``system.parameters`` is an interval of the reals
        (``sympy.Interval`` or ``sympy.S.Reals``).

    Returns
    -------
    dict
        Parameter symbol -> ``(lower, upper, lower_open, upper_open)``: floats, infinite for an unbounded side
        (e.g. the ridge: ``(0.0, 1e12, True, False)``, that is 0 < gamma <= 10^12; the reals:
        ``(-inf, inf, True, True)``).

    Raises
    ------
    ValueError
        A domain that is not an interval of the reals (e.g. a union of intervals): the solver checks intervals only.

    See Also
    --------
    symrmt.solve.parameters.check_parameters : What checks each value against these domains.
    compile_system : Every function of a system, the domains among them.

    Examples
    --------
    >>> from symrmt.codegen import parameter_domains
    >>> from symrmt.derive import linear_system
    >>> {str(k): v for k, v in parameter_domains(linear_system()).items()}["gamma"]     # 0 < gamma <= MAX_GAMMA
    (0.0, 1000000000000.0, True, False)
    """
    return {s: _interval(domain) for s, domain in system.parameters.items()}


def _interval(domain: sp.Set) -> tuple[float, float, bool, bool]:
    """``(lower, upper, lower_open, upper_open)`` of a parameter domain (an interval of the reals)."""
    if domain == sp.S.Reals:
        return -float("inf"), float("inf"), True, True
    if isinstance(domain, sp.Interval):
        return float(domain.inf), float(domain.sup), bool(domain.left_open), bool(domain.right_open)
    raise ValueError(f"cannot compile the parameter domain {domain}: use an interval of the reals")


class _Builder:
    """The state shared while one system's functions are written: its definitions and its symbols."""

    def __init__(self, system: FixedPointSystem) -> None:
        self.system = system
        self.definitions = Definitions(system.definitions)
        self.parameters = tuple(system.parameters)
        self.unknowns = tuple(system.unknowns)
        self.variable = system.continuation.variable
        self.taus = tuple(system.averages)
        self.rates = tuple(sp.Dummy(f"d{u.name}") for u in self.unknowns)
        self.tau_rates = tuple(sp.Dummy(f"d{a.name}") for a in self.taus)
        self.lam = next(iter(system.averages.values())).variable if system.averages else sp.Dummy("lambda")
        self.needs_derivatives = any(isinstance(e, sp.Basic) and e.has(sp.Derivative)
                                     for e in system.observables.values())

    def explicit(self, expr) -> sp.Basic:
        """``expr`` with every defined symbol replaced by its definition."""
        return self.definitions.expand(self.definitions.local(expr))

    def function(self, what: str, outputs, arguments, single: bool = False) -> SymbolicFunction:
        return SymbolicFunction(f"{self.system.name} {what}", tuple(outputs), tuple(arguments), single)

    def law(self) -> tuple[str | None, SymbolicFunction | None, tuple[str, ...]]:
        laws = {(a.law, a.variable) for a in self.system.averages.values()}
        if len(laws) > 1:
            raise ValueError(f"{self.system.name}: the averages use several spectral laws; the solver takes one")
        if not laws:
            return None, None, ()
        law = next(iter(laws))[0]
        keywords = tuple(law.parameters)
        function = self.function("spectral law", [law.parameters[k] for k in keywords], self.parameters) \
            if keywords else None
        return law.name, function, keywords

    def fixed_point(self) -> tuple[tuple[sp.Symbol, ...], SymbolicFunction | None, SymbolicFunction | None]:
        r"""The residuals' averages, their integrands :math:`g` with :math:`\partial_t g, \partial_v g`, and
        the residuals :math:`F` with :math:`\partial_t F, \partial_\tau F, \partial_v F`."""
        t, v, local, D = self.unknowns, self.variable, self.definitions.local, self.definitions.diff
        expand = self.definitions.expand
        residuals = [local(self.system.residuals[u]) for u in t]
        used = set().union(*(expand(r).free_symbols for r in residuals)) if residuals else set()
        taus = tuple(a for a in self.taus if a in used)
        g = [local(self.system.averages[a].integrand) for a in taus]
        partial_g = [D(gk, u) for gk in g for u in t] + [D(gk, v) for gk in g]
        integrands = [expand(e) for e in g + partial_g]
        # Residuals may be written in defined symbols too (an algebraic form): the chain rule keeps them compact.
        partials = [expand(e) for e in residuals + [D(F, u) for F in residuals for u in t]
                    + [D(F, a) for F in residuals for a in taus] + [D(F, v) for F in residuals]]
        return (taus,
                self.function("residual integrands", integrands, (self.lam, *t, *self.parameters)) if g else None,
                self.function("residuals", partials, (*t, *taus, *self.parameters)) if residuals else None)

    def averages(self) -> SymbolicFunction | None:
        """Every integrand, then (if the observables need them) their total derivatives along the variable."""
        g = [self.definitions.local(self.system.averages[a].integrand) for a in self.taus]
        if not g:
            return None
        direction = ((self.variable, sp.Integer(1)), *zip(self.unknowns, self.rates))
        total = [self.definitions.directional(gk, direction) for gk in g] if self.needs_derivatives else []
        return self.function("averages", [self.definitions.expand(e) for e in g + total],
                             (self.lam, *self.unknowns, *self.rates, *self.parameters))

    def observables(self) -> tuple[ObservableCalculus, ...]:
        values = {o: sp.Dummy(f"value_{o.name}") for o in self.system.observables}
        rates = {o: sp.Dummy(f"rate_{o.name}") for o in self.system.observables}
        derivatives = {derivative_of(o, self.variable): rates[o] for o in self.system.observables}
        out, earlier = [], []
        for o, expr in self.system.observables.items():
            out.append(self.observable(o, expr, earlier, values, derivatives))
            earlier.append((values[o], rates[o]))
        return tuple(out)

    def observable(self, symbol, expr, earlier, values, derivatives) -> ObservableCalculus:
        flat = [s for pair in earlier for s in pair]
        args = (*self.taus, *self.unknowns, *flat, *self.parameters)
        dargs = (*self.taus, *self.tau_rates, *self.unknowns, *self.rates, *flat, *self.parameters)
        # The total derivative along the variable: through the averages, the unknowns and earlier observables.
        direction = ((self.variable, sp.Integer(1)), *zip(self.taus, self.tau_rates), *zip(self.unknowns, self.rates),
                     *earlier)
        local, expand = self.definitions.local, self.definitions.expand
        chain = lambda e: expand(self.definitions.directional(local(e), direction))
        real = not self.system.complex_unknowns or (isinstance(expr, sp.Basic) and sp.im(expr) == 0)
        if isinstance(expr, WoodburyForm):
            entries = expr.entries()
            value = self.function(f"observable {symbol}", [self.explicit(e) for e in entries], args)
            rate = self.function(f"rate of {symbol}", [chain(e) for e in entries], dargs) \
                if self.needs_derivatives else None
            return ObservableCalculus(symbol, "woodbury", expr.size, real, value, rate)
        expr = sp.sympify(expr).xreplace(derivatives).xreplace(values)
        if expr.has(sp.Derivative):
            raise ValueError(f"{self.system.name}: observable {symbol} = {expr} has a derivative that is not "
                             f"derivative_of(an earlier observable, {self.variable})")
        value = self.function(f"observable {symbol}", [self.explicit(expr)], args, single=True)
        has_rates = any(r in expr.free_symbols for _, r in earlier)
        rate = None if has_rates or not self.needs_derivatives else \
            self.function(f"rate of {symbol}", [chain(expr)], dargs, single=True)
        return ObservableCalculus(symbol, "expression", 0, real, value, rate)

    def initial(self) -> list[sp.Basic]:
        """The initial guess of each unknown; one written in others (through definitions) takes their initial values."""
        values = {u: self.explicit(self.system.continuation.initial.get(u, 0)) for u in self.unknowns}
        unknowns = set(self.unknowns)
        known = {u: value for u, value in values.items() if not value.free_symbols & unknowns}
        return [value.xreplace(known) for value in values.values()]

    def branch(self) -> tuple[tuple[str, ...], SymbolicFunction | None]:
        relations, sides = [], []
        for condition in self.system.branch:
            relations.append(RELATIONS[type(condition)])
            sides += [self.explicit(condition.lhs), self.explicit(condition.rhs)]
        function = self.function("branch conditions", sides, (*self.unknowns, *self.parameters)) if sides else None
        return tuple(relations), function


def system_calculus(system: FixedPointSystem) -> SystemCalculus:
    """Every function of ``system`` the solver evaluates, written as SymPy expressions (see the module docstring)."""
    if not isinstance(system, FixedPointSystem):
        raise TypeError(f"need a FixedPointSystem (symrmt.derive), not {type(system).__name__}")
    build = _Builder(system)
    law, law_parameters, law_keywords = build.law()
    taus, fixed_point, residual = build.fixed_point()
    branch, branch_sides = build.branch()
    c, p = system.continuation, build.parameters
    return SystemCalculus(
        name=system.name,
        parameters=p,
        domains=parameter_domains(system),
        unknowns=build.unknowns,
        complex=bool(system.complex_unknowns),
        variable=build.variable,
        predictor=c.predictor,
        law=law,
        law_parameters=law_parameters,
        law_keywords=law_keywords,
        averages_count=len(build.taus),
        fixed_point_averages_count=len(taus),
        fixed_point=fixed_point,
        residual=residual,
        averages=build.averages(),
        observables=build.observables(),
        start=build.function("continuation start", [build.explicit(c.start)], p, single=True),
        initial=build.function("initial guess", build.initial(), p) if build.unknowns else None,
        branch=branch,
        branch_sides=branch_sides,
        admissible={o: (build.function(f"range of {o}", [build.explicit(a.lower), build.explicit(a.upper)], p),
                        a.accuracy) for o, a in system.admissible.items()},
    )
