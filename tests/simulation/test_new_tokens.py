"""Tests of symrmt.simulation.new_tokens: the in-context test error of simulate(..., test_tokens=N), against a
token-by-token reference, the exact mean of the linear baseline, and planted errors (key and query swapped for the
new token, the d x term dropped)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from symrmt.simulation import memory, simulate
from symrmt.simulation.model import attention_matrix, draw, scores
from symrmt.simulation.new_tokens import (DEFAULT_TEST_TOKENS, TOKEN_BLOCK, expected_linear_errors, probe_weights,
                                          token_bytes, token_count, token_errors)
from symrmt.simulation.routes import Plan
from symrmt.simulation.setup import validated_model, with_f

#: w_K != w_Q and both partly along mu: K is not symmetric, so swapping key and query for the new token changes E.
SKEWED = Geometry(mu_norm=1.0, wk_norm=1.5, wq_norm=1.0, cos_mu_wk=0.8, cos_mu_wq=-0.3, cos_wk_wq=0.1)
GAMMAS = np.array([0.05, 1.0])


def _context(n, c, geometry, d, seed, f=np.tanh):
    """The draw of simulate's seed generator ``seed`` (model, y, X, K, vectors, rng after the context)."""
    model, _ = validated_model(n, c, geometry, None, d, False)
    model = with_f(model, f)
    rng = np.random.default_rng(seed)
    y, X, vectors = draw(model, rng)
    S, _ = scores(X.copy(), vectors, False, None)
    K = attention_matrix(S, model)
    return model, y, X, K, vectors, rng


def _reference(y, X, K, vectors, d, gammas, tokens, rng, f=np.tanh, swap=False, drop_d=False):
    """Token by token, with dense M = I + w_K w_Q^T and a direct solve for each probe (the planted errors on demand)."""
    p, n = X.shape
    mu, wk, wq = vectors
    M = np.eye(p) + np.outer(wk, wq)
    if swap:
        M = M.T                       # the new token as the key, the context tokens as queries
    F = X @ K
    probes = [F @ np.linalg.solve(F.T @ F / n + g * np.eye(n), y) / n for g in gammas]
    lin = [X @ np.linalg.solve(X.T @ X / n + g * np.eye(n), y) / n for g in gammas]
    y_star = 2.0 * rng.integers(0, 2, size=tokens) - 1
    Z = rng.standard_normal((tokens, p))
    attention, linear = np.zeros(len(gammas)), np.zeros(len(gammas))
    for t in range(tokens):
        x = y_star[t] * mu + Z[t]
        k = f(X.T @ M @ x / np.sqrt(p)) / np.sqrt(p)
        a = X @ k + (0.0 if drop_d else d) * x
        attention += [(y_star[t] - w @ a) ** 2 for w in probes]
        linear += [(y_star[t] - w @ x) ** 2 for w in lin]
    return attention / tokens, linear / tokens


def test_token_errors_match_token_by_token_reference():
    n, c, d, tokens = 40, 1.5, 0.7, TOKEN_BLOCK + 37     # two blocks, the second partial
    model, y, X, K, vectors, rng = _context(n, c, SKEWED, d, 3)
    state = rng.bit_generator.state
    got = token_errors(model, y, X, K, vectors, GAMMAS, tokens, rng)
    rng.bit_generator.state = state
    expected = _reference(y, X, K, vectors, d, GAMMAS, tokens, rng)
    # Both are float64 sums of ~1e3 squares of O(1) predictions from well-conditioned solves (gamma >= 0.05):
    # rounding is ~1e-13 relative; 1e-9 leaves a margin and still catches any change of the model.
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-9)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-9)


@pytest.mark.parametrize("plant", ["swap", "drop_d"])
def test_reference_catches_planted_errors(plant):
    n, c, d, tokens = 40, 1.5, 0.7, 300
    model, y, X, K, vectors, rng = _context(n, c, SKEWED, d, 3)
    state = rng.bit_generator.state
    got = token_errors(model, y, X, K, vectors, GAMMAS, tokens, rng)[0]
    rng.bit_generator.state = state
    planted = _reference(y, X, K, vectors, d, GAMMAS, tokens, rng, **{plant: True})[0]
    # The plants move E by O(1e-2) or more on the same tokens; the implementation agrees with the model to 1e-9.
    assert np.max(np.abs(got - planted) / got) > 1e-4


@pytest.mark.parametrize("shape", [(30, 50), (50, 30), (40, 40)])
def test_probe_weights_match_direct_solve(shape):
    rng = np.random.default_rng(1)
    F, y = rng.standard_normal(shape), np.sign(rng.standard_normal(shape[1]))
    n = shape[1]
    gammas = np.array([1e-9, 1e-3, 1.0, 30.0])      # 1e-9 forces the SVD branch (Gram rounding too coarse)
    got = probe_weights(F, y, gammas)
    for g, column in zip(gammas, got.T):
        # The reference solves on the full-rank side (n-side when m >= n, p-side when m < n), whose condition is
        # at most ~1e3 here even at g = 1e-9; both sides are the same vector (push-through identity).
        if shape[0] >= n:
            direct = F @ np.linalg.solve(F.T @ F / n + g * np.eye(n), y) / n
        else:
            direct = np.linalg.solve(F @ F.T / n + g * np.eye(shape[0]), F @ y / n)
        np.testing.assert_allclose(column, direct, rtol=1e-8, atol=1e-10 * np.linalg.norm(direct))


def test_linear_token_average_estimates_its_exact_mean():
    n, c, tokens = 60, 0.5, 4000
    model, y, X, K, vectors, rng = _context(n, c, Geometry(mu_norm=1.0), 0.0, 5)
    _, linear = token_errors(model, y, X, K, vectors, GAMMAS, tokens, rng)
    exact = expected_linear_errors(probe_weights(X, y, GAMMAS), vectors[0])
    # (y* - w^T x) is Gaussian given y* with E of its square the same for y* = +-1, so the square has sd <= sqrt(2) E;
    # the average of N tokens is within 5 sqrt(2) E / sqrt(N) but with probability ~6e-7.
    assert np.all(np.abs(linear - exact) <= 5 * np.sqrt(2) * exact / np.sqrt(tokens))


def test_simulate_keeps_interpolation_numbers_and_adds_the_test_errors():
    kwargs = dict(n=48, c=1.0, gamma=GAMMAS, geometry=SKEWED, d=0.2, seeds=3, seed=11, progress=False)
    plain = simulate("tanh(x)", **kwargs)
    tested = simulate("tanh(x)", **kwargs, test_tokens=500)
    assert plain.test is None and "test" not in plain.as_dict()
    np.testing.assert_array_equal(plain.attention_per_seed, tested.attention_per_seed)
    np.testing.assert_array_equal(plain.linear_per_seed, tested.linear_per_seed)
    test = tested.test
    assert test.tokens == 500 and test.attention_per_seed.shape == (3, 2)
    np.testing.assert_allclose(test.attention_mean, test.attention_per_seed.mean(axis=0))
    np.testing.assert_allclose(test.linear_se, test.linear_per_seed.std(axis=0, ddof=1) / np.sqrt(3))
    mean, lo, hi = test.interval("linear")
    assert np.all((lo < mean) & (mean < hi))
    assert tested.as_dict()["test"]["tokens"] == 500
    # seed k is seed k: the same numbers from a run with one more seed
    more = simulate("tanh(x)", **{**kwargs, "seeds": 4}, test_tokens=500)
    np.testing.assert_array_equal(more.test.attention_per_seed[:3], test.attention_per_seed)


def test_no_signal_test_error_is_at_least_one_on_average():
    # mu = 0: y* is independent of x, so any prediction adds to E[y*^2] = 1 (up to the token average's noise).
    res = simulate("tanh(x)", 48, 1.0, GAMMAS, seeds=2, progress=False, test_tokens=3000)
    assert np.all(res.test.attention_per_seed > 1 - 5 * np.sqrt(2) / np.sqrt(3000))
    assert np.all(res.test.linear_per_seed > 1 - 5 * np.sqrt(2) / np.sqrt(3000))


def test_token_count_reads_its_argument():
    assert token_count(None) is None and token_count(False) is None
    assert token_count(True) == DEFAULT_TEST_TOKENS and token_count(7) == 7
    for bad in (0, -3, 2.5, "many"):
        with pytest.raises(ParameterError, match="test_tokens"):
            token_count(bad)


def test_softmax_with_test_tokens_is_refused():
    with pytest.raises(ParameterError, match="test_tokens"):
        simulate(None, 32, 1.0, 0.1, seeds=2, attention="softmax", progress=False, test_tokens=10)


def test_token_errors_refuse_softmax_model():
    model, y, X, K, vectors, rng = _context(20, 1.0, None, 0.0, 0)
    softmax = dataclasses.replace(model, attention="softmax")
    with pytest.raises(ParameterError, match="entrywise"):
        token_errors(softmax, y, X, K, vectors, GAMMAS, 10, rng)


@pytest.mark.slow
def test_first_monte_carlo_of_the_issue():
    """tanh, c = 1, |mu| = 1 with aligned weights (|w_K| = |w_Q| = 1), n = 512, gamma = 1: attention generalizes
    better (test 0.59 against 0.70) although it interpolates worse (0.40 against 0.28)."""
    aligned = Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
    res = simulate("tanh(x)", 512, 1.0, 1.0, aligned, seeds=8, progress=False, test_tokens=True)
    paired = res.test.linear_per_seed[:, 0] - res.test.attention_per_seed[:, 0]
    # 8 seeds: t_{0.995, 7} = 3.5 standard errors; the paired gap (~0.11) is ~20 of its standard errors.
    assert paired.mean() > 3.5 * paired.std(ddof=1) / np.sqrt(8)
    assert res.attention_mean[0] > res.linear_mean[0]
    np.testing.assert_allclose([res.test.attention_mean[0], res.test.linear_mean[0]], [0.59, 0.70], atol=0.03)


def test_memory_check_counts_the_test_tokens(monkeypatch):
    plan = Plan.of("exact", 2000, 2000)
    base = memory._peak_bytes(plan, 2, 3, None)
    # a budget between the run's need without test tokens and with them: only the latter is refused
    monkeypatch.setattr(memory, "available_memory", lambda: base + token_bytes(2000, 2000) / 2)
    memory.check_memory(plan, 2, 3)
    with pytest.raises(ParameterError, match="GiB"):
        memory.check_memory(plan, 2, 3, test_tokens=True)
