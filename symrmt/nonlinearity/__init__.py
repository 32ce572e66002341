r"""The nonlinearity f: safe parsing, Hermite coefficients, and a small zoo.

Conventions
-----------
:math:`\xi \sim \mathcal N(0, 1)` and :math:`\mathrm{He}_k` are the probabilists'
Hermite polynomials (:math:`\mathrm{He}_0 = 1`, :math:`\mathrm{He}_1 = x`,
:math:`\mathrm{He}_2 = x^2 - 1`, :math:`\mathrm{He}_3 = x^3 - 3x`, ...), which satisfy
:math:`\mathbb E[\mathrm{He}_j(\xi)\mathrm{He}_k(\xi)] = k!\,\delta_{jk}`. The
Hermite coefficients are taken in the orthonormal convention

.. math::

    a_k = \frac{\mathbb E[f(\xi)\,\mathrm{He}_k(\xi)]}{\sqrt{k!}}, \qquad
    \nu = \mathbb E[f(\xi)^2] = \sum_{k \ge 0} a_k^2, \qquad b^2 = \nu - a_1^2,

so :math:`a_0 = \mathbb E f(\xi)`, :math:`a_1 = \mathbb E[\xi f(\xi)]` and
:math:`a_2 = \mathbb E[f(\xi)(\xi^2 - 1)]/\sqrt 2`. The theory needs
:math:`a_0 = 0`: :func:`hermite` refuses an f with
:math:`|a_0| > 10^{-12}\max(1, \sqrt\nu)` unless ``center=True`` (``--center`` on the
command line), which subtracts :math:`a_0` (exactly when its closed form is known).

Parsing
-------
A user string is never evaluated: :func:`parse_nonlinearity` walks Python's AST of
the string and accepts only the variable ``x``, the constants ``pi`` and ``E`` (or
``e``), int/float literals, ``+ - * / **``, unary ``+``/``-`` and calls of the
whitelisted functions in :data:`FUNCTIONS` with positional arguments. Decimal
literals are read as exact rationals (``0.5`` is 1/2) so closed forms stay exact.
``^`` is refused, not reinterpreted: in Python syntax it is XOR with a lower
precedence than ``+``, so ``x^2+1`` would silently mean ``x^(2+1)``; write ``**``.
Numeric exponents are limited to ``|p| <= 64``, inputs to 500 characters and 100
levels of nesting.

How each number is obtained
---------------------------
*Numerically*, always (except for polynomials, below): mpmath tanh-sinh quadrature at
30 significant digits over :math:`(-\infty, \infty)`, split at 0 and at the real
kinks of Abs/Max/Min/Heaviside/sign, checked against a second tanh-sinh rule on a
different partition of :math:`[-40, 40]`; the two must agree, and their error
estimates be below, :math:`10^{-13}\max(|a_k|, \sqrt\nu)`, else the f is refused
(poles, non-integrable singularities). Before that, f is refused as not
square-integrable when :math:`|x| f(x)^2 e^{-x^2/2}` has not died out at
:math:`|x| = 40` and 80. f is evaluated by a small mpmath interpreter of the SymPy
tree (no eval, no lambdify) whose intermediate overflows become :math:`\pm\infty`
(so ``sigmoid(x**3)`` still evaluates to its limits) and whose astronomically
large arguments are refused rather than computed for hours.

*Exactly*, when possible, in this order: polynomials of degree at most 64 (Gaussian
moments: exact by construction, so no quadrature is run); parity (odd f has
:math:`a_{2j} = 0`, even f has :math:`a_{2j+1} = 0`, and :math:`f(x) + f(-x) = 2c`
gives :math:`a_0 = c`); a small table (the :math:`c\operatorname{erf}(kx) + d`
family; tanh and sigmoid have no known closed form for :math:`a_1, \nu` and skip
SymPy); finally :func:`sympy.integrate`, term by term, in a child process per
integral (at most one per CPU, ``fork`` on Linux), stopped after ``timeout``
seconds of its own CPU time (``ITIMER_PROF``; where that does not exist, wall-clock
time), so the closed forms found do not depend on how busy the machine is (a wall
clock of ``WALL_CLOCK_FACTOR * timeout`` remains as a safety net). A closed form is
kept only if it is a finite real number that agrees with the quadrature to
:math:`10^{-12}`. ``source`` records ``"exact"`` (SymPy: integration, Gaussian
moments or parity), ``"table"`` or ``"numeric"``. Pass a larger ``timeout`` where
the exact form matters (a finished integral returns at once, the budget is only a ceiling).

Results are cached in memory per expression (keyed by ``srepr``) and on disk between
runs (``$SYMRMT_CACHE_DIR``, default ``~/.cache/symrmt``, ``off`` to disable), so
repeated calls are instant; the first call costs up to about ``timeout`` seconds (times the
number of integrals per CPU) when SymPy has to give up.
"""
from __future__ import annotations

import ast
import hashlib
import math
import multiprocessing as mp_ctx
import multiprocessing.connection as mp_connection
import os
import pathlib
import pickle
import signal
import sys
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Sequence

import mpmath
import numpy as np
import sympy as sp

from symrmt.codegen import numpy_function
from symrmt.cpus import usable_cpus
from symrmt.errors import SymrmtInputError

__all__ = [
    "X",
    "FUNCTIONS",
    "ZOO",
    "HermiteCoefficients",
    "parse_nonlinearity",
    "hermite",
    "numeric_callable",
]

#: The variable of every nonlinearity.
X: sp.Symbol = sp.Symbol("x", real=True)

_MAX_LEN = 500
_MAX_DEPTH = 100
_MAX_EXPONENT = 64
_MAX_CONSTANT = 10**100
_DPS = 30  # working precision of the quadrature (decimal digits)
_AGREE_RTOL = 1e-13  # two quadrature rules must agree to this (relative to max(|a_k|, sqrt(nu)))
_EXACT_RTOL = 1e-12  # a closed form must agree with the quadrature to this
_NU_MAX = 1e300  # E f^2 above this does not fit the float64 results
_NU_MIN = 1e-40  # E f^2 below this is "f = 0" (the check would otherwise compare round-off)
_A0_TOL = 1e-12  # |a_0| above this (times max(1, sqrt(nu))) is refused unless center=True
_ZERO_ATOL = 1e-20  # numeric values below this (relative to sqrt(nu)) count as zero when centering
_KEYS = ("a0", "a1", "a2", "nu")


# --------------------------------------------------------------------------- parsing


def _sigmoid(a: sp.Expr) -> sp.Expr:
    return 1 / (1 + sp.exp(-a))


def _leaky_relu(a: sp.Expr, slope: sp.Expr = sp.Rational(1, 100)) -> sp.Expr:
    return sp.Max(a, 0) + slope * sp.Min(a, 0)


#: Whitelisted function names: name -> (builder, minimum arity, maximum arity).
FUNCTIONS: dict[str, tuple[Callable[..., sp.Expr], int, int]] = {
    "exp": (sp.exp, 1, 1),
    "log": (sp.log, 1, 1),
    "ln": (sp.log, 1, 1),
    "sqrt": (sp.sqrt, 1, 1),
    "cbrt": (lambda a: sp.sign(a) * sp.Abs(a) ** sp.Rational(1, 3), 1, 1),
    "sin": (sp.sin, 1, 1),
    "cos": (sp.cos, 1, 1),
    "tan": (sp.tan, 1, 1),
    "sinh": (sp.sinh, 1, 1),
    "cosh": (sp.cosh, 1, 1),
    "tanh": (sp.tanh, 1, 1),
    "atan": (sp.atan, 1, 1),
    "arctan": (sp.atan, 1, 1),
    "asinh": (sp.asinh, 1, 1),
    "arcsinh": (sp.asinh, 1, 1),
    "erf": (sp.erf, 1, 1),
    "erfc": (sp.erfc, 1, 1),
    "Abs": (sp.Abs, 1, 1),
    "abs": (sp.Abs, 1, 1),
    "Max": (sp.Max, 1, 16),
    "max": (sp.Max, 1, 16),
    "Min": (sp.Min, 1, 16),
    "min": (sp.Min, 1, 16),
    "Heaviside": (sp.Heaviside, 1, 1),
    "sign": (sp.sign, 1, 1),
    "relu": (lambda a: sp.Max(a, 0), 1, 1),
    "leaky_relu": (_leaky_relu, 1, 2),
    "elu": (lambda a: sp.Max(a, 0) + sp.Min(sp.exp(a) - 1, 0), 1, 1),
    "gelu": (lambda a: a * (1 + sp.erf(a / sp.sqrt(2))) / 2, 1, 1),
    "sigmoid": (_sigmoid, 1, 1),
    "softplus": (lambda a: sp.log(1 + sp.exp(a)), 1, 1),
    "silu": (lambda a: a * _sigmoid(a), 1, 1),
    "swish": (lambda a: a * _sigmoid(a), 1, 1),
    "softsign": (lambda a: a / (1 + sp.Abs(a)), 1, 1),
}

# Builders whose SymPy constructors compare their arguments (see _Builder._call).
_COMPARING = {"Abs", "abs", "Max", "max", "Min", "min", "Heaviside", "sign", "relu", "leaky_relu", "elu", "cbrt",
              "softsign"}

_NAMES: dict[str, sp.Expr] = {"x": X, "pi": sp.pi, "E": sp.E, "e": sp.E}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: None,  # handled by _power (exponent size check)
}

_VOCABULARY = (
    "allowed: the variable x; constants pi, E (or e); int/float numbers; "
    "+ - * / ** and parentheses; functions " + ", ".join(sorted(FUNCTIONS, key=str.lower))
)


def _refuse(src: str, node: ast.AST | None, what: str) -> SymrmtInputError:
    snippet = ast.get_source_segment(src, node) if node is not None else None
    token = f" {snippet[:60]!r}" if snippet else ""
    return SymrmtInputError(f"cannot parse nonlinearity {src[:80]!r}: {what}{token} is not allowed ({_VOCABULARY})")


def _constant_value(value: sp.Expr, src: str):
    """The value of a constant subexpression, by the guarded evaluator: SymPy itself would
    happily spend hours on ``exp(exp(exp(64)))`` when asked to compare or round it."""
    try:
        with mpmath.workdps(_DPS):
            v = _mp_compile(value)(None)
        if not mpmath.isfinite(v):
            raise _Overflow(f"value {v}")
        return v
    except _Overflow as exc:
        raise SymrmtInputError(
            f"cannot parse nonlinearity {src[:80]!r}: the constant {str(value)[:60]!r} is astronomically "
            f"large ({exc})"
        ) from None
    except (ZeroDivisionError, ValueError, TypeError, AttributeError) as exc:
        raise SymrmtInputError(
            f"cannot parse nonlinearity {src[:80]!r}: bad constant {str(value)[:60]!r} ({exc})"
        ) from None


def _power(base: sp.Expr, exponent: sp.Expr, src: str, node: ast.AST) -> sp.Expr:
    if X not in exponent.free_symbols and abs(_constant_value(exponent, src)) > _MAX_EXPONENT:
        raise SymrmtInputError(
            f"cannot parse nonlinearity {src[:80]!r}: exponent in {ast.get_source_segment(src, node)!r} "
            f"is larger than {_MAX_EXPONENT} in absolute value; use a smaller power"
        )
    if base.is_Rational and exponent.is_Integer and base not in (0, 1, -1):
        bits = abs(int(exponent)) * max(abs(base.p).bit_length(), base.q.bit_length())
        if bits > 4096:
            raise SymrmtInputError(
                f"cannot parse nonlinearity {src[:80]!r}: the number {ast.get_source_segment(src, node)!r} "
                "is too large (more than 4096 bits)"
            )
    return base**exponent


class _Builder:
    """Walk a Python AST and build the SymPy expression, refusing anything not whitelisted."""

    def __init__(self, src: str):
        self.src = src

    def build(self, node: ast.AST, depth: int = 0) -> sp.Expr:
        value = self._build(node, depth)
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise SymrmtInputError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {ast.get_source_segment(self.src, node)!r} is "
                "infinite or undefined (division by zero?)"
            )
        if X not in value.free_symbols:
            self._check_constant(value, node)
        return value

    def _check_constant(self, value: sp.Expr, node: ast.AST) -> None:
        """Constants must be real and at most 1e100 in size: checked bottom-up by the guarded
        evaluator before SymPy sees them, because SymPy's own comparisons of, e.g.,
        ``tan(1/(1 + exp(10**200)))`` can run for hours."""
        v = value if value.is_Rational else _constant_value(value, self.src)
        if isinstance(v, mpmath.mpc) and abs(v.imag) > 1e-25 * (1 + abs(v.real)):
            raise SymrmtInputError(
                f"cannot parse nonlinearity {self.src[:80]!r}: the constant {ast.get_source_segment(self.src, node)!r} "
                "is not real; f must be real-valued"
            )
        if abs(v) > _MAX_CONSTANT:
            raise SymrmtInputError(
                f"cannot parse nonlinearity {self.src[:80]!r}: the constant {ast.get_source_segment(self.src, node)!r} "
                "is larger than 1e100 in absolute value"
            )

    def _build(self, node: ast.AST, depth: int) -> sp.Expr:
        if depth > _MAX_DEPTH:
            raise SymrmtInputError(f"nonlinearity is nested more than {_MAX_DEPTH} levels deep; simplify it")
        if isinstance(node, ast.Expression):
            return self.build(node.body, depth + 1)
        if isinstance(node, ast.BinOp):
            return self._binop(node, depth)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self.build(node.operand, depth + 1)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Constant):
            return self._constant(node)
        if isinstance(node, ast.Name):
            if node.id in _NAMES:
                return _NAMES[node.id]
            raise _refuse(self.src, node, "unknown name")
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise _refuse(self.src, node, f"{type(node).__name__} syntax")

    def _binop(self, node: ast.BinOp, depth: int) -> sp.Expr:
        if type(node.op) not in _BINOPS:
            if isinstance(node.op, ast.BitXor):
                raise SymrmtInputError(
                    f"cannot parse nonlinearity {self.src[:80]!r}: '^' is XOR in Python syntax (and binds "
                    "looser than +); write powers with '**', e.g. x**3 - 3*x"
                )
            raise _refuse(self.src, node, f"operator {type(node.op).__name__} in")
        left, right = self.build(node.left, depth + 1), self.build(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            return _power(left, right, self.src, node)
        if isinstance(node.op, ast.Div) and right == 0:
            raise SymrmtInputError(f"nonlinearity {self.src[:80]!r} divides by zero")
        return _BINOPS[type(node.op)](left, right)

    def _constant(self, node: ast.Constant) -> sp.Expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _refuse(self.src, node, f"{type(value).__name__} literal")
        if isinstance(value, int):
            return sp.Integer(value)
        if not math.isfinite(value):
            raise _refuse(self.src, node, "non-finite number")
        text = ast.get_source_segment(self.src, node) or repr(value)
        try:
            return sp.Rational(text.replace("_", ""))
        except (TypeError, ValueError):  # pragma: no cover - Python literals are valid decimals
            return sp.Rational(repr(value))

    def _call(self, node: ast.Call, depth: int) -> sp.Expr:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise _refuse(self.src, node.func, "unknown function")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _refuse(self.src, node, "keyword or starred argument in")
        builder, lo, hi = FUNCTIONS[node.func.id]
        if not lo <= len(node.args) <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            raise SymrmtInputError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {node.func.id} takes {want} argument(s), "
                f"got {len(node.args)}"
            )
        args = [self.build(a, depth + 1) for a in node.args]
        if node.func.id in _COMPARING:
            for arg, arg_node in zip(args, node.args):
                if X not in arg.free_symbols and any(not p.exp.is_Rational for p in arg.atoms(sp.Pow)):
                    raise SymrmtInputError(
                        f"cannot parse nonlinearity {self.src[:80]!r}: the constant argument "
                        f"{ast.get_source_segment(self.src, arg_node)!r} of {node.func.id} has a non-rational "
                        "power, which SymPy may take unbounded time to compare; give its value as a decimal"
                    )
        try:
            return builder(*args)
        except (ValueError, TypeError, ArithmeticError) as exc:  # e.g. SymPy's Max of incomparable constants
            raise SymrmtInputError(
                f"cannot parse nonlinearity {self.src[:80]!r}: {ast.get_source_segment(self.src, node)!r} "
                f"cannot be built ({exc})"
            ) from None


def _parse_string(src: str) -> sp.Expr:
    text = src.strip()
    if not text:
        raise SymrmtInputError("nonlinearity is empty; give an expression in x such as 'tanh(x)'")
    if len(text) > _MAX_LEN:
        raise SymrmtInputError(f"nonlinearity is {len(text)} characters long; at most {_MAX_LEN} are accepted")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise SymrmtInputError(
            f"cannot parse nonlinearity {text[:80]!r}: {reason}; write a formula in x such as 'tanh(x)' "
            f"({_VOCABULARY})"
        ) from None
    try:
        return _Builder(text).build(tree)
    except RecursionError:
        raise SymrmtInputError(f"nonlinearity {text[:80]!r} is nested too deeply; simplify it") from None


def _from_sympy(expr: sp.Basic) -> sp.Expr:
    if not isinstance(expr, sp.Expr):
        raise SymrmtInputError(f"nonlinearity must be a SymPy expression in x, got {type(expr).__name__}")
    others = [s for s in expr.free_symbols if s.name != "x"]
    if others:
        names = ", ".join(sorted(str(s) for s in others))
        raise SymrmtInputError(f"nonlinearity has free symbols {names}; it must depend on x only (substitute numbers)")
    return expr.xreplace({s: X for s in expr.free_symbols})


_REAL_PROBES = (-5.3, -2.9, -1.3, -0.7, -0.1, 0.1, 0.7, 1.3, 2.9, 5.3)


def _check_real(expr: sp.Expr, label: str) -> None:
    try:
        fn = _mp_compile(expr)
    except _Overflow as exc:
        raise SymrmtInputError(f"nonlinearity {label} contains an astronomically large constant ({exc})") from None
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise SymrmtInputError(f"nonlinearity {label} contains a constant that cannot be evaluated ({exc})") from None
    with mpmath.workdps(_DPS):
        for t in _REAL_PROBES:
            try:
                value = fn(mpmath.mpf(t))
            except _NotReal as exc:
                raise SymrmtInputError(
                    f"nonlinearity {label} is not real-valued (a part of it is {exc} at x = {t}); use a real "
                    "version such as log(Abs(x)) for log(x), sqrt(Abs(x)) for sqrt(x), cbrt(x) for x**(1/3)"
                ) from None
            except _Overflow as exc:
                raise SymrmtInputError(
                    f"nonlinearity {label} cannot be evaluated at x = {t} ({exc}): it is astronomically large "
                    "there and cannot be square-integrable under the Gaussian"
                ) from None
            except (ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
                raise SymrmtInputError(f"nonlinearity {label} cannot be evaluated at x = {t}: {exc}") from None
            if isinstance(value, mpmath.mpc) and abs(value.imag) > 1e-20 * (1 + abs(value.real)):
                raise SymrmtInputError(
                    f"nonlinearity {label} is not real-valued (f({t}) = {mpmath.nstr(value, 6)}); use a real "
                    "version such as log(Abs(x)) for log(x), sqrt(Abs(x)) for sqrt(x), cbrt(x) for x**(1/3)"
                )
            if not mpmath.isfinite(value):
                raise SymrmtInputError(
                    f"nonlinearity {label} is infinite or undefined at x = {t} (value {value}): it cannot be "
                    "square-integrable under the Gaussian"
                )


def parse_nonlinearity(f: str | sp.Expr) -> sp.Expr:
    r"""Turn a user's nonlinearity into a real SymPy expression in :data:`X`.

    Strings are parsed by a whitelist walk of their Python AST (never evaluated):
    see the module docstring and :data:`FUNCTIONS` for the vocabulary. A SymPy
    expression is accepted if its only free symbol is named ``x`` (any
    assumptions; it is replaced by :data:`X`).

    Parameters
    ----------
    f : str or sympy.Expr
        The nonlinearity, e.g. ``"tanh(x)"`` or ``"relu(x) - 1/sqrt(2*pi)"``.

    Returns
    -------
    sympy.Expr
        The expression :math:`f(x)`, real for real x and depending on x.

    Raises
    ------
    SymrmtInputError
        For anything outside the vocabulary (the message names the offending
        token and lists what is allowed), an f that does not depend on x, or an
        f that is not real-valued.

    Examples
    --------
    >>> parse_nonlinearity("relu(x) - 0.5")
    Max(0, x) - 1/2
    >>> parse_nonlinearity("__import__('os')")
    Traceback (most recent call last):
    ...
    symrmt.errors.SymrmtInputError: cannot parse nonlinearity "__import__('os')": unknown function '__import__' is not allowed (...)
    """
    if isinstance(f, str):
        return _parse_string_cached(f)
    if isinstance(f, sp.Basic):
        return _validate(_from_sympy(f), repr(str(f)[:80]))
    raise SymrmtInputError(f"nonlinearity must be a string or a SymPy expression, got {type(f).__name__}")


@lru_cache(maxsize=512)
def _parse_string_cached(src: str) -> sp.Expr:
    name = src.strip()
    if name in FUNCTIONS and FUNCTIONS[name][1] <= 1 <= FUNCTIONS[name][2]:
        src = f"{name}(x)"                     # a bare function name means that function of x
    return _validate(_parse_string(src), repr(src.strip()[:80]))


def _validate(expr: sp.Expr, label: str) -> sp.Expr:
    if X not in expr.free_symbols:
        raise SymrmtInputError(
            f"nonlinearity {label} does not depend on x (it is the constant {expr}); attention needs a "
            "non-constant f such as tanh(x)"
        )
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan, sp.I):
        raise SymrmtInputError(f"nonlinearity {label} contains an infinite, undefined or imaginary constant")
    _check_real(expr, label)
    return expr


# ------------------------------------------------------------- mpmath evaluation


class _NotReal(ArithmeticError):
    """f took a non-real value."""


class _Overflow(ArithmeticError):
    """f (or a part of it) cannot be evaluated at a sane cost: a complex value of
    astronomical size, or a periodic function of an astronomically large argument."""


# Real values beyond _HUGE, and exp/sinh/cosh/powers of size beyond exp(_EXP_MAX), become
# +-inf (IEEE-like, so that e.g. sigmoid(x**3) = 1/(1 + exp(-x**3)) still evaluates to its
# limit 0 at x = -40); an inf or nan that reaches the value of f is refused by the caller.
# Without these bounds mpmath would work for hours on exp(exp(exp(exp(x)))).
_EXP_MAX = 10**6
_HUGE = mpmath.mpf(10) ** 100000
_PERIODIC_MAX = mpmath.mpf(10) ** 100  # sin/cos/tan beyond this are refused (argument reduction cost)


def _guard(v):
    if abs(v) > _HUGE:
        if isinstance(v, mpmath.mpc):
            raise _Overflow(f"a complex value of size {mpmath.nstr(abs(v), 3)}")
        return mpmath.inf if v > 0 else -mpmath.inf
    return v


def _exp(a):
    re = mpmath.re(a)
    if re > _EXP_MAX:
        if isinstance(a, mpmath.mpc):
            raise _Overflow(f"exp of {mpmath.nstr(a, 3)}")
        return mpmath.inf
    return mpmath.mpf(0) if re < -_EXP_MAX else mpmath.exp(a)


def _hyperbolic(fn, odd: bool):
    def wrapped(a):
        if isinstance(a, mpmath.mpf) and abs(a) > _EXP_MAX:
            return mpmath.inf if (a > 0 or not odd) else -mpmath.inf
        return fn(a)

    return wrapped


def _periodic(name: str, fn):
    def wrapped(a):
        if mpmath.isinf(a) or abs(a) > _PERIODIC_MAX:
            raise _Overflow(f"{name} of {mpmath.nstr(a, 3)}")
        return fn(a)

    return wrapped


def _pow(b, e):
    if b != 0 and mpmath.isfinite(b) and mpmath.isfinite(e) and not (mpmath.isint(e) and abs(e) <= _MAX_EXPONENT):
        size = mpmath.re(e * mpmath.log(b))
        if size > _EXP_MAX:
            if b < 0:
                raise _Overflow(f"a negative number to the power {mpmath.nstr(e, 3)}")
            return mpmath.inf
        if size < -_EXP_MAX:
            return mpmath.mpf(0)
    return b**e


_MP_FUNCS: dict[type, Callable] = {
    sp.exp: _exp,
    sp.log: mpmath.log,
    sp.sin: _periodic("sin", mpmath.sin),
    sp.cos: _periodic("cos", mpmath.cos),
    sp.tan: _periodic("tan", mpmath.tan),
    sp.sinh: _hyperbolic(mpmath.sinh, odd=True),
    sp.cosh: _hyperbolic(mpmath.cosh, odd=False),
    sp.tanh: mpmath.tanh,
    sp.atan: mpmath.atan,
    sp.asinh: mpmath.asinh,
    sp.erf: mpmath.erf,
    sp.erfc: mpmath.erfc,
    sp.Abs: abs,
    sp.sign: mpmath.sign,
}


def _real(v):
    if isinstance(v, mpmath.mpc):
        if abs(v.imag) > mpmath.mpf(10) ** (-_DPS + 5) * (1 + abs(v.real)):
            raise _NotReal(mpmath.nstr(v, 8))
        return v.real
    return v


def _to_mp(value: sp.Expr):
    """A constant SymPy expression as an mpmath number with _DPS + 10 digits (mpc if not real)."""
    re, im = sp.N(value, _DPS + 10).as_real_imag()
    with mpmath.workdps(_DPS + 10):
        re_mp, im_mp = (mpmath.mpf(sp.Float(part, _DPS + 10)._mpf_) for part in (re, im))
        return re_mp if im_mp == 0 else mpmath.mpc(re_mp, im_mp)


def _mp_compile(expr: sp.Expr) -> Callable:
    """A closure evaluating ``expr`` at an mpmath number (no eval, no lambdify).

    Constant subexpressions are evaluated once, at 10 extra digits. Every value is
    guarded: astronomically large intermediate results raise ``_Overflow`` instead
    of making mpmath work for hours (think ``exp(exp(exp(exp(x))))``).
    """
    if expr == X:
        return lambda t: t
    if expr.is_Number or isinstance(expr, (sp.NumberSymbol, sp.core.numbers.ImaginaryUnit)):
        value = _to_mp(expr)
        return lambda t: value
    fn = _mp_node(expr)
    if X in expr.free_symbols:
        return lambda t: _guard(fn(t))
    with mpmath.workdps(_DPS + 10):
        value = _guard(fn(None))
    return lambda t: value


def _mp_node(expr: sp.Expr) -> Callable:
    if isinstance(expr, sp.Piecewise) or not all(isinstance(a, sp.Expr) for a in expr.args):
        return _mp_fallback(expr)
    parts = [_mp_compile(a) for a in expr.args]
    if isinstance(expr, sp.Add):
        return lambda t: mpmath.fsum(p(t) for p in parts)
    if isinstance(expr, sp.Mul):
        return lambda t: mpmath.fprod(p(t) for p in parts)
    if isinstance(expr, sp.Pow):
        base, ex = parts
        n = int(expr.exp) if expr.exp.is_Integer and abs(expr.exp) <= _MAX_EXPONENT else None
        return (lambda t: base(t) ** n) if n is not None else (lambda t: _pow(base(t), ex(t)))
    if type(expr) in (sp.Max, sp.Min):
        pick = max if isinstance(expr, sp.Max) else min
        return lambda t: pick(_real(p(t)) for p in parts)
    if isinstance(expr, sp.Heaviside):
        arg, h0 = parts[0], (parts[1] if len(parts) > 1 else (lambda t: mpmath.mpf(1) / 2))
        return lambda t: (lambda a: mpmath.mpf(a > 0) if a != 0 else h0(t))(_real(arg(t)))
    if type(expr) in _MP_FUNCS and len(parts) == 1:
        fn, (arg,) = _MP_FUNCS[type(expr)], parts

        def call(t):
            try:
                return fn(arg(t))
            except OverflowError as exc:  # e.g. mpmath's erfc at 1e4000
                raise _Overflow(str(exc)) from None

        return call
    return _mp_fallback(expr)


def _mp_fallback(expr: sp.Expr) -> Callable:
    """Anything else (Piecewise, a special function from a SymPy input): let SymPy evaluate."""
    if X not in expr.free_symbols:
        value = _to_mp(expr)
        return lambda t: value
    return lambda t: _to_mp(expr.xreplace({X: sp.Float(t, _DPS + 5)}))


# ------------------------------------------------------------------ quadrature


def _kinks(expr: sp.Expr) -> list[float]:
    """0, and the real roots of polynomial arguments of Abs/sign/Heaviside and of Max/Min differences."""
    found = {0.0}
    candidates: list[sp.Expr] = []
    for node in expr.atoms(sp.Abs, sp.sign, sp.Heaviside, sp.Max, sp.Min):
        args = node.args[:1] if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)) else node.args
        if isinstance(node, (sp.Max, sp.Min)):
            candidates += [a - b for i, a in enumerate(args) for b in args[i + 1 :]]
        else:
            candidates += list(args)
    for c in candidates:
        if 0 < (_degree_bound(c) or 0) <= 4:
            for r in sp.Poly(c, X).nroots(n=20):
                if r.is_real and abs(r) < 40:
                    found.add(float(r))
    return sorted(found)


_CUTOFF = 100  # beyond |x| = 100 the integrands are taken as 0 (exp(-x^2/2) < 1e-2171; see _tail_check)


class _Memo:
    """f and the Gaussian weight at mpmath points, remembered (the Hermite integrals share
    their quadrature nodes), and the verified integrals already computed for this f."""

    def __init__(self, expr: sp.Expr, label: str):
        self.fn, self.values, self.label = _mp_compile(expr), {}, label
        self.kinks, self.results, self.tails_checked = _kinks(expr), {}, False

    def __call__(self, t):
        """(f(t), exp(-t^2/2))."""
        v = self.values.get(t)
        if v is None:
            v = self.values[t] = (self._evaluate(t), mpmath.exp(-t * t / 2))
        return v

    def _evaluate(self, t):
        where = f"nonlinearity {self.label} at x = {mpmath.nstr(t, 8)}"
        try:
            v = _real(self.fn(t))
            if not mpmath.isfinite(v):
                raise _Overflow(f"value {v}")
            return v
        except _NotReal as exc:
            raise SymrmtInputError(f"{where} is not real ({exc}); use e.g. log(Abs(x)) instead of log(x)") from None
        except _Overflow as exc:
            raise SymrmtInputError(
                f"{where} is infinite, undefined or astronomically large ({exc}): f is not square-integrable "
                "under the Gaussian, or not evaluable there"
            ) from None
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            why = str(exc) or type(exc).__name__
            raise SymrmtInputError(f"{where} cannot be evaluated ({why}): a pole on the real line?") from None


def _hermite_poly_mp(k: int, t):
    h0, h1 = mpmath.mpf(1), t
    if k == 0:
        return h0
    for n in range(1, k):
        h0, h1 = h1, t * h1 - n * h0
    return h1


def _tail_check(memo: _Memo) -> None:
    """Refuse f whose f(x)^2 exp(-x^2/2) has not died out at |x| = 40 and 80 (not square-integrable).

    Both quadrature rules (and the cutoff at |x| = 100) rely on this: beyond 80 the
    integrands are assumed to keep decaying."""
    h = lambda t: abs(memo(mpmath.mpf(t))[0]) ** 2 * memo(mpmath.mpf(t))[1]  # noqa: E731
    bulk = max(h(t) for t in _REAL_PROBES)
    for t in (-80, -40, 40, 80):
        tail = abs(t) * h(t)
        if tail > mpmath.mpf(10) ** -16 * max(bulk, mpmath.mpf(10) ** -300):
            raise SymrmtInputError(
                f"nonlinearity {memo.label} is not square-integrable under the Gaussian, or too heavy-tailed for "
                f"reliable quadrature: |x| f(x)^2 exp(-x^2/2) = {mpmath.nstr(tail, 3)} at x = {t}. "
                "E f(xi)^2 must be finite: use an f that grows slower than exp(x^2/4), e.g. tanh, erf, a polynomial"
            )
    memo.tails_checked = True


def _quadrature(memo: _Memo, key: str):
    """The value of ``key`` (a_k or nu) by two tanh-sinh rules on different partitions, and an error bound."""
    k = None if key == "nu" else int(key[1:])
    norm = mpmath.sqrt(2 * mpmath.pi) * (1 if k is None else mpmath.sqrt(mpmath.factorial(k)))

    def integrand(t):
        if abs(t) > _CUTOFF:
            return mpmath.mpf(0)
        f, w = memo(t)
        return f * f * w if k is None else f * _hermite_poly_mp(k, t) * w

    inner = [mpmath.mpf(p) for p in memo.kinks]
    coarse = sorted({-40.0, -12.0, -4.0, 4.0, 12.0, 40.0, *memo.kinks})
    v1, e1 = mpmath.quad(integrand, [-mpmath.inf, *inner, mpmath.inf], error=True)
    v2, e2 = mpmath.quad(integrand, [mpmath.mpf(p) for p in coarse], error=True)
    return v1 / norm, v2 / norm, max(e1, e2) / norm


@lru_cache(maxsize=64)
def _memo_for(key: str, expr: sp.Expr, label: str) -> _Memo:  # noqa: ARG001 - key carries the identity
    return _Memo(expr, label)


def _numeric(expr: sp.Expr, keys: Sequence[str], label: str) -> dict[str, mpmath.mpf]:
    """Verified 30-digit quadrature values of ``keys`` (``nu`` always included); cached per f."""
    memo = _memo_for(sp.srepr(expr), expr, label)
    with mpmath.workdps(_DPS):
        if not memo.tails_checked:
            _tail_check(memo)
        for key in ("nu", *[k for k in keys if k != "nu"]):
            if key not in memo.results:
                memo.results[key] = _verified(memo, key)
    return {key: memo.results[key] for key in ("nu", *keys)}


def _verified(memo: _Memo, key: str):
    v1, v2, err = _quadrature(memo, key)
    if key == "nu" and max(abs(v1), abs(v2)) < _NU_MIN:
        raise SymrmtInputError(
            f"nonlinearity {memo.label} is zero almost everywhere (E f(xi)^2 = {mpmath.nstr(v1, 3)}); "
            "attention needs a non-constant f such as tanh(x)"
        )
    if key == "nu" and v1 > _NU_MAX:
        raise SymrmtInputError(
            f"nonlinearity {memo.label} is too large in scale (E f(xi)^2 = {mpmath.nstr(v1, 3)} does not fit in "
            "a float64): rescale f"
        )
    scale = max(abs(v1), mpmath.sqrt(abs(memo.results.get("nu", v1))))
    if not (mpmath.isfinite(v1) and abs(v1 - v2) <= _AGREE_RTOL * scale and err <= _AGREE_RTOL * scale):
        raise SymrmtInputError(
            f"quadrature of {key} for nonlinearity {memo.label} did not converge (two rules give "
            f"{mpmath.nstr(v1, 15)} and {mpmath.nstr(v2, 15)}): f may have a pole or a non-integrable "
            "singularity on the real line, or grow too fast; use a bounded or polynomially growing f"
        )
    return v1


# --------------------------------------------------------------- exact values


def _moment(j: int) -> sp.Integer:
    """E xi^j for xi ~ N(0,1): (j-1)!! for even j, 0 for odd j."""
    return sp.Integer(0) if j % 2 else sp.factorial2(j - 1)


def _gaussian_expectation_poly(p: sp.Expr) -> sp.Expr:
    poly = sp.Poly(p, X)
    return sum((c * _moment(m[0]) for m, c in zip(poly.monoms(), poly.coeffs())), sp.S.Zero)


def _integrand(expr: sp.Expr, key: str) -> sp.Expr:
    if key == "nu":
        return expr**2
    k = int(key[1:])
    return expr * sp.hermite_prob(k, X) / sp.sqrt(sp.factorial(k))


_POLY_MAX_DEGREE = 64


def _degree_bound(expr: sp.Expr) -> int | None:
    """An upper bound on the degree of ``expr`` in x if it is visibly a polynomial, else None
    (computed structurally: expanding ((x+1)**64 + 1)**64 to find out would take forever)."""
    if X not in expr.free_symbols:
        return 0
    if expr == X:
        return 1
    if isinstance(expr, (sp.Add, sp.Mul)):
        parts = [_degree_bound(a) for a in expr.args]
        if any(p is None for p in parts):
            return None
        return max(parts) if isinstance(expr, sp.Add) else sum(parts)
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer and expr.exp >= 0:
        base = _degree_bound(expr.base)
        return None if base is None else base * int(expr.exp)
    return None


def _polynomial_exact(expr: sp.Expr, keys: Sequence[str]) -> dict[str, sp.Expr]:
    """Exact values for a polynomial f of degree <= 64, from the Gaussian moments."""
    degree = _degree_bound(expr)
    if degree is None or degree > _POLY_MAX_DEGREE:
        return {}
    return {key: _gaussian_expectation_poly(_integrand(expr, key)) for key in keys}


def _parity_candidates(expr: sp.Expr) -> tuple[bool, bool]:
    """(f looks like constant + odd, f looks even), judged at a few points at 30 digits."""
    try:
        fn = _mp_compile(expr)
        with mpmath.workdps(_DPS):
            pts = [mpmath.mpf(t) for t in (0.3, 1.1, 2.7)]
            sums = [_real(fn(t)) + _real(fn(-t)) for t in pts]
            diffs = [_real(fn(t)) - _real(fn(-t)) for t in pts]
            tol = mpmath.mpf(10) ** -20 * (1 + max(abs(v) for v in sums + diffs))
            return max(abs(v - sums[0]) for v in sums) < tol, max(abs(d) for d in diffs) < tol
    except (ArithmeticError, ValueError, TypeError):
        return False, False


def _parity_exact(expr: sp.Expr, keys: Sequence[str], timeout: float) -> dict[str, sp.Expr]:
    """Zeros (and a_0) implied by f(x) + f(-x) = 2c (f = c + odd: a_0 = c, even a_k = 0) or by
    f(x) = f(-x) (odd a_k = 0). SymPy's automatic evaluation usually proves it (tanh(-x) is
    -tanh(x)); otherwise simplify() runs in a child process under the time budget."""
    odd_plus_c, even = _parity_candidates(expr)
    mirrored, out = expr.xreplace({X: -X}), {}
    if odd_plus_c:
        both = expr + mirrored
        if X in both.free_symbols:
            both = _run_limited(_simplify_worker, both, min(timeout, 2.0))
        if both is not None and X not in both.free_symbols:
            out.update({k: sp.S.Zero for k in keys if k not in ("nu", "a0") and int(k[1:]) % 2 == 0})
            out.update({"a0": both / 2} if "a0" in keys else {})
    if even:
        diff = expr - mirrored
        if diff != 0:
            diff = _run_limited(_simplify_worker, diff, min(timeout, 2.0))
        if diff == 0:
            out.update({k: sp.S.Zero for k in keys if k != "nu" and int(k[1:]) % 2 == 1})
    return out


def _match(expr: sp.Expr, template: Callable[[sp.Expr], sp.Expr]):
    """(c, k, d) with expr == c * template(k x) + d for real numbers c, k != 0 and d; else None."""
    c, k, d = (sp.Wild(n, exclude=[X]) for n in "ckd")
    m = expr.match(c * template(k * X) + d)
    if not m or any(m.get(w) is None or not m[w].is_number or not m[w].is_real for w in (c, k, d)):
        return None
    return (m[c], m[k], m[d]) if m[c] != 0 and m[k] != 0 else None


def _table_exact(expr: sp.Expr, keys: Sequence[str]) -> tuple[dict[str, sp.Expr], set[str]]:
    r"""Known closed forms, and the keys known to have none (SymPy is then not tried).

    - :math:`c\,\operatorname{erf}(kx) + d`: :math:`a_0 = d`, :math:`a_1 = 2ck/\sqrt{\pi(1+2k^2)}`,
      :math:`a_2 = 0`, :math:`\nu = c^2 \tfrac{2}{\pi}\arcsin\tfrac{2k^2}{1+2k^2} + d^2`.
    - :math:`c\tanh(kx) + d` and :math:`c/(1+e^{kx}) + d` (sigmoids, :math:`= c/2 + d - (c/2)\tanh(kx/2)`):
      :math:`a_0` and the even :math:`a_{2j} = 0` are exact; no closed form is known for :math:`a_1`, :math:`\nu`
      or the odd coefficients.
    """
    m = _match(expr, sp.erf)
    if m:
        c, k, d = m
        r = 2 * k**2 / (1 + 2 * k**2)
        table = {"a0": d, "a1": 2 * c * k / sp.sqrt(sp.pi * (1 + 2 * k**2)), "a2": sp.S.Zero}
        table["nu"] = c**2 * 2 / sp.pi * sp.asin(r) + d**2
        return {key: table[key] for key in keys if key in table}, set()
    odd = {"nu"} | {key for key in keys if key != "nu" and int(key[1:]) % 2 == 1}
    for template, mean in ((sp.tanh, lambda c, d: d), (lambda u: 1 / (1 + sp.exp(u)), lambda c, d: c / 2 + d)):
        m = _match(expr, template)
        if m:
            c, _, d = m
            even = {key: sp.S.Zero for key in keys if key != "nu" and int(key[1:]) % 2 == 0}
            even.update({"a0": mean(c, d)} if "a0" in keys else {})
            return even, odd & set(keys)
    return {}, set()


# ---------------------------------------------------- symbolic, in a subprocess


def _symbolic_worker(conn, expr: sp.Expr, key: str) -> None:  # pragma: no cover - runs in a child process
    """Child process: integrate term by term, send the raw result, then a simplified one.

    An f with Abs/Max/Min/sign/Heaviside is integrated over the two half-lines with x = +-p,
    p > 0, so that SymPy's assumptions resolve the kinks at 0 (much faster than Piecewise)."""
    integrand, phi = sp.expand(_integrand(expr, key)), lambda v: sp.exp(-(v**2) / 2) / sp.sqrt(2 * sp.pi)
    if expr.has(sp.Abs, sp.Max, sp.Min, sp.sign, sp.Heaviside):
        p = sp.Symbol("p", positive=True)
        pieces = [(sp.expand(integrand.xreplace({X: sign * p})), p, 0) for sign in (1, -1)]
    else:
        pieces = [(integrand, X, -sp.oo)]
    result = sp.S.Zero
    for g, var, lower in pieces:
        for term in sp.Add.make_args(g):
            part = sp.integrate(term * phi(var), (var, lower, sp.oo))
            if part.has(sp.Integral):
                conn.send(None)
                return
            result += part
    conn.send(result)
    options = [result, sp.simplify(result)]
    if result.has(sp.erfc):
        options.append(sp.simplify(result.rewrite(sp.erf)))
    conn.send(min(options, key=sp.count_ops))


def _simplify_worker(conn, expr: sp.Expr) -> None:  # pragma: no cover - runs in a child process
    conn.send(sp.simplify(sp.expand(expr)))


def _context():
    """fork on Linux: instant, and unlike spawn/forkserver it does not re-import the user's
    ``__main__`` (a script without a ``__name__`` guard would otherwise recurse). The
    children run only pure-Python SymPy and exit, so the usual fork hazards (locks held
    by other threads, BLAS thread pools) do not apply. Elsewhere: spawn."""
    if sys.platform.startswith("linux"):
        return mp_ctx.get_context("fork")
    return mp_ctx.get_context("spawn")


#: Where the child can limit its own CPU time, the wall-clock deadline is only a safety net
#: of this many budgets (a child starved by other processes still gets its full CPU budget).
WALL_CLOCK_FACTOR = 10.0


def _cpu_limited(conn, cpu_seconds: float, target: Callable, *args) -> None:  # pragma: no cover - child process
    """Child process: run ``target(conn, *args)`` and die (SIGPROF) after ``cpu_seconds`` of CPU time.

    The budget is CPU time, not wall-clock time, so that which closed forms are found does
    not depend on how busy the machine is. ``ITIMER_PROF`` counts this process's user and
    system time; its default action terminates the process; timers are not inherited by
    ``fork``, so the child sets its own.
    """
    signal.signal(signal.SIGPROF, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_PROF, cpu_seconds)
    target(conn, *args)


class _Job:
    """One SymPy integral running in a child process with a CPU-time budget (wall clock where unsupported)."""

    def __init__(self, ctx, key: str, timeout: float, target: Callable, *args):
        self.key, (self.receiver, sender) = key, ctx.Pipe(duplex=False)
        cpu_limit = hasattr(signal, "setitimer") and hasattr(signal, "SIGPROF")
        if cpu_limit:
            target, args = _cpu_limited, (timeout, target, *args)
        self.proc = ctx.Process(target=target, args=(sender, *args), daemon=True)
        with warnings.catch_warnings():  # Python >= 3.12 warns about fork in a threaded process
            warnings.simplefilter("ignore", DeprecationWarning)
            self.proc.start()
        sender.close()
        self.deadline = time.monotonic() + (WALL_CLOCK_FACTOR * timeout + 1.0 if cpu_limit else timeout)

    def read(self, found: dict) -> bool:
        """Take what the child sent into ``found``; True when the child has nothing more to say."""
        try:
            value = self.receiver.recv()
        except (EOFError, OSError):
            return True
        if value is None:
            return True
        found[self.key] = value
        return False

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(1.0)
        self.receiver.close()


def _symbolic(expr: sp.Expr, keys: Sequence[str], timeout: float) -> dict[str, sp.Expr]:
    """SymPy's closed forms for ``keys``: one child process per integral, at most one per CPU,
    each killed ``timeout`` seconds after it started."""
    ctx, pending, running, found = _context(), list(keys), [], {}
    try:
        while pending or running:
            while pending and len(running) < usable_cpus():
                key = pending.pop(0)
                running.append(_Job(ctx, key, timeout, _symbolic_worker, expr, key))
            wait = max(0.0, min(job.deadline for job in running) - time.monotonic())
            ready = mp_connection.wait([job.receiver for job in running], timeout=wait)
            for job in list(running):
                if (job.receiver in ready and job.read(found)) or time.monotonic() >= job.deadline:
                    job.stop()
                    running.remove(job)
    finally:
        for job in running:
            job.stop()
    return found


def _run_limited(target: Callable, expr: sp.Expr, timeout: float):
    """``target(conn, expr)`` in a child process; the last thing it sent within ``timeout`` s, or None."""
    job, found = _Job(_context(), "result", timeout, target, expr), {}
    try:
        while job.receiver.poll(max(0.0, job.deadline - time.monotonic())):
            if job.read(found):
                break
    finally:
        job.stop()
    return found.get("result")


# ------------------------------------------------------------- acceptance


def _agrees(value: sp.Expr, numeric, scale) -> bool:
    """Is ``value`` a finite real number within _EXACT_RTOL * scale of the quadrature?"""
    if not isinstance(value, sp.Expr) or value.has(sp.Integral, sp.oo, -sp.oo, sp.zoo, sp.nan) or not value.is_number:
        return False
    try:
        approx = _to_mp(value)
    except (TypeError, ValueError, AttributeError):
        return False
    with mpmath.workdps(_DPS):
        if isinstance(approx, mpmath.mpc):
            if abs(approx.imag) > _EXACT_RTOL * scale:
                return False
            approx = approx.real
        return bool(mpmath.isfinite(approx) and abs(approx - numeric) <= _EXACT_RTOL * scale)


def _cheap_candidates(expr: sp.Expr, keys: Sequence[str], hints: dict, timeout: float) -> tuple[list, set[str]]:
    """Closed-form candidates that need no integration, in order of preference, and the keys
    SymPy should not be asked about (already known, or known to have no closed form)."""
    table, no_closed_form = _table_exact(expr, keys)
    known = _polynomial_exact(expr, keys)
    if not known:
        known = _parity_exact(expr, keys, timeout)
    candidates = [({k: v for k, (v, s) in hints.items() if s == src}, src) for src in ("exact", "table")]
    candidates += [(known, "exact"), (table, "table")]
    return candidates, no_closed_form | set(known) | set(table) | set(hints)


def _coefficients(expr: sp.Expr, keys: tuple[str, ...], method: str, timeout: float, hints=None, skip=()):
    """{key: (mpf value, closed form or None, source)} for ``keys``; "nu" is always computed.

    ``hints`` maps keys to (closed form, source) candidates; ``skip`` lists keys SymPy
    should not be asked about. Every candidate must agree with the quadrature."""
    candidates, symbolic_keys = [], []
    polynomial = _polynomial_exact(expr, (*keys, "nu")) if method == "auto" else {}
    if polynomial:  # exact by construction: no quadrature needed
        return {key: (_to_mp(polynomial[key]), polynomial[key], "exact") for key in keys}
    if method == "auto":
        candidates, known = _cheap_candidates(expr, keys, hints or {}, timeout)
        # nu first: it is usually the slowest integral, so it should not wait for a free CPU
        symbolic_keys = sorted(set(keys) - known - set(skip), key=lambda k: (k != "nu", k))
    numeric_values, found = _numeric_and_symbolic(expr, keys, symbolic_keys, timeout, repr(str(expr)[:80]))
    candidates.append((found, "exact"))
    out = {}
    for key in keys:
        value = numeric_values[key]
        scale = max(abs(value), mpmath.sqrt(abs(numeric_values["nu"])))
        out[key] = (value, None, "numeric")
        for cands, src in candidates:
            if key in cands and _agrees(cands[key], value, scale):
                exact_value = _to_mp(cands[key])
                out[key] = (getattr(exact_value, "real", exact_value), cands[key], src)
                break
    return out


def _numeric_and_symbolic(expr, keys, symbolic_keys, timeout, label):
    """Quadrature first (it refuses a bad f cheaply), then SymPy on ``symbolic_keys``."""
    numeric_values = _numeric(expr, keys, label)
    return numeric_values, _symbolic(expr, symbolic_keys, timeout) if symbolic_keys else {}


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
            raise SymrmtInputError(f"Hermite index k must be an integer in 0..30, got {k!r}")
        if k <= 2:
            key = f"a{k}"
            return getattr(self, key), self.exact[key]
        value, exact, _ = _coefficient_cached(sp.srepr(self.f), self.f, int(k), self.method, self.timeout)
        return value, exact


@lru_cache(maxsize=256)
def _coefficient_cached(key: str, expr: sp.Expr, k: int, method: str, timeout: float):  # noqa: ARG001
    value, exact, source = _coefficients(expr, (f"a{k}",), method, timeout)[f"a{k}"]
    return float(value), exact, source


def _check_options(method: str, timeout: float) -> None:
    if method not in ("auto", "numeric"):
        raise SymrmtInputError(f"method must be 'auto' (closed forms when possible) or 'numeric', got {method!r}")
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout <= 600):
        raise SymrmtInputError(f"timeout must be a number of seconds in (0, 600], got {timeout!r}")


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
    SymrmtInputError
        Bad f (see :func:`parse_nonlinearity`), :math:`a_0 \ne 0` without
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
    expr = parse_nonlinearity(f)
    _check_options(method, timeout)
    fc, values, centered_by = _hermite_cached(sp.srepr(expr), expr, bool(center), method, float(timeout))
    return HermiteCoefficients(
        f=fc,
        **{k: float(values[k][0]) for k in _KEYS},
        exact={k: values[k][1] for k in _KEYS},
        source={k: values[k][2] for k in _KEYS},
        centered_by=centered_by,
        method=method,
        timeout=float(timeout),
    )


@lru_cache(maxsize=256)
def _hermite_cached(key: str, expr: sp.Expr, center: bool, method: str, timeout: float):
    """In-memory cache over the on-disk cache over the computation."""
    path = _disk_cache_path(key, center, method)
    if path is not None and path.is_file():
        try:
            with open(path, "rb") as handle:
                return pickle.load(handle)
        except Exception:  # noqa: BLE001 - a damaged or foreign cache entry is recomputed
            pass
    result = _hermite_compute(expr, center, method, timeout)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            with open(partial, "wb") as handle:
                pickle.dump(result, handle)
            os.replace(partial, path)
        except OSError:
            pass
    return result


def _disk_cache_path(key: str, center: bool, method: str):
    r"""Where a result is kept between runs, or None when the disk cache is off.

    ``$SYMRMT_CACHE_DIR`` (default ``~/.cache/symrmt``; ``off`` disables it). The file name
    hashes the expression's ``srepr``, the options, and the SymPy and mpmath versions; the
    file is a pickle written by this function only (delete the folder to reset it).
    """
    root = os.environ.get("SYMRMT_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "symrmt"))
    if not root or root.lower() == "off":
        return None
    tag = "|".join([key, str(center), method, sp.__version__, mpmath.__version__, _CACHE_FORMAT])
    return pathlib.Path(root) / "hermite" / (hashlib.sha256(tag.encode()).hexdigest()[:32] + ".pkl")


#: Bump when the cached tuple changes shape.
_CACHE_FORMAT = "1"


def _hermite_compute(expr: sp.Expr, center: bool, method: str, timeout: float):
    label = repr(str(expr)[:80])
    polynomial = _polynomial_exact(expr, ("a0", "nu")) if method == "auto" else {}
    first = {k: _to_mp(v) for k, v in polynomial.items()} or _numeric(expr, ("a0",), label)
    a0, tol = first["a0"], _A0_TOL * max(1, mpmath.sqrt(first["nu"]))
    if abs(a0) > tol and not center:  # refuse before spending seconds on SymPy
        raise SymrmtInputError(
            f"nonlinearity {label} is not centered: a0 = E f(xi) = {mpmath.nstr(a0, 15)}, and the theory "
            "needs a0 = 0. Pass center=True (Python) or --center (command line) to subtract a0, or subtract it "
            "in the formula"
        )
    values = _coefficients(expr, _KEYS, method, timeout)
    _check_scale(values, label)
    a0, a0_exact, _ = values["a0"]
    exact_shift = a0_exact is not None and a0_exact != 0
    if not center or not (exact_shift or (a0_exact is None and abs(a0) > _ZERO_ATOL * mpmath.sqrt(values["nu"][0]))):
        return expr, values, 0.0
    shift = a0_exact if exact_shift else sp.Float(a0, _DPS)
    centered = expr - shift
    # a_k (k >= 1) do not change when a constant is subtracted; nu loses a0^2
    hints = {k: values[k][1:] for k in ("a1", "a2") if values[k][1] is not None}
    if exact_shift:
        hints["a0"] = (sp.S.Zero, "exact")
        if values["nu"][1] is not None:
            hints["nu"] = (values["nu"][1] - shift**2, values["nu"][2])
    skip = {k for k in _KEYS if values[k][2] == "numeric"}
    new = _coefficients(centered, _KEYS, method, timeout, hints=hints, skip=skip)
    _check_scale(new, label)
    return centered, new, float(a0)


def _check_scale(values, label: str) -> None:
    nu, a0 = values["nu"][0], values["a0"][0]
    if nu > _NU_MAX:
        raise SymrmtInputError(
            f"nonlinearity {label} is too large in scale (E f(xi)^2 = {mpmath.nstr(nu, 3)} does not fit in a "
            "float64): rescale f"
        )
    if nu - a0**2 <= 1e-24 * max(nu, mpmath.mpf(10) ** -300):
        raise SymrmtInputError(
            f"nonlinearity {label} is constant almost everywhere under the Gaussian (E (f - a0)^2 = 0 to "
            f"{_DPS} digits of E f^2 = {mpmath.nstr(nu, 3)}); attention needs a non-constant f such as tanh(x)"
            + (", and a large constant offset should be removed from the formula" if nu > 1e20 else "")
        )


def numeric_callable(f: str | sp.Expr) -> Callable[[np.ndarray], np.ndarray]:
    r"""A vectorized float64 NumPy function computing f (built by :func:`symrmt.codegen.numpy_function`).

    The result has the shape of the input. Overflow inside f (e.g. ``exp`` in
    ``sigmoid`` at very negative x) is silent and gives the limiting value.

    Examples
    --------
    >>> g = numeric_callable("relu(x) - 1/2")
    >>> g(np.array([-1.0, 0.0, 2.0]))
    array([-0.5, -0.5,  1.5])
    """
    expr = parse_nonlinearity(f)
    fn = numpy_function(expr, [X], name="f")

    def call(x: np.ndarray) -> np.ndarray:
        arr = np.asarray(x, dtype=np.float64)
        with np.errstate(over="ignore"):
            out = np.asarray(fn(arr), dtype=np.float64)
        return np.broadcast_to(out, arr.shape).copy() if out.shape != arr.shape else out

    call.__doc__ = f"f(x) = {expr}, vectorized over float64 arrays."
    return call


#: Named nonlinearities, all centered (a0 = 0), as strings for :func:`hermite`.
ZOO: dict[str, str] = {
    "x": "x",
    "tanh": "tanh(x)",
    "erf": "erf(x)",
    "sin": "sin(x)",
    "atan": "atan(x)",
    "softsign": "softsign(x)",
    "sigmoid": "sigmoid(x) - 1/2",
    "relu": "relu(x) - 1/sqrt(2*pi)",
    "gelu": "gelu(x) - 1/(2*sqrt(pi))",
    "abs": "Abs(x) - sqrt(2/pi)",
    "cos": "cos(x) - exp(-1/2)",
    "hermite2": "x**2 - 1",
    "hermite3": "x**3 - 3*x",
}
