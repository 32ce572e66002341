"""Several heads: the summed heads' theory (one head with averaged weights at gamma/H^2) against their Monte Carlo.

Tolerance of the theory check: t_{0.995}(seeds - 1) se + 20/n, as in tests/validation/test_theory_vs_simulation.py
(the O(1/n) allowance measured there for aligned weights); 4 seeds at n = 512 (slow: n = 1024, where the
summed Monte Carlo was measured at 0.081, 0.228, 0.406 against the theory's 0.079, 0.221, 0.395). It is shown
to catch a theory that forgets the factor H^2 in the ridge.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from symrmt import simulate
from symrmt.errors import ParameterError
from symrmt.theory.heads import averaged_gram, summed_heads_error
from symrmt.simulation.heads import simulate_heads

SEEDS = 4
GAMMA = np.array([0.03, 0.3, 3.0])
#: (mu, w_K1, w_K2, w_Q1, w_Q2): |mu| = 1; head 1 aligned with mu (norm 1), head 2 orthogonal to it (norm 1.2).
TWO_HEADS = np.array([[1.0, 1.0, 0.0, 1.0, 0.0],
                      [1.0, 1.0, 0.0, 1.0, 0.0],
                      [0.0, 0.0, 1.44, 0.0, 1.44],
                      [1.0, 1.0, 0.0, 1.0, 0.0],
                      [0.0, 0.0, 1.44, 0.0, 1.44]])


def test_averaged_gram_divides_the_weights_by_sqrt_h():
    averaged = averaged_gram(TWO_HEADS, 2)
    assert averaged[0, 0] == 1.0 and averaged[0, 1] == pytest.approx(1 / np.sqrt(2)) and averaged[2, 4] == 0.72
    np.testing.assert_array_equal(averaged_gram(TWO_HEADS, 1), TWO_HEADS)


def test_one_head_is_simulate_on_the_same_draws():
    """H = 1, summed or concatenated: the features are X K, so the errors are simulate's, draw for draw."""
    gram = TWO_HEADS[np.ix_([0, 1, 3], [0, 1, 3])]
    reference = simulate("tanh(x)", 48, 1.3, GAMMA, gram=gram, seeds=2, progress=False).attention_per_seed
    for combine in ("sum", "concat"):
        heads = simulate_heads("tanh(x)", 48, 1.3, GAMMA, gram, heads=1, combine=combine, seeds=2, progress=False)
        np.testing.assert_allclose(heads.per_seed, reference, rtol=1e-10)


def summed_within_tolerance(theory: np.ndarray, n: int) -> bool:
    mc = _summed(n)
    return bool(np.all(np.abs(mc.mean - theory) <= stats.t.ppf(0.995, SEEDS - 1) * mc.se + 20.0 / n))


_RUNS = {}


def _summed(n: int):
    if n not in _RUNS:
        _RUNS[n] = simulate_heads("tanh(x)", n, 1.0, GAMMA, TWO_HEADS, heads=2, seeds=SEEDS, progress=False)
    return _RUNS[n]


@pytest.mark.parametrize("n", [512, pytest.param(1024, marks=pytest.mark.slow)])
def test_summed_heads_match_one_head_with_averaged_weights(n):
    assert summed_within_tolerance(summed_heads_error("tanh(x)", 1.0, GAMMA, TWO_HEADS, heads=2), n)


def test_the_check_catches_a_ridge_without_h_squared():
    from symrmt import attention_error

    wrong = attention_error("tanh(x)", 1.0, GAMMA, None, 0.0, averaged_gram(TWO_HEADS, 2))
    assert not summed_within_tolerance(wrong, 512)


def test_concatenated_heads_are_not_the_summed_ones():
    """The stacked features see sum_h K_h^T C K_h: about H times one averaged head's Gram (not H^2), plus a
    low-rank term; on the same draws their error differs from the summed heads' by far more than the noise."""
    summed = _summed(512)
    concat = simulate_heads("tanh(x)", 512, 1.0, GAMMA, TWO_HEADS, heads=2, combine="concat", seeds=SEEDS,
                            progress=False)
    diff = concat.per_seed - summed.per_seed
    assert np.all(np.abs(diff.mean(axis=0)) > 5 * diff.std(axis=0, ddof=1) / np.sqrt(SEEDS))


@pytest.mark.parametrize("call, message", [
    (lambda: simulate_heads(np.tanh, 32, 1.0, 0.1, TWO_HEADS, heads=3), "not a multiple of 3"),
    (lambda: simulate_heads(np.tanh, 32, 1.0, 0.1, TWO_HEADS, heads=2, combine="mean"), "must be one of"),
    (lambda: simulate_heads(np.tanh, 32, 1.0, 0.1, None, heads=2), "Gram matrix"),
    (lambda: summed_heads_error("tanh(x)", 1.0, 0.1, TWO_HEADS, heads=0), "heads"),
    (lambda: averaged_gram(np.eye(4), 1), "shape"),
])
def test_refusals_are_one_line(call, message):
    with pytest.raises(ParameterError, match=message) as info:
        call()
    assert "\n" not in str(info.value)
