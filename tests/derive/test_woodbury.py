"""symrmt.derive.woodbury: the low-rank correction, against the Woodbury identity by hand."""
import sympy as sp

from symrmt.derive import attention_system, linear_system
from symrmt.derive import symbols as S
from symrmt.derive.attention import PHI


def test_rank_r_woodbury_carries_2r_plus_6_vectors():
    for r in (1, 2, 3):
        assert attention_system(r).observables[PHI].size == 2 * r + 6


def test_linear_yqy_closed_form_with_rank_one_signal():
    # Woodbury by hand for Q = (gamma + cA + P/n)^{-1}: compare the derived formula in the averages.
    value = linear_system().observables[PHI].expression()
    t11, t13, t33, ta33 = (S.tau_symbol(1, 1), S.tau_symbol(1, 3), S.tau_symbol(3, 3), S.tau_symbol(3, 3, True))
    theta = S.theta
    # G = diag(t33, theta*ta33), C = [[theta, 1], [1, 0]], g = (t13, 0)
    G, C, g = sp.diag(t33, theta * ta33), sp.Matrix([[theta, 1], [1, 0]]), sp.Matrix([t13, 0])
    hand = t11 - (g.T * C * (sp.eye(2) + G * C).inv() * g)[0, 0]
    assert sp.simplify(value - hand) == 0


def test_a1_zero_kills_the_score_coupling():
    # a_1 = 0: the attention block of the Woodbury core vanishes (only the data block P/n remains).
    core = attention_system().observables[PHI].core.subs(S.a1, 0)
    assert core[:6, :] == sp.zeros(6, 8)
