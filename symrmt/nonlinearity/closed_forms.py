"""Closed forms of the Hermite data: Gaussian moments of polynomials, parity, a small table,
and SymPy integration in child processes stopped at a wall-clock deadline."""
from __future__ import annotations

import math
import multiprocessing.connection as mp_connection
import time
from typing import Callable, Sequence

import mpmath
import sympy as sp

from .budget import process_context, Job, run_limited
from .constants import DPS, MAX_EXPONENT, X
from .integrands import degree_bound, hermite_integrand
from .mpmath_eval import mp_compile, real_value

def _moment(j: int) -> sp.Integer:
    """E xi^j for xi ~ N(0,1): (j-1)!! for even j, 0 for odd j."""
    return sp.Integer(0) if j % 2 else sp.factorial2(j - 1)


def _gaussian_expectation_poly(p: sp.Expr) -> sp.Expr:
    poly = sp.Poly(p, X)
    return sum((c * _moment(m[0]) for m, c in zip(poly.monoms(), poly.coeffs())), sp.S.Zero)


_POLY_MAX_DEGREE = 64


def polynomial_exact(expr: sp.Expr, keys: Sequence[str]) -> dict[str, sp.Expr]:
    """Exact values for a polynomial f of degree <= 64, from the Gaussian moments."""
    degree = degree_bound(expr)
    if degree is None or degree > _POLY_MAX_DEGREE:
        return {}
    return {key: _gaussian_expectation_poly(hermite_integrand(expr, key)) for key in keys}


_MAX_TERMS = 400  # the exponential rule expands at most this many terms (a bound computed before expanding)
_EXPONENTIAL = (sp.sin, sp.cos, sp.sinh, sp.cosh)


def exponential_exact(expr: sp.Expr, keys: Sequence[str]) -> dict[str, sp.Expr]:
    r"""Exact values when every term of the integrand is :math:`c\,x^m e^{q x^2 + k x}` (sin, cos, sinh,
    cosh written as exponentials, so exp, sin(kx) x^2, cosh(x) exp(x^2/8) ... qualify):

    .. math::

        \mathbb E[\xi^m e^{q\xi^2 + k\xi}] = \frac{e^{k^2 \sigma^2/2}}{\sqrt{1 - 2q}}\,
        \mathbb E[(\sigma Z + k\sigma^2)^m], \qquad \sigma^2 = \frac{1}{1 - 2q},

    a Gaussian integral for :math:`q < 1/2` (complex k allowed). Keys whose integrand has another
    form, or too many terms, are left out."""
    out = {}
    for key in keys:
        integrand = hermite_integrand(expr, key).rewrite(_EXPONENTIAL, sp.exp)
        if _term_bound(integrand) > _MAX_TERMS:
            continue
        terms = [_exponential_term(t) for t in sp.Add.make_args(sp.expand(integrand))]
        if terms and all(t is not None for t in terms):
            value = sp.expand(sp.Add(*terms), power_exp=False)
            out[key] = sp.expand_complex(value) if value.has(sp.I) else value
    return out


def _term_bound(e: sp.Expr) -> float:
    """An upper bound on the number of terms of ``expand(e)`` (infinite for a form the rule cannot take)."""
    if not e.has(X):
        return 1
    if e == X or isinstance(e, sp.exp):
        return 1
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_term_bound(a) for a in e.args]
        return sum(parts) if isinstance(e, sp.Add) else math.prod(parts)
    if isinstance(e, sp.Pow) and e.exp.is_Integer and 0 <= e.exp <= MAX_EXPONENT:
        return _term_bound(e.base) ** int(e.exp)
    return math.inf


def _exponential_term(term: sp.Expr) -> sp.Expr | None:
    r""":math:`\mathbb E` of one term :math:`c\,x^m e^{P(x)}` with :math:`\deg P \le 2`, or None."""
    coefficient, rest = term.as_independent(X, as_Add=False)
    power, exponent = 0, sp.S.Zero
    for factor in sp.Mul.make_args(sp.powsimp(rest, combine="exp")):
        base, e = factor.as_base_exp()
        if base == X and e.is_Integer and e >= 0:
            power += int(e)
        elif base == sp.E:
            exponent += e
        elif factor != 1:
            return None
    poly = sp.Poly(sp.expand(exponent), X) if exponent.is_polynomial(X) else None
    if poly is None or poly.degree() > 2:
        return None
    q, k, b = (poly.coeff_monomial(X**j) for j in (2, 1, 0))
    if q.is_number and not (q.is_real and q < sp.Rational(1, 2)):
        return None                     # not integrable (or not real): no closed form claimed
    variance = 1 / (1 - 2 * q)
    mean = k * variance
    moments = sum((sp.binomial(power, j) * mean ** (power - j) * sp.sqrt(variance) ** j * _moment(j)
                   for j in range(0, power + 1, 2)), sp.S.Zero)
    return coefficient * sp.exp(b + k**2 * variance / 2) * sp.sqrt(variance) * moments


def _parity_candidates(expr: sp.Expr) -> tuple[bool, bool]:
    """(f looks like constant + odd, f looks even), judged at a few points at 30 digits."""
    try:
        fn = mp_compile(expr)
        with mpmath.workdps(DPS):
            pts = [mpmath.mpf(t) for t in (0.3, 1.1, 2.7)]
            sums = [real_value(fn(t)) + real_value(fn(-t)) for t in pts]
            diffs = [real_value(fn(t)) - real_value(fn(-t)) for t in pts]
            tol = mpmath.mpf(10) ** -20 * (1 + max(abs(v) for v in sums + diffs))
            return max(abs(v - sums[0]) for v in sums) < tol, max(abs(d) for d in diffs) < tol
    except (ArithmeticError, ValueError, TypeError):
        return False, False


def parity_exact(expr: sp.Expr, keys: Sequence[str], deadline: float) -> dict[str, sp.Expr]:
    """Zeros (and a_0) implied by f(x) + f(-x) = 2c (f = c + odd: a_0 = c, even a_k = 0) or by
    f(x) = f(-x) (odd a_k = 0). SymPy's automatic evaluation usually proves it (tanh(-x) is
    -tanh(x)); otherwise simplify() runs in a child process until ``deadline`` (``time.monotonic()``
    seconds; at most 2 s)."""
    odd_plus_c, even = _parity_candidates(expr)
    mirrored, out = expr.xreplace({X: -X}), {}
    deadline = min(deadline, time.monotonic() + 2.0)
    if odd_plus_c:
        both = expr + mirrored
        if X in both.free_symbols:
            both = run_limited(_simplify_worker, both, deadline)
        if both is not None and X not in both.free_symbols:
            out.update({k: sp.S.Zero for k in keys if k not in ("nu", "a0") and int(k[1:]) % 2 == 0})
            out.update({"a0": both / 2} if "a0" in keys else {})
    if even:
        diff = expr - mirrored
        if diff != 0:
            diff = run_limited(_simplify_worker, diff, deadline)
        if diff == 0:
            out.update({k: sp.S.Zero for k in keys if k != "nu" and int(k[1:]) % 2 == 1})
    return out


#: The data linear in f (:math:`a_k(f + g) = a_k(f) + a_k(g)`), which a sum can take term by term; nu cannot.
LINEAR_KEYS = ("a0", "a1", "a2")


def additive_exact(expr: sp.Expr, keys: Sequence[str], deadline: float) -> dict[str, sp.Expr]:
    r"""Exact :math:`a_0, a_1, a_2` of a sum each of whose terms has one by a rule that needs no integration
    (polynomial, exponential, the table, parity), added up: :math:`a_k` is linear in f. So
    :math:`\tanh(2x)/2 + x^2/4` has :math:`a_0 = 1/4` and :math:`a_2 = \sqrt 2/4` at once (the odd term's are 0),
    while its :math:`a_1` and :math:`\nu` are left to the search. ``deadline`` bounds the parity rule's simplify."""
    terms = sp.Add.make_args(expr)
    wanted = [key for key in keys if key in LINEAR_KEYS]
    if len(terms) < 2 or not wanted:
        return {}
    rules = (lambda term: polynomial_exact(term, wanted), lambda term: exponential_exact(term, wanted),
             lambda term: table_exact(term, wanted)[0], lambda term: parity_exact(term, wanted, deadline))
    by_term = []
    for term in terms:              # each rule once per term (parity evaluates f at 30 digits), the first one wins
        found: dict[str, sp.Expr] = {}
        for rule in rules:
            for key, value in rule(term).items():
                found.setdefault(key, value)
            if set(wanted) <= set(found):
                break
        by_term.append(found)
    return {key: sp.Add(*(found[key] for found in by_term)) for key in wanted
            if all(key in found for found in by_term)}


def _match(expr: sp.Expr, template: Callable[[sp.Expr], sp.Expr], numbers_only: bool = True):
    """(c, k, d) with expr == c * template(k x) + d for real numbers c, k != 0 and d (or, unless
    ``numbers_only``, real expressions in the parameters); else None."""
    c, k, d = (sp.Wild(n, exclude=[X]) for n in "ckd")
    m = expr.match(c * template(k * X) + d)

    def acceptable(w):
        value = m.get(w)
        if value is None or X in value.free_symbols:
            return False
        return bool(value.is_number and value.is_real) if numbers_only else value.is_real is not False

    if not m or not all(acceptable(w) for w in (c, k, d)):
        return None
    return (m[c], m[k], m[d]) if m[c] != 0 and m[k] != 0 else None


def table_exact(expr: sp.Expr, keys: Sequence[str], numbers_only: bool = True) -> tuple[dict[str, sp.Expr], set[str]]:
    r"""Known closed forms, and the keys known to have none (SymPy is then not tried).

    - :math:`c\,\operatorname{erf}(kx) + d`: :math:`a_0 = d`, :math:`a_1 = 2ck/\sqrt{\pi(1+2k^2)}`,
      :math:`a_2 = 0`, :math:`\nu = c^2 \tfrac{2}{\pi}\arcsin\tfrac{2k^2}{1+2k^2} + d^2`.
    - :math:`c\tanh(kx) + d` and :math:`c/(1+e^{kx}) + d` (sigmoids, :math:`= c/2 + d - (c/2)\tanh(kx/2)`):
      :math:`a_0` and the even :math:`a_{2j} = 0` are exact; no closed form is known for :math:`a_1`, :math:`\nu`
      or the odd coefficients.
    """
    m = _match(expr, sp.erf, numbers_only)
    if m:
        c, k, d = m
        r = 2 * k**2 / (1 + 2 * k**2)
        table = {"a0": d, "a1": 2 * c * k / sp.sqrt(sp.pi * (1 + 2 * k**2)), "a2": sp.S.Zero}
        table["nu"] = c**2 * 2 / sp.pi * sp.asin(r) + d**2
        return {key: table[key] for key in keys if key in table}, set()
    odd = {"nu"} | {key for key in keys if key != "nu" and int(key[1:]) % 2 == 1}
    for template, mean in ((sp.tanh, lambda c, d: d), (lambda u: 1 / (1 + sp.exp(u)), lambda c, d: c / 2 + d)):
        m = _match(expr, template, numbers_only)
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
    integrand, phi = sp.expand(hermite_integrand(expr, key)), lambda v: sp.exp(-(v**2) / 2) / sp.sqrt(2 * sp.pi)
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


class SymbolicSearch:
    """SymPy's closed forms for ``keys``: one child process per integral, all started at once (so that they run
    while the parent computes the quadrature) and all stopped at ``deadline`` (``time.monotonic()`` seconds).

    :meth:`collect` waits for them until the deadline and returns what they found (a raw integral, replaced by its
    simplified form if that comes in time); :meth:`stop` ends them early (a quadrature that refused f).
    """

    def __init__(self, expr: sp.Expr, keys: Sequence[str], deadline: float):
        ctx, self.found = process_context(), {}
        live = time.monotonic() < deadline
        self.jobs = [Job(ctx, key, deadline, _symbolic_worker, expr, key) for key in keys] if live else []

    def collect(self) -> dict[str, sp.Expr]:
        running = list(self.jobs)
        try:
            while running:
                wait = max(0.0, min(job.deadline for job in running) - time.monotonic())
                ready = mp_connection.wait([job.receiver for job in running], timeout=wait)
                for job in list(running):
                    if (job.receiver in ready and job.read(self.found)) or time.monotonic() >= job.deadline:
                        job.stop()
                        running.remove(job)
        finally:
            self.stop()
        return self.found

    def stop(self) -> None:
        for job in self.jobs:
            job.stop()


def symbolic_coefficients(expr: sp.Expr, keys: Sequence[str], timeout: float) -> dict[str, sp.Expr]:
    """SymPy's closed forms for ``keys`` found within ``timeout`` wall-clock seconds (all keys together)."""
    return SymbolicSearch(expr, keys, time.monotonic() + timeout).collect()
