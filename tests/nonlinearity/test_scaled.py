"""The Hermite data of f(sigma x) (symrmt.nonlinearity.scaled): hermite's numbers at the scale, and the pair's beta."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symrmt.errors import NonlinearityError, ParameterError
from symrmt.nonlinearity import hermite
from symrmt.nonlinearity.scaled import scaled_data, scaled_hermite
from symrmt.theory.softmax import softmax_hermite


def test_scaled_data_of_known_functions():
    data = scaled_data("x**3 - 3*x", 0.5)                   # He_3(s x) = s^3 He_3 + 3 s (s^2 - 1) x: exact forms
    assert float(data["a1"]) == pytest.approx(3 * 0.5 * (0.25 - 1), abs=1e-15)
    assert float(data["nu"]) == pytest.approx(6 * 0.5**6 + float(data["a1"]) ** 2, rel=1e-14)
    by_string, by_callable = scaled_data("tanh(x)", -0.3), scaled_data(np.tanh, -0.3)
    # the formula's float64 rules agree to 1e-11 of the scale, the callable's to 1e-6 (their stated accuracies)
    np.testing.assert_allclose([by_string["a1"], by_string["nu"]], [by_callable["a1"], by_callable["nu"]], rtol=1e-9)
    assert by_string["a1"] < 0 and by_string["nu"] > 0       # a_1(f_s) = s E[tanh'(s xi)] < 0 for s < 0


@pytest.mark.parametrize("f", ["tanh(x)", "erf(x)",
                               pytest.param("Max(x, 0) - 1/sqrt(2*pi)", marks=pytest.mark.slow)])  # SymPy: ~40 s
def test_unit_scale_is_hermite_of_f_itself(f):
    """At sigma = 1 the data are hermite(f)'s, to the float64 rules' accuracy (1e-11 of the scale; seen: 1e-16)."""
    h, data = hermite(f), scaled_data(f, 1.0)
    assert abs(float(data["a1"]) - h.a1) <= 1e-11 * math.sqrt(h.nu)
    assert abs(float(data["nu"]) - h.nu) <= 1e-11 * h.nu


def test_beta_is_the_arcsine_kernel_of_erf():
    """erf(sigma x): k(rho) = (2/pi) asin(2 sigma^2 rho/(1 + 2 sigma^2)), so beta = k(rho) - a_1^2 rho exactly.
    The planted error (Mehler's sum read with rho^2 for rho) is 8.5e-4 away and must miss."""
    sigma, rho = 0.8, -0.35
    h = scaled_hermite("erf(x)", sigma, rho)
    exact = 2 / math.pi * math.asin(2 * sigma**2 * rho / (1 + 2 * sigma**2)) - h.a1**2 * rho
    assert h.beta == pytest.approx(exact, abs=1e-12) and h.beta_error < 1e-12
    planted = 2 / math.pi * math.asin(2 * sigma**2 * rho**2 / (1 + 2 * sigma**2)) - h.a1**2 * rho**2
    assert abs(h.beta - planted) > 1e-4
    assert scaled_hermite("erf(x)", sigma, 1.0).beta == h.b2       # rho = 1: beta = b^2 exactly


def test_centring_is_hermites_rule():
    """cosh(sigma x) is refused as not centred (the message says how); center=True subtracts a_0(sigma) = e^{s^2/2}."""
    with pytest.raises(NonlinearityError, match="not centered at sigma = 0.7"):
        scaled_hermite("cosh(x)", 0.7, 0.5)
    h = scaled_hermite("cosh(x)", 0.7, 0.5, center=True)
    assert h.a0 == 0 and h.nu == pytest.approx(math.exp(2 * 0.49) / 2 + 0.5 - math.exp(0.49), rel=1e-13)
    with pytest.raises(NonlinearityError, match="not centered"):
        scaled_data(lambda x: x * x, 0.7)                      # a_0 = sigma^2


@pytest.mark.parametrize("sigma", [0.0, float("nan"), float("inf")])
def test_zero_or_non_finite_scale_is_refused_in_one_line(sigma):
    with pytest.raises(ParameterError, match="must be finite and nonzero.*M = 0") as info:
        scaled_hermite("tanh(x)", sigma, 0.5)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("tau", [0.3, 0.5, 1.0, 2.0, 5.0])
def test_softmax_hermite_is_the_engines_centred_exponential(tau):
    """softmax_hermite's expm1 form equals the engine's closed forms of exp(x/tau) centred (float64: 1e-13)."""
    data = scaled_data("exp(x)", 1.0 / tau, center=True)
    a1, nu = softmax_hermite(tau)
    assert float(a1) == pytest.approx(float(data["a1"]), rel=1e-13)
    assert float(nu) == pytest.approx(float(data["nu"]), rel=1e-13)


@pytest.mark.slow                                             # the first hermite() of relu(sigma x): SymPy, ~40 s
def test_the_centred_relu_moves_by_the_old_rules_error_at_the_kink():
    """docs/general_weights.md: the centred ReLU's nu at sigma = 1 is its closed form 1/2 - 1/(2 pi) to 1e-12; the
    240-node Gauss-Hermite rule the general-M theory used before is 5.5e-4 off (the planted rule the engine replaces)."""
    data = scaled_data("Max(x, 0) - 1/sqrt(2*pi)", 1.0)
    assert float(data["nu"]) == pytest.approx(0.5 - 1 / (2 * math.pi), abs=1e-12)
    x, w = np.polynomial.hermite_e.hermegauss(240)
    f = np.maximum(x, 0) - 1 / math.sqrt(2 * math.pi)
    w = w / math.sqrt(2 * math.pi)
    old = w @ (f * f) - (w @ f) ** 2 - (w @ (x * f)) ** 2 + float(data["a1"]) ** 2   # the old b^2 + a_1^2
    assert abs(old - float(data["nu"])) == pytest.approx(5.5e-4, abs=2e-5)
