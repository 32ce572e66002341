"""symrmt.derive.gaussian_equivalent: the low-rank parts, checked against the hand computation of docs/theory.md."""
import sympy as sp

from symrmt.derive import symbols as S
from symrmt.derive.gaussian_equivalent import data_low_rank, score_low_rank


def test_score_low_rank_is_sigma_of_the_theory():
    # docs/theory.md: L = (a1/p) [y, s, k] Sigma [y, s, q]^T; note alpha_K in row 1, alpha_Q in row 3.
    lr = score_low_rank()
    assert lr.left == ("y", "s", "k") and lr.right == ("y", "s", "q")
    expected = sp.Matrix([[S.theta + S.alpha_K * S.alpha_Q, 1, S.alpha_K], [1, 0, 0], [S.alpha_Q, 0, 1]])
    assert sp.simplify(lr.core - expected) == sp.zeros(3, 3)


def test_rank_r_sigma_has_the_block_structure():
    # Sigma[y, y] = theta + alpha_K . alpha_Q, Sigma[k_i, y] = alpha_Q,i, Sigma[y, q_i] = alpha_K,i, Sigma[k_i, q_j] = delta_ij.
    r = 3
    lr = score_low_rank(r)
    keys, queries = S.weight_vectors(r)
    assert lr.left == ("y", "s", "k1", "k2", "k3") and lr.right == ("y", "s", "q1", "q2", "q3")
    alpha_K = [S.gram_symbol("mu", k) for k in keys]
    alpha_Q = [S.gram_symbol("mu", q) for q in queries]
    expected = sp.zeros(2 + r, 2 + r)
    expected[0, 0] = S.theta + sum(a * b for a, b in zip(alpha_K, alpha_Q))
    expected[0, 1] = expected[1, 0] = 1
    for i in range(r):
        expected[2 + i, 0] = alpha_Q[i]
        expected[0, 2 + i] = alpha_K[i]
        expected[2 + i, 2 + i] = 1
    assert sp.simplify(lr.core - expected) == sp.zeros(2 + r, 2 + r)


def test_data_low_rank_is_p():
    lr = data_low_rank()
    assert lr.terms() == {("y", "y"): S.theta, ("y", "s"): 1, ("s", "y"): 1}
