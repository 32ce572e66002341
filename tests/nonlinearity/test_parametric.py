"""f with symbolic parameters (h.numeric) and f given as a Python callable."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad

from symrmt.errors import NonlinearityError, ParameterError, ParseError
from symrmt.nonlinearity import hermite


def gauss(g) -> float:
    """E g(xi) by QUADPACK (independent of the module's mpmath and its numeric rules)."""
    phi = lambda t: g(t) * math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    return sum(quad(phi, a, b, epsabs=0, epsrel=1e-13, limit=200)[0] for a, b in ((-40, 0), (0, 40)))


S = sp.Symbol("s", real=True)


def test_erf_s_closed_forms_are_the_documented_ones():
    h = hermite("erf(s*x)")
    assert h.parameters == (S,) and h.source["a1"] == "table" and h.source["nu"] == "table"
    assert sp.simplify(h.exact["a1"] - 2 * S / sp.sqrt(sp.pi * (1 + 2 * S**2))) == 0
    assert sp.simplify(h.exact["nu"] - 2 / sp.pi * sp.asin(2 * S**2 / (1 + 2 * S**2))) == 0
    s = np.array([0.25, 0.5, 1.0, 3.0])
    out = h.numeric(s=s)
    assert set(out) == {"a0", "a1", "a2", "nu"} and all(v.shape == (4,) for v in out.values())
    for i, si in enumerate(s):
        assert math.isclose(out["a1"][i], gauss(lambda t: t * math.erf(si * t)), rel_tol=1e-11)
        assert math.isclose(out["nu"][i], gauss(lambda t: math.erf(si * t) ** 2), rel_tol=1e-11)
    for read in (lambda: h.a1, lambda: h.nu, lambda: h.b2):   # never a silent NaN: the data depend on s
        with pytest.raises(ParameterError, match=r"\.at\(s=\.\.\.\).*\.numeric\(s=\.\.\.\)"):
            read()


def test_sympy_expression_with_extra_symbols_is_parametric():
    s, x = sp.symbols("s x")
    h = hermite(sp.erf(s * x))
    assert h.parameters == (S,) and h.exact["a1"] is not None
    np.testing.assert_allclose(h.numeric(s=1.0)["nu"], hermite("erf(x)").nu, rtol=1e-14)


def test_numeric_data_broadcast_and_match_fixed_parameter_values():
    h = hermite("tanh(s*x)")
    assert h.source["a1"] == "numeric" and h.exact["a2"] == 0
    out = h.numeric(s=np.array([[0.5], [1.0]]))
    assert out["a1"].shape == (2, 1) and out["a0"].shape == (2, 1)
    assert out["a1"][1, 0] == hermite("tanh(x)").a1
    assert math.isclose(out["nu"][0, 0], gauss(lambda t: math.tanh(0.5 * t) ** 2), rel_tol=1e-11)
    two = hermite("tanh(a*x) + b*x").numeric(a=[1.0, 2.0], b=0.5)
    assert two["a1"].shape == (2,)
    assert math.isclose(two["a1"][1], gauss(lambda t: t * (math.tanh(2 * t) + 0.5 * t)), rel_tol=1e-11)


def test_centering_may_depend_on_the_parameters():
    h = hermite("erf(s*x) + b", center=True)
    assert h.f == sp.erf(S * sp.Symbol("x", real=True)) and h.exact["a0"] == 0
    poly = hermite("a*x**3 + b*x**2", center=True)
    a, b = sp.symbols("a b", real=True)
    assert poly.exact["nu"] == 15 * a**2 + 2 * b**2 and poly.exact["a2"] == sp.sqrt(2) * b
    numeric = hermite("tanh(s*x) + s", center=True, method="numeric")
    out = numeric.numeric(s=[0.5, 2.0])
    assert np.all(np.abs(out["a0"]) < 1e-20)                   # the 30-digit a0 was subtracted
    assert math.isclose(out["nu"][1], gauss(lambda t: math.tanh(2 * t) ** 2), rel_tol=1e-11)
    uncentered = hermite("erf(s*x) + s")                      # reported; refused only where centering is needed
    assert uncentered.exact["a0"] == S
    with pytest.raises(NonlinearityError, match="not centered.*a_0 = E f\\(xi\\) = s"):
        uncentered.require_centered()
    values = uncentered.numeric(s=[0.5, 2.0])
    with pytest.raises(NonlinearityError, match="not centered at s = 0.5"):
        uncentered.require_centered(values, {"s": [0.5, 2.0]})


@pytest.mark.parametrize("params, match", [
    (dict(), "missing"),
    (dict(s=1.0, t=2.0), "unknown"),
    (dict(s=float("nan")), "finite"),
    (dict(s=[1.0, float("inf")]), "finite"),
    (dict(s=1 + 2j), "real"),
    (dict(s="one"), "real"),
    (dict(s=None), "real"),
    (dict(s=[[1.0], [2.0, 3.0]]), "array"),
])
def test_bad_parameter_values_are_refused(params, match):
    h = hermite("erf(s*x)")
    with pytest.raises(ParameterError, match=match):
        h.numeric(**params)


def test_mismatched_shapes_and_bad_names_are_refused():
    h = hermite("tanh(a*x) + b*x")
    with pytest.raises(ParameterError, match="broadcast"):
        h.numeric(a=[1.0, 2.0], b=[1.0, 2.0, 3.0])
    with pytest.raises(ParameterError, match="a \\(2,\\), b \\(3,\\)"):   # the message names the parameters
        h.numeric(a=[1.0, 2.0], b=[1.0, 2.0, 3.0])
    for formula in ("erf(_s*x)", "erf(tanh*x)", "erf(s(x))", "erf(lambda*x)"):      # not parameter names: refused
        with pytest.raises(ParseError):
            hermite(formula)
    with pytest.raises(ParameterError, match="has no parameters"):
        hermite("erf(x)", params={"s": 1.0})


def test_a_point_where_f_is_unusable_is_named():
    h = hermite("tanh(s*x)")
    with pytest.raises(NonlinearityError, match="s = 0"):
        h.numeric(s=[1.0, 0.0])


def test_without_parameters_numeric_returns_the_floats():
    h = hermite("erf(x)")
    out = h.numeric()
    assert out["nu"].shape == () and float(out["nu"]) == h.nu
    with pytest.raises(ParameterError):
        h.numeric(s=1.0)
