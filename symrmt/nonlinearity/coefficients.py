"""The Hermite data of one f: quadrature always, closed forms accepted only when they agree
with it, and centering."""
from __future__ import annotations

import time
from typing import Sequence

import mpmath
import numpy as np
import sympy as sp

from symrmt.errors import NonlinearityError

from .closed_forms import (SymbolicSearch, additive_exact, exponential_exact, parity_exact, polynomial_exact,
                           table_exact)
from .constants import DPS, KEYS, X
from .mpmath_eval import to_mp
from .tanh_sinh import Memo, check_nu, numeric_coefficients, tail_check

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


def _cheap_candidates(expr: sp.Expr, keys: Sequence[str], hints: dict, deadline: float) -> tuple[list, set[str]]:
    """Closed-form candidates that need no integration, in order of preference, and the keys
    SymPy should not be asked about (already known, or known to have no closed form)."""
    table, no_closed_form = table_exact(expr, keys)
    known = polynomial_exact(expr, keys) or exponential_exact(expr, keys)
    parity = {} if set(keys) <= set(known) else parity_exact(expr, keys, deadline)
    found = set(known) | set(parity) | set(table) | set(hints)
    additive = {} if set(keys) <= found else additive_exact(expr, [k for k in keys if k not in found], deadline)
    candidates = [({k: v for k, (v, s) in hints.items() if s == src}, src) for src in ("exact", "table")]
    candidates += [(known, "exact"), (parity, "exact"), (table, "table"), (additive, "exact")]
    return candidates, no_closed_form | found | set(additive)


def coefficients_of(expr: sp.Expr, keys: tuple[str, ...], method: str, deadline: float, hints=None, skip=(),
                    numeric=None, pending: set | None = None):
    """{key: (mpf value, closed form or None, source)} for ``keys``; "nu" is always computed.

    ``deadline`` (``time.monotonic()`` seconds) ends the search for closed forms; ``hints`` maps keys to
    (closed form, source) candidates; ``skip`` lists keys SymPy should not be asked about; ``numeric`` holds
    the verified quadrature values when they are already known. Every candidate must agree with the quadrature.
    ``pending`` (a set) receives the keys SymPy was to be asked about and gave nothing for by the deadline (a
    deadline already past asks it nothing: they are all pending), what a longer search may still find."""
    candidates, symbolic_keys = [], []
    polynomial = polynomial_exact(expr, (*keys, "nu")) if method == "auto" else {}
    if polynomial:  # exact by construction: no quadrature needed
        return {key: (to_mp(polynomial[key]), polynomial[key], "exact") for key in keys}
    if method == "auto":
        candidates, known = _cheap_candidates(expr, keys, hints or {}, deadline)
        # nu first: it is usually the slowest integral
        symbolic_keys = sorted(set(keys) - known - set(skip), key=lambda k: (k != "nu", k))
    numeric_values, found = _numeric_and_symbolic(expr, keys, symbolic_keys, deadline, repr(str(expr)[:80]), numeric)
    candidates.append((found, "exact"))
    if pending is not None:
        pending.update(k for k in symbolic_keys if k not in found)
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


#: The float64 route is taken where its three Gauss-Hermite rules agree to this fraction of each datum's scale: the
#: bar of the 30-digit route (two tanh-sinh rules, :mod:`.tanh_sinh`), so that both verify to 1e-13 relative.
FLOAT64_RTOL = 1e-13


def verified_values(expr: sp.Expr, keys: Sequence[str], label: str) -> tuple[dict, str]:
    """``({key: mpf}, route)``: the Hermite data of f verified to :data:`FLOAT64_RTOL` of their scale, by the route
    that gets there first.

    ``"float64"``: the Gauss-Hermite rules of orders 48, 80 and 128 in float64 (:mod:`.gauss_hermite`, milliseconds
    for a smooth f such as gelu or tanh(2x)/2 + x^3/10), where every datum of the highest one agrees with the two
    others to :data:`FLOAT64_RTOL`, after the same refusal of an f that is not square-integrable as the 30-digit
    route (:func:`~.tanh_sinh.tail_check`); ``"30-digit"``: the tanh-sinh quadrature in mpmath otherwise
    (kinks away from 0, poles near the real line: a second or more for an f with erf in it)."""
    if not set(keys) <= set(KEYS):                  # a_k beyond a_2: the 30-digit route alone
        return numeric_coefficients(expr, keys, label), "30-digit"
    memo = Memo(expr, label)
    with mpmath.workdps(DPS):
        tail_check(memo)
    from .gauss_hermite import gauss_hermite_data  # heavy: SymPy

    data, accepted, errors = gauss_hermite_data(expr, (), np.zeros((1, 0)), False)
    names = {*keys, "nu"}
    if accepted[0] and not unresolved_by_the_rules(expr):
        root_nu = np.sqrt(abs(data["nu"][0]))
        if all(errors[k][0] <= FLOAT64_RTOL * max(abs(data[k][0]), root_nu) for k in names):
            check_nu(label, mpmath.mpf(float(data["nu"][0])))
            return {k: mpmath.mpf(float(data[k][0])) for k in names}, "float64"
    return numeric_coefficients(expr, keys, label), "30-digit"


#: :func:`unresolved_by_the_rules`: the grid on which f is sampled (spacing 1e-3 on [-8, 8], where the Gaussian
#: weight holds all but 1e-15 of the mass), and the largest step between neighbours, as a fraction of f's range there,
#: below which f varies on scales the rules' nodes (0.1 to 0.3 apart near 0) resolve.
STEEP_GRID, STEEP_FRACTION = np.linspace(-8.0, 8.0, 16001), 0.01


def unresolved_by_the_rules(expr: sp.Expr) -> bool:
    """Whether f changes faster than the Gauss-Hermite nodes can see (a transition narrower than their spacing, as
    erf(4646 x)): then all three rules agree on a wrong value (they sample sign(x)), and the 30-digit route decides.

    >>> unresolved_by_the_rules(sp.erf(4646 * X)), unresolved_by_the_rules(sp.tanh(2 * X) / 2 + X**3 / 10)
    (True, False)
    """
    from symrmt.lambdify import numpy_function  # heavy: SymPy

    try:
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(numpy_function(expr, [X])(STEEP_GRID), dtype=float), STEEP_GRID.shape)
    except Exception:  # noqa: BLE001 - f not evaluable on the grid in NumPy: the 30-digit route decides
        return True
    finite = values[np.isfinite(values)]
    if finite.size < values.size:
        return True
    spread = float(finite.max() - finite.min())
    return spread > 0 and float(np.max(np.abs(np.diff(values)))) > STEEP_FRACTION * spread


def _numeric_and_symbolic(expr, keys, symbolic_keys, deadline, label, numeric=None):
    """SymPy's children started first, so that they search while the parent computes the quadrature (which
    refuses a bad f, stopping them); then their closed forms, collected until ``deadline``."""
    search = SymbolicSearch(expr, symbolic_keys, deadline) if symbolic_keys else None
    try:
        numeric_values = numeric if numeric is not None else verified_values(expr, keys, label)[0]
        return numeric_values, search.collect() if search is not None else {}
    finally:
        if search is not None:
            search.stop()


def hermite_compute(expr: sp.Expr, center: bool, method: str, timeout: float, pending: set | None = None):
    """``(f used, {key: (value, closed form, source)}, a_0 subtracted, constant subtracted or None)``.

    ``timeout``: wall-clock seconds for the whole search for closed forms (both passes when centering; 0: none,
    only the closed forms that need no integration); ``pending`` receives the keys left to SymPy
    (:func:`coefficients_of`)."""
    deadline = time.monotonic() + timeout
    label = repr(str(expr)[:80])
    values = coefficients_of(expr, KEYS, method, deadline, pending=pending)
    _check_scale(values, label)
    a0, a0_exact, _ = values["a0"]
    exact_shift = a0_exact is not None and a0_exact != 0
    if not center or not (exact_shift or (a0_exact is None and abs(a0) > _ZERO_ATOL * mpmath.sqrt(values["nu"][0]))):
        return expr, values, 0.0, None
    # A value of the float64 route is a double: written with the 15 digits it holds (the same number), not the 30
    # that its binary expansion would print (0.2499999999999999972244424384371 for 1/4 less a rounding error).
    double = a0 == mpmath.mpf(float(a0))
    shift = a0_exact if exact_shift else (sp.Float(float(a0), 15) if double else sp.Float(a0, DPS))
    centered = expr - shift
    # a_k (k >= 1) do not change when a constant is subtracted; nu loses a0^2
    hints = {k: values[k][1:] for k in ("a1", "a2") if values[k][1] is not None}
    if exact_shift:
        hints["a0"] = (sp.S.Zero, "exact")
        if values["nu"][1] is not None:
            hints["nu"] = (values["nu"][1] - shift**2, values["nu"][2])
    skip = {k for k in KEYS if values[k][2] == "numeric"}
    new = coefficients_of(centered, KEYS, method, deadline, hints=hints, skip=skip,
                          numeric=_centered_numeric(values, a0 - to_mp(shift)), pending=pending)
    _check_scale(new, label)
    return centered, new, float(a0), shift


#: Centering reuses the quadrature of f where the variance keeps this share of nu (at 30 digits, at least 20 digits
#: of nu - a0^2 remain); below it the centered f is integrated again.
_VARIANCE_SHARE = 1e-10


def _centered_numeric(values: dict, residual_a0) -> dict | None:
    """The quadrature values of f - a_0 from those of f (a_k, k >= 1, unchanged; nu - a_0^2), or None where the
    subtraction would cancel too many digits."""
    a0, nu = values["a0"][0], values["nu"][0]
    with mpmath.workdps(DPS + 10):
        variance = nu - a0**2 + residual_a0**2
    if not variance > _VARIANCE_SHARE * nu:
        return None
    return {"a0": residual_a0, "a1": values["a1"][0], "a2": values["a2"][0], "nu": variance}


def _check_scale(values, label: str) -> None:
    nu, a0 = values["nu"][0], values["a0"][0]
    if nu - a0**2 <= 1e-24 * nu:   # relative: a tiny f is a scale problem, told by check_nu
        raise NonlinearityError(
            f"nonlinearity {label} is constant almost everywhere under the Gaussian (E (f - a0)^2 = 0 to "
            f"{DPS} digits of E f^2 = {mpmath.nstr(nu, 3)}); attention needs a non-constant f such as tanh(x)"
            + (", and a large constant offset should be removed from the formula" if nu > 1e20 else "")
        )
    check_nu(label, nu - a0**2, exact=values["nu"][1] is not None)  # the variance: what centering leaves
