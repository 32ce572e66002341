"""The one reader of weights= (symrmt.weight_matrix): the forms, the 1e30 bound, and a real model's M."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import symrmt
from symrmt.errors import ParameterError
from symrmt.weight_matrix import MAX_ENTRY, attention_factors, attention_matrix, read_weight_matrix


def _one_line_refusal(call, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no overflow warning on the way to the refusal
        with pytest.raises(ParameterError, match=match) as info:
            call()
    assert "\n" not in str(info.value)


def test_a_huge_matrix_is_refused_by_the_theory_and_the_monte_carlo_alike():
    """M = 1e200 I: one line from the general-M theory, its elliptic model and simulate (the same reader)."""
    from symrmt.general import attention_error_elliptic

    M = 1e200 * np.eye(8)
    _one_line_refusal(lambda: symrmt.attention_error("tanh(x)", 1.0, 0.1, weights=M), "above 1e\\+30")
    _one_line_refusal(lambda: attention_error_elliptic("tanh(x)", 1.0, 0.1, M), "above 1e\\+30")
    _one_line_refusal(lambda: symrmt.simulate("tanh(x)", 8, 1.0, 0.1, weights=M, seeds=1, progress=False),
                      "above 1e\\+30")
    _one_line_refusal(lambda: symrmt.attention_error("tanh(x)", 1.0, 0.1, weights=(np.eye(8), 1e200 * np.eye(8))),
                      "above 1e\\+30")
    read_weight_matrix(MAX_ENTRY * np.eye(8))               # the bound itself is accepted (planted: 1.01 x refused)
    _one_line_refusal(lambda: read_weight_matrix(1.01 * MAX_ENTRY * np.eye(8)), "above 1e\\+30")


def test_the_pair_is_the_matrix_product_bit_for_bit():
    rng = np.random.default_rng(0)
    W_K, W_Q = rng.standard_normal((3, 6)), rng.standard_normal((3, 6))
    assert np.array_equal(read_weight_matrix((W_K, W_Q)).dense(), W_K.T @ W_Q)
    assert np.array_equal(read_weight_matrix(W_K.T @ W_Q, 6).dense(), W_K.T @ W_Q)
    with pytest.raises(ParameterError, match="weights are 6 x 6 but p = 5"):
        read_weight_matrix((W_K, W_Q), 5)


def test_attention_matrix_slices_heads_and_scales():
    """M = W_K^T W_Q / sqrt(d_h), key first; head h = rows h d_h .. (h+1) d_h - 1; the layer is the sum of its heads."""
    rng = np.random.default_rng(1)
    W_K, W_Q = rng.standard_normal((6, 6)), rng.standard_normal((6, 6))     # 3 heads of width 2
    layer = attention_matrix(W_K, W_Q, 2)
    np.testing.assert_array_equal(layer, (W_K.T @ W_Q) * (1 / np.sqrt(2)))
    heads = [attention_matrix(W_K, W_Q, 2, h) for h in range(3)]
    np.testing.assert_allclose(sum(heads), layer, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(heads[1], (W_K[2:4].T @ W_Q[2:4]) * (1 / np.sqrt(2)))
    assert not np.allclose(heads[1], (W_Q[2:4].T @ W_K[2:4]) / np.sqrt(2))  # planted: the query-first orientation
    keys, queries, scale = attention_factors(W_K, W_Q, 2, 2)
    assert np.array_equal(keys, W_K[4:]) and scale == 1 / np.sqrt(2)
    with pytest.raises(ParameterError, match="head 3: the model has 3 heads"):
        attention_matrix(W_K, W_Q, 2, 3)
    with pytest.raises(ParameterError, match="head_dim = 4"):
        attention_matrix(W_K, W_Q, 4)
