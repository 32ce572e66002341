"""symrmt.theory.kernel_ridge_error against closed forms, quadrature and the symmetries of the model.

No simulation here (that is tests/validation/test_kernel_ridge_vs_simulation.py): the solver's
numbers for the kernel ridge system are checked where the model reduces to one spectral law.
"""
import numpy as np
import pytest
from scipy import integrate

from _support.marchenko_pastur import mp_expectation
from symrmt.geometry import Geometry
from symrmt.theory import attention_error, kernel_ridge_error, solve_kernel_ridge

TANH = (0.6057055, 0.3942945)   # docs/theory.md section 2
ASYMMETRIC = Geometry(1.2, 1.0, 0.7, 0.6, -0.3, 0.4)
GAMMA = np.array([0.03, 0.3, 3.0])


@pytest.mark.parametrize("c, d", [(1.0, 1.0), (0.5, 0.3), (2.0, -0.4)])
def test_linear_f_without_signal_is_a_marchenko_pastur_average(c, d):
    r"""f = x (a_1 = nu = 1, b = 0): K = A + (d - 1) I, so E = gamma^2 E_lambda[(gamma + (lambda + d - 1)^2)^-2]."""
    expected = [g**2 * mp_expectation(lambda x: 1 / (g + (x + d - 1) ** 2) ** 2, c).real for g in GAMMA]
    assert np.allclose(kernel_ridge_error((1.0, 1.0), c, GAMMA, d=d), expected, rtol=0, atol=1e-7)


@pytest.mark.parametrize("c", [0.5, 1.0, 3.0])
def test_no_linear_component_is_a_semicircle_and_blind_to_the_signal(c):
    r"""a_1 = d = 0: K = b W/sqrt(p), semicircular of variance b^2/c; E = gamma^2 E[(gamma + x^2)^-2]."""
    nu = 0.7
    radius = 2 * np.sqrt(nu / c)
    density = lambda x: np.sqrt(radius**2 - x**2) / (np.pi * radius**2 / 2)
    expected = [g**2 * integrate.quad(lambda x: density(x) / (g + x**2) ** 2, -radius, radius)[0] for g in GAMMA]
    assert np.allclose(kernel_ridge_error((0.0, nu), c, GAMMA), expected, rtol=0, atol=1e-7)
    assert np.allclose(kernel_ridge_error((0.0, nu), c, GAMMA, ASYMMETRIC), expected, rtol=0, atol=1e-7)


def test_signal_lowers_the_error_and_the_model_differs_from_attention():
    noise = kernel_ridge_error(TANH, 1.0, GAMMA)
    signal = kernel_ridge_error(TANH, 1.0, GAMMA, ASYMMETRIC)
    assert np.all(signal < noise - 0.01)
    assert np.all(np.abs(signal - attention_error(TANH, 1.0, GAMMA, ASYMMETRIC)) > 0.01)


def test_range_monotonicity_and_the_large_gamma_limit():
    gamma = np.logspace(-3, 4, 15)
    error = kernel_ridge_error(TANH, 0.7, gamma, ASYMMETRIC, d=0.2)
    assert np.all((0 <= error) & (error <= 1)) and np.all(np.diff(error) > 0)
    assert error[-1] > 1 - 1e-3


def test_sign_and_scale_symmetries():
    r"""f -> -f, d -> -d leaves K^T K unchanged; f -> s f, d -> s d gives E(gamma / s^2)."""
    a1, nu = TANH
    base = kernel_ridge_error((a1, nu), 1.3, GAMMA, ASYMMETRIC, d=0.3)
    assert np.allclose(kernel_ridge_error((-a1, nu), 1.3, GAMMA, ASYMMETRIC, d=-0.3), base, rtol=0, atol=1e-9)
    s = 1.7
    scaled = kernel_ridge_error((s * a1, s**2 * nu), 1.3, GAMMA * s**2, ASYMMETRIC, d=0.3 * s)
    assert np.allclose(scaled, base, rtol=0, atol=1e-9)


def test_rank_two_with_an_empty_second_pair_is_rank_one():
    gram = np.zeros((5, 5))
    gram[np.ix_([0, 1, 3], [0, 1, 3])] = ASYMMETRIC.gram()
    assert np.allclose(kernel_ridge_error(TANH, 0.8, GAMMA, gram=gram), kernel_ridge_error(TANH, 0.8, GAMMA, ASYMMETRIC),
                       rtol=0, atol=1e-10)


def test_the_solution_reports_unknowns_and_residuals():
    solution = solve_kernel_ridge(TANH, 1.0, GAMMA)
    assert solution.unknown_names == ("t_11", "t_12", "t_22") and np.all(solution.residual < 1e-10)
    assert np.all(solution.phi <= 1 / GAMMA)
