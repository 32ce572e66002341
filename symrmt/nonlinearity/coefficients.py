"""The Hermite data of one f: quadrature always, closed forms accepted only when they agree
with it, and centering."""
from __future__ import annotations

from typing import Sequence

import mpmath
import sympy as sp

from symrmt.errors import NonlinearityError

from .closed_forms import exponential_exact, parity_exact, polynomial_exact, symbolic_coefficients, table_exact
from .constants import DPS, KEYS
from .mpmath_eval import to_mp
from .tanh_sinh import check_nu, numeric_coefficients

_EXACT_RTOL = 1e-12  # a closed form must agree with the quadrature to this
_ZERO_ATOL = 1e-20  # numeric values below this (relative to sqrt(nu)) count as zero when centering


def agrees(value: sp.Expr, numeric, scale) -> bool:
    """Is ``value`` a finite real number within _EXACT_RTOL * scale of the quadrature?"""
    if not isinstance(value, sp.Expr) or value.has(sp.Integral, sp.oo, -sp.oo, sp.zoo, sp.nan) or not value.is_number:
        return False
    try:
        approx = to_mp(value)
    except (TypeError, ValueError, AttributeError):
        return False
    with mpmath.workdps(DPS):
        if isinstance(approx, mpmath.mpc):
            if abs(approx.imag) > _EXACT_RTOL * scale:
                return False
            approx = approx.real
        return bool(mpmath.isfinite(approx) and abs(approx - numeric) <= _EXACT_RTOL * scale)


def _cheap_candidates(expr: sp.Expr, keys: Sequence[str], hints: dict, timeout: float) -> tuple[list, set[str]]:
    """Closed-form candidates that need no integration, in order of preference, and the keys
    SymPy should not be asked about (already known, or known to have no closed form)."""
    table, no_closed_form = table_exact(expr, keys)
    known = polynomial_exact(expr, keys) or exponential_exact(expr, keys)
    parity = {} if set(keys) <= set(known) else parity_exact(expr, keys, timeout)
    candidates = [({k: v for k, (v, s) in hints.items() if s == src}, src) for src in ("exact", "table")]
    candidates += [(known, "exact"), (parity, "exact"), (table, "table")]
    return candidates, no_closed_form | set(known) | set(parity) | set(table) | set(hints)


def coefficients_of(expr: sp.Expr, keys: tuple[str, ...], method: str, timeout: float, hints=None, skip=()):
    """{key: (mpf value, closed form or None, source)} for ``keys``; "nu" is always computed.

    ``hints`` maps keys to (closed form, source) candidates; ``skip`` lists keys SymPy
    should not be asked about. Every candidate must agree with the quadrature."""
    candidates, symbolic_keys = [], []
    polynomial = polynomial_exact(expr, (*keys, "nu")) if method == "auto" else {}
    if polynomial:  # exact by construction: no quadrature needed
        return {key: (to_mp(polynomial[key]), polynomial[key], "exact") for key in keys}
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
            if key in cands and agrees(cands[key], value, scale):
                exact_value = to_mp(cands[key])
                out[key] = (getattr(exact_value, "real", exact_value), cands[key], src)
                break
    return out


def _numeric_and_symbolic(expr, keys, symbolic_keys, timeout, label):
    """Quadrature first (it refuses a bad f cheaply), then SymPy on ``symbolic_keys``."""
    numeric_values = numeric_coefficients(expr, keys, label)
    return numeric_values, symbolic_coefficients(expr, symbolic_keys, timeout) if symbolic_keys else {}


def hermite_compute(expr: sp.Expr, center: bool, method: str, timeout: float):
    """``(f used, {key: (value, closed form, source)}, a_0 subtracted, constant subtracted or None)``."""
    label = repr(str(expr)[:80])
    values = coefficients_of(expr, KEYS, method, timeout)
    _check_scale(values, label)
    a0, a0_exact, _ = values["a0"]
    exact_shift = a0_exact is not None and a0_exact != 0
    if not center or not (exact_shift or (a0_exact is None and abs(a0) > _ZERO_ATOL * mpmath.sqrt(values["nu"][0]))):
        return expr, values, 0.0, None
    shift = a0_exact if exact_shift else sp.Float(a0, DPS)
    centered = expr - shift
    # a_k (k >= 1) do not change when a constant is subtracted; nu loses a0^2
    hints = {k: values[k][1:] for k in ("a1", "a2") if values[k][1] is not None}
    if exact_shift:
        hints["a0"] = (sp.S.Zero, "exact")
        if values["nu"][1] is not None:
            hints["nu"] = (values["nu"][1] - shift**2, values["nu"][2])
    skip = {k for k in KEYS if values[k][2] == "numeric"}
    new = coefficients_of(centered, KEYS, method, timeout, hints=hints, skip=skip)
    _check_scale(new, label)
    return centered, new, float(a0), shift


def _check_scale(values, label: str) -> None:
    nu, a0 = values["nu"][0], values["a0"][0]
    if nu - a0**2 <= 1e-24 * nu:   # relative: a tiny f is a scale problem, told by check_nu
        raise NonlinearityError(
            f"nonlinearity {label} is constant almost everywhere under the Gaussian (E (f - a0)^2 = 0 to "
            f"{DPS} digits of E f^2 = {mpmath.nstr(nu, 3)}); attention needs a non-constant f such as tanh(x)"
            + (", and a large constant offset should be removed from the formula" if nu > 1e20 else "")
        )
    check_nu(label, nu - a0**2, exact=values["nu"][1] is not None)  # the variance: what centering leaves
