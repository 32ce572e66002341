"""symrmt.nonlinearity.tanh_sinh: the verified 30-digit quadrature refuses what it cannot integrate, and says why."""
from __future__ import annotations

import math

import pytest

from _support.hermite_reference import close
from symrmt.errors import NonlinearityError, SymrmtInputError
from symrmt.nonlinearity import hermite


@pytest.mark.parametrize("f", ["exp(x**2)", "exp(x**2/2)", "exp(x**2/4)", "exp(exp(x))"])
def test_not_square_integrable_is_refused(f):
    with pytest.raises(SymrmtInputError, match="square-integrable"):
        hermite(f, center=True)


@pytest.mark.parametrize("f", ["tan(x)", "1/x"])
def test_poles_are_refused(f):
    with pytest.raises(SymrmtInputError, match="did not converge|pole"):
        hermite(f, center=True)


def test_square_integrable_but_fast_growing_is_accepted():
    h = hermite("exp(x**2/5)", center=True)  # E f^2 = 1/sqrt(1 - 4/5) = sqrt(5)
    assert close(h.nu + h.centered_by**2, math.sqrt(5))


def test_zero_almost_everywhere_is_refused():
    with pytest.raises(SymrmtInputError, match="zero almost everywhere|constant"):
        hermite("sin(x)**2 + cos(x)**2 - 1")
    with pytest.raises(SymrmtInputError, match="constant almost everywhere"):
        hermite("sign(x)**2", center=True)


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


@pytest.mark.slow                       # oscillations up to the refusal: about 23 s on 2 cores
def test_fast_oscillation_is_integrated_or_refused_for_that_reason():
    h = hermite("sin(50*x)", method="numeric")       # nu = (1 - exp(-5000))/2, a1 = 50 exp(-1250)
    assert math.isclose(h.nu, 0.5, rel_tol=1e-12) and abs(h.a1) < 1e-13
    with pytest.raises(NonlinearityError, match="oscillate too fast"):
        hermite("sin(1000*x)", method="numeric")
