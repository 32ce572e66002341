"""symrmt.solve.marchenko_pastur: the quadrature rule of the law of A = Z^T Z / p."""
import numpy as np
import pytest

from symrmt.solve import RULES, marchenko_pastur_rule


@pytest.mark.parametrize("c", [0.3, 0.5, 1.0, 2.0, 5.0])
def test_marchenko_pastur_rule_moments(c):
    lam, w = marchenko_pastur_rule(np.array(c), 96)
    # A = Z^T Z / p has E[lambda] = 1, E[lambda^2] = 1 + 1/c.
    assert np.isclose(w.sum(), 1, atol=1e-12)
    assert np.isclose((w * lam).sum(), 1, atol=1e-12)
    assert np.isclose((w * lam**2).sum(), 1 + 1 / c, atol=1e-12)


def test_a_rule_with_3k_nodes_embeds_the_rule_with_k():
    # The solver's error estimate takes every third node (from the second) and the node at 0.
    fine, _ = marchenko_pastur_rule(np.array([0.4, 3.0]), 48)
    coarse, _ = marchenko_pastur_rule(np.array([0.4, 3.0]), 16)
    assert np.allclose(fine[:, 1:48:3], coarse[:, :16], rtol=0, atol=1e-15)
    assert np.all(fine[:, -1] == 0) and np.all(coarse[:, -1] == 0)
    lam, w = RULES["marchenko_pastur"]({"c": np.array([2.0])}, 24)
    assert lam.shape == w.shape == (1, 25)
