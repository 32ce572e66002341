"""The numeric solver against independent computations (no simulation here)."""
import time

import numpy as np
import pytest
from scipy import integrate

from symrmt.errors import SymrmtInputError
from symrmt.geometry import Geometry
from symrmt.solve import marchenko_pastur_rule
from symrmt.theory import attention_error, linear_error, solve_attention

TANH = (0.6057055, 0.3942945)   # docs/theory.md section 2 (7 digits is all these tests need)


def mp_density(lam, c):
    q = 1 / c
    lo, hi = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    return np.sqrt(np.clip((hi - lam) * (lam - lo), 0, None)) / (2 * np.pi * q * lam), lo, hi


@pytest.mark.parametrize("c", [0.3, 0.5, 1.0, 2.0, 5.0])
def test_marchenko_pastur_rule_moments(c):
    lam, w = marchenko_pastur_rule(np.array(c), 96)
    # A = Z^T Z / p has E[lambda] = 1, E[lambda^2] = 1 + 1/c.
    assert np.isclose(w.sum(), 1, atol=1e-12)
    assert np.isclose((w * lam).sum(), 1, atol=1e-12)
    assert np.isclose((w * lam**2).sum(), 1 + 1 / c, atol=1e-12)


@pytest.mark.parametrize("c", [0.5, 2.0])
@pytest.mark.parametrize("gamma", [0.03, 1.0])
def test_linear_noise_only_against_scipy_quad(c, gamma):
    # E_lin = gamma^2 E[(gamma + c lambda)^{-2}] (noise only), by adaptive quadrature of the MP density.
    _, lo, hi = mp_density(1.0, c)
    integral = integrate.quad(lambda x: mp_density(x, c)[0] / (gamma + c * x) ** 2, lo, hi, epsabs=1e-13)[0]
    integral += max(0.0, 1 - c) / gamma**2
    assert np.isclose(linear_error(c, gamma), gamma**2 * integral, rtol=1e-9)


def test_linear_noise_only_closed_form_at_c_1():
    # MP(1): E[(1 + lambda)^{-2}] = 1/sqrt(5).
    assert np.isclose(linear_error(1.0, 1.0), 1 / np.sqrt(5), rtol=1e-10)


def _section3_error(a1, nu, c, gamma, d, nodes=400):
    """docs/theory.md section 5 solved independently: 2x2 pencil, Gauss-Legendre, damped Picard, finite differences."""
    b2, kappa = nu - a1**2, d - a1
    q = 1 / c
    lo, hi = (1 - np.sqrt(q)) ** 2, (1 + np.sqrt(q)) ** 2
    x, wx = np.polynomial.legendre.leggauss(nodes)
    phi = (x + 1) * np.pi / 2
    lam = (hi + lo) / 2 - (hi - lo) / 2 * np.cos(phi)
    w = wx * np.pi / 2 * ((hi - lo) / 2) ** 2 * np.sin(phi) ** 2 / (2 * np.pi * q * lam)
    atom = max(0.0, 1 - c)

    def trace_q(g, t):
        for _ in range(20000):
            alpha = g - b2 * t[2]
            beta = a1 * lam + kappa - b2 * t[1]
            delta = -1 / (c * lam) - b2 * t[0]
            den = alpha * delta - beta**2
            e11 = (w * delta / den).sum() + atom / alpha
            new = np.array([e11, (w * -beta / den).sum(), (w * alpha / den).sum()]) / c
            if np.max(np.abs(new - t)) < 1e-14:
                return e11, new
            t = 0.5 * t + 0.5 * new
        raise AssertionError("reference iteration did not converge")

    t = np.zeros(3)
    for g in np.geomspace(100.0, gamma, 60):
        _, t = trace_q(g, t)
    h = 1e-5 * gamma
    up, _ = trace_q(gamma + h, t)
    down, _ = trace_q(gamma - h, t)
    return -gamma**2 * (up - down) / (2 * h)


@pytest.mark.parametrize("c,gamma,d", [(0.5, 0.05, 0.0), (1.0, 0.1, 0.0), (2.0, 0.5, 0.0), (1.0, 0.2, 0.4)])
def test_attention_noise_only_matches_independent_section3_solution(c, gamma, d):
    ours = attention_error(TANH, c, gamma, d=d)
    assert np.isclose(ours, _section3_error(*TANH, c, gamma, d), rtol=2e-6)


def test_implicit_derivative_matches_finite_differences():
    g = Geometry(1.2, 1.5, 0.8, 0.6, -0.3, 0.1)
    gamma, h = 0.2, 1e-5
    res = solve_attention(TANH, 1.5, np.array([gamma - h, gamma, gamma + h]), g, d=0.3)
    fd = -gamma**2 * (res.phi[2] - res.phi[0]) / (2 * h)
    assert np.isclose(res.error[1], fd, rtol=1e-6)


def test_quadrature_refinement_converges_at_small_gamma():
    # The embedded error estimate must push small gamma at c = 1 to enough nodes: compare two start levels.
    from symrmt.derive import attention_system
    from symrmt.solve import solve

    params = dict(c=1.0, gamma=np.array([1e-3, 1e-2]), a_1=TANH[0], b=np.sqrt(TANH[1] - TANH[0] ** 2), d=0.0,
                  theta=1.0, alpha_K=0.5, alpha_Q=0.5, omega_KK=1.0, omega_QQ=1.0, omega_KQ=1.0)
    system = attention_system()
    coarse, fine = solve(system, params, nodes=48), solve(system, params, nodes=1296)
    assert np.allclose(coarse["E"], fine["E"], atol=1e-8)


def test_residuals_are_reported_and_small():
    res = solve_attention(TANH, np.array([0.5, 1.0, 2.0]), np.geomspace(1e-2, 10, 7)[:, None], Geometry(mu_norm=1))
    assert res.error.shape == (7, 3) and np.all(res.residual < 1e-9)


def test_vectorized_equals_pointwise():
    c = np.array([0.5, 1.0, 3.0])
    gamma = np.array([0.05, 0.3, 2.0])
    g = Geometry(1.0, 1.0, 1.0, 0.5, 0.5, 0.5)
    together = attention_error(TANH, c, gamma, g, d=0.2)
    one_by_one = [attention_error(TANH, ci, gi, g, d=0.2) for ci, gi in zip(c, gamma)]
    assert np.allclose(together, one_by_one, atol=1e-10)


@pytest.mark.parametrize("bad", [dict(c=0.0), dict(c=-1.0), dict(gamma=0.0), dict(gamma=np.nan)])
def test_bad_parameters_are_refused(bad):
    kwargs = dict(c=1.0, gamma=0.1) | bad
    with pytest.raises(SymrmtInputError):
        attention_error(TANH, **kwargs)


def test_nu_below_a1_squared_is_refused():
    with pytest.raises(SymrmtInputError, match="nu >= a_1"):
        attention_error((1.0, 0.5), 1.0, 0.1)


def test_ridgeless_limit_on_noise_is_the_null_space_fraction():
    # y is independent of X on noise, and K^T C K has rank p = cn < n: E(0+) = 1 - c.
    from symrmt.theory import ridgeless_error

    for c in (0.3, 0.5, 0.8):
        assert np.isclose(ridgeless_error(TANH, c), 1 - c, atol=2e-6)
        assert np.isclose(ridgeless_error(TANH, c, kind="linear"), 1 - c, atol=2e-6)


def test_ridgeless_limit_refuses_when_not_reached_and_tiny_gamma_is_refused():
    from symrmt.errors import ConvergenceError
    from symrmt.theory import ridgeless_error

    with pytest.raises(ConvergenceError, match="not reached"):
        ridgeless_error(TANH, 2.0)
    with pytest.raises(ConvergenceError, match="too small for the quadrature"):
        attention_error(TANH, 1.0, 1e-10)      # would need ~7e5 nodes at c = 1 (MAX_NODES = 34992)
    start = time.monotonic()
    with pytest.raises(ConvergenceError, match="stalled"):
        attention_error(TANH, 1.0, 1e-12)      # steps at round-off level: the continuation stops (MIN_RATIO)
    assert time.monotonic() - start < 60       # refused promptly (was 170 s of round-off-level steps)
