"""symrmt.theory.density: eigenvalue densities against an independent free convolution, closed forms, and simulation."""
import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from _support.marchenko_pastur import mp_expectation
from symrmt.theory.density import cauchy_smoothed, spectral_density

TANH = (0.6057055, 0.3942945)


def _free_convolution(a1, nu, c, d, z):
    r"""Stieltjes transform of (a_1 A + (d - a_1) I) boxplus semicircle(b^2/c), by subordination.

    m(z) = m_mu(z + sigma^2 m(z))... in the convention m(z) = E[1/(x - z)]:
    m = E_lambda[1 / (a_1 lambda + d - a_1 - z - sigma^2 m)], solved by damped iteration.
    """
    sigma2 = (nu - a1**2) / c
    m = -1 / z
    for _ in range(2000):
        new = mp_expectation(lambda lam: 1 / (a1 * lam + d - a1 - z - sigma2 * m), c)
        if abs(new - m) < 1e-13:
            return new
        m = 0.5 * m + 0.5 * new
    raise AssertionError("the reference iteration did not converge")


@pytest.mark.parametrize("c,d,eta", [(2.0, 0.0, 0.05), (0.5, 0.3, 0.2), (1.0, -0.2, 0.1)])
def test_kernel_density_is_the_free_convolution_with_a_semicircle(c, d, eta):
    x = np.array([-0.8, 0.0, 0.4, 1.1, 2.0])
    ours = spectral_density(TANH, c, x, eta=eta, matrix="kernel", d=d)
    reference = np.array([_free_convolution(*TANH, c, d, xi + 1j * eta) for xi in x])
    assert np.allclose(ours.stieltjes, reference, rtol=0, atol=2e-6)
    assert np.allclose(ours.density, reference.imag / np.pi, rtol=0, atol=1e-6)


def test_a1_zero_kernel_is_a_semicircle():
    # f = x^3 - 3x: a_1 = 0, nu = 6, so K = d I + b W / sqrt(p): semicircle of variance nu / c around d.
    c, d = 1.5, 0.4
    radius = 2 * np.sqrt(6 / c)
    x = np.linspace(d - 1.2 * radius, d + 1.2 * radius, 13)
    exact = np.sqrt(np.clip(radius**2 - (x - d) ** 2, 0, None)) * 2 / (np.pi * radius**2)
    assert np.allclose(spectral_density((0.0, 6.0), c, x, matrix="kernel", d=d).density, exact, atol=1e-6)


@pytest.mark.parametrize("c", [0.3, 0.5, 0.8])
def test_gram_matrix_has_an_atom_1_minus_c(c):
    # K^T X^T X K / n has rank at most p = c n < n.
    assert spectral_density(TANH, c, [1.0]).atom == pytest.approx(1 - c, abs=1e-3)
    assert spectral_density(TANH, 1 / c, [1.0]).atom == 0.0


def test_density_integrates_to_one_minus_the_atom():
    # c = 0.5: the support is about (0, 25), with 7.5% of the mass in a peak below 0.02 (so a
    # geometric grid there, and a linear one above).
    x = np.concatenate([np.geomspace(1e-6, 0.02, 200), np.linspace(0.02, 26, 500)[1:]])
    result = spectral_density(TANH, 0.5, x, matrix="gram")
    assert np.trapezoid(result.density, x) + result.atom == pytest.approx(1.0, abs=2e-3)
    x = np.linspace(-3, 4, 500)
    kernel = spectral_density(TANH, 2.0, x, matrix="kernel", d=0.2)
    assert np.trapezoid(kernel.density, x) == pytest.approx(1.0, abs=1e-3)


def test_kernel_refuses_asymmetric_weights_and_bad_input():
    with pytest.raises(ParameterError, match="symmetric"):
        spectral_density(TANH, 1.0, [0.0], matrix="kernel", geometry=Geometry(0, 1, 1, 0, 0, 0.3))
    spectral_density(TANH, 1.0, [0.0], matrix="kernel", geometry=Geometry(1, 1, 1, 0.5, 0.5, 1.0))
    G = np.diag([1.0, 1.0, 1.0])
    G[1, 2] = G[2, 1] = -1.0                                # w_Q = -w_K: sum w_K w_Q^T = -w w^T is symmetric
    spectral_density(TANH, 1.0, [0.0], matrix="kernel", gram=G)
    for bad in (dict(matrix="other"), dict(eta=-1.0), dict(eta=np.nan)):
        with pytest.raises(ParameterError):
            spectral_density(TANH, 1.0, [0.0], **bad)


def _simulated_eigenvalues(n, c, d, matrix, seed):
    """Independent of symrmt.simulation: the model written out once more."""
    p = int(round(c * n))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((p, n))
    S = X.T @ X / np.sqrt(p)
    np.fill_diagonal(S, 0.0)
    K = np.tanh(S) / np.sqrt(p)
    np.fill_diagonal(K, d)
    if matrix == "kernel":
        return np.linalg.eigvalsh(K)
    F = X @ K
    return np.linalg.eigvalsh(F.T @ F / n)


@pytest.mark.slow
@pytest.mark.parametrize("matrix,c,x", [("kernel", 2.0, np.linspace(-1, 2.5, 15)),
                                        ("gram", 1.0, np.linspace(0.05, 4, 15))])
def test_densities_match_simulated_eigenvalues_and_the_gap_shrinks_with_n(matrix, c, x):
    eta, d, seeds = 0.1, 0.2, 2
    theory = spectral_density(TANH, c, x, eta=eta, matrix=matrix, d=d).density
    gaps = {}
    for n in (512, 2048):
        eigenvalues = np.concatenate([_simulated_eigenvalues(n, c, d, matrix, s) for s in range(seeds)])
        gaps[n] = np.abs(cauchy_smoothed(eigenvalues, x, eta) - theory).max()
    # The smoothed density is the linear statistic (1/n) sum_i phi_x(lambda_i) with the Cauchy kernel
    # phi_x of width eta. Its fluctuations and its finite-n bias are both O(||phi_x'||_inf / n) for these
    # ensembles (linear statistics have O(1) variance, corrections O(1/n)); ||phi_x'||_inf =
    # 3 sqrt(3) / (8 pi eta^2). Pooling seeds shrinks only the fluctuation, so the bound ignores them.
    bound = 3 * np.sqrt(3) / (8 * np.pi * eta**2) / 2048
    assert gaps[2048] <= bound, gaps
    assert gaps[2048] < 0.75 * gaps[512], gaps      # measured ratio about 1/3
