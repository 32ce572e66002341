r"""The closed forms of docs/theory.md, checked against the solver.

Each boxed closed form of the page (sections 2, 7, 8 and 12) is written here from the page
alone, in NumPy or SymPy, and compared with what :mod:`symrmt` computes by quadrature and
Newton continuation. The solver targets a quadrature error below 1e-6 but its full rule
converges geometrically: away from the hard edge at :math:`\lambda = 0` (:math:`c = 1` with
:math:`\gamma \lesssim 10^{-3}`) it agrees with these forms to 1e-12 or better, so the
tolerance ``ATOL = 1e-9`` leaves three orders of margin and still catches any wrong term
(a planted error of 1e-6 fails, see ``test_the_tolerance_has_power``).
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symrmt
from symrmt import Geometry

ATOL = 1e-9
GAMMAS = np.array([0.01, 0.1, 1.0, 10.0])
RATIOS = [0.3, 1.0, 2.5]


# --------------------------------------------------------------------------- section 8: linear regression


def mp_tau(gamma, c):
    r""":math:`\tau = \mathbb E_\lambda[1/(\gamma + c\lambda)]`, the positive root of :math:`\gamma\tau^2 + (\gamma + c - 1)\tau - 1 = 0`."""
    b = gamma + c - 1
    return (-b + sp.sqrt(b**2 + 4 * gamma)) / (2 * gamma)


def linear_phi(gamma, c, theta):
    r""":math:`\Phi_\mathrm{lin} = \tau/(1 + \theta\tau(c - 1 + \gamma\tau)/c)` (docs/theory.md, section 8)."""
    tau = mp_tau(gamma, c)
    return tau / (1 + theta * tau * (c - 1 + gamma * tau) / c)


def _error_from_phi(phi_of_gamma, c, theta, gammas) -> np.ndarray:
    """E = -gamma^2 dPhi/dgamma, differentiated exactly by SymPy."""
    g = sp.Symbol("gamma", positive=True)
    error = sp.lambdify(g, -g**2 * sp.diff(phi_of_gamma(g, c, theta), g), "numpy")
    return np.array([float(error(x)) for x in gammas])


def test_linear_error_at_c_1_without_signal():
    """Boxed: E_lin(gamma) = sqrt(gamma / (gamma + 4)) at c = 1, theta = 0 (and 1/sqrt(5) at gamma = 1)."""
    gammas = np.geomspace(1e-3, 1e3, 13)
    np.testing.assert_allclose(symrmt.linear_error(1.0, gammas), np.sqrt(gammas / (gammas + 4)), rtol=0, atol=ATOL)
    assert symrmt.linear_error(1.0, 1.0) == pytest.approx(1 / np.sqrt(5), abs=ATOL)


@pytest.mark.parametrize("c", RATIOS)
@pytest.mark.parametrize("theta", [0.0, 1.0, 4.0])
def test_linear_phi_and_error_with_signal(c, theta):
    """Boxed: Phi_lin = tau / (1 + theta tau (c - 1 + gamma tau)/c) and E_lin = -gamma^2 Phi_lin'."""
    geometry = Geometry(mu_norm=np.sqrt(theta))
    solved = symrmt.solve_linear(c, GAMMAS, geometry)
    phi = np.array([float(linear_phi(sp.Float(x), c, theta)) for x in GAMMAS])
    np.testing.assert_allclose(solved.phi, phi, rtol=0, atol=ATOL)
    np.testing.assert_allclose(solved.error, _error_from_phi(linear_phi, c, theta, GAMMAS), rtol=0, atol=ATOL)


@pytest.mark.parametrize("c", RATIOS)
def test_linear_error_without_signal_in_tau(c):
    """E_lin = gamma^2 tau (1 + tau) / (2 gamma tau + gamma + c - 1) when theta = 0."""
    tau = np.array([float(mp_tau(sp.Float(x), c)) for x in GAMMAS])
    expected = GAMMAS**2 * tau * (1 + tau) / (2 * GAMMAS * tau + GAMMAS + c - 1)
    np.testing.assert_allclose(symrmt.linear_error(c, GAMMAS), expected, rtol=0, atol=ATOL)


# --------------------------------------------------------------------------- section 7: E itself


@pytest.mark.parametrize("c", RATIOS)
@pytest.mark.parametrize("theta", [0.5, 3.0])
def test_boxed_error_formula_on_the_linear_system(c, theta):
    r"""Boxed: E = -gamma^2 [tau_11' - 2 g'^T C N^{-1} g + g^T C N^{-1} G' C N^{-1} g], N = I + G C.

    On linear regression every ingredient is explicit (section 8): tau_11 = tau_33 = tau,
    g = (-tau, 0), G = diag(tau, theta tau^A) with tau^A = (1 - gamma tau)/c, C = [[theta, 1], [1, 0]];
    the formula must give the solver's E_lin.
    """
    g_ = sp.Symbol("gamma", positive=True)
    tau = mp_tau(g_, c)
    tau_a = (1 - g_ * tau) / c
    G = sp.diag(tau, theta * tau_a)
    g = sp.Matrix([-tau, 0])
    C = sp.Matrix([[theta, 1], [1, 0]])
    N_inv = (sp.eye(2) + G * C).inv()
    bracket = sp.diff(tau, g_) - 2 * (g.diff(g_).T * C * N_inv * g)[0] + (g.T * C * N_inv * G.diff(g_) * C * N_inv * g)[0]
    error = sp.lambdify(g_, -g_**2 * bracket, "numpy")
    expected = np.array([float(error(x)) for x in GAMMAS])
    np.testing.assert_allclose(symrmt.linear_error(c, GAMMAS, Geometry(mu_norm=np.sqrt(theta))), expected,
                               rtol=0, atol=ATOL)


# --------------------------------------------------------------------------- section 12: a_1 = 0


def a1_zero_closed_form(nu: float, c: float, gamma: float) -> tuple[float, float]:
    r"""Boxed: :math:`\nu x^2 (x + c - 1) = c\gamma(1 - x)`, :math:`x = \gamma\Phi` the root in :math:`(\max(0, 1 - c), 1)`.

    Returns :math:`(\Phi, E)` with :math:`E = x - c\gamma(1 - x)/(\nu(3x^2 + 2(c - 1)x) + c\gamma)`.
    """
    lower = max(0.0, 1.0 - c)
    roots = [r.real for r in np.roots([nu, nu * (c - 1), c * gamma, -c * gamma])
             if abs(r.imag) < 1e-12 and lower < r.real < 1.0]
    assert len(roots) == 1, roots   # the page says the physical root is unique there
    x = roots[0]
    return x / gamma, x - c * gamma * (1 - x) / (nu * (3 * x**2 + 2 * (c - 1) * x) + c * gamma)


@pytest.mark.parametrize("f", ["x**3 - 3*x", "cos(x) - exp(-1/2)"])
@pytest.mark.parametrize("c", RATIOS)
def test_a1_zero_is_one_cubic(f, c):
    """a_1 = 0, d = 0: the cubic gives Phi and E, whatever the signal and the weights."""
    h = symrmt.hermite(f)
    assert abs(h.a1) < 1e-14
    expected = np.array([a1_zero_closed_form(h.nu, c, x) for x in GAMMAS])
    for geometry in [None, Geometry(2.0, 1.0, 1.0, 1.0, 1.0, 1.0), Geometry(1.5, 1.0, 0.5, 0.3, -0.7, 0.1)]:
        solved = symrmt.solve_attention(h, c, GAMMAS, geometry)
        np.testing.assert_allclose(solved.phi, expected[:, 0], rtol=0, atol=ATOL)
        np.testing.assert_allclose(solved.error, expected[:, 1], rtol=0, atol=ATOL)


def test_a1_zero_ridgeless_limits():
    """As gamma -> 0 the root tends to max(0, 1 - c), so E -> 1 - c for c < 1 and E -> 0 for c >= 1.

    At c = 1 the approach is slow (x ~ (gamma/nu)^(1/3)), hence gamma = 1e-13 and the loose 1e-4.
    """
    for c in RATIOS:
        _, error = a1_zero_closed_form(6.0, c, 1e-13)
        assert error == pytest.approx(max(0.0, 1.0 - c), abs=1e-4)


@pytest.mark.parametrize("c", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("d", [0.0, 0.7])
def test_large_gamma_first_moment(c, d):
    """E = 1 - 2 m_1/gamma + O(gamma^-2), m_1 = c E[lambda (a_1 lambda + kappa)^2] + b^2 (noise only).

    (1 - E) gamma/2 at gamma and 10 gamma, extrapolated (Richardson, error O(gamma^-2)), gives m_1 to 1e-3.
    """
    h = symrmt.hermite("tanh(x)")
    q = 1 / c
    moments = (1.0, 1 + q, 1 + 3 * q + q * q)
    kappa = d - h.a1
    m1 = c * (h.a1**2 * moments[2] + 2 * h.a1 * kappa * moments[1] + kappa**2 * moments[0]) + h.nu - h.a1**2
    gammas = np.array([1e3, 1e4])
    half_gap = (1 - symrmt.attention_error(h, c, gammas, d=d)) * gammas / 2
    assert (10 * half_gap[1] - half_gap[0]) / 9 == pytest.approx(m1, rel=1e-3)
    linear = (1 - symrmt.linear_error(c, gammas)) * gammas / 2
    assert (10 * linear[1] - linear[0]) / 9 == pytest.approx(c, rel=1e-3)
    if c == 0.5 and d == 0.0:   # the page's numbers: attention beats regression at large gamma here
        assert m1 == pytest.approx(1.128, abs=5e-4) and m1 > c


# --------------------------------------------------------------------------- section 2: Stein's lemma


def test_tanh_a1_plus_nu_is_one():
    """Boxed: a_1 = E[tanh'] = 1 - E[tanh^2] = 1 - nu (Stein's lemma), so a_1 + nu = 1."""
    h = symrmt.hermite("tanh(x)")
    assert h.a1 + h.nu == pytest.approx(1.0, abs=1e-13)
    assert h.a1 == pytest.approx(0.6057055, abs=1e-7)   # the value quoted on the page


# --------------------------------------------------------------------------- power


def test_the_tolerance_has_power():
    """A closed form off by 1e-6 (the solver's quadrature target) would be caught by ATOL."""
    c, theta = 2.5, 1.0
    planted = _error_from_phi(lambda g, c_, t: linear_phi(g, c_, t) * (1 + 1e-6), c, theta, GAMMAS)
    assert np.max(np.abs(symrmt.linear_error(c, GAMMAS, Geometry(mu_norm=1.0)) - planted)) > ATOL
