"""symrmt.simulation.kernel_ridge: the same draws as simulate, then the ridge on K alone."""
import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.simulation import simulate_kernel_ridge
from symrmt.simulation.kernel_ridge import KernelRidgeResult

from .reference import ASYMMETRIC, GAMMAS, reference_draw


def _reference_kernel_ridge(K, y, gammas):
    """The ridge y ~ K^T w solved once per gamma, error = mean squared residual (docs/architecture.md)."""
    n = y.size
    out = []
    for g in gammas:
        w = np.linalg.solve(K @ K.T + g * np.eye(n), K @ y)
        out.append(np.sum((y - K.T @ w) ** 2) / n)
    return np.array(out)


@pytest.mark.parametrize("c, d", [(1.0, 0.0), (0.5, 0.3)])
def test_matches_the_slow_reference_draw_by_draw(c, d):
    """Seed k of simulate_kernel_ridge is the reference draw of SeedSequence(seed).spawn(seeds)[k]."""
    res = simulate_kernel_ridge(np.tanh, 40, c, GAMMAS, ASYMMETRIC, d, seeds=2, seed=5, progress=False)
    for k, child in enumerate(np.random.SeedSequence(5).spawn(2)):
        _, K, y = reference_draw(np.tanh, 40, c, ASYMMETRIC, d, np.random.default_rng(child))
        assert np.allclose(res.per_seed[k], _reference_kernel_ridge(K, y, GAMMAS), rtol=1e-9, atol=1e-12)


def test_result_shapes_summary_and_read_only_arrays():
    res = simulate_kernel_ridge("tanh(x)", 32, 1.0, [0.1, 1.0, 10.0], seeds=3, progress=False)
    assert isinstance(res, KernelRidgeResult) and res.per_seed.shape == (3, 3) and (res.n, res.p) == (32, 32)
    assert np.allclose(res.mean, res.per_seed.mean(0)) and np.allclose(res.se, res.per_seed.std(0, ddof=1) / np.sqrt(3))
    assert np.all(np.diff(res.per_seed, axis=1) > 0) and np.all(res.per_seed <= 1)
    with pytest.raises(ValueError):
        res.mean[0] = 0.0


def test_scale_identity_holds_exactly_at_finite_n():
    r"""f -> s f, d -> s d multiplies K by s, so E(gamma) becomes E(gamma / s^2) on the same draw."""
    s, gamma = 2.5, np.array([0.05, 0.5, 5.0])
    base = simulate_kernel_ridge(np.tanh, 48, 1.2, gamma, ASYMMETRIC, 0.2, seeds=2, progress=False)
    scaled = simulate_kernel_ridge(lambda x: s * np.tanh(x), 48, 1.2, gamma * s**2, ASYMMETRIC, 0.2 * s, seeds=2,
                                   progress=False)
    assert np.allclose(scaled.per_seed, base.per_seed, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kwargs, needle", [
    ({"seeds": 1}, "seeds"),
    ({"gamma": [0.0, 1.0]}, "gamma"),
    ({"gram": -np.eye(3)}, "positive semi-definite"),
])
def test_bad_input_is_refused_as_in_simulate(kwargs, needle):
    args = {"f": np.tanh, "n": 16, "c": 1.0, "gamma": [0.1], "progress": False, **kwargs}
    with pytest.raises(ParameterError, match=needle):
        simulate_kernel_ridge(**args)
