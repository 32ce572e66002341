"""The public functions: :func:`hermite` and its result :class:`HermiteCoefficients`."""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
import sympy as sp
from mpmath.libmp import NoConvergence
from numpy.typing import ArrayLike
from sympy.polys.polyerrors import BasePolynomialError

from symrmt.errors import NonlinearityError, ParameterError, SymrmtError

from . import cache
from .adapter import label_of, numpy_callable
from .callables import callable_coefficients
from .coefficients import _A0_TOL as A0_TOL
from .coefficients import _coefficients, _hermite_compute
from .constants import KEYS, X
from .parametric import evaluate, parametric_hermite
from .parse import parameter_symbols, parse_nonlinearity

# ----------------------------------------------------------------- public API


@dataclass(frozen=True)
class HermiteCoefficients:
    r"""Hermite data of a nonlinearity f, each number with its provenance.

    Attributes
    ----------
    f : sympy.Expr
        The expression actually used (after centering, if asked).
    a0, a1, a2 : float
        :math:`a_k = \mathbb E[f(\xi)\mathrm{He}_k(\xi)]/\sqrt{k!}`, :math:`\xi \sim \mathcal N(0,1)`.
    nu : float
        :math:`\nu = \mathbb E[f(\xi)^2]`.
    exact : dict
        Keys ``"a0", "a1", "a2", "nu"``: the closed form, or None when only the
        numeric value is known.
    source : dict
        Same keys: ``"exact"`` (SymPy: integration, Gaussian moments or parity),
        ``"table"`` (known closed form, checked against quadrature) or ``"numeric"``.
    centered_by : float
        The :math:`a_0` of the original f that was subtracted (0.0 if none).
    method, timeout
        How the numbers were obtained (used by :meth:`coefficient`).
    error : dict or None
        For a callable f: the error estimate of each numeric value (two rules); None
        for formulas, whose numeric values are verified to :math:`10^{-13}` relative.
    parameters : tuple of sympy.Symbol
        The parameters of f (empty for most f). With parameters, ``a0`` ... ``nu``
        are NaN and ``exact`` holds expressions in them: use :meth:`numeric`.
    center
        Whether :meth:`numeric` centers f per point (parameters, a_0 not in closed form).

    Examples
    --------
    >>> h = hermite("x**3 - 3*x + x**2", center=True)
    >>> h.f, h.centered_by, h.exact["a2"], h.nu
    (x**3 + x**2 - 3*x - 1, 1.0, sqrt(2), 8.0)
    """

    f: sp.Expr | Callable
    a0: float
    a1: float
    a2: float
    nu: float
    exact: dict[str, sp.Expr | None] = field(hash=False)
    source: dict[str, str] = field(hash=False)
    centered_by: float = 0.0
    method: str = field(default="auto", compare=False, repr=False)
    timeout: float = field(default=3.0, compare=False, repr=False)
    error: dict[str, float] | None = field(default=None, hash=False, compare=False)
    parameters: tuple[sp.Symbol, ...] = ()
    center: bool = field(default=False, compare=False, repr=False)

    def numeric(self, **params: ArrayLike) -> dict[str, np.ndarray]:
        r"""``a0, a1, a2, nu`` as float64 arrays, broadcast over the parameter values.

        The contract for code that consumes Hermite data (the theory layer):

        - one keyword per name in :attr:`parameters` (all required, no others), each a
          real finite number or array; they are broadcast together (NumPy rules) and
          every returned array has the broadcast shape (``()`` for scalars, and for an f
          without parameters, which takes no keywords);
        - a datum with a closed form in the parameters (``source`` ``"exact"`` or
          ``"table"``) is its compiled expression; any other is a verified 30-digit
          quadrature at each distinct point (:func:`hermite` with ``method="numeric"``);
        - with ``center=True`` centering is per point: ``a0`` is 0 (to 30 digits) and ``nu`` is the
          variance :math:`\nu - a_0^2` of the original f;
        - bad values raise :class:`~symrmt.errors.ParameterError`; a point where f is not
          usable (not centered without ``center``, zero, not square-integrable) raises
          :class:`~symrmt.errors.NonlinearityError` naming the point.

        Examples
        --------
        >>> h = hermite("erf(s*x)", parameters=["s"])
        >>> h.numeric(s=[0.5, 1.0])["a1"]
        array([0.46065887, 0.65147002])
        >>> float(hermite("tanh(x)").numeric()["nu"])
        0.3942944903978412
        """
        return evaluate(self, params, _numeric_at_point)

    @property
    def b2(self) -> float:
        r""":math:`b^2 = \nu - a_1^2 \ge 0` (tiny negative round-off is clipped to 0)."""
        if self.parameters:
            raise ParameterError(f"f = {self.f} has parameters: use numeric(...) for its Hermite data")
        value = self.nu - self.a1**2
        if value < -1e-12 * max(self.nu, 1e-300):
            raise RuntimeError(f"b^2 = nu - a1^2 = {value:.3e} < 0: inconsistent Hermite data for {self.f}")
        return max(value, 0.0)

    def _repr_latex_(self) -> str:
        """Jupyter: the Hermite data with their closed forms (see :func:`symrmt.display.hermite_latex`)."""
        from ..display import hermite_latex

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
            raise ParameterError(f"a_{k} beyond a_2 needs an f given as a formula without parameters, not {self.f}")
        value, exact, _ = _coefficient_cached(sp.srepr(self.f), self.f, int(k), self.method, self.timeout)
        return value, exact


@lru_cache(maxsize=256)
def _coefficient_cached(key: str, expr: sp.Expr, k: int, method: str, timeout: float):  # noqa: ARG001
    value, exact, source = _coefficients(expr, (f"a{k}",), method, timeout)[f"a{k}"]
    return float(value), exact, source


def _check_options(center: bool, method: str, timeout: float) -> None:
    if not isinstance(center, (bool, np.bool_)):
        raise ParameterError(f"center must be True or False, got {center!r}")
    if method not in ("auto", "numeric"):
        raise ParameterError(f"method must be 'auto' (closed forms when possible) or 'numeric', got {method!r}")
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout <= 600):
        raise ParameterError(f"timeout must be a number of seconds in (0, 600], got {timeout!r}")


def hermite(
    f: str | sp.Expr | Callable, center: bool = False, *, method: str = "auto", timeout: float = 3.0,
    parameters: Sequence[str] | None = None,
) -> HermiteCoefficients:
    r"""Hermite coefficients :math:`a_0, a_1, a_2` and :math:`\nu = \mathbb E f(\xi)^2` of f.

    Parameters
    ----------
    f : str, sympy.Expr or callable
        The nonlinearity: a formula (parsed by :func:`parse_nonlinearity`), a SymPy
        expression (symbols other than x are parameters), or a Python callable acting
        entrywise on float64 arrays (``np.tanh``), whose data are numeric, with error
        estimates in ``error``.
    center : bool
        Subtract :math:`a_0 = \mathbb E f(\xi)` (exactly when it is known in closed
        form). Without it an f with :math:`|a_0| > 10^{-12}\max(1, \sqrt\nu)` is
        refused.
    method : {"auto", "numeric"}
        ``"auto"``: closed forms where found (see the module docstring), numeric
        otherwise; ``"numeric"``: quadrature only (``exact`` is all None).
    timeout : float
        Wall-clock budget in seconds for each SymPy integral (at most one integral
        per CPU runs at a time).
    parameters : sequence of str, optional
        Names in the formula that are parameters of f, e.g. ``["s"]`` for
        ``"erf(s*x)"``. The result then holds closed forms in the parameters where
        known (``exact``), its float fields are NaN, and
        :meth:`HermiteCoefficients.numeric` evaluates it at parameter values.

    Returns
    -------
    HermiteCoefficients

    Raises
    ------
    ParseError
        A formula outside the vocabulary (see :func:`parse_nonlinearity`).
    ParameterError
        A bad ``center``, ``method`` or ``timeout``.
    NonlinearityError
        An unusable f: not real, :math:`a_0 \ne 0` without
        ``center``, f not square-integrable under the Gaussian, f constant almost
        everywhere, or quadrature that does not converge (poles).

    Notes
    -----
    Cached per expression: a repeated call returns a fresh object at once. The
    first call for an f without known closed forms waits ``timeout`` seconds for
    SymPy (tanh and sigmoid skip SymPy: no closed form is known).

    Examples
    --------
    >>> h = hermite("erf(x)")
    >>> h.exact["a1"], h.source["nu"]
    (2*sqrt(3)/(3*sqrt(pi)), 'table')
    >>> hermite("tanh(x)").source
    {'a0': 'exact', 'a1': 'numeric', 'a2': 'exact', 'nu': 'numeric'}
    >>> hermite("erf(s*x)", parameters=["s"]).exact["nu"]
    2*asin(2*s**2/(2*s**2 + 1))/pi
    """
    _check_options(center, method, timeout)
    if callable(f) and not isinstance(f, (str, sp.Basic, sp.FunctionClass)):
        return _hermite_of_callable(f, bool(center))
    if isinstance(f, sp.FunctionClass):
        f = f(X)
    if parameters is not None or (isinstance(f, sp.Basic) and _extra_symbols(f)):
        names = None if parameters is None else tuple(s.name for s in parameter_symbols(parameters))
        with _library_errors_as_input_errors(f):
            data = _parametric_cached(f, names, bool(center), method, float(timeout))
        nan = float("nan")
        return HermiteCoefficients(f=data.f, a0=nan, a1=nan, a2=nan, nu=nan, exact=dict(data.exact),
                                   source=dict(data.source), method=method, timeout=float(timeout),
                                   parameters=data.parameters, center=data.center)   # fresh dicts: the cache is safe
    with _library_errors_as_input_errors(f):
        expr = parse_nonlinearity(f)
        fc, values, centered_by = _hermite_cached(sp.srepr(expr), expr, bool(center), method, float(timeout))
    return HermiteCoefficients(
        f=fc,
        **{k: float(values[k][0]) for k in KEYS},
        exact={k: values[k][1] for k in KEYS},
        source={k: values[k][2] for k in KEYS},
        centered_by=centered_by,
        method=method,
        timeout=float(timeout),
    )


@lru_cache(maxsize=64)
def _parametric_cached(f, names, center, method, timeout):
    return parametric_hermite(f, None if names is None else list(names), center, method, timeout)


def _numeric_at_point(f: sp.Expr, center: bool) -> "HermiteCoefficients":
    """The numeric Hermite data of f at one point of its parameters (for :meth:`HermiteCoefficients.numeric`)."""
    return hermite(f, center=center, method="numeric")


def _extra_symbols(f: sp.Basic) -> list[str]:
    return sorted(str(s) for s in f.free_symbols if getattr(s, "name", None) != "x")


def _hermite_of_callable(f: Callable, center: bool) -> HermiteCoefficients:
    """Numeric Hermite data of a Python callable, with error estimates (not cached: callables
    have no reliable identity)."""
    label = label_of(f)
    values, errors = callable_coefficients(f, label)
    a0, scale = values["a0"], max(1.0, math.sqrt(values["nu"]))
    if not center:
        if abs(a0) > max(A0_TOL * scale, 10 * errors["a0"]):
            raise NonlinearityError(
                f"f = {label} is not centered: a0 = E f(xi) = {a0:.15g} (error estimate {errors['a0']:.2g}), and the "
                "theory needs a0 = 0. Pass center=True (Python) or --center to subtract a0"
            )
        g = f
    else:
        g = numpy_callable(f, a0)
        values = {**values, "a0": 0.0, "nu": values["nu"] - a0**2}
        errors = {**errors, "nu": errors["nu"] + 2 * abs(a0) * errors["a0"]}
    return HermiteCoefficients(
        f=g, **values, exact={k: None for k in KEYS}, source={k: "numeric" for k in KEYS},
        centered_by=float(a0) if center else 0.0, method="numeric", error=errors, center=center,
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
def _hermite_cached(key: str, expr: sp.Expr, center: bool, method: str, timeout: float):  # noqa: ARG001
    """In-memory cache (keyed by ``srepr``) over the checked disk cache over the computation."""
    stored = cache.load(expr, center, method)
    if stored is not None:
        values, shift, centered_by = stored
        return (expr if shift is None else expr - shift), values, centered_by
    fc, values, centered_by, shift = _hermite_compute(expr, center, method, timeout)
    cache.store(expr, center, method, (values, shift, centered_by))
    return fc, values, centered_by
