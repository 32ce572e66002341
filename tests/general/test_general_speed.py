"""The fast p-side: exact derivatives of the traces, the exact tangent, and the number of evaluations per point."""
import numpy as np
import pytest

from symrmt.general import solve_general
from symrmt.general import kernel
from symrmt.nonlinearity.scaled import scaled_hermite
from symrmt.general.kernel import MatrixData, pair_traces
from symrmt.general.solver import PathSystem, solve_path


def _matrix(p, seed=1):
    rng = np.random.default_rng(seed)
    M = 0.3 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p) + 0.5 * np.triu(rng.standard_normal((p, p))) / np.sqrt(p)
    return M * (np.sqrt(p) / np.linalg.norm(M))


@pytest.mark.parametrize("small", [0.05, 10.0])
def test_trace_derivatives_match_finite_differences(small, monkeypatch):
    # both routes to the derivatives (the identity aH = N - I - gS^2, and one product when |a| is small) against a
    # fourth-order central difference (step 1e-4: truncation ~1e-14, round-off ~1e-12)
    monkeypatch.setattr(kernel, "_A_SMALL", small)
    data = MatrixData(_matrix(50))
    f = lambda a, e: pair_traces(data, a, e)[0]
    h = 1e-4
    for a, e in [(0.3, 0.1), (0.02, -0.05), (-0.2, 0.1)]:
        _, D, _ = pair_traces(data, a, e, derivatives=True)
        da = (8 * (f(a + h, e) - f(a - h, e)) - (f(a + 2 * h, e) - f(a - 2 * h, e))) / (12 * h)
        de = (8 * (f(a, e + h) - f(a, e - h)) - (f(a, e + 2 * h) - f(a, e - 2 * h))) / (12 * h)
        assert np.allclose(D, np.column_stack([da, de]), atol=1e-9, rtol=0)


def test_a_wrong_derivative_is_caught():
    # the power of the check above: a derivative 1% off fails it
    data = MatrixData(_matrix(50))
    a, e, h = 0.3, 0.1, 1e-4
    _, D, _ = pair_traces(data, a, e, derivatives=True)
    f = lambda e_: pair_traces(data, a, e_)[0]
    de = (8 * (f(e + h) - f(e - h)) - (f(e + 2 * h) - f(e - 2 * h))) / (12 * h)
    assert np.allclose(D[:, 1], de, atol=1e-9)
    assert not np.allclose(1.01 * D[:, 1], de, atol=1e-6)


@pytest.mark.parametrize("signal", [False, True])
def test_error_equals_a_difference_of_converged_solutions(signal):
    # E = -gamma^2 dPhi/dgamma from the exact tangent (no signal) or a difference along it (signal) against an
    # independent Richardson difference of Phi between solutions converged at gamma (1 +- h): their error is
    # O(h^4) plus the solver's tolerance (1e-12) over h; 1e-8 leaves a factor 10 over what is measured
    p = 60
    M = _matrix(p, 7)
    rng = np.random.default_rng(3)
    mu = rng.standard_normal(p) / np.sqrt(p) if signal else None
    for g in (0.01, 0.3, 5.0):
        E = solve_general("tanh(x)", 1.0, [g], M, mu=mu).error[0]
        est = []
        for h in (2e-3, 1e-3):
            phi = solve_general("tanh(x)", 1.0, [g * (1 - h), g * (1 + h)], M, mu=mu).phi
            est.append(-g * (phi[1] - phi[0]) / (2 * h))
        assert E == pytest.approx((4 * est[1] - est[0]) / 3, abs=1e-8)


def test_two_to_three_evaluations_per_point():
    # one evaluation gives the residual and its exact Jacobian, and the Hermite predictor in log gamma is good to
    # ~1e-7 on a 50-point grid, so Newton needs one step and one check per point (plus the start from large gamma)
    p = 80
    data = MatrixData(_matrix(p))
    herm = scaled_hermite("tanh(x)", data.sigma, data.rho)
    system = PathSystem(data, herm, 1.0, 0.0, None)
    solve_path(system, np.geomspace(0.01, 10, 50), 2e-5)
    assert system.evaluations <= 3 * 50
