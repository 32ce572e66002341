"""The theory of softmax attention: the Hermite data of its f, and softmax_error as the entrywise system."""
from __future__ import annotations

import numpy as np
import pytest

import symrmt
from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from symrmt.simulation.softmax import softmax_scale
from symrmt.theory.softmax import softmax_error, softmax_formula, softmax_hermite
from symrmt.validate import MIN_TEMPERATURE
from symrmt.theory import attention_error


def gauss_moments(f, nodes=200):
    """E f(xi), E[xi f(xi)], E f(xi)^2 by Gauss-Hermite quadrature (probabilists'), independent of SymPy."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    values = f(x)
    return w @ values, w @ (x * values), w @ values**2


@pytest.mark.parametrize("tau", [0.5, 0.8, 1.0, 2.0, 5.0])
def test_hermite_data_are_those_of_the_centered_exponential(tau):
    """a_0 = 0, a_1 = e^{1/(2 tau^2)}/tau, nu = e^{2/tau^2} - e^{1/tau^2}: quadrature of exp(x/tau) - e^{1/(2tau^2)}."""
    a0, a1, nu = gauss_moments(lambda x: np.exp(x / tau) - np.exp(0.5 / tau**2))
    exact_a1, exact_nu = softmax_hermite(tau)
    assert abs(a0) < 1e-10 * np.exp(0.5 / tau**2)
    assert np.isclose(a1, exact_a1, rtol=1e-10) and np.isclose(nu, exact_nu, rtol=1e-10)


@pytest.mark.slow
def test_hermite_data_as_sympy_derives_them():
    """The package's own derivation of the formula (SymPy, exact) gives the same closed forms."""
    import sympy as sp

    h = symrmt.hermite("exp(x/tau) - exp(1/(2*tau**2))")        # tau: a parameter by its name
    tau = h.parameters[0]
    assert sp.simplify(h.exact["a0"]) == 0
    assert sp.simplify(h.exact["a1"] - sp.exp(1 / (2 * tau**2)) / tau) == 0
    assert sp.simplify(h.exact["nu"] - (sp.exp(2 / tau**2) - sp.exp(1 / tau**2))) == 0
    for value in (0.5, 1.0, 2.0):
        formula = symrmt.hermite(softmax_formula(value))
        assert np.allclose((formula.a1, formula.nu), softmax_hermite(value), rtol=1e-12)


def test_softmax_error_is_the_entrywise_system_with_those_data():
    """The issue's theory column (c = 1, no weights): 0.0805, 0.1791, 0.3889; and with signal and weights."""
    np.testing.assert_allclose(softmax_error(1.0, [0.01, 0.1, 1.0]), [0.0805, 0.1791, 0.3889], atol=5e-5)
    np.testing.assert_allclose(softmax_error(1.0, [0.01, 0.1, 1.0], geometry=Geometry(mu_norm=1.5)),
                               [0.0325, 0.0720, 0.1562], atol=5e-5)
    geometry = Geometry(1.0, 1.2, 0.8, 0.6, -0.3, 0.2)
    for tau in (0.5, 2.0):
        # softmax_error solves f/a_1 at gamma/a_1^2: the same error to the solver's tolerance (1e-6 quadrature).
        np.testing.assert_allclose(softmax_error(1.5, [0.05, 0.5], temperature=tau, geometry=geometry),
                                   attention_error(softmax_hermite(tau), 1.5, [0.05, 0.5], geometry), rtol=1e-6)


def test_temperature_enters_through_the_scale_and_the_nonlinear_share():
    """E depends on (a_1, nu) only through gamma/a_1^2 and nu/a_1^2 (f -> s f maps E(gamma) to E(gamma/s^2)):
    softmax at tau is the f = x + (tau^2 (e^{1/tau^2} - 1) - 1)^{1/2} (nonlinear part) model at gamma/a_1^2."""
    gamma = np.array([0.03, 0.3, 3.0])
    for tau in (0.6, 1.0, 3.0):
        a1, nu = softmax_hermite(tau)
        share = tau**2 * np.expm1(1 / tau**2)
        np.testing.assert_allclose(softmax_error(2.0, gamma, temperature=tau),
                                   attention_error((1.0, share), 2.0, gamma / a1**2), rtol=1e-9)


def test_small_temperatures_are_solved():
    """tau = 0.3 (a_1 = 862, nu = 4.5e9): the raw data stall the continuation; the rescaled system solves, and
    tau -> 0 tends to the pure-noise kernel (b/a_1 -> infinity), so the error falls towards 0 with tau."""
    errors = [softmax_error(1.0, 0.1 * softmax_hermite(tau)[0] ** 2, temperature=tau) for tau in (0.3, 0.5, 1.0)]
    assert np.all(np.isfinite(errors)) and errors[0] < errors[1] < errors[2]


def test_a_grid_the_continuation_stalls_on_is_solved_point_by_point():
    """c = 1, tau = 0.5: the solver's continuation stalls on this 61-point grid (each point alone solves);
    softmax_error falls back to single points, which the solver checks one by one."""
    a1 = float(softmax_hermite(0.5)[0])
    ridges = np.logspace(-2, 1, 61)
    grid = softmax_error(1.0, a1**2 * ridges, temperature=0.5)
    for k in (0, 8, 60):
        assert grid[k] == softmax_error(1.0, a1**2 * ridges[k], temperature=0.5)
    assert np.all(np.diff(grid) > 0)


def test_vectorized_over_temperature():
    tau = np.array([0.5, 1.0, 2.0])[:, None]
    grid = softmax_error(1.0, [0.01, 1.0], temperature=tau)
    assert grid.shape == (3, 2)
    np.testing.assert_allclose(grid[1], softmax_error(1.0, [0.01, 1.0]), rtol=1e-12)


def test_scale_and_formula():
    assert np.isclose(softmax_scale(101, 25, 0.5), 100 * np.exp(2.0) / 5)
    assert softmax_formula(2) == "exp(x/2.0) - exp(1/(2*2.0**2))"


@pytest.mark.parametrize("tau, message", [(0.0, "> 0"), (-1.0, "> 0"), (MIN_TEMPERATURE / 2, "must be >="),
                                          (np.inf, "finite"), ("1", "real number")])
def test_bad_temperatures_are_refused(tau, message):
    with pytest.raises(ParameterError, match=message):
        softmax_error(1.0, 0.1, temperature=tau)


def test_exported_from_the_package():
    assert symrmt.softmax_error is softmax_error
