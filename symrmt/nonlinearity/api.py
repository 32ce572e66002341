"""The public functions: :func:`hermite` and its result :class:`HermiteCoefficients`."""
from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp
from mpmath.libmp import NoConvergence
from numpy.typing import ArrayLike
from sympy.polys.polyerrors import BasePolynomialError

from symrmt.errors import NonlinearityError, ParameterError, ParameterTypeError, SymrmtError, shortened, shown
from symrmt.runtime.progress import activity

from ..display import hermite_latex
from . import background, cache
from .adapter import label_of, numpy_callable
from .callables import callable_coefficients
from .centering import require_centered
from .coefficients import coefficients_of, hermite_compute
from .constants import KEYS, X
from .decomposition import nonlinear_share
from . import parametric_cache
from .parametric import at_point, evaluate, named_values, parametric_hermite
from .parse import formula_parameters, parse_nonlinearity

# ----------------------------------------------------------------- public API


@dataclass(frozen=True)
class HermiteCoefficients:
    r"""Hermite data of a nonlinearity f, each number with its provenance.

    Attributes
    ----------
    f : sympy.Expr or callable
        The expression actually used (after centering, if asked).
    a0, a1, a2 : float
        :math:`a_k = \mathbb E[f(\xi)\mathrm{He}_k(\xi)]/\sqrt{k!}`, :math:`\xi \sim \mathcal N(0,1)`
        (for an f with parameters they depend on them: reading them raises
        :class:`~symrmt.errors.ParameterError`, use :meth:`at` or :meth:`numeric`).
    nu : float
        :math:`\nu = \mathbb E[f(\xi)^2]` (the same).
    values : dict
        ``{"a0", "a1", "a2", "nu"}`` as floats; empty for an f with parameters.
    exact : dict
        Keys ``"a0", "a1", "a2", "nu"``: the closed form (in the parameters, if any), or
        None when only the numeric value is known.
    source : dict
        Same keys: ``"exact"`` (SymPy: integration, Gaussian moments, parity),
        ``"table"`` (known closed form, checked against quadrature) or ``"numeric"``.
    centered_by : float, sympy.Expr or None
        The :math:`a_0` of the original f that was subtracted (0.0 if none). For an f with
        parameters: its closed form in them (``sqrt(2)*(1 - s)/(2*sqrt(pi))`` for
        ``leaky_relu(x, s)``; a float when it does not depend on them), or None when
        :math:`a_0` has no closed form and is subtracted point by point (:meth:`at` reports
        the number at a point).
    method, timeout
        How the numbers were obtained (used by :meth:`coefficient` and :meth:`at`).
    error : dict or None
        For a callable f: the error estimate of each numeric value (two rules); for
        :meth:`at` of an f without closed forms in its parameters, the float64 rules' estimate
        (0 for a closed form); None for formulas, whose numeric values are verified to
        :math:`10^{-13}` relative.
    parameters : tuple of sympy.Symbol
        The symbolic parameters of f, in the order of their names (empty for most f).
    center
        Whether centering was asked for (per point, for an f with parameters).
    given
        f as given, before centering (what :meth:`at` substitutes the parameters into).

    Examples
    --------
    >>> h = hermite("x**3 - 3*x + x**2", center=True)
    >>> h.f, h.centered_by, h.exact["a2"], h.nu
    (x**3 + x**2 - 3*x - 1, 1.0, sqrt(2), 8.0)
    >>> hermite("relu(x)", timeout=30).exact["a0"]  # any f: a_0 is reported; waits up to 30 s for SymPy's search
    sqrt(2)/(2*sqrt(pi))
    >>> hermite("erf(s*x)")                        # parameters are the names other than x
    HermiteCoefficients(f=erf(s*x), parameters=(s,), a0=0, a1=2*s/(sqrt(pi)*sqrt(2*s**2 + 1)), a2=0, nu=2*asin(2*s**2/(2*s**2 + 1))/pi)
    """

    f: sp.Expr | Callable
    values: dict[str, float] = field(hash=False)
    exact: dict[str, sp.Expr | None] = field(hash=False)
    source: dict[str, str] = field(hash=False)
    centered_by: float | sp.Expr | None = 0.0
    method: str = field(default="auto", compare=False, repr=False)
    timeout: float | None = field(default=None, compare=False, repr=False)
    error: dict[str, float] | None = field(default=None, hash=False, compare=False)
    parameters: tuple[sp.Symbol, ...] = ()
    center: bool = field(default=False, compare=False, repr=False)
    given: Any = field(default=None, compare=False, repr=False)

    def _datum(self, key: str) -> float:
        if self.parameters:
            constant = _constant_in(self.exact.get(key), self.parameters)
            if constant is not None:          # e.g. a_0 = 0 of an odd f whatever its parameters
                return constant
            names = [s.name for s in self.parameters]
            one = ", ".join(f"{n}=..." for n in names)
            raise ParameterError(
                f"f = {self.f} has the parameter{'s' if len(names) > 1 else ''} {', '.join(names)}: its {key} "
                f"depends on {'them' if len(names) > 1 else 'it'}. Use .at({one}) for one point or "
                f".numeric({one}) for arrays"
            )
        return self.values[key]

    a0 = property(lambda self: self._datum("a0"), doc=r":math:`a_0 = \mathbb E f(\xi)`.")
    a1 = property(lambda self: self._datum("a1"), doc=r":math:`a_1 = \mathbb E[\xi f(\xi)]`.")
    a2 = property(lambda self: self._datum("a2"), doc=r":math:`a_2 = \mathbb E[f(\xi)(\xi^2 - 1)]/\sqrt 2`.")
    nu = property(lambda self: self._datum("nu"), doc=r":math:`\nu = \mathbb E f(\xi)^2`.")

    def __repr__(self) -> str:
        if not self.parameters:
            data = ", ".join(f"{k}={self.values[k]!r}" for k in KEYS)
            return (f"HermiteCoefficients(f={self.f}, {data}, exact={self.exact}, source={self.source}, "
                    f"centered_by={self.centered_by!r})")
        names = ", ".join(s.name for s in self.parameters)
        data = ", ".join(f"{k}={self.exact[k] if self.exact[k] is not None else f'<numeric in {names}>'}"
                         for k in KEYS)
        centered = f", centered_by={self.centered_by}" if self.center else ""
        return f"HermiteCoefficients(f={self.f}, parameters={self.parameters!r}, {data}{centered})"

    def numeric(self, **params: ArrayLike) -> dict[str, np.ndarray]:
        r"""``a0, a1, a2, nu`` as float64 arrays, broadcast over the parameter values.

        The contract for code that consumes Hermite data (the theory layer):

        - one keyword per name in :attr:`parameters` (all required, no others), each a
          real finite number or array; they are broadcast together (NumPy rules) and
          every returned array has the broadcast shape (``()`` for scalars, and for an f
          without parameters, which takes no keywords);
        - a datum with a closed form in the parameters (``source`` ``"exact"`` or
          ``"table"``) is its compiled expression, evaluated in float64 (where the form is
          ill-conditioned digits are lost, e.g. :math:`10^{-16}s` for :math:`\operatorname{erf}(sx)`
          at large s; :meth:`at` is exact), or a verified quadrature where float64 overflows;
          any other is float64 Gauss-Hermite quadrature at all distinct points at once, kept where
          three rules agree to :math:`10^{-11}` of the scale (:mod:`.gauss_hermite`), and a verified
          30-digit quadrature (:func:`hermite` with ``method="numeric"``) at the points where they
          do not (kinks, poles near the real line, overflow);
        - with ``center=True`` centering is per point: ``a0`` is 0 and ``nu`` is the
          variance :math:`\nu - a_0^2` of the original f;
        - bad values raise :class:`~symrmt.errors.ParameterError` naming the parameter; a point
          where f is not usable (zero or constant, too small or too large in scale, not
          square-integrable) raises :class:`~symrmt.errors.NonlinearityError` naming the point.

        Examples
        --------
        >>> h = hermite("erf(s*x)")
        >>> h.numeric(s=[0.5, 1.0])["a1"]
        array([0.46065887, 0.65147002])
        >>> float(hermite("tanh(x)").numeric()["nu"])
        0.39429449039784115
        """
        return evaluate(self, params, _numeric_at_point)

    def at(self, **params: float) -> "HermiteCoefficients":
        r"""The Hermite data of f at one value of each parameter: a :class:`HermiteCoefficients` without parameters.

        Each value is read as the exact decimal it prints as (``0.1`` is 1/10). When every datum
        has a closed form in the parameters, closed forms are found at the point as for any f
        (``erf(s*x)`` at ``s=0.5`` is ``erf(x/2)``). Otherwise (``T*softplus(x/T)``) SymPy does not
        search at the point: the data with a closed form in the parameters are that form at the
        point, the others the float64 rules of :meth:`numeric` (their estimates in ``error``),
        and the verified 30-digit quadrature where the estimate refuses float64: milliseconds,
        not SymPy's budget per datum. An f that is constant (for example zero) at the point is
        refused there.

        Examples
        --------
        >>> h = hermite("erf(s*x)").at(s=0.5)
        >>> h.f, h.exact["a1"]
        (erf(x/2), sqrt(6)/(3*sqrt(pi)))
        >>> hermite("erf(s*x)").at(s=0)
        Traceback (most recent call last):
        ...
        symrmt.errors.NonlinearityError: f = erf(s*x) is the constant 0 at s = 0: the theory needs a non-constant f; ...
        """
        return at_point(self, params, hermite)

    def require_centered(self, values: Mapping[str, np.ndarray] | None = None,
                         params: Mapping[str, ArrayLike] | None = None) -> None:
        r"""Refuse :math:`a_0 \ne 0`: the attention theory and the simulator need a centered f.

        Without arguments, for an f without parameters; with the output ``values`` of
        :meth:`numeric` and the ``params`` it was given, at every point (the message names
        the first point that is not centered). The tolerance is
        :math:`|a_0| \le 10^{-12}\max(1, \sqrt\nu)` (and 10 times the error estimate of a callable).

        Raises
        ------
        NonlinearityError
            Naming :math:`a_0` and how to center: ``center=True`` in :func:`hermite`,
            ``--center`` on the command line, ``center = true`` in a sweep spec, or subtracting
            :math:`a_0` in the formula.
        """
        require_centered(self, values, params)

    @property
    def b2(self) -> float:
        r""":math:`b^2 = \nu - a_1^2 \ge 0` (:func:`~.decomposition.nonlinear_share`: round-off below 0 clipped)."""
        return float(nonlinear_share(self.a1, self.nu))

    def _repr_latex_(self) -> str:
        """Jupyter: the Hermite data with their closed forms (see :func:`symrmt.display.hermite_latex`)."""
        return hermite_latex(self)

    def latex(self) -> dict[str, str | None]:
        """LaTeX of each exact value (None where only a numeric value is known)."""
        return {k: (None if v is None else sp.latex(v)) for k, v in self.exact.items()}

    def coefficient(self, k: int) -> tuple[float, sp.Expr | None]:
        r"""The Hermite coefficient :math:`a_k` and its closed form (or None); cached.

        Examples
        --------
        >>> hermite("x**3 - 3*x").coefficient(3)
        (2.449489742783178, sqrt(6))
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= 30:
            raise ParameterError(f"Hermite index k must be an integer in 0..30, got {k!r}")
        if k <= 2:
            key = f"a{k}"
            return getattr(self, key), self.exact[key]
        if self.parameters or not isinstance(self.f, sp.Basic):
            raise ParameterError(f"a_{k} beyond a_2 needs an f given as a formula without parameters, not {self.f}"
                                 + (" (use .at(...) first)" if self.parameters else ""))
        value, exact, _ = _coefficient_cached(sp.srepr(self.f), self.f, int(k), self.method, self.timeout)
        return value, exact


def _constant_in(value: sp.Expr | None, parameters: tuple[sp.Symbol, ...]) -> float | None:
    r"""The float of a closed form that does not depend on ``parameters`` (None if it does, or is unknown).

    A form whose parameters cancel (:math:`\sin^2 s + \cos^2 s`) is recognized by ``sympy.simplify``, tried only
    when two probe points give the same value, so that a datum that does depend on them is refused at once."""
    if value is None:
        return None
    value = sp.sympify(value)
    if value.free_symbols & set(parameters):
        probes = [value.xreplace({p: sp.Rational(k, 7 + i) for i, p in enumerate(parameters)}).evalf(20)
                  for k in (3, 5)]
        if any(not q.is_real for q in probes) or abs(probes[0] - probes[1]) > 1e-15 * (1 + abs(probes[0])):
            return None
        value = sp.simplify(value)
        if value.free_symbols & set(parameters):
            return None
    return float(value)


@lru_cache(maxsize=256)
def _coefficient_cached(key: str, expr: sp.Expr, k: int, method: str, timeout: float | None):
    wait = background.FALLBACK_WAIT if timeout is None else timeout     # a_k beyond a_2 are not cached on disk
    value, exact, source = coefficients_of(expr, (f"a{k}",), method, time.monotonic() + wait)[f"a{k}"]
    return float(value), exact, source


#: The default ``timeout`` of :func:`hermite`: the answer does not wait for SymPy's search, which goes on in a
#: detached background process and writes what it finds to the disk cache for the next call
#: (:mod:`~symrmt.nonlinearity.background`); where none can run (cache off, ``SYMRMT_BACKGROUND_SEARCH=0``) the
#: call waits :data:`~symrmt.nonlinearity.background.FALLBACK_WAIT` (1 s) for it instead.
DEFAULT_TIMEOUT = None

_OPTIONS: contextvars.ContextVar[tuple[str, float | None]] = contextvars.ContextVar("hermite_options",
                                                                                   default=("auto", DEFAULT_TIMEOUT))


def printing_options():
    """:func:`hermite_options` as they are: printed equations (``symrmt latex``) no longer widen the search, whose
    closed forms the background search writes for the next call (:mod:`~symrmt.nonlinearity.background`)."""
    return hermite_options(*_OPTIONS.get())


@contextlib.contextmanager
def hermite_options(method: str = "auto", timeout: float | None = DEFAULT_TIMEOUT):
    """``method`` and ``timeout`` for every :func:`hermite` call inside the block that does not give its own.

    How the command line's ``--method`` and ``--timeout`` reach the Hermite data that a command computes
    deep inside the library (the theory, the LaTeX of a system, the property catalogue), as
    :func:`numpy.errstate` reaches NumPy's operations.

    Parameters
    ----------
    method : {"auto", "numeric"}
        ``"auto"`` (default): closed forms where SymPy finds them within ``timeout``, else the verified
        quadrature; ``"numeric"``: the quadrature alone.
    timeout : float or None
        Wall-clock seconds, in (0, 600], that a :func:`hermite` call waits for SymPy's closed-form search of a new f;
        the default (None) does not wait and leaves the search to the background (see :func:`hermite`).

    Returns
    -------
    contextmanager
        A context manager: inside its ``with`` block, a :func:`hermite` call without its own ``method`` or
        ``timeout`` uses these; the previous options come back on leaving it (also on an exception). It is per
        thread and per task (a :mod:`contextvars` variable).

    Raises
    ------
    ParameterError
        ``method`` is not ``"auto"`` or ``"numeric"``, or ``timeout`` is not a number in (0, 600]; raised when the
        block is entered.

    See Also
    --------
    hermite : The Hermite data these options reach.
    numpy.errstate : The same pattern for NumPy's floating-point errors.

    Examples
    --------
    >>> with hermite_options(method="numeric"):
    ...     hermite("erf(x)").source["a1"]
    'numeric'
    """
    _check_options(False, method, timeout)
    token = _OPTIONS.set((method, None if timeout is None else float(timeout)))
    try:
        yield
    finally:
        _OPTIONS.reset(token)


def _check_options(center: bool, method: str, timeout: float | None) -> None:
    if not isinstance(center, (bool, np.bool_)):
        raise ParameterError(f"center must be True or False, got {center!r}")
    if not isinstance(method, str) or method not in ("auto", "numeric"):
        raise ParameterError(f"method must be 'auto' (closed forms when possible) or 'numeric', got {method!r}")
    if timeout is not None and (isinstance(timeout, bool) or not (isinstance(timeout, (int, float))
                                                                  and 0 < timeout <= 600)):
        raise ParameterError(f"timeout must be a number of seconds in (0, 600], got {timeout!r}")


def hermite(
    f: str | sp.Expr | Callable, center: bool = False, *, method: str | None = None, timeout: float | None = None,
    params: Mapping[str, float] | None = None,
) -> HermiteCoefficients:
    r"""Hermite coefficients :math:`a_0, a_1, a_2` and :math:`\nu = \mathbb E f(\xi)^2` of any f.

    Parameters
    ----------
    f : str, sympy.Expr or callable
        The nonlinearity: a formula (parsed by :func:`parse_nonlinearity`; names other
        than x, the constants and the functions are its parameters, as in ``"erf(s*x)"``),
        a SymPy expression (symbols other than x are parameters), or a Python callable
        acting entrywise on float64 arrays (``np.tanh``), whose data are numeric, with
        error estimates in ``error``.
    center : bool
        Subtract :math:`a_0 = \mathbb E f(\xi)` (exactly when it is known in closed
        form). Any f has Hermite data; only the attention theory and the simulator need
        :math:`a_0 = 0` (:meth:`HermiteCoefficients.require_centered`).
    method : {"auto", "numeric"}
        ``"auto"`` (the default, or what :func:`hermite_options` set): closed forms where
        found (see the module docstring), numeric otherwise; ``"numeric"``: quadrature only
        (``exact`` is all None; no SymPy search).
    timeout : float or None
        Wall-clock seconds, in (0, 600], that this call waits for SymPy's search for closed
        forms: all of f's data together (their integrals run at once, while the quadrature is
        computed), centering included. What the search has not found by then is the verified
        quadrature value (``source`` ``"numeric"``), so which closed forms a first call finds
        can depend on the machine's load. The default (None, or what :func:`hermite_options`
        set) does not wait: the answer has the closed forms that need no integration, and the
        search goes on in a detached background process (at most
        :data:`~symrmt.nonlinearity.background.BUDGET` = 60 s, niced) that writes what it
        finds to the disk cache, so that a later call, in any process, returns the exact data;
        one line on stderr says so. Without a disk cache, or with the environment variable
        ``SYMRMT_BACKGROUND_SEARCH=0``, the default waits 1 s instead
        (:data:`~symrmt.nonlinearity.background.FALLBACK_WAIT`). The disk cache keeps the
        answer; a ``timeout`` above the search that made a stored entry searches again where a
        stored datum is numeric.
    params : dict, optional
        One value for each parameter of f, e.g. ``{"s": 0.5}``: the data of f at that
        point (the same as ``hermite(f).at(s=0.5)``). Without it an f with parameters
        gives closed forms in them where known (``exact``);
        :meth:`HermiteCoefficients.at` and :meth:`HermiteCoefficients.numeric` evaluate.

    Returns
    -------
    HermiteCoefficients

    Raises
    ------
    ParseError
        A formula outside the vocabulary (see :func:`parse_nonlinearity`).
    ParameterError
        A bad ``center``, ``method``, ``timeout`` or ``params`` (naming the parameter).
    NonlinearityError
        An unusable f: not real, not square-integrable under the Gaussian, constant
        almost everywhere (at the point of ``params``, too), or quadrature that does not
        converge (poles).

    See Also
    --------
    symrmt.parse_nonlinearity : The formula grammar: what f may be written with.
    symrmt.attention_error : The theory, which takes f or its Hermite data.

    Notes
    -----
    Cached per expression: a repeated call returns a fresh object at once. The
    first call for an f without known closed forms waits at most ``timeout`` seconds
    for SymPy, by default none (tanh and sigmoid skip SymPy: no closed form is known).

    Examples
    --------
    >>> h = hermite("erf(x)")
    >>> h.exact["a1"], h.source["nu"]
    (2*sqrt(3)/(3*sqrt(pi)), 'table')
    >>> hermite("tanh(x)").source
    {'a0': 'exact', 'a1': 'numeric', 'a2': 'exact', 'nu': 'numeric'}
    >>> hermite("exp(x)").exact["a1"]
    exp(1/2)
    >>> hermite("erf(s*x)").exact["nu"]
    2*asin(2*s**2/(2*s**2 + 1))/pi
    >>> hermite("erf(s*x)", params={"s": 1}) == hermite("erf(x)")
    True
    """
    default_method, default_timeout = _OPTIONS.get()
    method = default_method if method is None else method
    timeout = default_timeout if timeout is None else timeout       # None: the default (see above)
    _check_options(center, method, timeout)
    if hasattr(type(f), "__symrmt_formula__"):      # e.g. a symrmt.testing.KnownNonlinearity: its formula and values
        text, own, own_center = _formula_of(f)
        return hermite(text, bool(center) or own_center, method=method, timeout=timeout,
                       params={**own, **(params or {})} or None)
    if callable(f) and not isinstance(f, (str, sp.Basic, sp.FunctionClass)):
        if params:
            raise ParameterError(f"params = {params!r}: a Python callable has no symbolic parameters; bind "
                                 "their values in it (lambda x: np.tanh(s * x)) or give f as a formula")
        return _hermite_of_callable(f, bool(center))
    if isinstance(f, sp.FunctionClass):
        f = f(X)
    names = tuple(formula_parameters(f))
    if names:
        with _library_errors_as_input_errors(f):
            data = _parametric_cached(f, names, bool(center), method, _seconds(timeout))
        h = HermiteCoefficients(f=data.f, values={}, exact=dict(data.exact), source=dict(data.source),
                                centered_by=_subtracted(data), method=method, timeout=_seconds(timeout), parameters=data.parameters,
                                center=bool(center), given=data.given)   # fresh dicts: the cache is safe
        return h if params is None else h.at(**named_values(params, names, h.f))
    if params is not None:
        named_values(params, [], label_of(f))      # refuses what is not a dict of no parameters
    with _library_errors_as_input_errors(f):
        expr = parse_nonlinearity(f)
        fc, values, centered_by = _hermite_cached(sp.srepr(expr), expr, bool(center), method, _seconds(timeout))
    return HermiteCoefficients(
        f=fc,
        values={k: float(values[k][0]) for k in KEYS},
        exact={k: values[k][1] for k in KEYS},
        source={k: values[k][2] for k in KEYS},
        centered_by=centered_by,
        method=method,
        timeout=_seconds(timeout),
        center=bool(center),
        given=expr,
    )


def _seconds(timeout: float | None) -> float | None:
    return None if timeout is None else float(timeout)


def _formula_of(f: Any) -> tuple[str, dict, bool]:
    """What an object with ``__symrmt_formula__()`` stands for: ``(formula, parameter values, center)``, checked."""
    given = f.__symrmt_formula__()
    if not (isinstance(given, tuple) and len(given) == 3 and isinstance(given[0], str)
            and isinstance(given[1], Mapping) and isinstance(given[2], bool)):
        raise ParameterTypeError(f"f = {shown(f)}: its __symrmt_formula__() must return (formula, {{name: value}}, "
                                 "center) as (str, dict, bool).")
    return given[0], dict(given[1]), given[2]


def _subtracted(data) -> float | sp.Expr | None:
    """What centering subtracted from an f with parameters: 0.0 (not asked), the closed form of its a_0 (a float
    when it is a number), or None where a_0 has no closed form and is subtracted point by point."""
    if not data.center:
        return 0.0
    if data.exact["a0"] is None:
        return None
    shift = sp.simplify(data.given - data.f)
    return float(shift) if not shift.free_symbols else shift


@lru_cache(maxsize=64)
def _parametric_cached(f, names, center, method, timeout):
    wait = background.foreground_wait(timeout)
    data = parametric_hermite(f, list(names), center, method, timeout, wait)
    if method == "auto" and data.searched < background.BUDGET and "numeric" in data.source.values():
        entry = parametric_cache.entry_path(data.given, method, timeout)
        if entry is not None:
            background.start("parametric", data.given, entry, {"names": list(names), "timeout": timeout})
    return data


def _numeric_at_point(f: sp.Expr, center: bool) -> "HermiteCoefficients":
    """The numeric Hermite data of f at one point of its parameters (for :meth:`HermiteCoefficients.numeric`)."""
    return hermite(f, center=center, method="numeric")


def _hermite_of_callable(f: Callable, center: bool) -> HermiteCoefficients:
    """Numeric Hermite data of a Python callable, with error estimates (not cached: callables
    have no reliable identity)."""
    label = label_of(f)
    values, errors = callable_coefficients(f, label)
    a0, g = values["a0"], f
    if center:
        g = numpy_callable(f, a0)
        values = {**values, "a0": 0.0, "nu": values["nu"] - a0**2}
        errors = {**errors, "nu": errors["nu"] + 2 * abs(a0) * errors["a0"]}
    return HermiteCoefficients(
        f=g, values=values, exact={k: None for k in KEYS}, source={k: "numeric" for k in KEYS},
        centered_by=float(a0) if center else 0.0, method="numeric", error=errors, center=center, given=f,
    )


#: What SymPy and mpmath raise from deep inside on an f they cannot handle.
_LIBRARY_ERRORS = (ArithmeticError, ValueError, TypeError, AttributeError, RecursionError, NoConvergence,
                   BasePolynomialError)


@contextlib.contextmanager
def _library_errors_as_input_errors(f):
    """Turn an error from inside SymPy or mpmath into a NonlinearityError naming f (chained, for --debug)."""
    try:
        yield
    except SymrmtError:
        raise
    except _LIBRARY_ERRORS as exc:
        raise NonlinearityError(
            f"nonlinearity {str(f)[:80]!r} could not be processed by SymPy/mpmath ({type(exc).__name__}: "
            f"{' '.join(str(exc).split())[:200]}); simplify the formula, or report it if it looks valid"
        ) from exc


@lru_cache(maxsize=256)
def _hermite_cached(key: str, expr: sp.Expr, center: bool, method: str, timeout: float | None):
    """In-memory cache (keyed by ``srepr``) over the checked disk cache over the computation; SymPy's search goes on
    in the background (:mod:`.background`) where the answer has numeric data it may still find in closed form."""
    stored = cache.load(expr, center, method)
    searched = cache.searched(expr, center, method) if stored is not None else 0.0
    # A stored entry with numeric data came from a search that may have been cut short: a timeout above the search
    # that made it asks for that search again (the disk keeps one entry per f, whatever the timeout that made it).
    if stored is not None and method == "auto" and timeout is not None and timeout > searched and \
            any(source == "numeric" for _, _, source in stored[0].values()):
        stored = None
    if stored is not None:
        values, shift, centered_by = stored
        fc = expr if shift is None else expr - shift
    else:
        wait = background.foreground_wait(timeout)
        pending: set[str] = set()
        with activity(f"the Hermite data of f = {shortened(str(expr), 60)}" + (
                f": quadrature, and SymPy's closed forms for at most {wait:g} s (--method numeric skips them)"
                if method == "auto" and wait > 0 else ": quadrature")):
            fc, values, centered_by, shift = hermite_compute(expr, center, method, wait, pending=pending)
        searched = wait if pending else background.COMPLETE
        cache.store(expr, center, method, (values, shift, centered_by), searched=searched)
    if method == "auto" and searched < background.BUDGET and any(s == "numeric" for _, _, s in values.values()):
        entry = cache.entry_path(expr, center, method)
        if entry is not None:
            background.start("hermite", expr, entry, {"center": center})
    return fc, values, centered_by
