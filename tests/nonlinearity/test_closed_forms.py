"""symrmt.nonlinearity.closed_forms: the closed forms of docs/theory.md section 2, exact polynomials, the erf table.

Reference values from tests/_support/hermite_reference.py (mpmath closed forms, QUADPACK).
"""
from __future__ import annotations

import math

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from _support.hermite_reference import SLOW_OK, THEORY, close, gauss_expect
from symrmt.nonlinearity import X, hermite


@pytest.mark.parametrize("name", list(THEORY))
def test_theory_values_to_12_digits(name):
    f, a1, nu, has_closed_form = THEORY[name]
    h = hermite(f, timeout=SLOW_OK)
    assert close(h.a1, a1) and close(h.nu, nu), (h.a1, a1, h.nu, nu)
    assert abs(h.a0) <= 1e-12 and h.centered_by == 0.0
    assert math.isclose(h.b2, nu - a1**2, rel_tol=1e-10, abs_tol=1e-12)
    if has_closed_form is None:  # docs/theory.md gives a closed form for a1 only
        assert h.exact["a1"] is not None
    elif has_closed_form:
        assert h.exact["a1"] is not None and h.exact["nu"] is not None, h.source
        assert h.source["a1"] in ("exact", "table") and h.source["nu"] in ("exact", "table")
    else:
        assert h.exact["a1"] is None and h.source["a1"] == "numeric"


def test_theory_closed_forms_are_the_documented_ones():
    expected = {
        "sin(x)": (sp.exp(-sp.S.Half), (1 - sp.exp(-2)) / 2),
        "erf(x)": (2 / sp.sqrt(3 * sp.pi), 2 / sp.pi * sp.asin(sp.Rational(2, 3))),
        "Max(x, 0) - 1/sqrt(2*pi)": (sp.S.Half, sp.S.Half - 1 / (2 * sp.pi)),
        "x**3 - 3*x": (sp.S.Zero, sp.Integer(6)),
        "x": (sp.S.One, sp.S.One),
    }
    for f, (a1, nu) in expected.items():
        h = hermite(f, timeout=SLOW_OK)
        assert sp.simplify(h.exact["a1"] - a1) == 0 and sp.simplify(h.exact["nu"] - nu) == 0, f
    assert hermite("cos(x) - exp(-1/2)", timeout=SLOW_OK).exact["a1"] == 0


def test_tanh_matches_theory_rounding_and_stein_identity():
    h = hermite("tanh(x)")
    assert round(h.a1, 7) == 0.6057055 and round(h.nu, 7) == 0.3942945
    assert abs(h.a1 + h.nu - 1) < 1e-14  # E[xi tanh] = E[sech^2] = 1 - E[tanh^2]
    assert h.exact["a0"] == 0 and h.exact["a2"] == 0  # odd: from parity, not from a table


def test_erf_k_table_family():
    for k in (sp.Rational(1, 2), 2, 3):
        h = hermite(sp.erf(k * X))
        kf = float(k)
        a1 = 2 * kf / math.sqrt(math.pi * (1 + 2 * kf**2))
        nu = 2 / math.pi * math.asin(2 * kf**2 / (1 + 2 * kf**2))
        assert h.source["a1"] == "table" and close(h.a1, a1) and close(h.nu, nu)
        assert close(h.a1, gauss_expect(lambda t: t * math.erf(kf * t)))
        assert close(h.nu, gauss_expect(lambda t: math.erf(kf * t) ** 2))


@pytest.mark.parametrize("f", ["sin(x)", "erf(x)", "relu(x) - 1/sqrt(2*pi)", "Abs(x) - sqrt(2/pi)", "x**3 - 3*x"])
def test_exact_and_numeric_paths_agree(f):
    exact, numeric = hermite(f, timeout=SLOW_OK), hermite(f, method="numeric")
    assert all(v is None for v in numeric.exact.values()) and set(numeric.source.values()) == {"numeric"}
    for key in ("a0", "a1", "a2", "nu"):
        assert close(getattr(exact, key), getattr(numeric, key), scale=math.sqrt(exact.nu)), key
        if exact.exact[key] is not None:  # the closed form itself, at 30 digits, against the 30-digit quadrature
            assert abs(sp.N(exact.exact[key], 30) - sp.Float(getattr(numeric, key), 30)) < 1e-14


@st.composite
def hermite_polynomials(draw):
    coeffs = draw(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=4), min_size=4, max_size=4))
    if all(c == 0 for c in coeffs):
        coeffs[0] = 1
    return [sp.Rational(c.numerator, c.denominator) for c in coeffs]


@given(hermite_polynomials())
def test_hermite_form_polynomials_exactly(c):
    """f = sum_k c_k He_k (k = 1..4) has a_k = c_k sqrt(k!) and nu = sum_k c_k^2 k!, exactly."""
    f = sum(ck * sp.hermite_prob(k, X) for k, ck in enumerate(c, start=1))
    h = hermite(f)
    for k, ck in enumerate(c, start=1):
        value, exact = h.coefficient(k)
        assert exact is not None and sp.simplify(exact - ck * sp.sqrt(sp.factorial(k))) == 0
        assert math.isclose(value, float(ck * sp.sqrt(sp.factorial(k))), abs_tol=1e-13)
    assert h.exact["nu"] == sum(ck**2 * sp.factorial(k) for k, ck in enumerate(c, start=1))
    assert h.exact["a0"] == 0 and h.source["nu"] == "exact"


#: f whose every Hermite integrand is a sum of c x^m exp(q x^2 + k x): all four data exact, no SymPy integral.
EXPONENTIAL = ["exp(x)", "sin(x)", "cos(2*x)", "x**2*sin(3*x)", "cosh(x)*exp(x**2/8)", "sinh(x/2) - x",
               "exp(-x**2)*x**3"]


@pytest.mark.parametrize("f", EXPONENTIAL)
def test_gaussian_integrals_of_exponentials_are_exact(f):
    """Each closed form against QUADPACK of the formula's own NumPy function (not the module's quadrature)."""
    from symrmt.nonlinearity import numpy_callable

    h = hermite(f, timeout=0.1)              # no SymPy integral is needed: a tiny budget must suffice
    assert set(h.source.values()) == {"exact"}, h.source
    g = numpy_callable(f)
    hermite_k = {"a0": lambda t: 1.0, "a1": lambda t: t, "a2": lambda t: (t * t - 1) / math.sqrt(2)}
    for key, he in hermite_k.items():
        assert close(getattr(h, key), gauss_expect(lambda t: float(g(t)) * he(t)), math.sqrt(h.nu)), key
    assert close(h.nu, gauss_expect(lambda t: float(g(t)) ** 2), h.nu)


def test_exp_has_a1_exactly_e_to_the_half():
    assert hermite("exp(x)").exact["a1"] == sp.exp(sp.Rational(1, 2))
    assert hermite("exp(x)", center=True).exact["nu"] == sp.exp(2) - sp.E
    # E[xi^2 e^(q xi^2)] = (1 - 2q)^(-3/2): f^2 overflows float64 at |x| = 40, the closed form does not
    h = hermite("x*exp(0.23*x**2)")
    assert h.exact["a1"] == sp.Rational(54, 100) ** sp.Rational(-3, 2)
    assert h.exact["nu"] == sp.Rational(8, 100) ** sp.Rational(-3, 2)
