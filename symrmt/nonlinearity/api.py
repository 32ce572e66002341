"""The public functions: :func:`hermite` and its result :class:`HermiteCoefficients`."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import sympy as sp
from mpmath.libmp import NoConvergence
from sympy.polys.polyerrors import BasePolynomialError

from symrmt.errors import NonlinearityError, ParameterError, SymrmtError

from . import cache
from .coefficients import _coefficients, _hermite_compute
from .constants import KEYS
from .parse import parse_nonlinearity

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

    Examples
    --------
    >>> h = hermite("x**3 - 3*x + x**2", center=True)
    >>> h.f, h.centered_by, h.exact["a2"], h.nu
    (x**3 + x**2 - 3*x - 1, 1.0, sqrt(2), 8.0)
    """

    f: sp.Expr
    a0: float
    a1: float
    a2: float
    nu: float
    exact: dict[str, sp.Expr | None] = field(hash=False)
    source: dict[str, str] = field(hash=False)
    centered_by: float = 0.0
    method: str = field(default="auto", compare=False, repr=False)
    timeout: float = field(default=3.0, compare=False, repr=False)

    @property
    def b2(self) -> float:
        r""":math:`b^2 = \nu - a_1^2 \ge 0` (tiny negative round-off is clipped to 0)."""
        value = self.nu - self.a1**2
        if value < -1e-12 * max(self.nu, 1e-300):
            raise RuntimeError(f"b^2 = nu - a1^2 = {value:.3e} < 0: inconsistent Hermite data for {self.f}")
        return max(value, 0.0)

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
    f: str | sp.Expr, center: bool = False, *, method: str = "auto", timeout: float = 3.0
) -> HermiteCoefficients:
    r"""Hermite coefficients :math:`a_0, a_1, a_2` and :math:`\nu = \mathbb E f(\xi)^2` of f.

    Parameters
    ----------
    f : str or sympy.Expr
        The nonlinearity (parsed by :func:`parse_nonlinearity`).
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
    """
    _check_options(center, method, timeout)
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
