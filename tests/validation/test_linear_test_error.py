"""Ridge regression's in-context test error: the Marchenko-Pastur limit (symrmt.theory.generalization) against the
finite model, with and without signal, at c in {0.5, 1, 2} and gamma from 0.01 to 10, and a planted error caught.

Each draw gives the exact mean over new tokens, (1 - v^T mu)^2 + ||v||^2 with v = X Q_lin y/n
(symrmt.simulation.new_tokens.expected_linear_errors; the token average of simulate(..., test_tokens=N) estimates
it, tests/simulation/test_new_tokens.py), so the only noise is the spread between contexts."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from symrmt.simulation import simulate
from symrmt.simulation.new_tokens import expected_linear_errors, probe_weights
from symrmt.simulation.seeds import t_quantile
from symrmt.theory.generalization import linear_test_error, linear_test_parts, marchenko_pastur_traces

GAMMAS = np.array([0.01, 0.1, 1.0, 10.0])
CASES = [(c, m) for c in (0.5, 1.0, 2.0) for m in (0.0, 1.0)]
#: The finite-size bias of the draws, relative: the limit drops O(1/n) terms (the n - 1 columns of the Wishart part,
#: the quadratic forms' corrections); measured below 0.035 from n = 32 and below 1/n from n = 64 within the seeds'
#: resolution (200 seeds, docs/theory.md section 19.3), so 6/n is allowed besides the seeds' interval.
FINITE_SIZE = 6.0


@functools.lru_cache(maxsize=None)
def linear_draws(n: int, c: float, mu_norm: float, seeds: int) -> np.ndarray:
    """(seeds, G): the exact test error of ridge regression given each drawn context, on :data:`GAMMAS` (cached: the
    planted errors are judged on the same draws)."""
    p = round(c * n)
    out = []
    for seed in range(seeds):
        rng = np.random.default_rng([seed, n])
        y = 2.0 * rng.integers(0, 2, size=n) - 1
        mu = np.zeros(p)
        mu[0] = mu_norm
        X = rng.standard_normal((p, n)) + np.outer(mu, y)
        out.append(expected_linear_errors(probe_weights(X, y, GAMMAS), mu))
    out = np.array(out)
    out.setflags(write=False)
    return out


def misses(draws: np.ndarray, theory: np.ndarray, n: int, level: float = 0.999) -> np.ndarray:
    """Points where the theory lies outside the seeds' t interval (``level``) widened by the finite-size allowance."""
    seeds = draws.shape[0]
    half = t_quantile(seeds, level) * draws.std(axis=0, ddof=1) / np.sqrt(seeds)
    return np.abs(draws.mean(axis=0) - theory) > half + FINITE_SIZE / n * theory


@pytest.mark.parametrize("c, mu_norm", CASES)
def test_limit_matches_draws(c, mu_norm):
    n, seeds = 160, 6
    draws = linear_draws(n, c, mu_norm, seeds)
    assert not np.any(misses(draws, linear_test_error(c, GAMMAS, mu_norm), n))


@pytest.mark.parametrize("plant", ["no_norm_term", "signal_in_s_only"])
def test_planted_errors_are_caught(plant):
    # The same draws and tolerance refuse a limit with the ||v||^2 term dropped, or with the signal left out of the
    # Sherman-Morrison denominator (1 + c s instead of 1 + (m + c) s).
    n, seeds, c, m = 160, 6, 1.0, 1.0
    draws = linear_draws(n, c, m, seeds)
    inner, norm2 = linear_test_parts(c, GAMMAS, m)
    if plant == "no_norm_term":
        planted = (1.0 - inner) ** 2
    else:
        s, s2 = marchenko_pastur_traces(c, GAMMAS)
        planted = (1.0 - m * s / (1.0 + c * s)) ** 2 + (m + c) * s2 / (1.0 + c * s) ** 2
    assert np.any(misses(draws, planted, n))


def test_traces_solve_marchenko_pastur_and_differentiate():
    c = np.array([0.3, 1.0, 4.0])[:, None]
    gamma = np.array([1e-3, 0.5, 20.0])[None, :]
    s, s2 = marchenko_pastur_traces(c, gamma)
    np.testing.assert_allclose(c * gamma * s**2 + (gamma + 1 - c) * s - 1, 0.0, atol=1e-12)
    h = 1e-6 * gamma
    numeric = -(marchenko_pastur_traces(c, gamma + h)[0] - marchenko_pastur_traces(c, gamma - h)[0]) / (2 * h)
    np.testing.assert_allclose(s2, numeric, rtol=1e-6)      # central difference: O(h^2) truncation, far below


def test_properties_of_the_limit():
    gamma = np.geomspace(0.01, 1e4, 30)
    for c in (0.5, 1.0, 2.0):
        assert np.all(linear_test_error(c, gamma) >= 1.0)                  # no signal: worse than predicting 0
        assert abs(float(linear_test_error(c, 1e6, 1.0)) - 1.0) < 1e-5       # gamma -> infinity: the probe vanishes
    # the interpolation peak of ridgeless regression sits at c = 1
    cs = np.linspace(0.5, 2.0, 31)
    assert abs(cs[np.argmax(linear_test_error(cs, 1e-3, 1.0))] - 1.0) < 0.06
    with pytest.raises(ParameterError):
        linear_test_error(1.0, 1.0, -1.0)


@pytest.mark.slow
def test_token_monte_carlo_matches_limit_at_the_issue_point():
    """simulate(..., test_tokens=True) at the issue's point (n = 512, c = 1, |mu| = 1, gamma = 1): 0.70."""
    aligned = Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
    res = simulate("tanh(x)", 512, 1.0, [0.1, 1.0], aligned, seeds=8, progress=False, test_tokens=True)
    theory = linear_test_error(1.0, np.array([0.1, 1.0]), 1.0)
    half = t_quantile(8, 0.999) * res.test.linear_se
    assert np.all(np.abs(res.test.linear_mean - theory) <= half + FINITE_SIZE / 512 * theory)


@pytest.mark.slow
@pytest.mark.parametrize("c, mu_norm", [(1.0, 1.0), (1.0, 0.0), (2.0, 1.0), (0.5, 1.0)])
def test_gap_shrinks_with_n(c, mu_norm):
    """n = 512, 1024, 2048 (12 seeds each): inside the interval at every n, and the gap summed over the grid does
    not grow from n = 512 to 2048 beyond the seeds' spread."""
    theory = linear_test_error(c, GAMMAS, mu_norm)
    gaps, spreads = [], []
    for n in (512, 1024, 2048):
        draws = linear_draws(n, c, mu_norm, 12)
        assert not np.any(misses(draws, theory, n))
        gaps.append(np.sum(np.abs(draws.mean(axis=0) - theory) / theory))
        spreads.append(np.sum(draws.std(axis=0, ddof=1) / np.sqrt(12) / theory))
    assert gaps[-1] <= gaps[0] + 3 * spreads[-1]
