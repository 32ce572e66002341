"""The float64 route of numeric(): its error estimate against the 30-digit mpmath quadrature, and its fallback at kinks."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.nonlinearity import hermite
from symrmt.nonlinearity.constants import KEYS
from symrmt.nonlinearity.gauss_hermite import RTOL, gauss_hermite_data
from symrmt.nonlinearity.parse import parse_nonlinearity
from symrmt.nonlinearity.tanh_sinh import numeric_coefficients


def _parametric(formula: str, name: str):
    expr = parse_nonlinearity(formula, [name])
    (symbol,) = [s for s in expr.free_symbols if s.name == name]
    return expr, symbol


def _mpmath(expr, symbol, value: float) -> dict[str, float]:
    """The verified 30-digit quadrature at one point (the module's reference route)."""
    out = numeric_coefficients(expr.xreplace({symbol: value}), KEYS, "reference")
    return {k: float(out[k]) for k in KEYS}


def _scale(data: dict[str, float], key: str) -> float:
    return max(abs(data[key]), abs(data["nu"]) ** 0.5)


@pytest.mark.parametrize("value", [0.1, 0.7, 2.5])
def test_softplus_with_a_temperature_agrees_with_mpmath_to_the_estimates_tolerance(value):
    # log(1 + exp(x/T)) has poles at distance pi*T from the real line: at T = 0.1 Gauss-Hermite converges too
    # slowly and the composite rules take the point; at 0.7 and 2.5 Gauss-Hermite does.
    expr, symbol = _parametric("T*softplus(x/T)", "T")
    values, accepted, errors = gauss_hermite_data(expr, [symbol], np.array([[value]]), center=False)
    assert accepted[0]
    reference = _mpmath(expr, symbol, value)
    for key in KEYS:
        assert abs(values[key][0] - reference[key]) <= RTOL * _scale(reference, key), key
        assert errors[key][0] <= RTOL * _scale(reference, key)


@pytest.mark.parametrize("formula", ["relu(x - s)", "abs(x - s)", "leaky_relu(x - s, 0.1)"])
def test_a_planted_kink_is_caught_by_the_estimate(formula):
    # The kink at x = 0.3 is a node boundary of neither composite rule: both rules converge algebraically, disagree,
    # and the point is left to mpmath.
    expr, symbol = _parametric(formula, "s")
    values, accepted, errors = gauss_hermite_data(expr, [symbol], np.array([[0.3]]), center=False)
    reference = _mpmath(expr, symbol, 0.3)
    worst = max(abs(values[k][0] - reference[k]) / _scale(reference, k) for k in KEYS)
    assert worst > RTOL                       # the planted error is real: float64 quadrature is off at the kink
    assert not accepted[0]                    # and the estimate says so
    assert max(errors[k][0] / _scale(reference, k) for k in KEYS) > RTOL


def test_numeric_falls_back_to_mpmath_at_a_kink_and_agrees_with_it():
    h = hermite("softplus(x) + relu(x - s)", method="numeric")
    out = h.numeric(s=[0.3, 3.0])
    expr, symbol = _parametric("softplus(x) + relu(x - s)", "s")
    for i, value in enumerate((0.3, 3.0)):
        reference = _mpmath(expr, symbol, value)
        for key in KEYS:
            assert abs(out[key][i] - reference[key]) <= RTOL * _scale(reference, key)


def test_centered_per_point_matches_the_variance():
    expr, symbol = _parametric("T*softplus(x/T)", "T")
    values, accepted, _ = gauss_hermite_data(expr, [symbol], np.array([[0.7], [3.0]]), center=True)
    assert accepted.all() and np.all(values["a0"] == 0)
    for i, value in enumerate((0.7, 3.0)):
        reference = _mpmath(expr, symbol, value)
        variance = reference["nu"] - reference["a0"] ** 2
        assert abs(values["nu"][i] - variance) <= RTOL * reference["nu"]


def test_not_square_integrable_is_left_to_mpmath():
    # E exp(0.3 x^2)^2 is infinite: the float64 rules are finite on their nodes but cannot agree
    expr, symbol = _parametric("exp(s*x**2)", "s")
    _, accepted, errors = gauss_hermite_data(expr, [symbol], np.array([[0.3], [0.05]]), center=False)
    assert not accepted[0] and errors["nu"][0] > RTOL
    assert accepted[1]


def test_overflow_on_the_nodes_is_left_to_mpmath():
    expr, symbol = _parametric("exp(s*x**3)", "s")     # exp(21^3) overflows float64 on the outer nodes
    _, accepted, errors = gauss_hermite_data(expr, [symbol], np.array([[1.0]]), center=False)
    assert not accepted[0] and errors["nu"][0] == np.inf


def test_a_transition_narrower_than_the_nodes_goes_to_the_30_digit_route(monkeypatch):
    """erf(4646 x) is sign(x) at every Gauss-Hermite node, so the three float64 rules agree on nu = 1 (true
    0.99986...): the steepness check sends it to the verified route, and the data equal the closed forms to 1e-12.
    Planted: with the check switched off the float64 answer is 1.4e-4 off, which the comparison catches."""
    import math

    import symrmt
    from symrmt.nonlinearity import api, coefficients

    s = 4646.0
    a1, nu = 2 * s / math.sqrt(math.pi * (1 + 2 * s * s)), 2 / math.pi * math.asin(2 * s * s / (1 + 2 * s * s))
    api._hermite_cached.cache_clear()
    h = symrmt.hermite("erf(4646*x)", method="numeric")
    assert abs(h.a1 - a1) < 1e-12 and abs(h.nu - nu) < 1e-12
    monkeypatch.setattr(coefficients, "unresolved_by_the_rules", lambda expr: False)
    api._hermite_cached.cache_clear()
    fooled = symrmt.hermite("erf(4646*x)", method="numeric")
    assert abs(fooled.nu - nu) > 1e-4
    api._hermite_cached.cache_clear()
