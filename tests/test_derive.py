"""The derivation layer: each step checked against an independent hand computation."""
import sympy as sp

from symrmt.derive import derive_attention, derive_linear
from symrmt.derive import symbols as S
from symrmt.derive.gaussian_equivalent import data_low_rank, score_low_rank
from symrmt.derive.latex import hermite_substitution, system_latex
from symrmt.derive.pencil import ridge_pencil


def test_score_low_rank_is_sigma_of_theory_md():
    # THEORY.md section 4: L = (a1/p) [y, s, k] Sigma [y, s, q]^T; note alpha_K in row 1, alpha_Q in row 3.
    lr = score_low_rank()
    assert lr.left == ("y", "s", "k") and lr.right == ("y", "s", "q")
    expected = sp.Matrix([[S.theta + S.alpha_K * S.alpha_Q, 1, S.alpha_K], [1, 0, 0], [S.alpha_Q, 0, 1]])
    assert sp.simplify(lr.core - expected) == sp.zeros(3, 3)


def test_data_low_rank_is_p():
    lr = data_low_rank()
    assert lr.terms() == {("y", "y"): S.theta, ("y", "s"): 1, ("s", "y"): 1}


def test_covariance_map_places_wigner_traces_crosswise():
    pencil = ridge_pencil(S.a1 * S.lam + S.d - S.a1, S.b, S.c * S.lam)
    t11, t12, t22 = (S.trace_symbol(1, 1), S.trace_symbol(1, 2), S.trace_symbol(2, 2))
    sigma = pencil.self_energy()
    assert sigma[0, 0] == S.b**2 * t22 and sigma[1, 1] == S.b**2 * t11 and sigma[0, 1] == S.b**2 * t12
    assert sigma[2, 2] == 0 and set(pencil.unknowns()) == {t11, t12, t22}


def test_pencil_top_left_block_is_ridge_resolvent():
    # Schur complement by hand: (gamma + k(lambda)^2 C(lambda))^{-1} when there is no Wigner part.
    k, C = S.a1 * S.lam + S.d, S.c * S.lam
    r11 = ridge_pencil(k, 0, C).resolvent()[0, 0]
    assert sp.simplify(r11 - 1 / (S.gamma + k**2 * C)) == 0


def test_linear_yqy_closed_form_with_rank_one_signal():
    # Woodbury by hand for Q = (gamma + cA + P/n)^{-1}: compare the derived formula in the averages.
    value = derive_linear().woodbury.value()
    t11, t13, t33, ta33 = (S.tau_symbol(1, 1), S.tau_symbol(1, 3), S.tau_symbol(3, 3), S.tau_symbol(3, 3, True))
    theta = S.theta
    # G = diag(t33, theta*ta33), C = [[theta, 1], [1, 0]], g = (t13, 0)
    G, C, g = sp.diag(t33, theta * ta33), sp.Matrix([[theta, 1], [1, 0]]), sp.Matrix([t13, 0])
    hand = t11 - (g.T * C * (sp.eye(2) + G * C).inv() * g)[0, 0]
    assert sp.simplify(value - hand) == 0


def test_attention_reduces_to_noise_only_without_signal():
    deriv = derive_attention().subs({S.theta: 0, S.alpha_K: 0, S.alpha_Q: 0,
                                    S.omega_KK: 0, S.omega_QQ: 0, S.omega_KQ: 0})
    assert sp.simplify(deriv.woodbury.value() - S.tau_symbol(1, 1)) == 0


def test_a1_zero_kills_the_score_coupling():
    # a_1 = 0: the attention block of the Woodbury core vanishes (only the data block P/n remains).
    core = derive_attention().woodbury.core.subs(S.a1, 0)
    assert core[:6, :] == sp.zeros(6, 8)


def test_latex_with_exact_hermite_data():
    text = system_latex(derive_attention(), hermite_substitution(2 / sp.sqrt(3 * sp.pi),
                                                                 2 / sp.pi * sp.asin(sp.Rational(2, 3))))
    assert r"\operatorname{asin}" in text and r"E_\mathrm{attn}" in text and "a_{1}" not in text
    assert r"\mathsf{G}" in text and r"t_{11} &= \frac{\tau_{11}}{c}" in text
