r"""The one place where SymPy expressions become NumPy functions.

Every numeric function symrmt evaluates from a derived expression (the
nonlinearity f in the simulator, and everything the solver evaluates of a
:class:`~symrmt.derive.FixedPointSystem`) is produced here by
:func:`sympy.lambdify`, with explicit modules and common-subexpression
elimination, once per expression (cached in memory by the expression's ``srepr``).

:func:`compile_system` compiles exactly the objects of a system -- its residuals,
the integrands of its spectral averages, its observables, its continuation start,
branch conditions and admissible ranges -- and the derivatives the solver needs,
taken here symbolically: the Jacobian of the residuals through the averages
(:math:`\partial F/\partial t + \partial F/\partial\tau\;\mathbb E[\partial g/\partial t]`),
and total derivatives along the continuation variable for observables written with
:func:`~symrmt.derive.derivative_of`. Nothing here knows which model a system describes.

Generated functions do not pickle: send expressions to worker processes and
call :func:`numpy_function` there.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
import sympy as sp
from sympy.printing.numpy import SciPyPrinter

__all__ = ["numpy_function", "compile_system", "CompiledSystem", "MODULES"]

#: scipy.special first so that erf, gamma, ... are vectorized ufuncs; then NumPy.
#: ``Heaviside`` at 0 is 1/2, SymPy's default.
MODULES = [{"Heaviside": lambda x, h0=0.5: np.heaviside(x, h0), "im": np.imag, "re": np.real},
           "scipy", "numpy"]


def numpy_function(
    expr: sp.Basic | Sequence[sp.Basic], args: Sequence[sp.Symbol], name: str = "f"
) -> Callable[..., np.ndarray]:
    """Turn ``expr`` (an expression or a sequence of them) into a NumPy function of ``args``.

    Raises
    ------
    ValueError
        If ``expr`` has a free symbol that is not in ``args`` (the generated code
        would otherwise fail later with a bare ``NameError``).
    """
    args = tuple(args)
    exprs = tuple(expr) if isinstance(expr, (list, tuple)) else (expr,)
    missing = set().union(*(sp.sympify(e).free_symbols for e in exprs)) - set(args)
    if missing:
        names = ", ".join(sorted(str(s) for s in missing))
        raise ValueError(f"cannot generate {name}: symbols {names} are not among its arguments {args}")
    key = (sp.srepr(sp.Tuple(*exprs)), sp.srepr(sp.Tuple(*args)), isinstance(expr, (list, tuple)))
    return _lambdify_cached(key, exprs if key[2] else exprs[0], args)


class _Printer(SciPyPrinter):
    """SciPy printer that writes small integer powers as products.

    NumPy fast-paths ``x**2`` and ``x**-1`` but sends ``x**-2.0`` to the generic
    ``pow``, measured 20x slower than ``1/(x*x)`` on the (N, nodes) arrays of the solver.
    """

    def _print_Pow(self, expr, rational=False):
        base, exponent = expr.as_base_exp()
        if exponent.is_Integer and 2 <= abs(int(exponent)) <= 4:
            product = "*".join([f"({self._print(base)})"] * abs(int(exponent)))
            return f"({product})" if exponent > 0 else f"(1/({product}))"
        return super()._print_Pow(expr, rational=rational)


@lru_cache(maxsize=256)
def _lambdify_cached(key: tuple, expr, args):  # noqa: ARG001 - key carries the identity
    target = list(expr) if isinstance(expr, tuple) else expr
    printer = _Printer({"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True,
                        "user_functions": {}})
    return sp.lambdify(args, target, modules=MODULES, cse=True, docstring_limit=200, printer=printer)


def _interval(domain: sp.Set) -> tuple[float, float, bool, bool]:
    """``(lower, upper, lower_open, upper_open)`` of a parameter domain (an interval of the reals)."""
    if domain == sp.S.Reals:
        return -np.inf, np.inf, True, True
    if isinstance(domain, sp.Interval):
        return float(domain.inf), float(domain.sup), bool(domain.left_open), bool(domain.right_open)
    raise ValueError(f"cannot compile the parameter domain {domain}: use an interval of the reals")


_RELATIONS = {sp.StrictGreaterThan: ">", sp.GreaterThan: ">=", sp.StrictLessThan: "<", sp.LessThan: "<="}


def inverse_entries(matrix: sp.Matrix) -> sp.Matrix:
    r"""The inverse of a small matrix, entrywise, as :math:`\operatorname{adj} M / \det M`.

    Written as the generic inverse in placeholder entries, then filled in with the
    entries of :math:`M` without expanding, so that the generated code evaluates
    :math:`M` once and inverts it in a handful of operations.
    """
    k = matrix.shape[0]
    placeholders = sp.Matrix(k, k, lambda i, j: 0 if matrix[i, j] == 0 else sp.Dummy(f"m_{i}{j}"))
    inverse = placeholders.adjugate() / placeholders.det(method="berkowitz")
    fill = {placeholders[i, j]: matrix[i, j] for i in range(k) for j in range(k) if matrix[i, j] != 0}
    return inverse.applyfunc(lambda e: e.xreplace(fill))


def expand_definitions(definitions) -> dict:
    """Substitution taking every defined symbol (and matrix element) to its explicit expression."""
    local = Definitions(definitions)
    return {symbol: local.expand(dummy) for symbol, dummy in local.elements.items()}


class Definitions:
    r"""A system's definitions as intermediate symbols, differentiated by the chain rule, then expanded.

    Each defined symbol (each element of a defined matrix) becomes a placeholder whose
    value is its definition in the earlier placeholders. Derivatives go through the
    placeholders by the chain rule, and through the inverse of a matrix by
    :math:`\partial R = -R\,(\partial M)\,R` -- which keeps the generated code as compact as
    the definitions themselves -- and :meth:`expand` finally writes everything in the
    system's own symbols.
    """

    def __init__(self, definitions) -> None:
        self.elements: dict = {}          # defined symbol or matrix element -> placeholder
        self.values: dict = {}            # placeholder -> its definition in earlier placeholders
        self.matrices: dict = {}          # matrix symbol -> matrix of placeholders (0 where defined as 0)
        self.inverses: dict = {}          # placeholder of an inverse's entry -> (inverse, inner, i, j)
        self._rates: dict = {}
        for symbol, definition in definitions.items():
            if isinstance(symbol, sp.MatrixSymbol):
                self._matrix(symbol, definition)
            else:
                dummy = sp.Dummy(symbol.name)
                self.elements[symbol] = dummy
                self.values[dummy] = sp.sympify(definition).xreplace(self.elements)
        explicit: dict = {}
        for dummy, value in self.values.items():       # definition order: earlier placeholders first
            explicit[dummy] = value.xreplace(explicit)
        self._explicit = explicit

    def _matrix(self, symbol, definition) -> None:
        rows, cols = symbol.shape
        if isinstance(definition, sp.Inverse):
            inner = self.matrices[definition.arg]
            value = inverse_entries(inner)
            dummies = sp.Matrix(rows, cols, lambda i, j: sp.Dummy(f"{symbol.name}_{i}{j}"))
        else:
            value = sp.Matrix(definition).applyfunc(lambda e: e.xreplace(self.elements))
            dummies = sp.Matrix(rows, cols, lambda i, j: 0 if value[i, j] == 0 else sp.Dummy(f"{symbol.name}_{i}{j}"))
        self.matrices[symbol] = dummies
        for i in range(rows):
            for j in range(cols):
                self.elements[symbol[i, j]] = dummies[i, j]
                if dummies[i, j] != 0:
                    self.values[dummies[i, j]] = value[i, j]
                    if isinstance(definition, sp.Inverse):
                        self.inverses[dummies[i, j]] = (dummies, self.matrices[definition.arg], i, j)

    def local(self, expr):
        """``expr`` written in the placeholders."""
        return sp.sympify(expr).xreplace(self.elements) if self.elements else sp.sympify(expr)

    def diff(self, expr, x: sp.Symbol):
        """Total derivative of a local expression in the system symbol ``x``, through the definitions."""
        return self.directional(expr, ((x, sp.Integer(1)),))

    def directional(self, expr, direction: tuple):
        r"""Derivative of a local expression along ``direction`` = ((symbol, rate), ...): :math:`\sum_x \dot x\,\partial_x`.

        One direction for a total derivative keeps :math:`-R\,\dot M R` a single product.
        """
        out = sum((sp.diff(expr, x) * rate for x, rate in direction), sp.Integer(0))
        for dummy in expr.free_symbols & set(self.values):
            rate = self._rate(dummy, direction)
            if rate != 0:
                out += sp.diff(expr, dummy) * rate
        return out

    def _rate(self, dummy, direction):
        key = (dummy, direction)
        if key not in self._rates:
            if dummy in self.inverses:
                inverse, inner, i, j = self.inverses[dummy]
                d_inner = inner.applyfunc(lambda m: self._rate(m, direction) if m != 0 else 0)
                self._rates[key] = -(inverse[i, :] * d_inner * inverse[:, j])[0, 0]
            else:
                self._rates[key] = self.directional(self.values[dummy], direction)
        return self._rates[key]

    def expand(self, expr):
        """A local expression in the system's own symbols."""
        return expr.xreplace(self._explicit) if self._explicit else expr


class CompiledSystem:
    r"""Numeric functions generated from one :class:`~symrmt.derive.FixedPointSystem`.

    Built once per system (see :func:`compile_system`). Every function broadcasts
    NumPy arrays; entries that do not depend on :math:`\lambda` may come back with a
    smaller shape (or as scalars), which the solver uses to skip work. With :math:`U`
    unknowns :math:`t`, :math:`P` averages :math:`\tau` used by the residuals (of
    :math:`A` in all) and the continuation variable :math:`v`:

    ``fixed_point(lam, t, params)``
        ``P + P*U + P`` arrays: the integrands :math:`g_k` of the residuals' averages,
        :math:`\partial g_k/\partial t_u` and :math:`\partial g_k/\partial v`.
    ``residual(t, tau, params)``
        ``U + U*U + U*P + U`` arrays: :math:`F`, :math:`\partial F/\partial t`,
        :math:`\partial F/\partial\tau`, :math:`\partial F/\partial v`.
    ``averages(lam, t, dt, params)``
        ``A`` integrands, then (if the observables need derivatives) their total
        :math:`v`-derivatives given :math:`\mathrm dt/\mathrm dv` = ``dt``.
    ``observables``
        one :class:`CompiledObservable` per observable, in order.

    ``params`` are arrays in the order of :attr:`parameter_names`.
    """

    def __init__(self, system) -> None:
        self.system = system
        self.definitions = Definitions(system.definitions)
        self.name = system.name
        self.parameters = tuple(system.parameters)
        self.parameter_names = tuple(p.name for p in self.parameters)
        self.domains = {p.name: _interval(dom) for p, dom in system.parameters.items()}
        self.unknowns = tuple(system.unknowns)
        self.unknown_names = tuple(t.name for t in self.unknowns)
        self.complex = bool(system.complex_unknowns)
        self.variable = system.continuation.variable
        if self.variable not in self.parameters:
            raise ValueError(f"{self.name}: the continuation variable {self.variable} is not a parameter")
        self.variable_index = self.parameters.index(self.variable)
        if system.continuation.predictor not in ("reciprocal", "linear"):
            raise ValueError(f"{self.name}: unknown predictor {system.continuation.predictor!r}")
        self.predictor = system.continuation.predictor
        self._compile_law()
        self._compile_fixed_point()
        self._compile_observables()
        self._compile_model_data()

    # ----------------------------------------------------------------- spectral law and fixed point
    def _compile_law(self) -> None:
        averages = self.system.averages
        laws = {(a.law.name, tuple(sorted((k, sp.srepr(v)) for k, v in a.law.parameters.items())),
                 a.variable) for a in averages.values()}
        if len(laws) > 1:
            raise ValueError(f"{self.name}: the averages use several spectral laws; the solver takes one")
        self.average_symbols = tuple(averages)
        self.lam = next(iter(averages.values())).variable if averages else sp.Symbol("lambda")
        law = next(iter(averages.values())).law if averages else None
        self.law = law.name if law else None
        names = tuple(law.parameters) if law else ()
        self.law_parameter_names = names
        self._law = numpy_function([law.parameters[k] for k in names], self.parameters,
                                   name=f"{self.name} spectral law") if names else None

    def law_parameters(self, params) -> dict[str, np.ndarray]:
        """The spectral law's parameters at ``params``."""
        if self._law is None:
            return {}
        return dict(zip(self.law_parameter_names, self._law(*params)))

    def _compile_fixed_point(self) -> None:
        system, t, v = self.system, self.unknowns, self.variable
        residuals = [self.definitions.expand(self.definitions.local(system.residuals[u])) for u in t]
        used = set().union(*(r.free_symbols for r in residuals)) if residuals else set()
        self.fixed_point_averages = tuple(a for a in self.average_symbols if a in used)
        local, D, X = self.definitions.local, self.definitions.diff, self.definitions.expand
        g = [local(system.averages[a].integrand) for a in self.fixed_point_averages]
        fixed = [X(e) for e in g + [D(gk, u) for gk in g for u in t] + [D(gk, v) for gk in g]]
        base = (self.lam, *t)
        self._fixed_point = numpy_function(fixed, (*base, *self.parameters),
                                           name=f"{self.name} residual integrands") if g else None
        taus = self.fixed_point_averages
        resid = (residuals + [sp.diff(F, u) for F in residuals for u in t]
                 + [sp.diff(F, a) for F in residuals for a in taus] + [sp.diff(F, v) for F in residuals])
        self._residual = numpy_function(resid, (*t, *taus, *self.parameters),
                                        name=f"{self.name} residuals") if residuals else None
        self.rates = tuple(sp.Symbol(f"d{u.name}") for u in t)

    def fixed_point(self, lam, t, params) -> list:
        """Integrands of the residuals' averages and their partials (see the class docstring)."""
        return self._fixed_point(lam, *t, *params)

    def residual(self, t, tau, params) -> list:
        """Residuals and their partials (see the class docstring)."""
        return self._residual(*t, *tau, *params)

    # ----------------------------------------------------------------- observables
    def _compile_observables(self) -> None:
        system, v = self.system, self.variable
        names = [o for o in system.observables]
        values = {o: sp.Symbol(f"value_{o.name}") for o in names}
        rates = {o: sp.Symbol(f"rate_{o.name}") for o in names}
        derivatives = {sp.Derivative(sp.Function(o.name)(v), v): rates[o] for o in names}
        self.needs_derivatives = any(isinstance(e, sp.Basic) and e.has(sp.Derivative)
                                     for e in system.observables.values())
        taus = self.average_symbols
        dtaus = tuple(sp.Symbol(f"d{a.name}") for a in taus)
        self.observables: list[CompiledObservable] = []
        previous: list = []
        for o in names:
            expr = system.observables[o]
            if not isinstance(expr, sp.Basic) and not hasattr(expr, "offset"):
                raise ValueError(f"{self.name}: observable {o} is neither an expression nor a WoodburyForm")
            self.observables.append(CompiledObservable(
                o.name, expr, self, taus, dtaus, [(values[p], rates[p]) for p in previous], values, derivatives))
            previous.append(o)
        local, X = self.definitions.local, self.definitions.expand
        g = [local(system.averages[a].integrand) for a in taus]
        direction = ((v, sp.Integer(1)), *zip(self.unknowns, self.rates))
        total = [self.definitions.directional(gk, direction) for gk in g] if self.needs_derivatives else []
        self._averages = numpy_function([X(e) for e in g + total], (self.lam, *self.unknowns, *self.rates, *self.parameters),
                                        name=f"{self.name} averages") if g else None

    def averages(self, lam, t, dt, params) -> list:
        """Every integrand, then (if needed) its total derivative along the continuation variable."""
        return self._averages(lam, *t, *dt, *params)

    # ----------------------------------------------------------------- what the solver needs to know
    def _compile_model_data(self) -> None:
        system, p = self.system, self.parameters
        c = system.continuation
        X = lambda e: self.definitions.expand(self.definitions.local(e))  # noqa: E731
        self._start = numpy_function(X(c.start), p, name=f"{self.name} continuation start")
        self._initial = numpy_function([X(c.initial.get(u, 0)) for u in self.unknowns], p,
                                       name=f"{self.name} initial guess") if self.unknowns else None
        self.branch = []                                   # relation of each condition, then one function of all sides
        sides = []
        for condition in system.branch:
            relation = _RELATIONS.get(type(condition))
            if relation is None:
                raise ValueError(f"{self.name}: branch condition {condition} must be <, <=, > or >=")
            self.branch.append(relation)
            sides += [X(condition.lhs), X(condition.rhs)]
        self._branch = numpy_function(sides, (*self.unknowns, *p), name=f"{self.name} branch conditions") \
            if sides else None
        self.admissible = {}
        for o, a in system.admissible.items():
            self.admissible[o.name] = (numpy_function([X(a.lower), X(a.upper)], p,
                                                      name=f"{self.name} range of {o.name}"), a.accuracy)

    def branch_sides(self, t, params) -> list:
        """``[lhs_1, rhs_1, lhs_2, rhs_2, ...]`` of the branch conditions at ``t``."""
        return self._branch(*t, *params)

    def start(self, params) -> np.ndarray:
        """The continuation variable's start value at each point."""
        return np.asarray(self._start(*params), dtype=float)

    def initial(self, params) -> list:
        """The initial guess of the unknowns at the start."""
        return self._initial(*params)


class CompiledObservable:
    r"""One observable: ``value(taus, t, params, earlier)`` and, if defined, ``rate(...)`` along the variable.

    A :class:`~symrmt.derive.WoodburyForm` compiles to its entries, evaluated by the solver as
    :math:`\text{offset} - g^\top \mathsf C (I + \mathsf G\mathsf C)^{-1} g` (``kind = "woodbury"``);
    an expression compiles to one function (``kind = "expression"``). ``earlier`` holds the
    values and rates of the observables before this one. ``real`` says whether the values are
    real (always, unless the system's unknowns are complex and SymPy cannot prove it).
    """

    def __init__(self, name, expr, compiled: CompiledSystem, taus, dtaus, earlier, values, derivatives) -> None:
        self.name = name
        t, dt, p = compiled.unknowns, compiled.rates, compiled.parameters
        earlier_symbols = [s for pair in earlier for s in pair]
        args = (*taus, *t, *earlier_symbols, *p)
        dargs = (*taus, *dtaus, *t, *dt, *earlier_symbols, *p)
        definitions = compiled.definitions
        # The total derivative along the variable: through the averages, the unknowns and earlier observables.
        direction = ((compiled.variable, sp.Integer(1)), *zip(taus, dtaus), *zip(t, dt), *earlier)
        local = definitions.local
        chain = lambda e: definitions.expand(definitions.directional(local(e), direction))  # noqa: E731
        self.real = not compiled.complex or (isinstance(expr, sp.Basic) and sp.im(expr) == 0)
        if hasattr(expr, "offset"):
            self.kind = "woodbury"
            self.size = expr.size
            entries = [expr.offset, *expr.core, *expr.gram, *expr.source]
            self.value = numpy_function([definitions.expand(local(e)) for e in entries], args,
                                        name=f"observable {name}")
            self.rate = numpy_function([chain(e) for e in entries], dargs, name=f"rate of {name}") \
                if compiled.needs_derivatives else None
        else:
            self.kind = "expression"
            self.size = 0
            expr = sp.sympify(expr).xreplace(derivatives).xreplace(values)
            self.value = numpy_function(definitions.expand(local(expr)), args, name=f"observable {name}")
            has_rates = any(r in expr.free_symbols for _, r in earlier)
            self.rate = None if has_rates or not compiled.needs_derivatives else \
                numpy_function(chain(expr), dargs, name=f"rate of {name}")


@lru_cache(maxsize=32)
def compile_system(system) -> CompiledSystem:
    """Generate the numeric functions of a :class:`~symrmt.derive.FixedPointSystem`, once per system object."""
    return CompiledSystem(system)
