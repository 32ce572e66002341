"""Unit tests of symrmt.simulation.model: the draw, the scores and the attention matrix."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.errors import NonlinearityError
from symrmt.geometry import Geometry
from symrmt.simulation import setup
from symrmt.simulation import model as sim_model

from .reference import ASYMMETRIC, GAMMAS, RANK2, reference_draw, reference_errors


def built(n, c, geometry=None, gram=None, d=0.0, random_frame=False, f=np.tanh):
    """A validated Model with f, as :func:`symrmt.simulation.simulate` builds it."""
    return setup.with_f(setup.validated_model(n, c, geometry, gram, d, random_frame)[0], f)


def test_reference_has_teeth_on_asymmetry():
    """Swapping w_K and w_Q (K -> K^T) changes E_attn, so the comparisons with the reference can see it."""
    n, c, d = 60, 1.5, 0.3
    X, K, y = reference_draw(np.tanh, n, c, ASYMMETRIC, d, np.random.default_rng(7))
    right = reference_errors(X, K, y, GAMMAS)[0]
    transposed = reference_errors(X, K.T, y, GAMMAS)[0]
    assert np.max(np.abs(right - transposed) / right) > 1e-3


@pytest.mark.parametrize("random_frame", [False, True])
def test_draw_replays_the_documented_order(random_frame):
    """y, then Z, then the frame, from one generator: the reference's X is the simulator's X, bit for bit."""
    model = built(50, 1.2, ASYMMETRIC, d=0.3, random_frame=random_frame)
    y, X, vectors = sim_model.draw(model, np.random.default_rng(11))
    X_ref, _, y_ref = reference_draw(np.tanh, 50, 1.2, ASYMMETRIC, 0.3, np.random.default_rng(11), random_frame)
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(X, X_ref)   # Z + mu y^T, the same sums (added by blocks of rows)
    np.testing.assert_allclose(vectors @ vectors.T, ASYMMETRIC.gram(), atol=1e-12)


def test_rank2_scores_match_explicit_weight_matrix():
    """S = X^T (I + sum_k w_K^(k) w_Q^(k)T) X / sqrt(p) with an explicit p-by-p M (reference)."""
    n, p = 40, 40
    model = built(n, 1.0, gram=RANK2)
    y, X, vectors = sim_model.draw(model, np.random.default_rng(0))
    np.testing.assert_allclose(vectors @ vectors.T, RANK2, atol=1e-12)   # the Gram matrix is realized
    M = np.eye(p) + vectors[1:3].T @ vectors[3:5]
    S, _ = sim_model.scores(X, vectors, keep_gram=False)
    np.testing.assert_allclose(S, X.T @ M @ X / np.sqrt(p), rtol=1e-12, atol=1e-12)


def test_scores_keep_the_linear_gram_on_request():
    model = built(30, 2.0, ASYMMETRIC)
    _, X, vectors = sim_model.draw(model, np.random.default_rng(1))
    S_alone, none = sim_model.scores(X, vectors, keep_gram=False)
    S, C = sim_model.scores(X, vectors, keep_gram=True)
    assert none is None
    np.testing.assert_array_equal(S, S_alone)
    np.testing.assert_allclose(C, X.T @ X / 30, rtol=1e-13, atol=1e-13)


def test_attention_matrix_blocks_and_diagonal(monkeypatch):
    """K = f(S)/sqrt(p) off the diagonal, d on it; f sees the diagonal as 0 (S_ii ~ sqrt(p) would overflow exp),
    by blocks of rows that cover S."""
    monkeypatch.setattr(sim_model, "BLOCK_ROWS", 7)           # several blocks and a ragged last one
    seen = []

    def f(t):
        seen.append(t.copy())
        return np.tanh(t)

    model = built(30, 1.0, ASYMMETRIC, d=0.25, f=f)
    _, X, vectors = sim_model.draw(model, np.random.default_rng(2))
    S, _ = sim_model.scores(X, vectors, keep_gram=False)
    off_diagonal = S - np.diag(np.diag(S))
    expected = np.tanh(off_diagonal) / np.sqrt(30)
    np.fill_diagonal(expected, 0.25)
    K = sim_model.attention_matrix(S, model)
    assert [block.shape[0] for block in seen] == [7, 7, 7, 7, 2]
    np.testing.assert_array_equal(np.vstack(seen), off_diagonal)
    np.testing.assert_allclose(K, expected, rtol=1e-15, atol=1e-16)


def test_attention_matrix_refuses_non_finite_f():
    model = built(20, 1.0, f=lambda t: np.exp(800 * t))
    _, X, vectors = sim_model.draw(model, np.random.default_rng(0))
    S, _ = sim_model.scores(X, vectors, keep_gram=False)
    with pytest.raises(NonlinearityError, match=r"inf or nan.*bounded"):
        sim_model.attention_matrix(S, model)


def test_large_norms_warn_only_above_p_to_the_quarter():
    with pytest.warns(sim_model.FiniteSizeWarning, match=r"p\^\(1/4\)"):
        sim_model.warn_large_norms(Geometry(mu_norm=3.0).gram(), 40)     # 3 > 40^(1/4) = 2.5
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sim_model.warn_large_norms(Geometry(mu_norm=2.0).gram(), 40)
