"""A guarded mpmath interpreter of SymPy trees: no eval, no lambdify, and no hours spent on
astronomically large intermediate values."""
from __future__ import annotations

from typing import Callable

import mpmath
import sympy as sp

from .constants import DPS, MAX_EXPONENT, X

class NotReal(ArithmeticError):
    """f took a non-real value."""


class Overflow(ArithmeticError):
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
            raise Overflow(f"a complex value of size {mpmath.nstr(abs(v), 3)}")
        return mpmath.inf if v > 0 else -mpmath.inf
    return v


def _exp(a):
    re = mpmath.re(a)
    if re > _EXP_MAX:
        if isinstance(a, mpmath.mpc):
            raise Overflow(f"exp of {mpmath.nstr(a, 3)}")
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
            raise Overflow(f"{name} of {mpmath.nstr(a, 3)}")
        return fn(a)

    return wrapped


def _pow(b, e):
    if b != 0 and mpmath.isfinite(b) and mpmath.isfinite(e) and not (mpmath.isint(e) and abs(e) <= MAX_EXPONENT):
        size = mpmath.re(e * mpmath.log(b))
        if size > _EXP_MAX:
            if b < 0:
                raise Overflow(f"a negative number to the power {mpmath.nstr(e, 3)}")
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


def real_value(v):
    if isinstance(v, mpmath.mpc):
        if abs(v.imag) > mpmath.mpf(10) ** (-DPS + 5) * (1 + abs(v.real)):
            raise NotReal(mpmath.nstr(v, 8))
        return v.real
    return v


def to_mp(value: sp.Expr):
    """A constant SymPy expression as an mpmath number with DPS + 10 digits (mpc if not real)."""
    re, im = sp.N(value, DPS + 10).as_real_imag()
    with mpmath.workdps(DPS + 10):
        re_mp, im_mp = (mpmath.mpf(sp.Float(part, DPS + 10)._mpf_) for part in (re, im))
        return re_mp if im_mp == 0 else mpmath.mpc(re_mp, im_mp)


def mp_compile(expr: sp.Expr) -> Callable:
    """A closure evaluating ``expr`` at an mpmath number (no eval, no lambdify).

    Constant subexpressions are evaluated once, at 10 extra digits. Every value is
    guarded: astronomically large intermediate results raise ``Overflow`` instead
    of making mpmath work for hours (think ``exp(exp(exp(exp(x))))``).
    """
    if expr == X:
        return lambda t: t
    if expr.is_Number or isinstance(expr, (sp.NumberSymbol, sp.core.numbers.ImaginaryUnit)):
        value = to_mp(expr)
        return lambda t: value
    fn = _mp_node(expr)
    if X in expr.free_symbols:
        return lambda t: _guard(fn(t))
    with mpmath.workdps(DPS + 10):
        value = _guard(fn(None))
    return lambda t: value


def _mp_node(expr: sp.Expr) -> Callable:
    if isinstance(expr, sp.Piecewise) or not all(isinstance(a, sp.Expr) for a in expr.args):
        return _mp_fallback(expr)
    parts = [mp_compile(a) for a in expr.args]
    if isinstance(expr, sp.Add):
        return lambda t: mpmath.fsum(p(t) for p in parts)
    if isinstance(expr, sp.Mul):
        return lambda t: mpmath.fprod(p(t) for p in parts)
    if isinstance(expr, sp.Pow):
        base, ex = parts
        n = int(expr.exp) if expr.exp.is_Integer and abs(expr.exp) <= MAX_EXPONENT else None
        return (lambda t: base(t) ** n) if n is not None else (lambda t: _pow(base(t), ex(t)))
    if type(expr) in (sp.Max, sp.Min):
        pick = max if isinstance(expr, sp.Max) else min
        return lambda t: pick(real_value(p(t)) for p in parts)
    if isinstance(expr, sp.Heaviside):
        arg, h0 = parts[0], (parts[1] if len(parts) > 1 else (lambda t: mpmath.mpf(1) / 2))
        return lambda t: (lambda a: mpmath.mpf(a > 0) if a != 0 else h0(t))(real_value(arg(t)))
    if type(expr) in _MP_FUNCS and len(parts) == 1:
        fn, (arg,) = _MP_FUNCS[type(expr)], parts

        def call(t):
            try:
                return fn(arg(t))
            except OverflowError as exc:  # e.g. mpmath's erfc at 1e4000
                raise Overflow(str(exc)) from None

        return call
    return _mp_fallback(expr)


def _mp_fallback(expr: sp.Expr) -> Callable:
    """Anything else (Piecewise, a special function from a SymPy input): let SymPy evaluate."""
    if X not in expr.free_symbols:
        value = to_mp(expr)
        return lambda t: value
    return lambda t: to_mp(expr.xreplace({X: sp.Float(t, DPS + 5)}))

