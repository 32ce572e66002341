"""Softmax attention in the simulator: the matrix against a slow reference, its orientation, its numerics."""
from __future__ import annotations

import math

import numpy as np
import pytest

from symrmt import simulate
from symrmt.errors import ParameterError
from symrmt.geometry import Geometry
from symrmt.simulation import setup, simulate_once, simulate_spectrum
from symrmt.simulation import model as sim_model
from symrmt.simulation.linalg import LANCZOS_RTOL
from symrmt.simulation.softmax import softmax_scale
from symrmt.validate import MIN_TEMPERATURE

from .reference import ASYMMETRIC, GAMMAS, reference_draw, reference_errors, reference_softmax_scores


def softmax_model(n, c, geometry=None, tau=1.0, mask=True, weights=None, normalize=None):
    """A validated softmax Model, as :func:`symrmt.simulate` builds it."""
    model, _ = setup.validated_model(n, c, geometry, None, 0.0, False, weights)
    return setup.with_attention(model, None, "softmax", tau, mask, normalize)


def simulated_softmax(n, c, geometry, tau, seed, mask=True, normalize=None):
    """``(X, y, K')`` of one draw through the simulator's own functions."""
    model = softmax_model(n, c, geometry, tau, mask, normalize=normalize)
    y, X, vectors = sim_model.draw(model, np.random.default_rng(seed))
    S, _ = sim_model.scores(X, vectors, keep_gram=False)
    return X, y, sim_model.attention_matrix(S, model)


def reference_scores(n, c, geometry, seed):
    """``(X, y, S)`` of the same draw, the slow way (explicit M; :mod:`.reference`)."""
    X, _, y = reference_draw(np.tanh, n, c, geometry, 0.0, np.random.default_rng(seed))
    p = X.shape[0]
    _, w_k, w_q = geometry.vectors(p)
    M = np.eye(p) + np.outer(w_k, w_q)
    return X, y, X.T @ M @ X / math.sqrt(p)


@pytest.mark.parametrize("normalize", ["keys", "queries"])
@pytest.mark.parametrize("tau", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("geometry", [Geometry(), ASYMMETRIC], ids=["noise", "asymmetric"])
def test_softmax_matrix_matches_the_slow_reference(geometry, tau, normalize):
    """Each column (keys: the default) or row (queries), normalized over the other tokens with fsum, times
    (n-1)e^{1/(2 tau^2)}/sqrt(p); then E."""
    n, c = 40, 1.3
    X, y, K = simulated_softmax(n, c, geometry, tau, seed=5, normalize=normalize)
    X_ref, y_ref, S = reference_scores(n, c, geometry, seed=5)
    np.testing.assert_array_equal(X, X_ref)
    reference = reference_softmax_scores(S, X.shape[0], tau, columns=normalize == "keys")
    np.testing.assert_allclose(K, reference, rtol=1e-11, atol=0)
    np.testing.assert_allclose(reference_errors(X, K, y, GAMMAS)[0], reference_errors(X, reference, y, GAMMAS)[0],
                               rtol=1e-9)


def test_each_query_is_normalized_over_its_keys():
    """S_ij pairs key i with query j, and column j of XK' is the output of query j: by default each column sums to
    the scale (K^sm_ij = e^{S_ij/tau}/sum_{k != j} e^{S_kj/tau}), the diagonal is 0; normalize="queries" sums each
    row instead, and with w_K != w_Q (S not symmetric) that is a different matrix and error."""
    n, c, tau = 40, 1.3, 1.0
    X, y, K = simulated_softmax(n, c, ASYMMETRIC, tau, seed=2)
    scale = softmax_scale(n, X.shape[0], tau)
    np.testing.assert_allclose(K.sum(axis=0), scale, rtol=1e-13)
    assert np.all(np.diag(K) == 0.0)
    _, _, rows = simulated_softmax(n, c, ASYMMETRIC, tau, seed=2, normalize="queries")
    np.testing.assert_allclose(rows.sum(axis=1), scale, rtol=1e-13)
    assert np.max(np.abs(rows - K)) > 0.1 * np.max(K)
    ours, theirs = reference_errors(X, K, y, GAMMAS)[0], reference_errors(X, rows, y, GAMMAS)[0]
    assert np.max(np.abs(ours - theirs) / ours) > 1e-3


def test_the_normalization_is_recorded_and_checked():
    keys = simulate(None, 32, 1.0, [0.1], seeds=2, attention="softmax", progress=False)
    queries = simulate(None, 32, 1.0, [0.1], seeds=2, attention="softmax", normalize="queries", progress=False)
    assert keys.softmax["normalize"] == "keys" and queries.softmax["normalize"] == "queries"
    assert not np.allclose(keys.attention_per_seed, queries.attention_per_seed)


def test_stable_where_naive_exponentials_overflow():
    """Scores of several hundred over tau = MIN_TEMPERATURE: exp(S/tau) overflows, the shifted softmax does not."""
    n, c = 30, 1.0
    strong = Geometry(mu_norm=2.0, wk_norm=6.0, wq_norm=6.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)
    X, y, K = simulated_softmax(n, c, strong, MIN_TEMPERATURE, seed=3)
    _, _, S = reference_scores(n, c, strong, seed=3)
    off = S[~np.eye(n, dtype=bool)]
    with np.errstate(over="ignore"):
        assert not np.all(np.isfinite(np.exp(off / MIN_TEMPERATURE)))      # the naive route fails here
    assert np.all(np.isfinite(K))
    np.testing.assert_allclose(K, reference_softmax_scores(S, X.shape[0], MIN_TEMPERATURE, columns=True), rtol=1e-10,
                               atol=1e-300)


def test_unmasked_diagonal_is_degenerate():
    """With the self-token kept, S_jj ~ sqrt(p) takes all the weight: K' -> sigma I, the features sigma X, so
    E_attn(gamma) = E_lin(gamma / sigma^2) on the same draws (to the off-diagonal mass, below 1% at p = 256)."""
    n, c, tau = 256, 1.0, 1.0
    _, _, K = simulated_softmax(n, c, Geometry(), tau, seed=1, mask=False)
    scale = softmax_scale(n, n, tau)
    assert np.min(np.diag(K)) > (1 - 1e-2) * scale
    gamma = np.array([0.01, 0.1, 1.0])
    unmasked = simulate(None, n, c, gamma, seeds=2, attention="softmax", mask_diagonal=False, progress=False)
    linear = simulate(np.tanh, n, c, gamma / scale**2, seeds=2, progress=False)
    np.testing.assert_allclose(unmasked.attention_per_seed, linear.linear_per_seed, rtol=1e-3)
    masked = simulate(None, n, c, gamma, seeds=2, attention="softmax", progress=False)
    assert np.all(masked.attention_mean > 10 * unmasked.attention_mean)


def test_every_route_gives_the_same_numbers():
    """The fast routes take K' as they take an entrywise K (tridiagonal and Lanczos against eigh), each within its
    promise: Lanczos stops when its certified bracket is LANCZOS_RTOL wide, so its midpoint is within half of that."""
    gamma = np.array([1e-3, 0.05, 1.0, 20.0])
    runs = {method: simulate(None, 200, 0.8, gamma, Geometry(mu_norm=1.0), seeds=2, attention="softmax",
                             temperature=0.7, method=method, progress=False) for method in ("exact", "tridiagonal",
                                                                                               "lanczos")}
    for method in ("tridiagonal", "lanczos"):
        np.testing.assert_allclose(runs[method].attention_per_seed, runs["exact"].attention_per_seed, rtol=LANCZOS_RTOL)
    assert runs["lanczos"].routes["attention"] != {"exact": 2}


def test_dense_weights_against_the_reference():
    """weights=M (a dense p x p matrix): the softmax of X^T M X/sqrt(p), column by column, as the reference builds it."""
    n, c, tau = 48, 1.0, 0.8
    p = round(c * n)
    w_k, w_q = np.zeros(p), np.zeros(p)
    w_k[1], w_q[1], w_q[2] = 1.2, 0.6, 0.5
    M = np.eye(p) + np.outer(w_k, w_q)
    gamma = [0.05, 0.5]
    dense = simulate_once(None, n, c, gamma, Geometry(mu_norm=1.0), 0.0, np.random.default_rng(4), weights=M,
                          attention="softmax", temperature=tau)
    model = softmax_model(n, c, Geometry(mu_norm=1.0), tau, weights=M)
    y, X, _ = sim_model.draw(model, np.random.default_rng(4))
    K = reference_softmax_scores(X.T @ M @ X / math.sqrt(p), p, tau, columns=True)
    np.testing.assert_allclose(dense[0], reference_errors(X, K, y, np.array(gamma))[0], rtol=1e-9)


def test_result_records_the_softmax():
    result = simulate(None, 32, 1.0, [0.1], seeds=2, attention="softmax", temperature=0.5, progress=False)
    assert result.softmax == {"temperature": 0.5, "mask_diagonal": True, "normalize": "keys",
                              "scale": softmax_scale(32, 32, 0.5)}
    assert result.as_dict()["softmax"]["temperature"] == 0.5
    assert "softmax_temperature" in result.to_csv().splitlines()[0]
    assert simulate(np.tanh, 32, 1.0, [0.1], seeds=2, progress=False).softmax is None


@pytest.mark.parametrize("call, message", [
    (lambda: simulate(np.tanh, 32, 1.0, 0.1, attention="softmax"), "fixes f"),
    (lambda: simulate(None, 32, 1.0, 0.1), "needs a nonlinearity"),
    (lambda: simulate(np.tanh, 32, 1.0, 0.1, temperature=2.0), "softmax' only"),
    (lambda: simulate(np.tanh, 32, 1.0, 0.1, mask_diagonal=False), "softmax' only"),
    (lambda: simulate(np.tanh, 32, 1.0, 0.1, normalize="keys"), "softmax' only"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", normalize="rows"), "must be one of"),
    (lambda: simulate(None, 32, 1.0, 0.1, d=0.5, attention="softmax"), "masks the diagonal"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", temperature=0.01), "must be >="),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", temperature=-1.0), "must be > 0"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", temperature=np.nan), "finite"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", mask_diagonal="no"), "True or False"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="sparsemax"), "must be one of"),
    (lambda: simulate(None, 32, 1.0, 0.1, attention="softmax", params={"s": 1.0}), "no parameters"),
    (lambda: simulate_spectrum(None, 32, 1.0, matrix="kernel", attention="softmax"), "not symmetric"),
    (lambda: simulate(None, 10**6, 1.0, 0.1, attention="softmax"), "memory"),
])
def test_refusals_are_one_line(call, message):
    with pytest.raises(ParameterError, match=message) as info:
        call()
    assert "\n" not in str(info.value)


def test_spectrum_of_the_softmax_gram_matrix():
    """The Gram eigenvalues of the softmax draws are those of the simulator's K' (same seeds, same draws)."""
    eigenvalues = simulate_spectrum(None, 40, 0.5, attention="softmax", seeds=1, progress=False)
    _, _, K = simulated_softmax(40, 0.5, Geometry(), 1.0, seed=np.random.SeedSequence(0).spawn(1)[0])
    model = softmax_model(40, 0.5)
    y, X, vectors = sim_model.draw(model, np.random.default_rng(np.random.SeedSequence(0).spawn(1)[0]))
    S, _ = sim_model.scores(X, vectors, keep_gram=False)
    F = X @ sim_model.attention_matrix(S, model)
    np.testing.assert_allclose(eigenvalues, np.sort(np.linalg.eigvalsh(F.T @ F / 40)), atol=1e-9)
