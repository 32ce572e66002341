"""Hostile and extreme formulas through hermite: named errors, the right reason, never a traceback from inside."""
from __future__ import annotations

import math

import pytest

from symrmt.errors import NonlinearityError, ParameterError, ParseError, SymrmtInputError
from symrmt.nonlinearity import hermite, parse_nonlinearity


def test_repeated_root_kinks_converge():
    """sign(x**2) has a double root at 0: nroots used to raise mpmath's NoConvergence."""
    for f in ("sign(x**2)*x", "sign(x**2 - 2*x + 1)*x", "x*sign(x**4)", "x*Abs(sign(x**3))", "Max(x**2, 0)*x - x**3 + x"):
        h = hermite(f, method="numeric")
        assert math.isclose(h.a1, 1.0, rel_tol=1e-12) and math.isclose(h.nu, 1.0, rel_tol=1e-12), f


@pytest.mark.parametrize("f", ["1e-15*x", "1e-162*x", "1e-162*x**3", "1e-11*tanh(x)", "1e-300*x", "1e-100*exp(-x**2)"])
def test_tiny_scales_are_refused_as_such(f):
    with pytest.raises(NonlinearityError, match="too small in scale"):
        hermite(f)


def test_small_but_resolvable_scale_is_accepted():
    h = hermite("1e-9*x")
    assert h.a1 == 1e-9 and h.nu == 1e-18 and h.nu >= h.a1**2


def test_fast_oscillation_is_integrated_or_refused_for_that_reason():
    h = hermite("sin(50*x)", method="numeric")       # nu = (1 - exp(-5000))/2, a1 = 50 exp(-1250)
    assert math.isclose(h.nu, 0.5, rel_tol=1e-12) and abs(h.a1) < 1e-13
    with pytest.raises(NonlinearityError, match="oscillate too fast"):
        hermite("sin(1000*x)", method="numeric")


def test_error_classes():
    with pytest.raises(ParseError):
        hermite("__import__('os')")
    with pytest.raises(ParseError):
        parse_nonlinearity("x^2")
    for f in ("log(x)", "3", "relu(x)", "exp(x**2)", "1/x"):
        with pytest.raises(NonlinearityError):
            hermite(f)
    for kwargs in (dict(method="magic"), dict(timeout=-1), dict(timeout=float("nan")), dict(center="yes")):
        with pytest.raises(ParameterError):
            hermite("tanh(x)", **kwargs)
    with pytest.raises(NonlinearityError):
        hermite(3.0)
    assert issubclass(ParseError, SymrmtInputError) and issubclass(NonlinearityError, ValueError)
