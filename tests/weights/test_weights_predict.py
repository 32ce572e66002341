"""From a fitted real matrix to the simulator and the theory: MatrixFit.weights, MatrixFit.gram, the s-mapping."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from symrmt.simulation import align_signal, simulate
from symrmt.simulation.model import scores
from symrmt.weight_matrix import read_weight_matrix
from symrmt.theory import attention_error
from symrmt.nonlinearity.scaled import scaled_data
from symrmt.weights import MatrixFit, RankFit, fitted_attention_error, regime_ratio
from symrmt.weights.fit import CompressedMatrix


def planted(s: float, query: np.ndarray, key: np.ndarray) -> MatrixFit:
    r"""The fits of the key-first :math:`M = sI + \sum_k k_k q_k^\top` (rows of ``key``, ``query``), symrmt's
    orientation, with the known optimum planted at its rank: the mapping is tested here, the fit in test_weights_fit."""
    p = query.shape[1]
    M = s * np.eye(p) + key.T @ query
    r = len(query)
    fits = (RankFit(0, float(np.trace(M)) / p, 1.0, 0.0),) + tuple(
        RankFit(k, s if k == r else float("nan"), 0.0 if k == r else 1.0, 0.0) for k in range(1, r + 1))
    antisymmetric = float(np.linalg.norm(M - M.T) / (2 * np.linalg.norm(M)))
    return MatrixFit(0, None, np.linalg.svd(M, compute_uv=False), fits, antisymmetric, CompressedMatrix(M, None, p))


def rows(rng, r, p, norm=1.0):
    out = rng.standard_normal((r, p))
    return norm * out / np.linalg.norm(out, axis=1, keepdims=True)


# --------------------------------------------------------------------------- orientation: fit -> simulate


def test_weights_are_the_key_first_matrix_the_simulator_needs():
    """simulate's S_ij (key i, query j) from fit.weights() is the model's score (W_Q x_j).(W_K x_i)/sqrt(d)."""
    rng = np.random.default_rng(0)
    p, d = 12, 4
    WQ, WK = rng.standard_normal((p, p)), rng.standard_normal((p, p))
    fit = planted(0.0, WQ / d**0.25, WK / d**0.25)           # M = W_K^T W_Q / sqrt(d), s = 0
    X = rng.standard_normal((p, 9))
    model = ((WQ @ X).T @ (WK @ X) / np.sqrt(d)).T             # [i, j] = query j against key i
    S, _ = scores(X, np.zeros((3, p)), False, read_weight_matrix(fit.weights(), p))
    np.testing.assert_allclose(S, model / np.sqrt(p), rtol=1e-12)
    assert not np.allclose(S, model.T / np.sqrt(p))            # the test sees a transposition
    np.testing.assert_allclose(fit.weights(scale=2.5), 2.5 * fit.dense())      # handed out as held


def test_factored_weights_rebuild_the_scaled_fit():
    rng = np.random.default_rng(1)
    p = 10
    query, key = rows(rng, 2, p, 1.5), rows(rng, 2, p)
    fit = planted(-0.4, query, key)
    s, w_k, w_q = fit.weights(2, scale=3.0)
    assert s == pytest.approx(-1.2)
    np.testing.assert_allclose(s * np.eye(p) + w_k.T @ w_q, 3.0 * fit.dense(), atol=1e-12)
    with pytest.raises(ParameterError, match="scale"):
        fit.weights(scale=-1.0)


# --------------------------------------------------------------------------- the Gram matrix of the mapping


def test_gram_of_rank_zero_is_mu_alone_and_stacks_broadcast():
    rng = np.random.default_rng(2)
    p = 8
    fit = planted(0.5, rows(rng, 1, p), rows(rng, 1, p))
    mu = rng.standard_normal(p)
    np.testing.assert_allclose(fit.gram(0, mu), np.diag([mu @ mu, 0.0, 0.0]))
    stack = rng.standard_normal((2, 3, p))
    grams = fit.gram(1, stack)
    assert grams.shape == (2, 3, 3, 3)
    np.testing.assert_allclose(grams[1, 2], fit.gram(1, stack[1, 2]), rtol=1e-14)
    with pytest.raises(ParameterError, match="length p = 8"):
        fit.gram(1, mu[:5])


def _a1_nu(f, s):
    data = scaled_data(f, s)
    return data["a1"], data["nu"]


def test_the_mapping_is_the_theory_of_the_rescaled_weights():
    """fitted_attention_error = attention_error(f_s, gram of (mu, w_K/sqrt|s|, sign(s) w_Q/sqrt|s|)), by hand."""
    rng = np.random.default_rng(3)
    p, s = 16, -0.8
    query, key = rows(rng, 1, p, 1.2), rows(rng, 1, p, 0.9)
    fit = planted(s, query, key)
    mu = rng.standard_normal(p)
    gamma = np.array([0.05, 0.5])
    sigma = np.linalg.norm(query) * np.linalg.norm(key)
    # M = s I + key^T query: w_K along key, w_Q along query, each of norm sqrt(sigma) (the balanced split)
    w_k = np.sqrt(sigma) * key[0] / np.linalg.norm(key) / np.sqrt(abs(s))
    w_q = np.sign(s) * np.sqrt(sigma) * query[0] / np.linalg.norm(query) / np.sqrt(abs(s))
    sign = np.sign(fit.spikes(1)[0][0] @ key[0])               # the SVD's sign of the pair
    V = np.stack([mu, sign * w_k, sign * w_q])
    expected = attention_error(_a1_nu("tanh(x)", s), 1.5, gamma, gram=V @ V.T)
    np.testing.assert_allclose(fitted_attention_error(fit, 1, "tanh(x)", 1.5, gamma, mu), expected, rtol=1e-12)
    # the balanced split is a convention: the theory is the same for w_K * a, w_Q / a
    V_split = np.stack([mu, 2.0 * sign * w_k, 0.5 * sign * w_q])
    np.testing.assert_allclose(attention_error(_a1_nu("tanh(x)", s), 1.5, gamma, gram=V_split @ V_split.T),
                               expected, rtol=1e-8)
    assert regime_ratio(fit, 1) == pytest.approx(abs(s) * np.sqrt(p) / fit.singular_values[0])


def test_zero_shift_is_refused():
    fit = planted(0.0, np.eye(4)[:1], np.eye(4)[1:2])
    with pytest.raises(ParameterError, match="s = 0"):
        fitted_attention_error(fit, 1, "tanh(x)", 1.0, 0.1, np.ones(4))


# --------------------------------------------------------------------------- the mapping against the Monte Carlo

SEEDS = 6
#: The O(1/n) finite-size bias of the deterministic equivalent, as in tests/validation (BIAS / n).
BIAS = 20.0


@pytest.mark.slow
def test_the_mapping_predicts_the_monte_carlo_of_the_fitted_matrix():
    r"""s I + rank 1 with a negative s and O(1) spikes (|s| sqrt(p)/sigma_1 = 15 >> 1): the theory through
    f_s and the rescaled Gram matrix matches simulate(weights=fit.weights(1)) within a 99% t band + BIAS/n,
    and a planted error (sign(s) left out of w_Q) falls outside it."""
    rng = np.random.default_rng(3)
    n = p = 256
    query, key = rows(rng, 1, p, 1.2), rows(rng, 1, p, 1.0)
    key[0] += 0.5 * query[0] / 1.2                               # partly aligned
    fit = planted(-1.3, query, key)
    mu = query[0] / np.linalg.norm(query[0]) + key[0] / np.linalg.norm(key[0])
    mu /= np.linalg.norm(mu)
    gamma = np.array([0.05, 0.3, 2.0])
    assert regime_ratio(fit, 1) > 10
    theory = fitted_attention_error(fit, 1, "tanh(x)", 1.0, gamma, mu)
    mc = simulate("tanh(x)", n, 1.0, gamma, Geometry(mu_norm=1.0), weights=align_signal(fit.weights(1), mu),
                  seeds=SEEDS, progress=False)
    band = stats.t.ppf(0.995, SEEDS - 1) * mc.attention_se + BIAS / n
    assert np.all(np.abs(mc.attention_mean - theory) < band), (mc.attention_mean, theory, band)
    wrong = fit.gram(1, mu)
    wrong[2, :2] *= -1
    wrong[:2, 2] *= -1                                           # w_Q without sign(s)
    planted_error = attention_error(_a1_nu("tanh(x)", -1.3), 1.0, gamma, gram=wrong)
    assert np.any(np.abs(mc.attention_mean - planted_error) > band)
