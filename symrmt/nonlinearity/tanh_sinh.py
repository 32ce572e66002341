"""30-digit tanh-sinh quadrature of the Hermite data, split at the kinks of f, checked by a
second rule and by the decay of the tails."""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import mpmath
from mpmath.libmp import NoConvergence
import sympy as sp
from sympy.polys.polyerrors import PolynomialError

from symrmt.errors import NonlinearityError

from .constants import DPS, NU_MAX, NU_MIN, NU_SMALL, X
from .integrands import degree_bound, hermite_poly_mp
from .mpmath_eval import mp_compile, NotReal, Overflow, real_value
from .parse import REAL_PROBES

_AGREE_RTOL = 1e-13  # two quadrature rules must agree to this (relative to max(|a_k|, sqrt(nu)))


def kink_points(expr: sp.Expr) -> list[float]:
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
        if 0 < (degree_bound(c) or 0) <= 4:
            found.update(_real_roots(c))
    return sorted(found)


def _real_roots(c: sp.Expr) -> list[float]:
    """Real roots of the polynomial ``c`` in (-40, 40), each once; [] when SymPy cannot find them.

    The square-free part is taken first: ``nroots`` does not converge on repeated roots
    (``sign(x**2)``). A kink that is missed only costs accuracy, which the agreement of
    two quadrature rules (and then the fine partition) checks."""
    try:
        roots = sp.Poly(c, X).sqf_part().nroots(n=20, maxsteps=200)
    except (NoConvergence, PolynomialError, ArithmeticError, ValueError, TypeError, NotImplementedError):
        return []
    return [float(r) for r in roots if r.is_real and abs(r) < 40]


_CUTOFF = 100  # beyond |x| = 100 the integrands are taken as 0 (exp(-x^2/2) < 1e-2171; see tail_check)


class Memo:
    """f and the Gaussian weight at mpmath points, remembered (the Hermite integrals share
    their quadrature nodes), and the verified integrals already computed for this f."""

    def __init__(self, expr: sp.Expr, label: str):
        self.fn, self.values, self.label = mp_compile(expr), {}, label
        self.kinks, self.results, self.tails_checked = kink_points(expr), {}, False

    def __call__(self, t):
        """(f(t), exp(-t^2/2))."""
        v = self.values.get(t)
        if v is None:
            v = self.values[t] = (self._evaluate(t), mpmath.exp(-t * t / 2))
        return v

    def _evaluate(self, t):
        where = f"nonlinearity {self.label} at x = {mpmath.nstr(t, 8)}"
        try:
            v = real_value(self.fn(t))
            if not mpmath.isfinite(v):
                raise Overflow(f"value {v}")
            return v
        except NotReal as exc:
            raise NonlinearityError(f"{where} is not real ({exc}); use e.g. log(Abs(x)) instead of log(x)") from None
        except Overflow as exc:
            raise NonlinearityError(
                f"{where} is infinite, undefined or astronomically large ({exc}): f is not square-integrable "
                "under the Gaussian, or not evaluable there"
            ) from None
        except (ZeroDivisionError, ValueError, OverflowError) as exc:
            why = str(exc) or type(exc).__name__
            raise NonlinearityError(f"{where} cannot be evaluated ({why}): a pole on the real line?") from None


def tail_check(memo: Memo) -> None:
    """Refuse f whose f(x)^2 exp(-x^2/2) has not died out at |x| = 40 and 80 (not square-integrable).

    Both quadrature rules (and the cutoff at |x| = 100) rely on this: beyond 80 the
    integrands are assumed to keep decaying."""
    h = lambda t: abs(memo(mpmath.mpf(t))[0]) ** 2 * memo(mpmath.mpf(t))[1]
    bulk = max(h(t) for t in REAL_PROBES)
    for t in (-80, -40, 40, 80):
        tail = abs(t) * h(t)
        if tail > mpmath.mpf(10) ** -16 * max(bulk, mpmath.mpf(10) ** -300):
            raise NonlinearityError(
                f"nonlinearity {memo.label} is not square-integrable under the Gaussian, or too heavy-tailed for "
                f"reliable quadrature: |x| f(x)^2 exp(-x^2/2) = {mpmath.nstr(tail, 3)} at x = {t}. "
                "E f(xi)^2 must be finite: use an f that grows slower than exp(x^2/4), e.g. tanh, erf, a polynomial"
            )
    memo.tails_checked = True


def _partitions(memo: Memo, fine: bool) -> tuple[list, list]:
    """Two different partitions of the real line, each split at the kinks of f.

    The coarse pair suits smooth f. The fine pair cuts [-12, 12] (beyond it the Gaussian
    weight is below 1e-31) into pieces of width 0.5 and 0.55, a few periods each even for
    ``sin(100 x)``, where tanh-sinh on a long interval misses oscillations."""
    if fine:
        one = [-12 + 0.5 * j for j in range(49)]
        two = [-12.1 + 0.55 * j for j in range(45)]
        one, two = ([-40.0, *grid, 40.0, *memo.kinks] for grid in (one, two))
    else:
        one, two = list(memo.kinks), [-40.0, -12.0, -4.0, 4.0, 12.0, 40.0, *memo.kinks]
    inf = mpmath.inf
    return [-inf, *map(mpmath.mpf, sorted(set(one))), inf], [mpmath.mpf(p) for p in sorted(set(two))]


def _quadrature(memo: Memo, key: str, fine: bool = False):
    """The value of ``key`` (a_k or nu) by two tanh-sinh rules on different partitions, and an error bound."""
    k = None if key == "nu" else int(key[1:])
    norm = mpmath.sqrt(2 * mpmath.pi) * (1 if k is None else mpmath.sqrt(mpmath.factorial(k)))

    def integrand(t):
        if abs(t) > _CUTOFF:
            return mpmath.mpf(0)
        f, w = memo(t)
        return f * f * w if k is None else f * hermite_poly_mp(k, t) * w

    one, two = _partitions(memo, fine)
    v1, e1 = mpmath.quad(integrand, one, error=True)
    v2, e2 = mpmath.quad(integrand, two, error=True)
    return v1 / norm, v2 / norm, max(e1, e2) / norm


@lru_cache(maxsize=64)
def _memo_for(key: str, expr: sp.Expr, label: str) -> Memo:
    return Memo(expr, label)


def numeric_coefficients(expr: sp.Expr, keys: Sequence[str], label: str) -> dict[str, mpmath.mpf]:
    """Verified 30-digit quadrature values of ``keys`` (``nu`` always included); cached per f."""
    memo = _memo_for(sp.srepr(expr), expr, label)
    with mpmath.workdps(DPS):
        if not memo.tails_checked:
            tail_check(memo)
        for key in ("nu", *[k for k in keys if k != "nu"]):
            if key not in memo.results:
                memo.results[key] = _verified(memo, key)
    return {key: memo.results[key] for key in ("nu", *keys)}


def _verified(memo: Memo, key: str):
    v1, v2, err = _quadrature(memo, key)
    if not _converged(memo, v1, v2, err):
        v1, v2, err = _quadrature(memo, key, fine=True)     # oscillating f: many short pieces
    if key == "nu":
        check_nu(memo.label, max(abs(v1), abs(v2)))
    if not _converged(memo, v1, v2, err):
        raise NonlinearityError(
            f"quadrature of {key} for nonlinearity {memo.label} did not converge (two rules give "
            f"{mpmath.nstr(v1, 15)} and {mpmath.nstr(v2, 15)}): f may have a pole or a non-integrable "
            "singularity on the real line, grow too fast, oscillate too fast (more than about 100 "
            "periods per unit of x), or have kinks that cannot be located (only the real roots of polynomial "
            "arguments of Abs, Max, Min, sign and Heaviside are); use a bounded or polynomially growing f"
        )
    return v1


def _converged(memo: Memo, v1, v2, err) -> bool:
    scale = max(abs(v1), mpmath.sqrt(abs(memo.results.get("nu", v1))))
    return bool(mpmath.isfinite(v1) and abs(v1 - v2) <= _AGREE_RTOL * scale and err <= _AGREE_RTOL * scale)


def check_nu(label: str, nu, exact: bool = False) -> None:
    r"""Refuse :math:`\nu = \mathbb E f(\xi)^2` outside [NU_SMALL, NU_MAX]; a quadrature (not
    ``exact``) below NU_MIN cannot tell f from 0."""
    if nu < NU_MIN and not exact:
        raise NonlinearityError(
            f"nonlinearity {label} is zero almost everywhere, or too small in scale (E f(xi)^2 = "
            f"{mpmath.nstr(nu, 3)} < {NU_MIN:g}); attention needs a non-constant f of reasonable size such as tanh(x)"
        )
    if nu < NU_SMALL:
        raise NonlinearityError(
            f"nonlinearity {label} is too small in scale (E f(xi)^2 = {mpmath.nstr(nu, 3)} < {NU_SMALL:g}): "
            "float64 cannot resolve K against gamma. Rescale f: with f -> s f and d -> s d, "
            "E_attn(gamma) becomes E_attn(gamma / s^2)"
        )
    if nu > NU_MAX:
        raise NonlinearityError(
            f"nonlinearity {label} is too large in scale (E f(xi)^2 = {mpmath.nstr(nu, 3)} does not fit in "
            "a float64): rescale f"
        )
